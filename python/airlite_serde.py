"""XCom values as Airflow 3.2.1's Task SDK stores and reads them: serde's
serialize and deserialize (task-sdk src/airflow/sdk/serde/__init__.py of
c57fba0e, with the serializers of serde/serializers/ for builtins,
datetime, bignum, timezone, uuid and pydantic). The execution API stores
what serialize gives as the JSON value itself (serialize=False), so a
value JSON holds stays itself and a tuple becomes {"__classname__":
"builtins.tuple", "__version__": 1, "__data__": [...]}.

2.10.3's XComEncoder hands serde (airflow/serialization/serde.py, the
same forms) what json cannot write itself, with fewer serializers: no
uuid.UUID, no pendulum Date, and a pydantic model as an object of its own
class (release "2" below). 1.10.15's XCom is json.dumps alone."""
import dataclasses
import datetime as _dt
import decimal
import enum
import sys
import uuid

CLASSNAME = "__classname__"
VERSION = "__version__"
DATA = "__data__"
SCHEMA_ID = "__id__"
OLD_TYPE = "__type"
OLD_DATA = "__var"

_MAX_DEPTH = sys.getrecursionlimit() - 1
_PRIMITIVES = (int, bool, float, str)
_COLLECTIONS = (frozenset, list, set, tuple)

# The serializers' versions (serializers/builtin.py, datetime.py,
# bignum.py, timezone.py, uuid.py, pydantic.py: __version__).
_BUILTIN_VERSION = 1
_DATETIME_VERSION = 2
_BIGNUM_VERSION = 1
_TIMEZONE_VERSION = 1
_UUID_VERSION = 1
_PYDANTIC_VERSION = 1

_PENDULUM_DATETIME = "pendulum.datetime.DateTime"
_PENDULUM_DATE = "pendulum.date.Date"
_FIXED_TIMEZONE = "pendulum.tz.timezone.FixedTimezone"
_TIMEZONE = "pendulum.tz.timezone.Timezone"


def qualname(o):
    """module_loading.qualname of an instance: its class's module and
    qualified name. airlite's stand-in pendulum (airlite_compat) is named
    as the real pendulum names its classes, which 3.2.1 writes."""
    cls = o if isinstance(o, type) else type(o)
    if cls.__module__ == "pendulum":
        if cls.__name__ == "DateTime":
            return _PENDULUM_DATETIME
        if cls.__name__ == "Date":
            return _PENDULUM_DATE
    return "%s.%s" % (cls.__module__, cls.__qualname__)


def _encode(classname, version, data):
    return {CLASSNAME: classname, VERSION: version, DATA: data}


def _is_namedtuple(o):
    return hasattr(o, "_asdict") and hasattr(o, "_fields") and hasattr(o, "_field_defaults")


def _is_pydantic_model(o):
    # serde/typing.py is_pydantic_model: pydantic v2's model attributes.
    return hasattr(o, "__pydantic_fields__") and hasattr(o, "__pydantic_validator__") and hasattr(o, "model_dump")


def _serialize_timezone(tz, owner=None):
    """serializers/timezone.py serialize: (data, classname, version, done);
    owner is the datetime whose zone it is."""
    name = qualname(tz)
    if name == _FIXED_TIMEZONE:
        offset = getattr(tz, "offset", 0)
        return ("UTC" if offset == 0 else offset), name, _TIMEZONE_VERSION, True
    if tz is _dt.timezone.utc and owner is not None and qualname(owner) == _PENDULUM_DATETIME:
        # The stand-in pendulum's UTC is datetime's; the real one's, which
        # its DateTime carries (pendulum.datetime(..., tz="UTC")), is the
        # Timezone "UTC".
        return "UTC", _TIMEZONE, _TIMEZONE_VERSION, True
    tz_name = getattr(tz, "key", None) or getattr(tz, "name", None) or getattr(tz, "zone", None)
    if tz_name is not None:
        return tz_name, name, _TIMEZONE_VERSION, True
    if tz.utcoffset(None) == _dt.timedelta(0):
        return "UTC", _FIXED_TIMEZONE, _TIMEZONE_VERSION, True
    return "", "", 0, False


# What 2.10.3 registers beside 3.2.1's serializers: the same, but for
# these (its serializers folder has no uuid.py or pydantic.py, and its
# datetime.py lists no pendulum.date.Date).
_NOT_IN_2 = frozenset(("uuid.UUID", "pydantic.main.BaseModel", _PENDULUM_DATE))


def _registered(o, qn, release):
    """A registered serializer's answer (data, classname, version, done),
    or None when no serializer is registered for qn."""
    if release == "2" and qn in _NOT_IN_2:
        return None
    if qn in ("builtins.tuple", "builtins.set", "builtins.frozenset"):
        return list(o), qualname(o), _BUILTIN_VERSION, True
    if qn in ("datetime.datetime", "datetime.date", "datetime.timedelta", _PENDULUM_DATETIME, _PENDULUM_DATE):
        if isinstance(o, _dt.datetime):
            tz = _serialize_timezone(o.tzinfo, o) if o.tzinfo else None
            return {"timestamp": o.timestamp(), "tz": tz}, qn, _DATETIME_VERSION, True
        if isinstance(o, _dt.date):
            return o.isoformat(), qualname(o), _DATETIME_VERSION, True
        if isinstance(o, _dt.timedelta):
            return o.total_seconds(), qualname(o), _DATETIME_VERSION, True
        return "", "", 0, False
    if qn == "decimal.Decimal":
        exponent = o.as_tuple()[2]
        if isinstance(exponent, int) and exponent >= 0:
            return int(o), qn, _BIGNUM_VERSION, True
        return float(o), qn, _BIGNUM_VERSION, True
    if qn in (_FIXED_TIMEZONE, _TIMEZONE, "zoneinfo.ZoneInfo"):
        return _serialize_timezone(o)
    if qn == "uuid.UUID":
        return str(o), qn, _UUID_VERSION, True
    if qn == "pydantic.main.BaseModel":
        return o.model_dump(mode="json"), qualname(o), _PYDANTIC_VERSION, True
    return None


def serialize(o, depth=0, release="3"):
    """serde.serialize: None, lists, dicts (keys as str(); a reserved key
    refused) and primitives as they are, registered types encoded, then an
    object's own serialize(), a dataclass's or an attrs class's fields;
    anything else is a TypeError. release "2" is 2.10.3's serde."""
    if depth == _MAX_DEPTH:
        raise RecursionError("maximum recursion depth reached for serialization")
    if o is None:
        return o
    if isinstance(o, list):
        return [serialize(d, depth + 1, release) for d in o]
    if isinstance(o, dict):
        if CLASSNAME in o or SCHEMA_ID in o:
            raise AttributeError("reserved key %s or %s found in dict to serialize" % (CLASSNAME, SCHEMA_ID))
        return {str(k): serialize(v, depth + 1, release) for k, v in o.items()}
    cls = type(o)
    qn = qualname(o)
    classname = None
    if _is_namedtuple(o):
        qn = classname = "builtins.tuple"
    if _is_pydantic_model(o) and release != "2":
        qn, classname = "pydantic.main.BaseModel", qualname(o)
    answer = _registered(o, qn, release)
    if answer is not None:
        data, serialized_classname, version, done = answer
        if done:
            return _encode(classname or serialized_classname, version, serialize(data, depth + 1, release))
    if isinstance(o, _PRIMITIVES):
        if isinstance(o, enum.Enum):
            return o.value
        return o
    out = {CLASSNAME: qn, VERSION: getattr(cls, "__version__", 0)}
    if hasattr(o, "serialize"):
        data = getattr(o, "serialize")()
        if isinstance(data, dict):
            data = serialize(data, depth + 1, release)
        out[DATA] = data
        return out
    if release == "2" and _is_pydantic_model(o):
        # 2.10.3 serde.py: a pydantic model's fields, under its own class.
        out[DATA] = serialize(o.model_dump(), depth + 1, release)
        return out
    if dataclasses.is_dataclass(cls):
        out[DATA] = serialize(dataclasses.asdict(o), depth + 1, release)
        return out
    attr = _attr_module()
    if attr is not None and attr.has(cls):
        data = attr.asdict(o, recurse=False, filter=lambda a, v: a.init)
        out[DATA] = serialize(data, depth + 1, release)
        return out
    raise TypeError("cannot serialize object of type %s" % cls)


def _attr_module():
    try:
        import attr
    except ImportError:
        return None
    return attr


# The classes deserialize rebuilds without asking the allow list: those
# the serializers register (serde _register adds them to _extra_allowed).
_DESERIALIZERS = frozenset((
    "builtins.frozenset", "builtins.set", "builtins.tuple",
    "datetime.date", "datetime.datetime", "datetime.timedelta", _PENDULUM_DATETIME, _PENDULUM_DATE,
    "decimal.Decimal", _FIXED_TIMEZONE, _TIMEZONE, "zoneinfo.ZoneInfo", "uuid.UUID", "pydantic.main.BaseModel",
))


def _convert(old):
    """serde _convert: the old {"__type", "__var"} form as the new one."""
    if OLD_TYPE in old and OLD_DATA in old:
        if old[OLD_TYPE] == "dict":
            return old[OLD_DATA]
        return {CLASSNAME: old[OLD_TYPE], VERSION: 0, DATA: old[OLD_DATA]}
    return old


def deserialize(o):
    """serde.deserialize with 3.2.1's default allow list
    ([core] allowed_deserialization_classes = airflow.*): the registered
    types rebuilt, a plain dict's values read, any other class refused
    with serde's ImportError (airlite imports no Airflow class back)."""
    if o is None or isinstance(o, _PRIMITIVES):
        return o
    if isinstance(o, _COLLECTIONS):
        items = [deserialize(d) for d in o]
        if isinstance(o, tuple):
            return tuple(items)
        if isinstance(o, set):
            return set(items)
        return items
    if not isinstance(o, dict):
        return o
    o = _convert(o)
    if not isinstance(o, dict):
        return o
    if CLASSNAME not in o or VERSION not in o:
        return {str(k): deserialize(v) for k, v in o.items()}
    classname, version, value = o[CLASSNAME], o[VERSION], o.get(DATA)
    if not isinstance(classname, str) or not isinstance(version, int):
        raise ValueError("cannot decode %r" % (o,))
    if not classname:
        raise TypeError("classname cannot be empty")
    if classname not in _DESERIALIZERS:
        raise ImportError("%s was not found in allow list for deserialization imports. To allow it, add it to "
                          "allowed_deserialization_classes in the configuration" % classname)
    return _rebuild(classname, version, deserialize(value))


def _rebuild(classname, version, data):
    if classname.startswith("builtins."):
        if version > _BUILTIN_VERSION:
            raise TypeError("serialized version %s is newer than class version %s" % (version, _BUILTIN_VERSION))
        return {"builtins.tuple": tuple, "builtins.set": set, "builtins.frozenset": frozenset}[classname](data)
    if classname in ("datetime.date", "datetime.datetime", "datetime.timedelta", _PENDULUM_DATETIME, _PENDULUM_DATE):
        return _rebuild_datetime(classname, version, data)
    if classname == "decimal.Decimal":
        if version > _BIGNUM_VERSION:
            raise TypeError("serialized %s of decimal.Decimal > %s" % (version, _BIGNUM_VERSION))
        return decimal.Decimal(str(data))
    if classname == "uuid.UUID":
        if isinstance(data, str):
            return uuid.UUID(data)
        raise TypeError("cannot deserialize uuid.UUID from %s" % type(data))
    if classname in (_FIXED_TIMEZONE, _TIMEZONE, "zoneinfo.ZoneInfo"):
        return _rebuild_timezone(classname, version, data)
    raise ImportError("%s was not found in allow list for deserialization imports. To allow it, add it to "
                      "allowed_deserialization_classes in the configuration" % classname)


def _rebuild_timezone(classname, version, data):
    """serializers/timezone.py deserialize: a zone name or an offset."""
    if not isinstance(data, (str, int)):
        raise TypeError("%s is not of type int or str but of %s" % (data, type(data)))
    if version > _TIMEZONE_VERSION:
        raise TypeError("serialized %s of %s > %s" % (version, classname, _TIMEZONE_VERSION))
    if isinstance(data, int):
        return _dt.timezone(_dt.timedelta(seconds=data))
    if data in ("UTC", "utc", "Etc/UTC"):
        import pendulum
        return pendulum.timezone("UTC")
    import zoneinfo
    return zoneinfo.ZoneInfo(data)


def _rebuild_datetime(classname, version, data):
    """serializers/datetime.py deserialize."""
    tz = None
    if isinstance(data, dict) and "tz" in data and data["tz"]:
        zone = data["tz"]
        if version == 1:
            tz = _rebuild_timezone(_TIMEZONE, 1, zone)
        else:
            tz = _rebuild_timezone(zone[1], zone[2], zone[0])
    if classname == "datetime.datetime" and isinstance(data, dict):
        return _dt.datetime.fromtimestamp(float(data["timestamp"]), tz=tz)
    if classname == _PENDULUM_DATETIME and isinstance(data, dict):
        import pendulum
        return pendulum.DateTime.fromtimestamp(float(data["timestamp"]), tz=tz)
    if classname == "datetime.timedelta" and isinstance(data, (str, float)):
        return _dt.timedelta(seconds=float(data))
    if classname in ("datetime.date", _PENDULUM_DATE) and isinstance(data, str):
        return _dt.date.fromisoformat(data)
    raise TypeError("unknown date/time format %s" % classname)
