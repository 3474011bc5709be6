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
        decoded = json.loads(value) if deserialize_json else value
        if hasattr(values, "mask"):  # a task's: its secrets masker learns the value (airlite_task.py)
            values.mask(key, value, deserialize_json)
        return decoded

    @classmethod
    def set(cls, key, value, description=None, serialize_json=False, session=None):
        # 2.10.3 models/variable.py Variable._set: JSON with indent=2, or str().
        stored = json.dumps(value, indent=2) if serialize_json else str(value)
        values = _values()
        if hasattr(values, "write"):  # a task's: airlite's store (airlite_task.py)
            values.write(key, stored, description)
        else:
            values[key] = stored

    @classmethod
    def update(cls, key, value, serialize_json=False, session=None):
        # 2.10.3 models/variable.py Variable._update: an existing variable only.
        if key not in _values():
            raise KeyError("Variable %s does not exist" % key)
        cls.set(key, value, serialize_json=serialize_json)

    @classmethod
    def delete(cls, key, session=None):
        """How many variables were deleted (0 or 1), as Variable.delete."""
        values = _values()
        if hasattr(values, "remove"):
            return values.remove(key)
        return 1 if values.pop(key, None) is not None else 0

    @classmethod
    def setdefault(cls, key, default, description=None, deserialize_json=False):
        values = _values()
        if key not in values:
            cls.set(key, default, serialize_json=deserialize_json)
            return default
        return cls.get(key, deserialize_json=deserialize_json)
