"""XComArg: what a TaskFlow call returns, an upstream reference."""
from airflow.models.taskmixin import DependencyMixin


class XComArg(DependencyMixin):
    def __init__(self, operator, key="return_value"):
        self.operator = operator
        self.key = key

    @property
    def roots(self):
        return [self.operator]

    @property
    def leaves(self):
        return [self.operator]

    def __getitem__(self, key):
        return XComArg(self.operator, key)

    def __iter__(self):
        raise TypeError("'XComArg' object is not iterable")

    def map(self, f):
        return self

    def zip(self, *others, **kw):
        return self

    def as_setup(self):
        self.operator.as_setup()
        return self

    def as_teardown(self, setups=None, on_failure_fail_dagrun=None):
        self.operator.as_teardown(setups=setups, on_failure_fail_dagrun=on_failure_fail_dagrun)
        return self

    def __enter__(self):
        # 2.10.3 models/xcom_arg.py PlainXComArg.__enter__: its operator's.
        from airflow.utils.setup_teardown import enter
        return enter(self.operator)

    def __exit__(self, exc_type, exc_val, exc_tb):
        from airflow.utils.setup_teardown import exit_
        exit_()

    def __repr__(self):
        # 2.10.3 models/xcom_arg.py PlainXComArg.__repr__
        if self.key == "return_value":
            return "XComArg(%r)" % (self.operator,)
        return "XComArg(%r, %r)" % (self.operator, self.key)

    @staticmethod
    def iter_xcom_args(value):
        if isinstance(value, XComArg):
            yield value
        elif isinstance(value, (list, tuple, set)):
            for v in value:
                yield from XComArg.iter_xcom_args(v)
        elif isinstance(value, dict):
            for v in value.values():
                yield from XComArg.iter_xcom_args(v)

    def serialize(self):
        return {"__type": "xcomref", "__var": {"task_id": self.operator.task_id, "key": self.key}}
