import datetime as _dt

from airflow._airlite.cron import CronMixin
from airflow.timetables.base import Timetable


class CronDataIntervalTimetable(CronMixin, Timetable):
    def serialize(self):
        return {"expression": self._expression, "timezone": self._timezone}


class DeltaDataIntervalTimetable(Timetable):
    def __init__(self, delta):
        self._delta = delta

    @property
    def summary(self):
        return str(self._delta)

    def serialize(self):
        if isinstance(self._delta, _dt.timedelta):
            return {"delta": self._delta.total_seconds()}
        return {"delta": {"__type": "relativedelta", "__var": dict(vars(self._delta))}}
