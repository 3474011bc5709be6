"""Timetables as the parse sees them: a summary, a description and the
serialized form (2.10.3 airflow/timetables/)."""


class Timetable:
    description = ""
    summary = ""
    can_be_scheduled = True

    def validate(self):
        pass

    def serialize(self):
        return {}

    @property
    def type_name(self):
        return "%s.%s" % (type(self).__module__, type(self).__name__)
