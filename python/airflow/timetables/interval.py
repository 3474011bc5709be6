import datetime as _dt

from airflow._airlite.cron import CronMixin, encode_interval
from airflow.exceptions import AirflowTimetableInvalid
from airflow.timetables.base import Timetable


class CronDataIntervalTimetable(CronMixin, Timetable):
    def __init__(self, cron, timezone):
        super().__init__(cron, timezone)

    def serialize(self):
        return {"expression": self._expression, "timezone": self._timezone}


class DeltaDataIntervalTimetable(Timetable):
    def __init__(self, delta):
        self._delta = delta

    @property
    def summary(self):
        return str(self._delta)

    def validate(self):
        # 2.10.3 timetables/interval.py DeltaDataIntervalTimetable.validate
        now = _dt.datetime.now()
        if (now + self._delta) <= now:
            raise AirflowTimetableInvalid("schedule interval must be positive, not %r" % (self._delta,))

    def serialize(self):
        return {"delta": encode_interval(self._delta)}
