"""Cron expressions checked as croniter checks them at parse time."""
import re

from airflow.exceptions import AirflowTimetableInvalid
from airflow.utils.dates import cron_presets

_RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
_NAMES = {3: ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
          4: ("sun", "mon", "tue", "wed", "thu", "fri", "sat")}
_ITEM = re.compile(r"^(\*|\?|[0-9a-z]+(?:-[0-9a-z]+)?)(?:/([0-9]+))?$")


def check_cron(expression):
    """The message croniter's constructor raises for a bad expression, or
    None."""
    fields = expression.split()
    if len(fields) not in (5, 6, 7):
        return "Exactly 5, 6 or 7 columns has to be specified for iterator expression."
    for i, field in enumerate(fields[:5]):
        lo, hi = _RANGES[i]
        for item in field.lower().split(","):
            m = _ITEM.match(item)
            if not m:
                return "[%s] is not acceptable" % expression
            for part in m.group(1).split("-"):
                if part in ("*", "?", "l"):
                    continue
                if part.isdigit():
                    if not lo <= int(part) <= hi:
                        return "[%s] is not acceptable, out of range" % expression
                elif part[:3] not in _NAMES.get(i, ()):
                    return "[%s] is not acceptable" % expression
    return None


class CronMixin:
    def __init__(self, cron, timezone):
        self._expression = cron_presets.get(cron, cron)
        self._timezone = encode_timezone(timezone)
        # The cron's words (cron_descriptor) are left to airlite's Go side.
        self.description = ""

    @property
    def summary(self):
        return self._expression

    def validate(self):
        problem = check_cron(self._expression)
        if problem:
            raise AirflowTimetableInvalid(problem)


def encode_timezone(tz):
    """A zone as Airflow serializes a DAG's or a cron timetable's
    (encode_timezone): a named zone's name, "UTC" for UTC, else the fixed
    offset in seconds east of UTC. The zone is what pendulum makes of a
    tzinfo (pendulum.instance(...).timezone): a zoneinfo or pytz zone by
    its name, UTC by its tzname, any other by its offset."""
    if tz is None:
        return "UTC"
    if isinstance(tz, (str, int)):  # encoded already
        return tz
    name = getattr(tz, "key", None) or getattr(tz, "zone", None)
    if name:
        return name
    if tz.tzname(None) == "UTC":
        return "UTC"
    offset = tz.utcoffset(None)
    secs = int(offset.total_seconds()) if offset is not None else 0
    return "UTC" if secs == 0 else secs


def encode_relativedelta(var):
    """A relativedelta as Airflow serializes it (2.10.3
    serialization/serialized_objects.py:156-164; c57fba0e
    serialization/encoders.py:98-106): its public fields that are set, the
    weekday as [weekday] or [weekday, n]."""
    encoded = {k: v for k, v in var.__dict__.items() if not k.startswith("_") and v}
    if var.weekday and var.weekday.n:
        encoded["weekday"] = [var.weekday.weekday, var.weekday.n]
    elif var.weekday:
        encoded["weekday"] = [var.weekday.weekday]
    return encoded


def encode_interval(interval):
    """A timedelta as its seconds, a relativedelta as its fields (c57fba0e
    serialization/encoders.py:134-137 encode_interval)."""
    import datetime as _dt
    if isinstance(interval, _dt.timedelta):
        return interval.total_seconds()
    return encode_relativedelta(interval)
