"""Aware datetimes in UTC, as airflow.utils.timezone gives them."""
import datetime as _dt

utc = _dt.timezone.utc


def _zone(name):
    if name is None:
        return utc
    if not isinstance(name, str):
        return name
    if name.upper() == "UTC":
        return utc
    try:
        import zoneinfo
        return zoneinfo.ZoneInfo(name)
    except Exception:
        return utc


def is_localized(value):
    return value.utcoffset() is not None


def is_naive(value):
    return value.utcoffset() is None


def utcnow():
    return _dt.datetime.now(utc)


def make_aware(value, timezone=None):
    if value.tzinfo is not None and value.utcoffset() is not None:
        raise ValueError("make_aware expects a naive datetime, got %s" % value)
    return value.replace(tzinfo=_zone(timezone))


def make_naive(value, timezone=None):
    return value.astimezone(_zone(timezone)).replace(tzinfo=None)


def convert_to_utc(value):
    if value is None:
        return value
    if not is_localized(value):
        value = value.replace(tzinfo=utc)
    return value.astimezone(utc)


def datetime(*args, **kwargs):
    if "tzinfo" not in kwargs:
        kwargs["tzinfo"] = utc
    return _dt.datetime(*args, **kwargs)


def parse(string, timezone=None):
    value = _dt.datetime.fromisoformat(string.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=_zone(timezone))
    return value


def coerce_datetime(value):
    return None if value is None else convert_to_utc(value)
