"""airlite's task runner: one try of one Python callable task, run the way
Airflow's task runner runs it (2.10.3 airflow/cli/commands/task_command.py
task_run -> TaskInstance._execute_task; 1.10.15 the same path): the DAG
file is imported as the DAG processor imports it (the DAG folder on
sys.path, the module named as airflow/utils/file.py names it), the task's
callable is called with Airflow's arguments, and what happened goes back
to airlite.

stdin: one JSON request (data only, never source): {"edition",
"dag_folder", "file", "dag_id", "task_id", "context": {...},
"memory_bytes"}. fd 4 (to airlite) and fd 3 (from airlite; on Windows two
handles, see channel_fds): JSON lines, a
request/response channel, as Airflow 3's task runner talks to its
supervisor (task_sdk execution_time/comms.py): {"op": "render"}, {"op":
"xcom_pull"}, {"op": "variable"} each get one answer line; the last line
is {"op": "result", "state", "pushes", "skip", ...}. stdout and stderr are
the task's log.
"""
import inspect
import json
import math
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
NOTSET = object()


class Channel:
    def __init__(self, rfd, wfd):
        self.r = os.fdopen(rfd, "r", encoding="utf-8")
        self.w = os.fdopen(wfd, "w", encoding="utf-8")

    def send(self, msg):
        # Strict JSON, as airlite decodes it: a NaN or an infinity among
        # what the callable handed over raises here, in the callable's
        # frame, instead of reaching airlite as a line it cannot read.
        self.w.write(json.dumps(msg, allow_nan=False) + "\n")
        self.w.flush()

    def ask(self, msg):
        self.send(msg)
        line = self.r.readline()
        if not line:
            raise RuntimeError("airlite closed the task channel")
        answer = json.loads(line)
        if answer.get("error"):
            raise RuntimeError(answer["error"])
        return answer


CHANNEL = None


def channel_fds():
    """The channel's two ends: fds 3 (from airlite) and 4 (to airlite); on
    Windows, which hands a child no fds beyond 0-2, two inherited pipe
    handles named in AIRLITE_TASK_CHANNEL (scheduler_procs_windows.go
    passTaskChannel)."""
    handles = os.environ.pop("AIRLITE_TASK_CHANNEL", "")
    if not handles or os.name != "nt":
        return 3, 4
    import msvcrt
    answers, requests = (int(h) for h in handles.split())
    return msvcrt.open_osfhandle(answers, os.O_RDONLY), msvcrt.open_osfhandle(requests, os.O_WRONLY)


class _ChannelVariables(dict):
    """Variable.get's values, asked of airlite's store one key at a time;
    Variable.set and Variable.delete write airlite's store, as in Airflow
    where they write the metadata database at once."""

    def write(self, key, value, description):
        CHANNEL.ask({"op": "variable_set", "key": key, "value": value, "description": description})
        dict.__setitem__(self, key, value)

    def __init__(self):
        super().__init__()
        self._taught = set()  # (key, value, json) the try's masker has learnt

    def mask(self, key, value, as_json):
        """Variable.get's mask_secret(value, key): airlite keeps the try's
        secrets masker, which masks the try's log. A value the masker has
        learnt is not sent again: a Variable.get in a loop asks once."""
        taught = (key, value, as_json)
        if taught in self._taught:
            return
        CHANNEL.ask({"op": "variable_mask", "key": key, "value": value, "json": as_json})
        self._taught.add(taught)

    def remove(self, key):
        answer = CHANNEL.ask({"op": "variable_delete", "key": key})
        dict.pop(self, key, None)
        return answer.get("deleted", 0)

    def _fetch(self, key):
        if dict.__contains__(self, key):
            return True
        answer = CHANNEL.ask({"op": "variable", "key": key})
        if answer.get("found"):
            dict.__setitem__(self, key, answer["value"])
            return True
        return False

    def __contains__(self, key):
        return self._fetch(key)

    def __getitem__(self, key):
        if not self._fetch(key):
            raise KeyError(key)
        return dict.__getitem__(self, key)


class TaskInstance:
    """What a callable reaches as ti / task_instance: its identity, and
    xcom_push / xcom_pull over the channel."""

    def __init__(self, ctx, task, dag, edition):
        self.dag_id = ctx["dag_id"]
        self.task_id = ctx["task_id"]
        self.run_id = ctx["run_id"]
        self.try_number = ctx["try_number"]
        self.map_index = -1
        self.max_tries = ctx.get("max_tries", 0)
        self.task = task
        self.dag = dag
        self.state = "running"
        self.hostname = ctx.get("hostname", "")
        self.pushes = []  # [key, value] in push order
        self._edition = edition

    def xcom_push(self, key, value, execution_date=None, session=None):
        # Airflow serializes at push time (2.10.3 models/xcom.py
        # XCom.serialize_value): a value JSON cannot hold fails the try here.
        encoded = xcom_encode(value, self._edition)
        self.pushes = [p for p in self.pushes if p[0] != key]
        self.pushes.append([key, encoded])

    def xcom_pull(self, task_ids=None, dag_id=None, key="return_value", include_prior_dates=False,
                  session=None, *, map_indexes=None, default=None):
        # 2.10.3 models/taskinstance.py xcom_pull: a str task id (or None)
        # gives one value, an iterable gives a list in task_ids' order.
        many = task_ids is not None and not isinstance(task_ids, str)
        ids = None if task_ids is None else ([task_ids] if isinstance(task_ids, str) else list(task_ids))
        dag_ids = [dag_id] if isinstance(dag_id, str) else (list(dag_id) if dag_id else [self.dag_id])
        found = []
        # What this try pushed so far is already this run's, as in Airflow
        # where a push is written at once.
        if dag_ids == [self.dag_id] and (ids is None or self.task_id in ids):
            found = [{"task_id": self.task_id, "key": k, "value": v, "run_id": self.run_id, "map_index": self.map_index}
                     for k, v in reversed(self.pushes) if not key or k == key]
        answer = CHANNEL.ask({"op": "xcom_pull", "task_ids": ids, "dag_ids": dag_ids, "key": key or "",
                              "include_prior_dates": bool(include_prior_dates)})
        mine = {(f["task_id"], f["key"], f["map_index"]) for f in found}
        found += [e for e in answer["entries"]
                  if e["run_id"] != self.run_id or (e["task_id"], e["key"], e["map_index"]) not in mine]
        by_index = map_indexes is not None and not isinstance(map_indexes, int)
        if map_indexes is not None:
            wanted = {map_indexes} if isinstance(map_indexes, int) else set(map_indexes)
            found = [e for e in found if e["map_index"] in wanted]
        if not many and not by_index:
            # 2.10.3 models/taskinstance.py _xcom_pull: one task without
            # map_indexes gives the value of an unmapped task, or the values
            # of a mapped one's instances in map_index order.
            if not found:
                return default
            first = found[0]
            if map_indexes is not None or first["map_index"] < 0:
                return xcom_decode(first["value"], self._edition)
            same = [e for e in found if e["run_id"] == first["run_id"] and e["task_id"] == first["task_id"]
                    and e["map_index"] >= 0]
            return [xcom_decode(e["value"], self._edition) for e in sorted(same, key=lambda e: e["map_index"])]
        by_task = {}
        for e in found:
            by_task.setdefault(e["task_id"], []).append(e)
        out = []
        for t in (ids if ids is not None else sorted(by_task)):
            entries = by_task.get(t, [])
            # By map_index, or in map_indexes' order when it is a list
            # (2.10.3 _xcom_pull orders by the position in it).
            order = (lambda e: e["map_index"])
            if by_index and not isinstance(map_indexes, range):
                position = {m: i for i, m in enumerate(map_indexes)}
                order = (lambda e: position.get(e["map_index"], 0))
            elif isinstance(map_indexes, range) and map_indexes.step < 0:
                order = (lambda e: -e["map_index"])
            mapped = sorted((e for e in entries if e["run_id"] == self.run_id and e["map_index"] >= 0), key=order)
            if include_prior_dates:
                pick = entries
            elif mapped:
                pick = mapped  # every instance of a mapped task, by map_index
            else:
                pick = entries[:1]
            out.extend(xcom_decode(e["value"], self._edition) for e in pick)
        return out

    def __repr__(self):
        return "<TaskInstance: %s.%s %s [running]>" % (self.dag_id, self.task_id, self.run_id)


# The dict keys Airflow's serialization gives a meaning of its own
# (serde's CLASSNAME and SCHEMA_ID): a value to store may not hold them.
_SERDE_RESERVED = ("__classname__", "__id__")


def xcom_encode(value, edition):
    """A pushed value as the try stores it, refused as the release's XCom
    serialization refuses it. Airflow 3 stores what serde makes of it
    (task-sdk BaseXCom.serialize_value; the execution API keeps it as the
    JSON value): a tuple, a set, a date ... in serde's encoded form, a
    reserved key refused at any depth (airlite_serde.py). 2.10.3's
    XComEncoder (utils/json.py) refuses a reserved key in a top-level dict,
    hands a top-level tuple to serde, and serde what json cannot write
    itself (a set, a date ... at any depth; a nested tuple is a list).
    1.10.15 writes json.dumps' text and refuses none."""
    import airlite_serde
    if edition == "3":
        return json.dumps(airlite_serde.serialize(value), allow_nan=False)
    if edition == "1.10":
        return json.dumps(value, allow_nan=False, default=_json_default110)
    if isinstance(value, dict) and any(k in value for k in _SERDE_RESERVED):
        raise AttributeError("reserved key __classname__ found in dict to serialize")
    if isinstance(value, tuple):
        value = _xcom_encoder_default(value)
    return json.dumps(value, allow_nan=False, default=_xcom_encoder_default)


def _xcom_encoder_default(value):
    """2.10.3 XComEncoder.default: serde's form, or json's own TypeError
    when serde has none."""
    import airlite_serde
    try:
        return airlite_serde.serialize(value, release="2")
    except TypeError:
        raise TypeError("Object of type %s is not JSON serializable" % type(value).__name__) from None


def xcom_decode(text, edition):
    """A stored value as the release's XCom reads it back: serde's
    deserialize (3.2.1's BaseXCom.deserialize_value; 2.10.3's XComDecoder,
    its object_hook on every dict): a tuple, a set, a datetime ... again.
    1.10.15: json.loads' value."""
    value = json.loads(text)
    if edition == "1.10":
        return value
    import airlite_serde
    return airlite_serde.deserialize(value)


def _json_default110(value):
    """1.10.15 had no encoder of its own: airlite writes a datetime as its
    ISO text, a set or a tuple as a list."""
    import datetime
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, (set, tuple)):
        return list(value)
    raise TypeError("Object of type %s is not JSON serializable" % type(value).__name__)


class DagRun:
    def __init__(self, fields):
        for k, v in fields.items():
            setattr(self, k, v)

    def __repr__(self):
        return "<DagRun %s @ %s: %s, state:running, queued_at: %s. externally triggered: %s>" % (
            self.dag_id, self.execution_date, self.run_id, self.queued_at, self.external_trigger)


def _date(text):
    if text is None:
        return None
    import pendulum
    return pendulum.parse(text)


def build_context(ctx, dag, task, ti, edition):
    """Airflow's template context, with Python values (2.10.3
    models/taskinstance.py _get_template_context; 1.10.15
    get_template_context)."""
    from airflow.configuration import conf
    dates = ctx["dates"]
    c = {k: v for k, v in ctx["values"].items()}
    for k, v in dates.items():
        c[k] = _date(v)
    run = dict(ctx["dag_run"])
    for k in ("execution_date", "logical_date", "start_date", "queued_at", "data_interval_start", "data_interval_end"):
        if k in run:
            run[k] = _date(run[k])
    run["conf"] = ctx.get("conf")
    dag_run = DagRun(run)
    c.update({"dag": dag, "task": task, "ti": ti, "task_instance": ti, "dag_run": dag_run,
              "params": ctx.get("params") or {}, "conf": conf, "test_mode": False,
              "inlets": list(getattr(task, "inlets", None) or []), "outlets": list(getattr(task, "outlets", None) or [])})
    from airflow.models.variable import Variable
    c["var"] = {"value": _VarAccessor(Variable, False), "json": _VarAccessor(Variable, True)}
    if edition != "1.10":
        c["outlet_events"] = OutletEventAccessors()
    return c


def _alias_name(obj):
    """The name of an alias (AssetAlias, DatasetAlias), else None."""
    kind = getattr(obj, "as_expression_json", lambda: {})().get("__type") if hasattr(obj, "name") else None
    return obj.name if kind in ("asset_alias", "dataset_alias") else None


def _asset_key(obj):
    """An asset's (name, uri), as its unique key."""
    uri = getattr(obj, "uri", None)
    return (getattr(obj, "name", None) or uri, uri or getattr(obj, "name", None))


def _plain_json(value):
    """value as JSON has it: what JSON cannot hold, its str(); a NaN or an
    infinity, None, as pydantic writes such a float into JSON
    (ser_json_inf_nan "null"), which the outlet events are when they reach
    Airflow 3's API server."""
    return _finite(json.loads(json.dumps(value, default=str)))


def _finite(value):
    """value with each float JSON cannot hold replaced by None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


class OutletEventAccessor:
    """One outlet's events (task-sdk execution_time/context.py
    OutletEventAccessor): the extra of its asset's event, and the events
    added through an alias."""

    def __init__(self, key):
        self.key = key
        self.extra = {}
        self.asset_alias_events = []

    def add(self, asset, extra=None):
        # Only an alias adds events; an asset's accessor ignores add.
        if _alias_name(self.key) is None:
            return
        if _alias_name(asset) is not None or getattr(asset, "uri", None) is None:
            raise TypeError("expect an asset, got %r" % (asset,))
        self.asset_alias_events.append((asset, dict(extra or {})))

    def __repr__(self):
        return "OutletEventAccessor(key=%r, extra=%r, asset_alias_events=%r)" % (self.key, self.extra, self.asset_alias_events)


class OutletEventAccessors:
    """The outlet_events context value (task-sdk execution_time/context.py
    OutletEventAccessors): an accessor per asset or alias, made when
    first asked for."""

    def __init__(self):
        self._dict = {}

    def _key(self, obj):
        alias = _alias_name(obj)
        if alias is not None:
            return ("alias", alias)
        if getattr(obj, "uri", None) is None:
            raise TypeError("Key should be either an asset or an asset alias, not %s" % type(obj).__name__)
        return ("asset",) + _asset_key(obj)

    def __getitem__(self, obj):
        key = self._key(obj)
        if key not in self._dict:
            self._dict[key] = OutletEventAccessor(obj)
        return self._dict[key]

    def __contains__(self, obj):
        return self._key(obj) in self._dict

    def __iter__(self):
        return iter(a.key for a in self._dict.values())

    def __len__(self):
        return len(self._dict)

    def report(self, outlets):
        """The events for airlite: those added through the aliases among
        the task's outlets, and the extras of its outlet assets' events
        (2.10.3 models/taskinstance.py _register_dataset_changes reads
        both from the task's outlets)."""
        aliases = {_alias_name(o) for o in outlets if _alias_name(o) is not None}
        alias_events, extras = [], []
        for key, acc in self._dict.items():
            if key[0] == "alias":
                if key[1] not in aliases:
                    continue
                group = getattr(acc.key, "group", "asset") or "asset"
                for asset, extra in acc.asset_alias_events:
                    name, uri = _asset_key(asset)
                    alias_events.append({"alias": {"name": key[1], "group": group},
                                         "asset": {"name": name, "uri": uri, "group": getattr(asset, "group", "asset")},
                                         "extra": _plain_json(extra)})
            elif acc.extra:
                extras.append({"asset": {"name": key[1], "uri": key[2]}, "extra": _plain_json(dict(acc.extra))})
        return alias_events, extras


class _VarAccessor:
    def __init__(self, variable, as_json):
        self._variable = variable
        self._json = as_json

    def __getattr__(self, key):
        return self._variable.get(key, deserialize_json=self._json)

    def get(self, key, default_var=NOTSET):
        if default_var is NOTSET:
            return self._variable.get(key, deserialize_json=self._json)
        return self._variable.get(key, default_var, deserialize_json=self._json)


def render(value, ti, seen=None):
    """Airflow's render_template for op_args, op_kwargs, templates_dict
    (2.10.3 template/templater.py render_template): strings through
    airlite's Jinja (asked over the channel: the rendered text comes back
    as data), containers item by item, an XComArg resolved to the XCom it
    names (2.10.3 models/xcom_arg.py PlainXComArg.resolve)."""
    from airflow.models.xcom_arg import XComArg
    if isinstance(value, str):
        if "{{" in value or "{%" in value or "{#" in value:
            return CHANNEL.ask({"op": "render", "template": value})["text"]
        return value
    if isinstance(value, XComArg):
        if value.operator.__dict__.get("_airlite_mapped") is not None:
            # A mapped upstream's values, by map_index: Airflow's
            # LazyXComSequence (2.10.3 models/xcom_arg.py PlainXComArg.resolve).
            return mapped_values(value.operator.task_id, value.key, ti)
        got = ti.xcom_pull(task_ids=value.operator.task_id, key=value.key, default=NOTSET)
        if got is NOTSET:
            raise XComNotFound('XComArg result from %s at %s with key="%s" is not found!'
                               % (value.operator.task_id, ti.dag_id, value.key))
        return got
    if isinstance(value, tuple):
        if hasattr(value, "_fields"):  # a namedtuple
            return value.__class__(*(render(v, ti) for v in value))
        return tuple(render(v, ti) for v in value)
    if isinstance(value, list):
        return [render(v, ti) for v in value]
    if isinstance(value, dict):
        return {k: render(v, ti) for k, v in value.items()}
    if isinstance(value, set):
        return {render(v, ti) for v in value}
    return value


class XComNotFound(Exception):
    pass


def mapped_values(task_id, key, ti):
    """The values a mapped task's instances pushed under key in this run, in
    map_index order (a list stands for Airflow's LazyXComSequence)."""
    answer = CHANNEL.ask({"op": "xcom_pull", "task_ids": [task_id], "dag_ids": [ti.dag_id], "key": key,
                          "include_prior_dates": False})
    found = sorted((e["map_index"], e["value"]) for e in answer["entries"]
                   if e["run_id"] == ti.run_id and e["map_index"] >= 0)
    return [xcom_decode(v, ti._edition) for _, v in found]


def expand_for(task, map_index, ti, edition):
    """Set the expanded arguments of one instance of a mapped task (2.10.3
    models/expandinput.py DictOfListsExpandInput._expand_mapped_field and
    ListOfDictsExpandInput.resolve; decorators/base.py: a TaskFlow
    task's expanded arguments are its callable's keyword arguments).

    Airflow 3's task SDK takes each argument's length from the value
    pulled (c57fba0e task-sdk definitions/_internal/expandinput.py:
    187-203, xcom_arg.py:599-606 len() of it), not from the TaskMap row
    the scheduler expanded by: a value a client changed since the push
    (PATCH stores json.dumps' text, a str) is indexed as the text it
    is, and one without a len() is a KeyError naming the argument."""
    import collections.abc
    mapped = task.__dict__["_airlite_mapped"]
    expand_input = mapped["expand_input"]
    taskflow = getattr(task, "custom_operator_name", None) is not None and hasattr(task, "python_callable") \
        and type(task).__module__.startswith("airflow.decorators")
    if "__kwargs__" in expand_input:
        value = render(expand_input["__kwargs__"], ti)
        if not isinstance(value, collections.abc.Sequence):
            raise ValueError("expand_kwargs() expects a list[dict], not %s" % _type_name(value))
        mapping = value[map_index]
        if not isinstance(mapping, collections.abc.Mapping):
            raise ValueError("expand_kwargs() expects a list[dict], not list[%s]" % _type_name(mapping))
        for k in mapping:
            if not isinstance(k, str):
                raise ValueError("expand_kwargs() input dict keys must all be str, but %r is of type %s"
                                 % (k, _type_name(k)))
        data = dict(mapping)
    else:
        values = {k: render(v, ti) for k, v in expand_input.items()}
        lengths = {}
        for k, v in values.items():
            if edition == "3":
                if not isinstance(v, collections.abc.Sized):
                    raise KeyError(k)
            elif not isinstance(v, (collections.abc.Sequence, dict)) or isinstance(v, str):
                raise TypeError("can't map over value of type %s" % type(v))
            lengths[k] = len(v)
        data = {}
        for k, v in values.items():
            index = map_index
            found = -1
            for name in reversed(list(expand_input)):
                length = lengths[name]
                if length < 1:
                    raise RuntimeError("cannot expand field mapped to length %r" % length)
                if name == k:
                    found = index % length
                    break
                index //= length
            if isinstance(v, dict):
                data[k] = list(v.items())[found]
            elif isinstance(v, collections.abc.Sequence):
                data[k] = v[found]
            else:
                raise TypeError("can't map over value of type %s" % type(v))
    if taskflow:
        task.op_kwargs = dict(task.op_kwargs, **data)
    else:
        for k, v in data.items():
            setattr(task, k, v)


def _type_name(value):
    return "None" if value is None else type(value).__name__


def render_map_index(task, context):
    """map_index_template rendered with the instance's context after it
    ran (2.10.3 models/taskinstance.py _render_map_index), when Jinja is
    importable; None otherwise."""
    template = getattr(task, "map_index_template", None)
    if template is None:
        return None
    try:
        import jinja2
    except ImportError:
        return None
    return jinja2.Environment().from_string(template).render(**context)


def _rendered_field(value):
    """A rendered template field as the API shows it (2.10.3
    utils/helpers.py serialize_template_field): JSON values as they are,
    anything else as its str()."""
    try:
        json.dumps(value, allow_nan=False)
        return value
    except (TypeError, ValueError):
        return str(value)


def determine_kwargs(function, args, kwargs):
    """2.10.3 utils/operator_helpers.py KeywordParameters.determine: a
    callable with **kwargs takes the whole context, else only the names its
    signature asks for."""
    signature = inspect.signature(function)
    has_wildcard = any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())
    for name, param in list(signature.parameters.items())[:len(args)]:
        if name in kwargs:
            raise ValueError("The key %r in args is a part of kwargs and therefore reserved." % name)
        if param.kind == param.VAR_POSITIONAL:
            break
    if has_wildcard:
        return kwargs
    return {key: kwargs[key] for key in signature.parameters if key in kwargs}


def load_dag(path, dag_id):
    """Import the DAG file as the DAG processor does (airlite_parse.py) and
    find dag_id among its DAGs and their sub-DAGs."""
    import importlib.machinery
    import importlib.util
    from airflow.models.dag import DAG, DagContext
    import airlite_parse
    name = airlite_parse.module_name(path)
    DagContext.autoregistered_dags.clear()
    DagContext.current_autoregister_module_name = name
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    found = [v for v in list(module.__dict__.values()) if isinstance(v, DAG)]
    found += [d for d, _ in list(DagContext.autoregistered_dags)]
    for dag in list(found):
        found += dag.subdags
    for dag in found:
        if dag.dag_id == dag_id:
            return dag
    raise LookupError("DAG %r not found in %s" % (dag_id, path))


def skip_all_except(task, dag, branch, edition):
    """The tasks a branch skips (2.10.3 models/skipmixin.py
    skip_all_except; 1.10.15 models/skipmixin.py): the direct downstream
    tasks not followed; in 2, not those downstream of a followed task
    either (an empty branch's join)."""
    from airflow.exceptions import AirflowException
    if isinstance(branch, str):
        followed = {branch}
    elif branch is None:
        followed = set()
    elif hasattr(branch, "__iter__"):
        followed = set(branch)
        invalid = sorted((repr(t), type(t).__name__) for t in followed if not isinstance(t, str))
        if invalid:
            raise AirflowException("'branch_task_ids' expected all task IDs are strings. "
                                   "Invalid tasks found: %s." % invalid)
    else:
        raise AirflowException("'branch_task_ids' must be either None, a task ID, or an Iterable of IDs, "
                               "but got %r." % type(branch).__name__)
    if edition != "1.10":
        invalid = followed - set(dag.task_dict)
        if invalid:
            raise AirflowException("'branch_task_ids' must contain only valid task_ids. "
                                   "Invalid tasks found: %s." % invalid)
    keep = set(followed)
    if edition != "1.10":
        for b in followed:
            keep |= flat_downstream(dag, b)
    return sorted(t for t in task.downstream_task_ids if t not in keep)


def flat_downstream(dag, task_id):
    out, stack = set(), [task_id]
    while stack:
        for d in dag.task_dict[stack.pop()].downstream_task_ids:
            if d not in out:
                out.add(d)
                stack.append(d)
    return out


def main():
    global CHANNEL
    request = json.loads(sys.stdin.read())
    _REQUEST.update(request)
    CHANNEL = Channel(*channel_fds())
    edition = request.get("edition", "2")
    os.environ["AIRLITE_EDITION"] = edition
    folder = request.get("dag_folder") or ""
    os.environ["AIRLITE_DAGS_FOLDER"] = folder
    limit = int(request.get("memory_bytes") or 0)
    # On Windows (no resource module) airlite's Job Object bounds the
    # process instead (scheduler_procs_windows.go startGroup).
    if limit > 0 and os.name != "nt":
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # The task log takes lines as they come, stdout and stderr interleaved.
    sys.stdout.reconfigure(line_buffering=True, errors="backslashreplace")
    sys.stderr.reconfigure(line_buffering=True, errors="backslashreplace")
    sys.path.insert(0, HERE)
    if folder and folder not in sys.path:
        sys.path.append(folder)
    try:
        import pendulum  # noqa: F401
    except ImportError:
        sys.path.append(os.path.join(HERE, "airlite_compat"))
    import airflow  # noqa: F401  the edition's finder goes in first
    from airflow.models import variable
    variable._VALUES = _ChannelVariables()
    ctx = request["context"]
    result = {"op": "result", "state": "failed", "pushes": [], "skip": [], "no_retry": False}
    ti = None
    try:
        result.update(run(request, ctx, edition))
    except BaseException as e:  # noqa: B902  every ending of the callable is an outcome
        from airflow.exceptions import AirflowFailException, AirflowSkipException
        ti = getattr(e, "_airlite_ti", None)
        if isinstance(e, AirflowSkipException):
            # 2.10.3 models/taskinstance.py _run_raw_task: logged, state skipped
            print("Skipping task: %s" % e if edition == "1.10" else "Task skipped: %s" % (e,), file=sys.stderr)
            result["state"] = "skipped"
        else:
            traceback.print_exc()
            result["state"] = "failed"
            result["no_retry"] = isinstance(e, AirflowFailException)
            result["reason"] = ("%s: %s" % (type(e).__name__, e)).rstrip(": ")
        if ti is not None:
            result["pushes"] = ti.pushes
    sys.stdout.flush()
    sys.stderr.flush()
    CHANNEL.send(result)


def run(request, ctx, edition):
    from airflow._airlite.python import BranchPythonOperator, PythonOperator, ShortCircuitOperator
    from airflow.exceptions import AirflowException
    dag = load_dag(request["file"], request["dag_id"])
    task = dag.task_dict.get(request["task_id"])
    if task is None:
        raise LookupError("Task %r not found in DAG %r" % (request["task_id"], request["dag_id"]))
    from airflow._airlite.python import ExternalPythonOperator, PythonVirtualenvOperator
    if "trigger_run_id" in request and type(task).__name__ == "TriggerDagRunOperator":
        ti = TaskInstance(ctx, task, dag, edition)
        try:
            return trigger_order(task, dag, ti, ctx, edition, request["trigger_run_id"])
        except BaseException as e:
            e._airlite_ti = ti
            raise
    # 1.10.15 has no airflow.decorators, so no @task.bash.
    bash = edition != "1.10" and type(task).__name__ == "_BashDecoratedOperator"
    if not bash and (not isinstance(task, PythonOperator) or
                     isinstance(task, (ExternalPythonOperator, PythonVirtualenvOperator))):
        raise TypeError("%s is a %s, not a Python callable operator" % (task.task_id, type(task).__name__))
    ti = TaskInstance(ctx, task, dag, edition)
    ti.map_index = int(request.get("map_index", -1))
    try:
        if task.__dict__.get("_airlite_mapped") is not None:
            if ti.map_index < 0:
                raise RuntimeError("can't resolve task-mapping argument without expanding")
            expand_for(task, ti.map_index, ti, edition)
        if bash:
            return bash_command(task, dag, ti, ctx, edition)
        return execute(task, dag, ti, ctx, edition, BranchPythonOperator, ShortCircuitOperator, AirflowException)
    except BaseException as e:
        e._airlite_ti = ti
        raise


# [core] max_map_length's default: the longest value a mapped task may
# expand over (Airflow 3.2.1 execution API routes/xcoms.py set_xcom; 2.10.3
# models/taskinstance.py _record_task_map_for_downstreams).
MAX_MAP_LENGTH = 1024

_REQUEST = {}


def request_mapped_dependants():
    """Whether a mapped task downstream expands over this task's XCom
    (iter_mapped_dependants), as airlite's scheduler found it."""
    return bool(_REQUEST.get("mapped_dependants"))


def is_mappable_value(value):
    """mappedoperator.py is_mappable_value (both releases): a sequence or a
    dict, but no str, bytes or bytearray."""
    import collections.abc
    return isinstance(value, (collections.abc.Sequence, dict)) and not isinstance(value, (bytearray, bytes, str))


def push_return_value(task, ti, value, edition, mapped_dependants, AirflowException):
    """The return value pushed as the release pushes it, with the length a
    mapped task downstream expands by. Airflow 3.2.1 (task-sdk
    task_runner.py _push_xcom_if_needed) checks the value before any push:
    None or a value that cannot be mapped fails the try, multiple_outputs'
    keys go next, and the execution API refuses a length over
    max_map_length (a 400 the task sees as AirflowRuntimeError), the keys
    already stored. 2.10.3 (models/taskinstance.py _execute_task, then
    _record_task_map_for_downstreams) pushes first and checks after, so a
    refused value stays pushed."""
    out = {}
    if not getattr(task, "do_xcom_push", True):
        value = None
    check = mapped_dependants and task.__dict__.get("_airlite_mapped") is None and edition != "1.10"
    if edition == "3" and check:
        from airflow.sdk.exceptions import UnmappableXComTypePushed, XComForMappingNotPushed
        if value is None:
            raise XComForMappingNotPushed()
        if not is_mappable_value(value):
            raise UnmappableXComTypePushed(value)
    if getattr(task, "multiple_outputs", False) and value is not None and edition != "1.10":
        # 2.10.3 decorators/base.py DecoratedOperator._handle_output
        if not isinstance(value, dict):
            raise AirflowException("Returned output was type %s expected dictionary for multiple_outputs" % type(value))
        for key in value:
            if not isinstance(key, str):
                raise AirflowException("Returned dictionary keys must be strings when using multiple_outputs, "
                                       "found %s (%s) instead" % (key, type(key)))
        for key, v in value.items():
            ti.xcom_push(key=key, value=v)
    if value is None:
        if edition == "2" and check:
            from airflow.exceptions import XComForMappingNotPushed
            raise XComForMappingNotPushed()
        return out
    encoded = xcom_encode(value, edition)
    if not check:
        out["return_value"] = encoded
        return out
    if edition == "3":
        if len(value) > MAX_MAP_LENGTH:
            from airflow.sdk.exceptions import AirflowRuntimeError
            raise AirflowRuntimeError("API_SERVER_ERROR", {
                "status_code": 400, "message": "Server returned error",
                "detail": {"detail": {"reason": "unmappable_return_value_length",
                                      "message": "pushed value is too large to map as a downstream's dependency"}}})
        out["return_value"], out["map_length"] = encoded, len(value)
        return out
    # 2.10.3: pushed, then recorded for the mapped tasks or refused, the
    # push kept.
    from airflow.exceptions import UnmappableXComLengthPushed, UnmappableXComTypePushed
    if not is_mappable_value(value) or len(value) > MAX_MAP_LENGTH:
        ti.pushes.append(["return_value", encoded])
        if not is_mappable_value(value):
            raise UnmappableXComTypePushed(value)
        raise UnmappableXComLengthPushed(value, MAX_MAP_LENGTH)
    out["return_value"], out["map_length"] = encoded, len(value)
    return out


def bash_command(task, dag, ti, ctx, edition):
    """@task.bash's first half (2.10.3 decorators/bash.py
    _BashDecoratedOperator.execute; 3.2.1 the standard provider's): the
    callable, called with its rendered arguments and the context it asks
    for, returns the command. airlite renders and runs that command as it
    runs a BashOperator's (each template value a request could have set
    reaching bash through its environment, never as shell text), so the
    command goes back to airlite as data."""
    context = build_context(ctx, dag, task, ti, edition)
    op_args = render(list(task.op_args), ti)
    op_kwargs = render(dict(task.op_kwargs), ti)
    context.update(op_kwargs)
    kwargs = determine_kwargs(task.python_callable, op_args, context)
    from airflow._airlite import python as python_operators
    python_operators._CURRENT_CONTEXT.append(context)
    try:
        command = task.python_callable(*op_args, **kwargs)
    finally:
        python_operators._CURRENT_CONTEXT.pop()
    if not isinstance(command, str) or command.strip() == "":
        raise TypeError("The returned value from the TaskFlow callable must be a non-empty string.")
    return {"state": "success", "skip": [], "pushes": ti.pushes, "bash_command": command,
            "rendered": {"op_args": _rendered_field(op_args), "op_kwargs": _rendered_field(op_kwargs)}}


class DagRunOrder(object):
    """1.10.15 operators/dagrun_operator.py DagRunOrder: what the callable
    fills."""

    def __init__(self, run_id=None, payload=None):
        self.run_id = run_id
        self.payload = payload


def trigger_order(task, dag, ti, ctx, edition, run_id):
    """1.10.15 operators/dagrun_operator.py TriggerDagRunOperator.execute's
    first half: the callable gets the context and a DagRunOrder named as
    airlite named the run (trig__ and the date), and returns it filled, or
    nothing to trigger nothing. airlite triggers the order it returns (its
    payload as json.dumps writes it), so the run goes back as data."""
    context = build_context(ctx, dag, task, ti, edition)
    order = task.python_callable(context, DagRunOrder(run_id=run_id))
    if not order:
        print("Criteria not met, moving on", file=sys.stderr)
        return {"state": "success", "skip": [], "pushes": ti.pushes, "trigger": None}
    return {"state": "success", "skip": [], "pushes": ti.pushes,
            "trigger": {"run_id": str(order.run_id), "conf": json.dumps(order.payload)}}


def execute(task, dag, ti, ctx, edition, BranchPythonOperator, ShortCircuitOperator, AirflowException):
    context = build_context(ctx, dag, task, ti, edition)
    op_args = render(list(task.op_args), ti)
    op_kwargs = render(dict(task.op_kwargs), ti)
    templates_dict = render(task.templates_dict, ti)
    callable_ = task.python_callable
    if edition == "1.10":
        # 1.10.15 operators/python_operator.py PythonOperator.execute: the
        # context only with provide_context.
        kwargs = dict(op_kwargs)
        if getattr(task, "provide_context", False):
            context.update(op_kwargs)
            context["templates_dict"] = templates_dict
            kwargs = context
    else:
        # 2.10.3 operators/python.py PythonOperator.execute: context_merge,
        # then determine_kwargs.
        context.update(op_kwargs)
        context["templates_dict"] = templates_dict
        kwargs = determine_kwargs(callable_, op_args, context)
    from airflow._airlite import python as python_operators
    python_operators._CURRENT_CONTEXT.append(context)
    try:
        value = callable_(*op_args, **kwargs)
    finally:
        python_operators._CURRENT_CONTEXT.pop()
    out = {"state": "success", "skip": []}
    out["rendered"] = {"templates_dict": _rendered_field(templates_dict), "op_args": _rendered_field(op_args),
                       "op_kwargs": _rendered_field(op_kwargs)}
    if isinstance(task, BranchPythonOperator):
        # 2.10.3 operators/python.py BranchPythonOperator.execute -> do_branch
        print("Branch callable return %s" % (value,), file=sys.stderr)
        out["skip"] = skip_all_except(task, dag, value, edition)
        if edition == "1.10":
            value = None  # 1.10.15's branch returns nothing to push
    elif isinstance(task, ShortCircuitOperator):
        # 2.10.3 operators/python.py ShortCircuitOperator.execute; 1.10.15
        # operators/python_operator.py: every downstream task skipped
        # (2: only the direct ones when ignore_downstream_trigger_rules is off).
        print("Condition result is %s" % (value,), file=sys.stderr)
        if value:
            print("Proceeding with downstream tasks...", file=sys.stderr)
        elif task.downstream_task_ids:
            print("Skipping downstream tasks", file=sys.stderr)
            if edition == "1.10" or getattr(task, "ignore_downstream_trigger_rules", True):
                ids = flat_downstream(dag, task.task_id)
            else:
                ids = set(task.downstream_task_ids)
            out["skip"] = sorted(t for t in ids if not dag.task_dict[t].is_teardown)
        if edition == "1.10":
            value = None
    else:
        print("Done. Returned value was: %s" % (value,), file=sys.stderr)
    out.update(push_return_value(task, ti, value, edition, request_mapped_dependants(), AirflowException))
    out["pushes"] = ti.pushes
    if "outlet_events" in context:
        outlets = getattr(task, "outlets", None) or []
        outlets = list(outlets) if isinstance(outlets, (list, tuple)) else [outlets]
        out["alias_events"], out["outlet_extras"] = context["outlet_events"].report(outlets)
    if ti.map_index >= 0:
        context["map_index_template"] = getattr(task, "map_index_template", None)
        out["rendered_map_index"] = render_map_index(task, context)
    return out


if __name__ == "__main__":
    main()
