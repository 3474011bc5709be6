"""TaskFlow: @dag, @task and its variants, @task_group, @setup, @teardown
(2.10.3 airflow/decorators/). A call of a decorated function makes one
task whose id is the function's name, suffixed __1, __2 ... when taken
(decorators/base.py get_unique_task_id), and returns an XComArg."""
import functools
import inspect
import re

from airflow._airlite.bash import BashOperator
from airflow._airlite.python import (BranchPythonOperator, ExternalPythonOperator, PythonOperator,
                                     PythonVirtualenvOperator, ShortCircuitOperator)
from airflow._airlite.python_sensor import PythonSensor
from airflow._airlite.task_group import TaskGroup, TaskGroupContext
from airflow.models.dag import DAG, DagContext, dag  # noqa: F401
from airflow.models.xcom_arg import XComArg


class _PythonDecoratedOperator(PythonOperator):
    __module__ = "airflow.decorators.python"
    custom_operator_name = "@task"


class _BashDecoratedOperator(BashOperator):
    __module__ = "airflow.decorators.bash"
    custom_operator_name = "@task.bash"
    # 2.10.3 decorators/bash.py:41: DecoratedOperator's then BashOperator's
    template_fields = ("op_args", "op_kwargs", "bash_command", "env", "cwd")

    def __init__(self, *, python_callable, op_args=None, op_kwargs=None, **kwargs):
        kwargs.setdefault("bash_command", None)
        super().__init__(**kwargs)
        self.python_callable = python_callable
        self.op_args = list(op_args or [])
        self.op_kwargs = dict(op_kwargs or {})


class _BranchPythonDecoratedOperator(BranchPythonOperator):
    __module__ = "airflow.decorators.branch_python"
    custom_operator_name = "@task.branch"


class _ShortCircuitDecoratedOperator(ShortCircuitOperator):
    __module__ = "airflow.decorators.short_circuit"
    custom_operator_name = "@task.short_circuit"


class DecoratedSensorOperator(PythonSensor):
    __module__ = "airflow.decorators.sensor"
    custom_operator_name = "@task.sensor"
    template_fields = ("op_args", "op_kwargs")


class _PythonVirtualenvDecoratedOperator(PythonVirtualenvOperator):
    __module__ = "airflow.decorators.python_virtualenv"
    custom_operator_name = "@task.virtualenv"


class _PythonExternalDecoratedOperator(ExternalPythonOperator):
    __module__ = "airflow.decorators.external_python"
    custom_operator_name = "@task.external_python"


def get_unique_task_id(task_id, dag=None, task_group=None):
    dag = dag or DagContext.get_current_dag()
    if not dag:
        return task_id
    task_group = task_group or TaskGroupContext.get_current_task_group(dag)
    tg_task_id = task_group.child_id(task_id) if task_group else task_id
    if tg_task_id not in dag.task_ids:
        return task_id
    prefix = re.split(r"__\d+$", tg_task_id)[0]
    suffixes = [int(m.group(1)) for m in (re.match(r"^%s__(\d+)$" % re.escape(prefix), t) for t in dag.task_ids) if m]
    core = re.split(r"__\d+$", task_id)[0]
    return "%s__%d" % (core, max(suffixes + [0]) + 1)


class _TaskDecorator:
    def __init__(self, function, operator_class, kwargs, mark=None):
        self.function = function
        self.operator_class = operator_class
        self.kwargs = kwargs
        self.mark = mark
        functools.update_wrapper(self, function)

    def _make(self, args, kwargs, mapped=None):
        kw = dict(self.kwargs)
        dag = kw.get("dag") or DagContext.get_current_dag()
        group = kw.get("task_group") or TaskGroupContext.get_current_task_group(dag)
        task_id = get_unique_task_id(kw.pop("task_id", None) or self.function.__name__, dag, group)
        if "multiple_outputs" not in kw:
            ret = inspect.signature(self.function).return_annotation
            kw["multiple_outputs"] = ret is dict or getattr(ret, "__origin__", None) is dict
        if issubclass(self.operator_class, BashOperator):
            kw.setdefault("bash_command", None)  # made by the callable when the task runs
        op = self.operator_class(task_id=task_id, python_callable=self.function, op_args=list(args),
                                 op_kwargs=dict(kwargs), **kw)
        if kw.get("doc_md") is None and self.function.__doc__ and not op.doc_md:
            op.doc_md = self.function.__doc__
        for value in list(args) + list(kwargs.values()) + list((mapped or {}).values()):
            for arg in XComArg.iter_xcom_args(value):
                arg.operator >> op
        if self.mark == "setup":
            op.as_setup()
        elif isinstance(self.mark, dict):
            op.as_teardown(on_failure_fail_dagrun=self.mark.get("on_failure_fail_dagrun"))
        return op

    def __call__(self, *args, **kwargs):
        return XComArg(self._make(args, kwargs))

    def override(self, **kwargs):
        return _TaskDecorator(self.function, self.operator_class, dict(self.kwargs, **kwargs), self.mark)

    def partial(self, **kwargs):
        return _PartialTask(self, kwargs)

    def expand(self, **mapped):
        return _PartialTask(self, {}).expand(**mapped)


class _PartialTask:
    def __init__(self, deco, kwargs):
        self.deco = deco
        self.kwargs = kwargs

    def expand(self, **mapped):
        op = self.deco._make((), dict(self.kwargs), mapped)
        op.__dict__["_airlite_mapped"] = {"expand_input": mapped, "partial_kwargs": {"op_kwargs": dict(self.kwargs)}}
        op.op_kwargs = dict(self.kwargs)
        return XComArg(op)

    def expand_kwargs(self, value):
        return self.expand(__kwargs__=value)


def _decorator(operator_class):
    def deco(python_callable=None, multiple_outputs=None, **kwargs):
        if multiple_outputs is not None:
            kwargs["multiple_outputs"] = multiple_outputs
        if python_callable is not None and callable(python_callable):
            return _TaskDecorator(python_callable, operator_class, kwargs)
        return lambda f: _TaskDecorator(f, operator_class, kwargs)
    return deco


class _TaskNamespace:
    """task and its variants: task(...), task.bash, task.branch ..."""

    def __init__(self):
        self._python = _decorator(_PythonDecoratedOperator)
        self.python = self._python
        self.bash = _decorator(_BashDecoratedOperator)
        self.branch = _decorator(_BranchPythonDecoratedOperator)
        self.short_circuit = _decorator(_ShortCircuitDecoratedOperator)
        self.sensor = _decorator(DecoratedSensorOperator)
        self.virtualenv = _decorator(_PythonVirtualenvDecoratedOperator)
        self.external_python = _decorator(_PythonExternalDecoratedOperator)

    def __call__(self, python_callable=None, **kwargs):
        return self._python(python_callable, **kwargs)

    def __getattr__(self, name):
        # @task.docker, @task.kubernetes ...: providers' decorators, kept as
        # a generic operator of the provider's class name.
        if name.startswith("_"):
            raise AttributeError(name)
        from airflow.models.baseoperator import generic_operator_class
        cls = type("_%sDecoratedOperator" % name.capitalize(), (_PythonDecoratedOperator,),
                   {"__module__": "airflow.decorators.%s" % name, "custom_operator_name": "@task.%s" % name})
        return _decorator(cls)


task = _TaskNamespace()


def task_group(python_callable=None, **tg_kwargs):
    def wrap(f):
        @functools.wraps(f)
        def factory(*args, **kwargs):
            kw = dict(tg_kwargs)
            group_id = kw.pop("group_id", None) or f.__name__
            kw.setdefault("tooltip", f.__doc__ or "")
            with TaskGroup(group_id, add_suffix_on_collision=True, **kw) as tg:
                ret = f(*args, **kwargs)
                if isinstance(ret, (XComArg, TaskGroup)) or hasattr(ret, "task_id"):
                    return ret
            return tg
        factory.override = lambda **kw: task_group(f, **dict(tg_kwargs, **kw))
        return factory
    if python_callable is not None and callable(python_callable):
        return wrap(python_callable)
    return wrap


def setup(func=None, **kw):
    if isinstance(func, _TaskDecorator):
        func.mark = "setup"
        return func
    d = _TaskDecorator(func, _PythonDecoratedOperator, kw, "setup")
    return d


def teardown(_func=None, *, on_failure_fail_dagrun=False):
    def wrap(f):
        mark = {"on_failure_fail_dagrun": on_failure_fail_dagrun}
        if isinstance(f, _TaskDecorator):
            f.mark = mark
            return f
        return _TaskDecorator(f, _PythonDecoratedOperator, {}, mark)
    return wrap(_func) if _func is not None else wrap
