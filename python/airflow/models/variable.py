"""Variable.get: airlite's variables, handed to the parse as data (the
parsing program sets _VALUES), or the default."""
import json

_NOTSET = object()
_VALUES = {}


def _values():
    return _VALUES


class Variable:
    @classmethod
    def get(cls, key, default_var=_NOTSET, deserialize_json=False):
        values = _values()
        if key not in values:
            if default_var is not _NOTSET:
                return default_var
            # 2.10.3 models/variable.py Variable.get
            raise KeyError("Variable %s does not exist" % key)
        value = values[key]
        return json.loads(value) if deserialize_json else value

    @classmethod
    def set(cls, key, value, description=None, serialize_json=False, session=None):
        _values()[key] = json.dumps(value) if serialize_json else str(value)

    @classmethod
    def setdefault(cls, key, default, description=None, deserialize_json=False):
        values = _values()
        if key not in values:
            cls.set(key, default, serialize_json=deserialize_json)
            return default
        return cls.get(key, deserialize_json=deserialize_json)
