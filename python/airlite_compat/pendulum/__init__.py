"""A small pendulum for DAG files when the real one is not importable:
aware datetimes, durations and time zones as the parse needs them."""
import datetime as _dt

try:
    import zoneinfo as _zoneinfo
except ImportError:  # pragma: no cover
    _zoneinfo = None

UTC = _dt.timezone.utc


def timezone(name):
    if isinstance(name, _dt.tzinfo):
        return name
    if name in ("UTC", "utc", "Etc/UTC"):
        return UTC
    return _zoneinfo.ZoneInfo(name)


tz = timezone


class DateTime(_dt.datetime):
    def add(self, **kw):
        return self + duration(**kw)

    def subtract(self, **kw):
        return self - duration(**kw)

    def in_timezone(self, name):
        return self.astimezone(timezone(name))

    def to_iso8601_string(self):
        return self.isoformat()


def _dt_of(value):
    return DateTime(value.year, value.month, value.day, value.hour, value.minute, value.second,
                    value.microsecond, tzinfo=value.tzinfo, fold=value.fold)


def datetime(year, month=1, day=1, hour=0, minute=0, second=0, microsecond=0, tz=UTC, **_):
    return DateTime(year, month, day, hour, minute, second, microsecond,
                    tzinfo=timezone(tz) if tz is not None else None)


def now(tz=UTC):
    return _dt_of(_dt.datetime.now(timezone(tz)))


def today(tz=UTC):
    return now(tz).replace(hour=0, minute=0, second=0, microsecond=0)


def yesterday(tz=UTC):
    return today(tz) - _dt.timedelta(days=1)


def parse(text, tz=UTC, **_):
    value = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone(tz))
    return _dt_of(value)


def from_timestamp(ts, tz=UTC):
    return _dt_of(_dt.datetime.fromtimestamp(ts, timezone(tz)))


class Duration(_dt.timedelta):
    pass


def duration(days=0, seconds=0, microseconds=0, milliseconds=0, minutes=0, hours=0, weeks=0, **_):
    return Duration(days=days, seconds=seconds, microseconds=microseconds, milliseconds=milliseconds,
                    minutes=minutes, hours=hours, weeks=weeks)


Timezone = _dt.tzinfo
Date = _dt.date
Time = _dt.time


def date(year, month, day):
    return _dt.date(year, month, day)


def time(hour, minute=0, second=0, microsecond=0):
    return _dt.time(hour, minute, second, microsecond)
