"""Timetables as the parse sees them: a summary, a description and the
serialized form (2.10.3 airflow/timetables/)."""
from collections import namedtuple

# The records a custom timetable's methods take and give (2.10.3
# timetables/base.py); airlite does not call those methods.
DataInterval = namedtuple("DataInterval", ["start", "end"])
TimeRestriction = namedtuple("TimeRestriction", ["earliest", "latest", "catchup"])
DagRunInfo = namedtuple("DagRunInfo", ["run_after", "data_interval"])


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
