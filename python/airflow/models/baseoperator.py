"""BaseOperator: what every task keeps at parse time (2.10.3
airflow/models/baseoperator.py, 1.10.15 airflow/models/baseoperator.py),
chain and cross_downstream. Nothing here runs a task."""
import datetime as _dt
import inspect
import re

from airflow import EDITION
from airflow.exceptions import AirflowException
from airflow.models.taskmixin import DependencyMixin

_KEY_RE = re.compile(r"^[\w.-]+$")
_NOTSET = object()

# BaseOperator's own keyword arguments and their defaults.
_BASE_ARGS = {
    "owner": "airflow", "email": None, "email_on_retry": True, "email_on_failure": True,
    "retries": 0, "retry_delay": _dt.timedelta(seconds=300), "retry_exponential_backoff": False,
    "max_retry_delay": None, "start_date": None, "end_date": None, "depends_on_past": False,
    "ignore_first_depends_on_past": True, "wait_for_past_depends_before_skipping": False,
    "wait_for_downstream": False, "params": None, "priority_weight": 1,
    "weight_rule": "downstream", "queue": "default", "pool": None, "pool_slots": 1, "sla": None,
    "execution_timeout": None, "on_execute_callback": None, "on_failure_callback": None,
    "on_success_callback": None, "on_retry_callback": None, "on_skipped_callback": None,
    "pre_execute": None, "post_execute": None, "trigger_rule": "all_success", "resources": None,
    "run_as_user": None, "task_concurrency": None, "max_active_tis_per_dag": None,
    "max_active_tis_per_dagrun": None, "executor": None, "executor_config": None,
    "do_xcom_push": True, "multiple_outputs": False, "map_index_template": None, "inlets": None, "outlets": None,
    "doc": None, "doc_md": None, "doc_json": None, "doc_yaml": None, "doc_rst": None,
    "task_display_name": None, "logger_name": None, "allow_nested_operators": True,
    "xcom_push": False, "provide_context": False, "adhoc": False, "priority_class": None,
}
_BASE_ONLY_110 = {"xcom_push", "provide_context", "adhoc"}


def _accepted(cls):
    """The keyword arguments the __init__ methods of cls's classes name,
    and the ones without a default."""
    names, required = set(), set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        init = getattr(init, "__wrapped__", init)
        if init is None or klass is object:
            continue
        for p in inspect.signature(init).parameters.values():
            if p.name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            names.add(p.name)
            if p.default is p.empty and p.name != "task_id":
                required.add(p.name)
    return names, required


def _apply_defaults(cls, kwargs):
    """default_args of the DAG and of the call fill the arguments an
    operator names and was not given (apply_defaults in both releases)."""
    from airflow.models.dag import DagContext
    dag = kwargs.get("dag") or DagContext.get_current_dag()
    merged = dict(dag.default_args) if dag is not None else {}
    merged.update(kwargs.get("default_args") or {})
    names, required = _accepted(cls)
    names |= set(_BASE_ARGS)
    out = dict(kwargs)
    for name, value in merged.items():
        if name in names and name not in out:
            out[name] = value
    params = dict(dag.params) if dag is not None and dag.params else {}
    params.update(merged.get("params") or {})
    params.update(kwargs.get("params") or {})
    out["params"] = params
    if EDITION != "1.10":
        missing = sorted(required - set(out))
        if len(missing) == 1:
            raise AirflowException("missing keyword argument %r" % missing[0])
        if missing:
            raise AirflowException("missing keyword arguments %s" % ", ".join(repr(m) for m in missing))
    return out


def validate_key(k, max_length=250):
    if not isinstance(k, str):
        raise TypeError("The key has to be a string and is %s:%s" % (type(k), k))
    if len(k) > max_length:
        raise AirflowException("The key has to be less than %d characters" % max_length)
    if not _KEY_RE.match(k):
        raise AirflowException("The key %r has to be made of alphanumeric characters, dashes, "
                               "dots and underscores exclusively" % k)


class BaseOperator(DependencyMixin):
    template_fields = ()
    template_ext = ()
    template_fields_renderers = {}
    ui_color = "#fff"
    ui_fgcolor = "#000"
    custom_operator_name = None
    _airlite_generic = False
    _airlite_task_type = None   # a decorated task's class name
    _airlite_task_module = None

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        init = cls.__dict__.get("__init__")
        if init is not None and not hasattr(init, "__wrapped__"):
            def wrapper(self, *args, __init=init, **kwargs):
                outermost = not self.__dict__.get("_airlite_defaults_done")
                if outermost:
                    self.__dict__["_airlite_defaults_done"] = True
                    if args and EDITION != "1.10":
                        raise AirflowException("Use keyword arguments when initializing operators")
                    kwargs = _apply_defaults(type(self), kwargs)
                result = __init(self, *args, **kwargs)
                if outermost and EDITION != "1.10":
                    self.set_xcomargs_dependencies()
                return result
            wrapper.__wrapped__ = init
            wrapper.__name__ = "__init__"
            cls.__init__ = wrapper

    def __init__(self, task_id=None, dag=None, default_args=None, task_group=None, **kwargs):
        if not self.__dict__.get("_airlite_defaults_done"):
            self.__dict__["_airlite_defaults_done"] = True
            kwargs = _apply_defaults(type(self), dict(kwargs, task_id=task_id, dag=dag, default_args=default_args))
            kwargs.pop("task_id"), kwargs.pop("dag"), kwargs.pop("default_args")
        from airflow.models.dag import DagContext
        dag = dag or DagContext.get_current_dag()
        unknown = {k: v for k, v in kwargs.items() if k not in _BASE_ARGS}
        if EDITION == "1.10":
            unknown.pop("provide_context", None)
        elif unknown:
            raise AirflowException(
                "Invalid arguments were passed to %s (task_id: %s). Invalid arguments were:\n**kwargs: %s"
                % (type(self).__name__, task_id, unknown))
        if EDITION != "1.10":
            for k in _BASE_ONLY_110:
                kwargs.pop(k, None)
        validate_key(task_id)
        args = dict(_BASE_ARGS)
        args.update({k: v for k, v in kwargs.items() if k in _BASE_ARGS})
        for k, v in args.items():
            self.__dict__[k] = v
        self.__dict__.pop("params", None)
        self.params = args["params"] or {}
        if args["pool"] is None:
            self.pool = "default_pool"
        if isinstance(self.trigger_rule, str) and hasattr(self.trigger_rule, "value"):
            self.trigger_rule = self.trigger_rule.value
        from airflow.utils.trigger_rule import TriggerRule
        if self.trigger_rule not in TriggerRule.all_triggers():
            raise AirflowException(
                "The trigger_rule must be one of %s,'%s.%s'; received '%s'."
                % (TriggerRule.all_triggers(), dag.dag_id if dag else "", task_id, self.trigger_rule))
        if self.execution_timeout is not None and not isinstance(self.execution_timeout, _dt.timedelta):
            raise ValueError("execution_timeout must be timedelta object but passed as type: %s"
                             % type(self.execution_timeout))
        if self.max_active_tis_per_dag is None and self.task_concurrency is not None:
            self.max_active_tis_per_dag = self.task_concurrency
        from airflow.utils import timezone
        if self.start_date is not None:
            self.start_date = timezone.convert_to_utc(self.start_date)
        if self.end_date is not None:
            self.end_date = timezone.convert_to_utc(self.end_date)
        self.upstream_task_ids = set()
        self.downstream_task_ids = set()
        self.is_setup = False
        self.is_teardown = False
        self.on_failure_fail_dagrun = False
        self.dag = None
        self.task_group = None
        tg = task_group
        if EDITION != "1.10" and tg is None and dag is not None:
            from airflow._airlite.task_group import TaskGroupContext
            tg = TaskGroupContext.get_current_task_group(dag)
        self.task_id = tg.child_id(task_id) if tg is not None else task_id
        self._label = task_id
        self.__dict__["_airlite_mapped"] = None
        # The group first, as 2.10.3 (models/baseoperator.py:965-967): a
        # duplicate id is the group's error, raised from __init__.
        if tg is not None:
            tg.add(self)
        if dag is not None:
            dag.add_task(self)
        from airflow.utils.setup_teardown import SetupTeardownContext
        if SetupTeardownContext.active:
            SetupTeardownContext.update_context_map(self)

    # The names Airflow shows.
    @property
    def task_type(self):
        return self._airlite_task_type or type(self).__name__

    @property
    def task_module(self):
        return self._airlite_task_module or _module_of(type(self))

    @property
    def operator_name(self):
        return self.custom_operator_name or self.task_type

    @property
    def label(self):
        return self._label

    @property
    def roots(self):
        return [self]

    @property
    def leaves(self):
        return [self]

    @property
    def output(self):
        from airflow.models.xcom_arg import XComArg
        return XComArg(self)

    @property
    def inherits_from_empty_operator(self):
        return any(c.__name__ in ("EmptyOperator", "DummyOperator") and c.__module__.startswith("airflow.")
                   for c in type(self).__mro__)

    @property
    def upstream_list(self):
        return [self.dag.task_dict[t] for t in sorted(self.upstream_task_ids)] if self.dag else []

    @property
    def downstream_list(self):
        return [self.dag.task_dict[t] for t in sorted(self.downstream_task_ids)] if self.dag else []

    def __enter__(self):
        from airflow.utils.setup_teardown import enter
        return enter(self)

    def __exit__(self, exc_type, exc_val, exc_tb):
        from airflow.utils.setup_teardown import exit_
        exit_()

    def set_xcomargs_dependencies(self):
        """An XComArg in a template field makes its task upstream, once the
        outermost __init__ has set the fields (2.10.3
        models/baseoperator.py:506-511 and 1312-1337)."""
        from airflow.models.xcom_arg import XComArg
        for field in self.template_fields:
            for ref in XComArg.iter_xcom_args(getattr(self, field, None)):
                self.set_upstream(ref.operator)

    def get_direct_relative_ids(self, upstream=False):
        return self.upstream_task_ids if upstream else self.downstream_task_ids

    def as_setup(self):
        self.is_setup = True
        return self

    def as_teardown(self, setups=None, on_failure_fail_dagrun=None):
        self.is_teardown = True
        self.trigger_rule = "all_done_setup_success"
        if on_failure_fail_dagrun is not None:
            self.on_failure_fail_dagrun = on_failure_fail_dagrun
        if setups is not None:
            from airflow.models.taskmixin import as_leaves
            for s in as_leaves(setups):
                s.is_setup = True
                s >> self
        return self

    @classmethod
    def partial(cls, **kwargs):
        return _Partial(cls, kwargs)

    def __repr__(self):
        return "<Task(%s): %s>" % (self.task_type, self.task_id)

    def execute(self, context):  # pragma: no cover - airlite does not run tasks here
        raise NotImplementedError()


class _Partial:
    """operator.partial(...).expand(...): one task, mapped (2.10.3
    models/mappedoperator.py): it keeps the partial arguments and the
    expanded ones apart."""

    def __init__(self, cls, kwargs):
        self.cls = cls
        self.kwargs = kwargs

    def expand(self, **mapped):
        from airflow.models.xcom_arg import XComArg
        partial = dict(self.kwargs)
        placeholders = {k: None for k in mapped}
        task = self.cls(**partial, **_placeholder_args(self.cls, placeholders))
        task.__dict__["_airlite_mapped"] = {"expand_input": mapped, "partial_kwargs": {
            k: v for k, v in partial.items() if k not in ("task_id", "dag", "task_group")}}
        for v in mapped.values():
            for arg in XComArg.iter_xcom_args(v):
                arg.operator >> task
        return task  # Airflow's MappedOperator: the task itself, with .output

    def expand_kwargs(self, value):
        return self.expand(**{"__kwargs__": value})


def _placeholder_args(cls, placeholders):
    names, _ = _accepted(cls)
    return {k: v for k, v in placeholders.items() if k in names}


def _module_of(cls):
    from airflow import EDITION
    if EDITION == "1.10":
        return _MODULES_110.get(cls.__name__, cls.__module__) if cls.__module__.startswith("airflow.") else cls.__module__
    if EDITION == "3":
        # Airflow 3 moved the operators, sensors and decorators airlite
        # defines once into the standard provider.
        module = cls.__module__
        if module.startswith("airflow.decorators."):
            return "airflow.providers.standard.decorators." + module[len("airflow.decorators."):]
        return _MODULES_3.get(module, module)
    return cls.__module__


# Where Airflow 3.2.1 keeps the classes airlite defines once, by their
# 2.10.3 module.
_MODULES_3 = {
    "airflow.operators.bash": "airflow.providers.standard.operators.bash",
    "airflow.operators.python": "airflow.providers.standard.operators.python",
    "airflow.operators.empty": "airflow.providers.standard.operators.empty",
    "airflow.sensors.python": "airflow.providers.standard.sensors.python",
    "airflow.sensors.base": "airflow.sdk.bases.sensor",
    "airflow.sensors.external_task": "airflow.providers.standard.sensors.external_task",
}


# Where 1.10.15 keeps the operators airlite defines once.
_MODULES_110 = {
    "BashOperator": "airflow.operators.bash_operator",
    "PythonOperator": "airflow.operators.python_operator",
    "BranchPythonOperator": "airflow.operators.python_operator",
    "ShortCircuitOperator": "airflow.operators.python_operator",
    "PythonVirtualenvOperator": "airflow.operators.python_operator",
    "DummyOperator": "airflow.operators.dummy_operator",
    "SubDagOperator": "airflow.operators.subdag_operator",
    "BaseSensorOperator": "airflow.sensors.base_sensor_operator",
}


_GENERIC_CLASSES = {}

# What Airflow shows of the core operators and sensors airlite keeps as
# generic classes: template fields, colour, template extensions and extra
# links (2.10.3 airflow/sensors/bash.py:58, filesystem.py:63-64,
# date_time.py:61, base.py:162; operators/trigger_dagrun.py:63-126,
# email.py:46-49, generic_transfer.py:48-54, latest_only.py:44; Airflow 3.2.1 keeps them in
# the standard provider). The link is (module's last part, class, name).
_SENSOR_COLOR = "#e6f1f2"
_CORE_CLASSES = {
    "BashSensor": {"template_fields": ("bash_command", "env")},
    "FileSensor": {"template_fields": ("filepath",), "ui_color": "#91818a"},
    "DateTimeSensor": {"template_fields": ("target_time",)},
    "DateTimeSensorAsync": {"template_fields": ("target_time",)},
    "TriggerDagRunOperator": {
        "template_fields": ("trigger_dag_id", "trigger_run_id", "logical_date", "conf", "wait_for_completion",
                            "skip_when_already_exists"),
        "ui_color": "#ffefeb", "links": [("trigger_dagrun", "TriggerDagRunLink", "Triggered DAG")]},
    "EmailOperator": {"template_fields": ("to", "subject", "html_content", "files"), "template_ext": (".html",),
                      "ui_color": "#e6faf9"},
    "LatestOnlyOperator": {"ui_color": "#e9ffdb"},
    "GenericTransfer": {"template_fields": ("sql", "destination_table", "preoperator"),
                        "template_ext": (".sql", ".hql"), "ui_color": "#b0f07c"},
}
_CORE_PREFIXES = ("airflow.sensors.", "airflow.operators.", "airflow.providers.standard.sensors.",
                  "airflow.providers.standard.operators.")


class _Link:
    name = ""


def _core_attributes(name, module):
    if not module.startswith(_CORE_PREFIXES):
        return {}
    known = dict(_CORE_CLASSES.get(name, {}))
    attrs = {}
    if ".sensors." in module:
        attrs["ui_color"] = _SENSOR_COLOR
    for key in ("template_fields", "template_ext", "ui_color"):
        if key in known:
            attrs[key] = known[key]
    links = []
    for part, cls_name, link_name in known.get("links", ()):
        link_module = module.rsplit(".", 1)[0] + "." + part
        links.append(type(cls_name, (_Link,), {"__module__": link_module, "name": link_name})())
    if links:
        attrs["operator_extra_links"] = links
    return attrs


def generic_operator_class(name, module):
    """A class airlite does not know: an operator that keeps every argument
    it is given and the template fields a subclass declares (or, for a
    core operator, the ones Airflow's class has)."""
    key = (module, name)
    if key not in _GENERIC_CLASSES:
        attrs = {"__module__": module}
        attrs.update(_core_attributes(name, module))
        _GENERIC_CLASSES[key] = type(name, (_GenericOperator,), attrs)
    return _GENERIC_CLASSES[key]


class _GenericOperator(BaseOperator):
    _airlite_generic = True

    def __init__(self, *args, **kwargs):
        own = {k: v for k, v in kwargs.items() if k in _BASE_ARGS or k in ("task_id", "dag", "task_group", "default_args")}
        self.__dict__["_airlite_args"] = {k: v for k, v in kwargs.items() if k not in own}
        for k, v in self._airlite_args.items():
            if not hasattr(type(self), k):
                self.__dict__[k] = v
        own.setdefault("task_id", None)
        _check_core_arguments(type(self), self._airlite_args, own["task_id"])
        BaseOperator.__init__(self, **own)


# The arguments of a core operator airlite keeps generic that the
# edition's release does not take, by class name: 2.10.3's
# TriggerDagRunOperator lacks the standard provider's later ones, which
# its BaseOperator refuses as invalid arguments; 3.2.1's provider lacks
# execution_date. 1.10.15's BaseOperator takes any argument.
_NOT_ACCEPTED = {
    "2": {"TriggerDagRunOperator": ("fail_when_dag_is_paused", "note", "openlineage_inject_parent_info")},
    "3": {"TriggerDagRunOperator": ("execution_date",)},
}


def _check_core_arguments(cls, args, task_id):
    """Refuse at construction what the release's class refuses: an
    argument it does not take (BaseOperator's invalid arguments), and
    3.2.1's fail_when_dag_is_paused set, which the standard provider's
    TriggerDagRunOperator does not support on Airflow 3
    (providers/standard/operators/trigger_dagrun.py __init__)."""
    if not cls.__module__.startswith(_CORE_PREFIXES):
        return
    refused = _NOT_ACCEPTED.get(EDITION, {}).get(cls.__name__, ())
    unknown = {k: v for k, v in args.items() if k in refused}
    if unknown:
        # 3.2.1's task-sdk BaseOperator raises TypeError (sdk/bases/operator.py:1078-1082).
        refusal = TypeError if EDITION == "3" else AirflowException
        raise refusal(
            "Invalid arguments were passed to %s (task_id: %s). Invalid arguments were:\n**kwargs: %s"
            % (cls.__name__, task_id, unknown))
    if EDITION == "3" and cls.__name__ == "TriggerDagRunOperator" and args.get("fail_when_dag_is_paused"):
        raise NotImplementedError("Setting `fail_when_dag_is_paused` not yet supported for Airflow 3.x")


def chain(*tasks):
    """chain(a, [b, c], d): each element downstream of the one before;
    lists of the same length pair up (2.10.3 models/baseoperator.py chain)."""
    for up, down in zip(tasks, tasks[1:]):
        if isinstance(up, (list, tuple)) and isinstance(down, (list, tuple)):
            if len(up) != len(down):
                raise AirflowException("Chain not supported for different length Iterable. "
                                       "Got %d and %d." % (len(up), len(down)))
            for u, d in zip(up, down):
                u.set_downstream(d)
        elif isinstance(up, (list, tuple)):
            for u in up:
                u.set_downstream(down)
        else:
            up.set_downstream(down)


def cross_downstream(from_tasks, to_tasks):
    for task in from_tasks:
        task.set_downstream(to_tasks)


if EDITION == "1.10":
    class BaseOperatorLink:
        """1.10.15 airflow/models/baseoperator.py BaseOperatorLink: its
        ABCMeta is a Python 2 __metaclass__ attribute, so under Python 3
        nothing is abstract and get_link takes (operator, dttm)."""
        operators = []

        @property
        def name(self):
            return None

        def get_link(self, operator, dttm):
            return None
