"""DAG as the parse keeps it (2.10.3 airflow/models/dag.py, 1.10.15
airflow/models/dag.py): schedule and timetable, default_args, params, its
tasks, task groups and edge labels, and the checks that raise at parse."""
import datetime as _dt
import sys

from airflow import EDITION
from airflow.exceptions import AirflowException, DuplicateTaskIdFound, AirflowDagCycleException, \
    AirflowDagInconsistent
from airflow.utils import timezone
from airflow.utils.dates import cron_presets

_NOTSET = object()
DEFAULT_SCHEDULE_INTERVAL = _dt.timedelta(days=1)


class DagContext:
    _stack = []
    autoregistered_dags = set()
    current_autoregister_module_name = None

    @classmethod
    def push_context_managed_dag(cls, dag):
        cls._stack.append(dag)
        if EDITION != "1.10" and cls.current_autoregister_module_name:
            mod = sys.modules.get(cls.current_autoregister_module_name)
            if mod is not None:
                cls.autoregistered_dags.add((dag, mod))

    @classmethod
    def pop_context_managed_dag(cls):
        return cls._stack.pop() if cls._stack else None

    @classmethod
    def get_current_dag(cls):
        return cls._stack[-1] if cls._stack else None


def create_timetable(interval, tz):
    from airflow.timetables.interval import CronDataIntervalTimetable, DeltaDataIntervalTimetable
    from airflow.timetables.simple import NullTimetable, OnceTimetable, ContinuousTimetable
    if interval is _NOTSET:
        return DeltaDataIntervalTimetable(DEFAULT_SCHEDULE_INTERVAL)
    if interval is None:
        return NullTimetable()
    if interval == "@once":
        return OnceTimetable()
    if interval == "@continuous":
        return ContinuousTimetable()
    if EDITION == "3":
        # Airflow 3 makes a cron or a delta a trigger timetable ([scheduler]
        # create_cron_data_intervals and create_delta_data_intervals default
        # to False: c57fba0e config_templates/config.yml:2561-2597,
        # task-sdk definitions/dag.py _create_timetable).
        from airflow.timetables.trigger import CronTriggerTimetable, DeltaTriggerTimetable
        if isinstance(interval, _dt.timedelta) or type(interval).__name__ == "relativedelta":
            return DeltaTriggerTimetable(interval)
        if isinstance(interval, str):
            return CronTriggerTimetable(interval, tz)
    if isinstance(interval, _dt.timedelta) or type(interval).__name__ == "relativedelta":
        return DeltaDataIntervalTimetable(interval)
    if isinstance(interval, str):
        return CronDataIntervalTimetable(interval, tz)
    raise ValueError("%r is not a valid schedule_interval." % (interval,))


class DAG:
    def __init__(self, dag_id, description=None, schedule=_NOTSET, schedule_interval=_NOTSET,
                 timetable=None, start_date=None, end_date=None, full_filepath=None,
                 template_searchpath=None, template_undefined=None, user_defined_macros=None,
                 user_defined_filters=None, default_args=None, concurrency=None,
                 max_active_tasks=16, max_active_runs=16, max_consecutive_failed_dag_runs=0,
                 dagrun_timeout=None, sla_miss_callback=None, default_view=None,
                 orientation="LR", catchup=True, on_success_callback=None,
                 on_failure_callback=None, doc_md=None, params=None, access_control=None,
                 is_paused_upon_creation=None, jinja_environment_kwargs=None,
                 render_template_as_native_obj=False, tags=None, owner_links=None,
                 auto_register=True, fail_stop=False, dag_display_name=None):
        from airflow.models.baseoperator import validate_key
        from airflow._airlite.param import ParamsDict
        self.default_args = dict(default_args or {})
        if default_args is not None and not isinstance(default_args, dict):
            raise TypeError("default_args must be a dict")
        validate_key(dag_id)
        self._dag_id = dag_id
        self.parent_dag = None
        self.is_subdag = False
        self._description = description
        self.fileloc = None
        mod = sys._getframe(1).f_globals.get("__file__")
        self.fileloc = mod
        self.start_date = start_date if start_date is not None else self.default_args.get("start_date")
        self.end_date = end_date if end_date is not None else self.default_args.get("end_date")
        # The DAG's zone is its start_date's, else [core] default_timezone
        # (utc); its cron schedule ticks there (2.10.3 models/dag.py:616-628;
        # 3.2.1 task-sdk definitions/dag.py _extract_tz).
        tz = timezone.utc
        if isinstance(self.start_date, _dt.datetime) and self.start_date.utcoffset() is not None:
            tz = self.start_date.tzinfo
        if self.start_date is not None:
            self.start_date = timezone.convert_to_utc(self.start_date)
        if self.end_date is not None:
            self.end_date = timezone.convert_to_utc(self.end_date)
        self.timezone = tz
        self.template_searchpath = template_searchpath
        self.user_defined_macros = user_defined_macros
        self.user_defined_filters = user_defined_filters
        self.max_active_tasks = concurrency if concurrency is not None else max_active_tasks
        self.max_active_runs = max_active_runs
        self.max_consecutive_failed_dag_runs = max_consecutive_failed_dag_runs
        self.dagrun_timeout = dagrun_timeout
        self.default_view = default_view or ("tree" if EDITION == "1.10" else "grid")
        self.orientation = orientation
        self.catchup = catchup
        self.has_on_success_callback = on_success_callback is not None
        self.has_on_failure_callback = on_failure_callback is not None
        self.doc_md = doc_md
        self.access_control = access_control
        self.is_paused_upon_creation = is_paused_upon_creation
        self.render_template_as_native_obj = render_template_as_native_obj
        self.tags = list(tags or [])
        self.owner_links = owner_links or {}
        self.dag_display_name = dag_display_name
        self.fail_stop = fail_stop
        self.task_dict = {}
        self.edge_info = {}
        self.subdags_ = []
        # default_args' params are the DAG's, over its own, and leave
        # default_args (2.10.3 models/dag.py:576-584; 1.10.15
        # models/dag.py:253-256; task-sdk definitions/dag.py
        # _convert_params:168-184 of c57fba0e).
        merged = dict(params or {})
        if "params" in self.default_args:
            merged.update(self.default_args.pop("params") or {})
        self.params = ParamsDict(merged)
        for tag in self.tags:
            if len(tag) > 100:
                raise AirflowException("tag cannot be longer than 100 characters")
        # The check is in __init__ itself, as in 2.10.3 (models/dag.py:650):
        # an import error's two-frame traceback then shows the DAG file's line.
        no_start = not ("start_date" in self.default_args or self.start_date)
        if EDITION == "2" and no_start and any(
                a is not _NOTSET and a is not None and bool(a) for a in (schedule_interval, timetable, schedule)):
            raise ValueError("DAG is missing the start_date parameter")
        self._schedule(schedule, schedule_interval, timetable, tz)
        # Airflow 3 asks for a start_date only to catch up a schedule
        # (task-sdk definitions/dag.py _validate_catchup).
        if EDITION == "3" and no_start and catchup and self.timetable.can_be_scheduled:
            raise ValueError("start_date is required when catchup=True")
        if EDITION != "1.10":
            from airflow._airlite.task_group import TaskGroup
            self._task_group = TaskGroup.create_root(self)
            # Last in __init__, as 2.10.3 calls it (models/dag.py:776);
            # Airflow 3's attrs validator of params runs after those of
            # max_active_runs and catchup (task-sdk definitions/dag.py:
            # 467-600 of c57fba0e).
            self.validate_schedule_and_params()

    def _schedule(self, schedule, schedule_interval, timetable, tz):
        if EDITION == "1.10":
            interval = DEFAULT_SCHEDULE_INTERVAL if schedule_interval is _NOTSET else schedule_interval
            self.schedule_interval = interval
            self.timetable = None  # 1.10.15 has no timetables
            return
        args = [schedule_interval, timetable, schedule]
        if sum(1 for a in args if a is not _NOTSET and a is not None) > 1:
            raise ValueError("At most one allowed for args 'schedule_interval', 'timetable', and 'schedule'.")
        from airflow._airlite.cron import encode_timezone
        tzname = encode_timezone(tz)
        from airflow.timetables.base import Timetable
        from airflow.datasets import BaseDataset, DatasetAll
        from airflow.timetables.simple import DatasetTriggeredTimetable
        if timetable is not None:
            schedule = timetable
        elif schedule_interval is not _NOTSET:
            schedule = schedule_interval
        if isinstance(schedule, Timetable):
            self.timetable = schedule
            self.schedule_interval = schedule.summary
        elif isinstance(schedule, BaseDataset) or (
                isinstance(schedule, (list, tuple, set)) and schedule and
                all(isinstance(s, BaseDataset) for s in schedule)):
            cond = schedule if isinstance(schedule, BaseDataset) else DatasetAll(*schedule)
            self.timetable = DatasetTriggeredTimetable(cond)
            self.schedule_interval = self.timetable.summary
        elif isinstance(schedule, (list, tuple, set)) and schedule:
            raise ValueError("All elements in 'schedule' should be datasets or dataset aliases")
        else:
            self.timetable = create_timetable(schedule, tzname)
            self.schedule_interval = DEFAULT_SCHEDULE_INTERVAL if schedule is _NOTSET else schedule

    # names
    @property
    def dag_id(self):
        return self._dag_id

    @dag_id.setter
    def dag_id(self, value):
        self._dag_id = value

    @property
    def description(self):
        return self._description

    @property
    def task_group(self):
        return self._task_group

    @property
    def tasks(self):
        return list(self.task_dict.values())

    @property
    def task_ids(self):
        return list(self.task_dict)

    @property
    def concurrency(self):
        return self.max_active_tasks

    @property
    def owner(self):
        return ", ".join(sorted({t.owner for t in self.tasks}))

    @property
    def subdags(self):
        out = []
        for task in self.tasks:
            sub = getattr(task, "subdag", None)
            if type(task).__name__ == "SubDagOperator" and sub is not None:
                out.append(sub)
                out.extend(sub.subdags)
        return out

    def __enter__(self):
        DagContext.push_context_managed_dag(self)
        return self

    def __exit__(self, *exc):
        DagContext.pop_context_managed_dag()

    def __repr__(self):
        return "<DAG: %s>" % self.dag_id

    def __hash__(self):
        return id(self)

    def add_task(self, task):
        # 2.10.3 dag.py:2820-2855, 1.10.15 dag.py:1310-1345
        if EDITION == "1.10":
            if not self.start_date and not task.start_date:
                raise AirflowException("Task is missing the start_date parameter")
        if not task.start_date:
            task.start_date = self.start_date
        elif self.start_date:
            task.start_date = max(task.start_date, self.start_date)
        if not task.end_date:
            task.end_date = self.end_date
        elif self.end_date:
            task.end_date = min(task.end_date, self.end_date)
        task_id = task.task_id
        if task_id in self.task_dict and self.task_dict[task_id] is not task:
            if EDITION == "1.10":
                return  # a warning in 1.10.15: the first task keeps the id
            raise DuplicateTaskIdFound("Task id '%s' has already been added to the DAG" % task_id)
        if EDITION != "1.10" and task_id not in self.task_dict and task_id in self._task_group.used_group_ids:
            raise DuplicateTaskIdFound("Task id '%s' has already been added to the DAG" % task_id)
        self.task_dict[task_id] = task
        task.dag = self
        if EDITION != "1.10":
            self._task_group.used_group_ids.add(task_id)

    def add_tasks(self, tasks):
        for t in tasks:
            self.add_task(t)

    def get_task(self, task_id):
        if task_id in self.task_dict:
            return self.task_dict[task_id]
        from airflow.exceptions import TaskNotFound
        raise TaskNotFound("Task %s not found" % task_id)

    def has_task(self, task_id):
        return task_id in self.task_dict

    def set_edge_info(self, upstream_task_id, downstream_task_id, info):
        self.edge_info.setdefault(upstream_task_id, {})[downstream_task_id] = info

    def set_dependency(self, upstream_task_id, downstream_task_id):
        self.get_task(upstream_task_id).set_downstream(self.get_task(downstream_task_id))

    def validate_schedule_and_params(self):
        """A DAG that can be scheduled must resolve its params without a
        conf (2.10.3 models/dag.py:3712-3727; Airflow 3's _validate_params,
        task-sdk definitions/dag.py:584-600 of c57fba0e)."""
        if not self.timetable.can_be_scheduled:
            return
        from airflow.exceptions import ParamValidationError
        try:
            self.params.validate()
        except ParamValidationError as pverr:
            if EDITION == "3":
                raise ValueError(
                    "Dag %r is not allowed to define a Schedule, as there are required params without default "
                    "values, or the default values are not valid." % self.dag_id) from pverr
            raise AirflowException(
                "DAG is not allowed to define a Schedule, "
                "if there are any required params without default values or default values are not valid.") from pverr

    # checks made when the file is bagged
    def validate(self):
        if EDITION == "1.10":
            return
        if EDITION == "2":
            self.validate_schedule_and_params()  # 2.10.3 models/dag.py:844
        tt = self.timetable
        if isinstance(self.schedule_interval, str) or self.schedule_interval is None or \
                isinstance(self.schedule_interval, _dt.timedelta):
            expected = create_timetable(self.schedule_interval if self.schedule_interval is not None else None, "UTC") \
                if not (isinstance(self.schedule_interval, str) and self.schedule_interval == "Dataset") else None
            if expected is not None and type(tt).__name__ == type(expected).__name__ and \
                    expected.summary != tt.summary:
                raise AirflowDagInconsistent("inconsistent schedule: timetable %r does not match schedule_interval %r"
                                             % (tt.summary, self.schedule_interval))
        tt.validate()

    def check_cycle(self):
        """2.10.3 utils/dag_cycle_tester.py check_cycle; 1.10.15
        dag.py:1660-1690 test_cycle."""
        visited = {}
        for start in self.task_dict:
            if visited.get(start):
                continue
            stack = [(start, iter(sorted(self.task_dict[start].downstream_task_ids)))]
            visited[start] = 1
            while stack:
                task_id, children = stack[-1]
                for child in children:
                    state = visited.get(child, 0)
                    if state == 1:
                        if EDITION == "1.10":
                            raise AirflowDagCycleException(
                                "Cycle detected in DAG. Faulty task: %s to %s" % (task_id, child))
                        raise AirflowDagCycleException(
                            "Cycle detected in DAG: %s. Faulty task: %s" % (self.dag_id, task_id))
                    if state == 0:
                        visited[child] = 1
                        stack.append((child, iter(sorted(self.task_dict[child].downstream_task_ids))))
                        break
                else:
                    visited[task_id] = 2
                    stack.pop()


def dag(dag_id="", **dag_kwargs):
    """@dag: a function that builds a DAG when called (2.10.3
    models/dag.py dag())."""
    import functools
    import inspect

    def wrapper(f):
        @functools.wraps(f)
        def factory(*args, **kwargs):
            sig = inspect.signature(f).bind(*args, **kwargs)
            sig.apply_defaults()
            params = dict(dag_kwargs.pop("params", None) or {}) if "params" in dag_kwargs else {}
            for name, value in sig.arguments.items():
                params[name] = value
            kw = dict(dag_kwargs)
            if params:
                kw["params"] = params
            kw.setdefault("doc_md", f.__doc__)
            with DAG(dag_id or f.__name__, **kw) as the_dag:
                the_dag.fileloc = f.__globals__.get("__file__")
                f(**{k: the_dag.params.get(k) for k in sig.arguments})
            return the_dag
        return factory

    if callable(dag_id) and not dag_kwargs:
        f, dag_id = dag_id, ""
        return wrapper(f)
    return wrapper


# Airflow 3.2.1's DAG (task-sdk/src/airflow/sdk/definitions/dag.py) is an
# attrs class without the arguments Airflow 3 removed: passing one fails as
# Python fails an unknown keyword argument. Its schedule defaults to None,
# and catchup to [scheduler] catchup_by_default, False in Airflow 3.
_REMOVED_IN_3 = ("schedule_interval", "timetable", "full_filepath", "concurrency", "default_view",
                 "orientation", "fail_stop")


def _airflow3_arguments(kwargs, where):
    for name in _REMOVED_IN_3:
        if name in kwargs:
            raise TypeError("%s got an unexpected keyword argument %r" % (where, name))
    kwargs.setdefault("schedule", None)
    kwargs.setdefault("catchup", False)
    if "fail_fast" in kwargs:
        kwargs["fail_stop"] = kwargs.pop("fail_fast")
    return kwargs


def _convert_allowed_run_types(val):
    """Airflow 3.2's converter of allowed_run_types (task-sdk
    definitions/dag.py:211-221 of c57fba0e): None, one DagRunType, or a
    collection of DagRunTypes or their values, as a frozenset; a string
    is a collection of its characters, none of them a value."""
    if val is None:
        return None
    import enum
    from airflow.utils.types import DagRunType
    if isinstance(val, enum.Enum):
        val = [val]
    return frozenset(DagRunType(v) if not isinstance(v, DagRunType) else v for v in val)


def _validate_allowed_run_types(dag, allowed):
    """Airflow 3.2's validator (task-sdk definitions/dag.py:613-633 of
    c57fba0e): the run type the DAG's schedule makes must be allowed."""
    if not allowed:
        return
    from airflow.utils.types import DagRunType
    from airflow.timetables.assets import AssetOrTimeSchedule
    from airflow.timetables.simple import DatasetTriggeredTimetable
    if isinstance(dag.timetable, (DatasetTriggeredTimetable, AssetOrTimeSchedule)):
        if DagRunType.ASSET_TRIGGERED not in allowed:
            raise ValueError("allowed_run_types must include ASSET_TRIGGERED when the Dag is scheduled by assets")
    elif dag.timetable.can_be_scheduled:
        if DagRunType.SCHEDULED not in allowed:
            raise ValueError("allowed_run_types must include SCHEDULED when the Dag has a schedule defined")
    elif DagRunType.MANUAL not in allowed:
        raise ValueError("allowed_run_types must include MANUAL when the Dag "
                         "has no schedule defined (schedule=None)")


if EDITION == "3":
    _dag_init_2 = DAG.__init__
    _dag_decorator_2 = dag

    def _dag_init_3(self, dag_id, *args, **kwargs):
        if args:
            raise TypeError("DAG.__init__() takes 2 positional arguments but %d were given" % (2 + len(args)))
        # attrs converts every argument before it runs any validator: a
        # value that is no DagRunType fails first, the run types' check
        # after the params' (field order, task-sdk definitions/dag.py:
        # 507-527 and 613-633 of c57fba0e).
        allowed = _convert_allowed_run_types(kwargs.pop("allowed_run_types", None))
        _dag_init_2(self, dag_id, **_airflow3_arguments(kwargs, "DAG.__init__()"))
        self.allowed_run_types = allowed
        _validate_allowed_run_types(self, allowed)
        self.fileloc = sys._getframe(1).f_globals.get("__file__")  # the caller's file, not this one

    DAG.__init__ = _dag_init_3

    def dag(dag_id="", **dag_kwargs):  # noqa: F811  Airflow 3's @dag
        for name in _REMOVED_IN_3:
            if name in dag_kwargs:
                raise TypeError("dag() got an unexpected keyword argument %r" % name)
        return _dag_decorator_2(dag_id, **dag_kwargs)
