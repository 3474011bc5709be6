import datetime as _dt

from airflow._airlite.cron import CronMixin
from airflow.timetables.base import Timetable


class CronTriggerTimetable(CronMixin, Timetable):
    def __init__(self, cron, *, timezone="UTC", interval=_dt.timedelta(), run_immediately=False):
        super().__init__(cron, timezone)
        self._interval = interval
        self._run_immediately = run_immediately

    def serialize(self):
        interval = self._interval.total_seconds() if isinstance(self._interval, _dt.timedelta) else self._interval
        # 2.10.3 timetables/trigger.py:69-78
        return {"expression": self._expression, "timezone": self._timezone, "interval": interval}
