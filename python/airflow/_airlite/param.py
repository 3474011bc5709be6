"""Param and the params dict (2.10.3 airflow/models/param.py)."""


class _NotSet:
    def __repr__(self):
        return "NOTSET"


NOTSET = _NotSet()


class Param:
    def __init__(self, default=NOTSET, description=None, **kwargs):
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
