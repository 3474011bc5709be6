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
    can_be_scheduled = True

    @property
    def summary(self):
        # Airflow's default: the class's name (2.10.3 timetables/base.py:
        # 241-250); a subclass's own attribute or property wins, and
        # DatasetOrTimeSchedule sets its own.
        return self.__dict__.get("_airlite_summary", type(self).__name__)

    @summary.setter
    def summary(self, value):
        self.__dict__["_airlite_summary"] = value

    def validate(self):
        pass

    def serialize(self):
        return {}

    @property
    def type_name(self):
        return "%s.%s" % (type(self).__module__, type(self).__name__)
