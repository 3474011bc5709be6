"""Param and the params dict (2.10.3 airflow/models/param.py)."""


import json

from airflow import EDITION
from airflow.exceptions import ParamValidationError


def _check_json(value):
    """Airflow 3 refuses a default JSON cannot hold as the Param is made
    (task-sdk definitions/param.py _check_json:76-83 of c57fba0e); 2.10.3
    only warns (models/param.py:66-76)."""
    try:
        json.dumps(value)
    except Exception:
        raise ParamValidationError(
            "All provided parameters must be json-serializable. The value '%s' is not serializable." % (value,))


class _NotSet:
    def __repr__(self):
        return "NOTSET"


NOTSET = _NotSet()


class Param:
    def __init__(self, default=NOTSET, description=None, **kwargs):
        if EDITION == "3" and default is not NOTSET:
            _check_json(default)
        self.value = default
        self.description = description
        self.schema = kwargs.pop("schema") if "schema" in kwargs else kwargs

    def resolve(self, value=NOTSET, suppress_exception=False):
        return self.value if value is NOTSET else value


class ParamsDict(dict):
    __module__ = "airflow.models.param"
    def __init__(self, dict_obj=None, suppress_exception=False):
        super().__init__()
        for k, v in (dict_obj or {}).items():
            self[k] = v

    def __setitem__(self, key, value):
        if not isinstance(value, Param):
            value = Param(value)
        super().__setitem__(key, value)

    def update(self, other=(), **kw):
        for k, v in dict(other, **kw).items():
            self[k] = v

    def get_param(self, key):
        return dict.__getitem__(self, key)

    def __getitem__(self, key):
        return dict.__getitem__(self, key).value

    def get(self, key, default=None):
        return self[key] if key in self else default

    def items(self):
        return [(k, dict.__getitem__(self, k).value) for k in self]

    def values(self):
        return [v for _, v in self.items()]

    def dump(self):
        return dict(self.items())

    def validate(self):
        """ParamsDict.validate as far as the reader goes: a param without
        a default does not resolve (2.10.3 models/param.py:125-128,
        261-270; the Task SDK's definitions/param.py, in the same words).
        Schemas are checked by airlite once the DAG is read
        (dag_build.go checkScheduleParams), in Airflow's install's
        jsonschema terms."""
        for k in self:
            if dict.__getitem__(self, k).value is NOTSET:
                raise ParamValidationError(
                    "Invalid input for param %s: No value passed and Param has no default value" % k)
