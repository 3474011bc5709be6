"""The trigger timetables: a run at each fire time, its data interval the
`interval` before it. 2.10.3 airflow/timetables/trigger.py has
CronTriggerTimetable alone (timezone a required keyword, no
run_immediately); Airflow 3.2.1 adds run_immediately, DeltaTriggerTimetable
and MultipleCronTriggerTimetable (c57fba0e airflow-core/src/airflow/
timetables/trigger.py; the task SDK's attrs classes of the same names,
task-sdk/src/airflow/sdk/definitions/timetables/trigger.py, also take the
timezone as the second positional argument)."""
import datetime as _dt

from airflow import EDITION
from airflow._airlite.cron import CronMixin, encode_interval, encode_timezone
from airflow.exceptions import AirflowTimetableInvalid
from airflow.timetables.base import Timetable


def _encode_run_immediately(value):
    # c57fba0e serialization/encoders.py encode_run_immediately.
    return value.total_seconds() if isinstance(value, _dt.timedelta) else value


if EDITION == "2":
    class CronTriggerTimetable(CronMixin, Timetable):
        def __init__(self, cron, *, timezone, interval=_dt.timedelta()):
            super().__init__(cron, timezone)
            self._interval = interval

        def serialize(self):
            # 2.10.3 timetables/trigger.py:69-78
            return {"expression": self._expression, "timezone": self._timezone,
                    "interval": encode_interval(self._interval)}
else:
    class CronTriggerTimetable(CronMixin, Timetable):
        def __init__(self, cron, timezone, *, interval=_dt.timedelta(), run_immediately=False):
            super().__init__(cron, timezone)
            self._interval = interval
            self._run_immediately = run_immediately

        def serialize(self):
            return {"expression": self._expression, "timezone": self._timezone,
                    "interval": encode_interval(self._interval),
                    "run_immediately": _encode_run_immediately(self._run_immediately)}

    class DeltaTriggerTimetable(Timetable):
        def __init__(self, delta, *, interval=_dt.timedelta()):
            self._delta = delta
            self._interval = interval

        @property
        def summary(self):
            return str(self._delta)

        def validate(self):
            # c57fba0e timetables/_delta.py DeltaMixin.validate
            now = _dt.datetime.now()
            if (now + self._delta) <= now:
                raise AirflowTimetableInvalid("schedule interval must be positive, not %r" % (self._delta,))

        def serialize(self):
            return {"delta": encode_interval(self._delta), "interval": encode_interval(self._interval)}

    class MultipleCronTriggerTimetable(Timetable):
        def __init__(self, *crons, timezone, interval=_dt.timedelta(), run_immediately=False):
            if not crons:
                raise ValueError("cron expression required")
            self._timetables = [CronTriggerTimetable(c, timezone, interval=interval, run_immediately=run_immediately)
                                for c in crons]
            # The cron's words are left to airlite's Go side, as CronMixin's.
            self.description = ""

        @property
        def summary(self):
            return ", ".join(t.summary for t in self._timetables)

        def validate(self):
            for t in self._timetables:
                t.validate()

        def serialize(self):
            first = self._timetables[0]
            return {"expressions": [t._expression for t in self._timetables],
                    "timezone": encode_timezone(first._timezone),
                    "interval": encode_interval(first._interval),
                    "run_immediately": _encode_run_immediately(first._run_immediately)}

    class CronPartitionTimetable(CronTriggerTimetable):
        """Runs for partition keys (c57fba0e trigger.py:363-520): airlite
        shows it and does not schedule it (docs/python-dags.md)."""

        def __init__(self, cron, timezone, *, run_offset=None, run_immediately=False,
                     key_format=r"%Y-%m-%dT%H:%M:%S"):
            if not isinstance(run_offset, (int, type(None))):
                raise ValueError("Run offset other than integer not supported yet.")
            super().__init__(cron, timezone, run_immediately=run_immediately)
            self._run_offset = run_offset or 0
            self._key_format = key_format

        def serialize(self):
            return {"expression": self._expression, "timezone": self._timezone,
                    "run_immediately": _encode_run_immediately(self._run_immediately),
                    "run_offset": self._run_offset, "key_format": self._key_format}
