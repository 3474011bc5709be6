"""A parsed DAG in airlite's serialized form: Airflow's serialized DAG
(2.10.3 airflow/serialization/serialized_objects.py serialize_dag and
_serialize_node, schema.json) with its keys and value encodings, except
that every field is present (Airflow leaves out values equal to their
defaults) and both the schedule_interval and the timetable are kept, with
the timetable's summary and description beside them."""
import datetime as _dt
import enum
import json

from airflow import EDITION
from airflow._airlite.cron import encode_timezone


def _ts(value):
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    return value.timestamp()


# The classes serialize asks about, looked up once (at the first call:
# this module is imported by the reader after the authoring surface).
_XComArg = _Param = None
# Types whose values are their own encoding, checked by exact type first:
# a folder's serialization calls serialize some 300 times a file.
_PLAIN_TYPES = frozenset((type(None), bool, int, str))


def serialize(var):
    """BaseSerialization.serialize: plain JSON values as they are, others
    as {"__var": ..., "__type": ...}; what has no encoding is its str()."""
    global _XComArg, _Param
    if type(var) in _PLAIN_TYPES:
        return var
    if var is None or isinstance(var, (bool, int, str)):
        return var
    if isinstance(var, float):
        return var if var == var and var not in (float("inf"), float("-inf")) else str(var)
    if isinstance(var, enum.Enum):
        return var.value
    if isinstance(var, dict):
        return {"__var": {str(k): serialize(v) for k, v in var.items()}, "__type": "dict"}
    if isinstance(var, list):
        return [serialize(v) for v in var]
    if isinstance(var, tuple):
        return {"__var": [serialize(v) for v in var], "__type": "tuple"}
    if isinstance(var, (set, frozenset)):
        items = [serialize(v) for v in var]
        try:
            items = sorted(items)
        except TypeError:
            pass
        return {"__var": items, "__type": "set"}
    if isinstance(var, _dt.datetime):
        return {"__var": _ts(var), "__type": "datetime"}
    if isinstance(var, _dt.timedelta):
        return {"__var": var.total_seconds(), "__type": "timedelta"}
    if isinstance(var, _dt.tzinfo):
        return {"__var": getattr(var, "key", None) or str(var), "__type": "timezone"}
    if _XComArg is None:
        from airflow.models.xcom_arg import XComArg as _XComArg
        from airflow._airlite.param import Param as _Param
    if isinstance(var, _XComArg):
        return var.serialize()
    if isinstance(var, _Param):
        return {"__var": serialize_param(var), "__type": "param"}
    return str(var)


def _plain(var):
    """A top-level field: its encoding's __var (serialize_to_json)."""
    value = serialize(var)
    if isinstance(value, dict) and "__type" in value:
        return value["__var"]
    return value


def serialize_param(param):
    """_serialize_param; a Param without a default keeps NOTSET apart from
    None as Airflow's serialize does (2.10.3 serialized_objects.py:782-783:
    {"__type": "arg_not_set", "__var": null}, which no user value encodes
    to, a dict being wrapped as "dict")."""
    from airflow._airlite.param import NOTSET
    if param.value is NOTSET:
        default = {"__var": None, "__type": "arg_not_set"}
    else:
        default = serialize(param.value)
    return {"__class": "airflow.models.param.Param", "default": default,
            "description": serialize(param.description), "schema": serialize(param.schema)}


def serialize_params(params):
    out = []
    for k in params:
        p = params.get_param(k) if hasattr(params, "get_param") else params[k]
        from airflow._airlite.param import Param
        if not isinstance(p, Param):
            p = Param(p)
        out.append([k, serialize_param(p)])
    return out


def template_value(value):
    """serialization/helpers.py serialize_template_field: a JSON value as
    it is, anything else as its str()."""
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


def encode_timetable(tt):
    return {"__type": "%s.%s" % (type(tt).__module__, type(tt).__name__), "__var": tt.serialize()}


# Whether a class inherits from EmptyOperator, per class: the property
# walks the class's MRO at every task.
_IS_EMPTY = {}


def _is_empty(op):
    hit = _IS_EMPTY.get(type(op))
    if hit is None:
        hit = _IS_EMPTY[type(op)] = op.inherits_from_empty_operator
    return hit


def _as_list(value):
    """An operator's inlets or outlets as a list (BaseOperator keeps one
    object as a list of it)."""
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _lineage_object(obj):
    """An inlet or an outlet in its encoded form: an asset, a dataset or
    an alias as its condition encodes it, anything else its str()."""
    encode = getattr(obj, "as_expression_json", None)
    if encode is not None and not hasattr(obj, "objects"):
        return encode()
    return serialize(obj)


def serialize_task(op):
    mapped = op.__dict__.get("_airlite_mapped")
    out = {
        "task_id": op.task_id,
        "label": op.label,
        "_task_type": op.task_type,
        "_task_module": op.task_module,
        "_operator_name": op.operator_name,
        "_is_empty": _is_empty(op),
        "owner": op.owner,
        "email": serialize(op.email),
        "trigger_rule": op.trigger_rule,
        "depends_on_past": op.depends_on_past,
        "ignore_first_depends_on_past": op.ignore_first_depends_on_past,
        "wait_for_downstream": op.wait_for_downstream,
        "retries": op.retries,
        "retry_delay": _plain(op.retry_delay),
        "retry_exponential_backoff": op.retry_exponential_backoff,
        "max_retry_delay": _plain(op.max_retry_delay),
        "execution_timeout": _plain(op.execution_timeout),
        "queue": op.queue,
        "pool": op.pool,
        "pool_slots": op.pool_slots,
        "priority_weight": op.priority_weight,
        "weight_rule": _plain(op.weight_rule),
        "start_date": _plain(op.start_date),
        "end_date": _plain(op.end_date),
        "do_xcom_push": op.do_xcom_push,
        "multiple_outputs": op.multiple_outputs,
        "max_active_tis_per_dag": op.max_active_tis_per_dag,
        "max_active_tis_per_dagrun": op.max_active_tis_per_dagrun,
        "executor_config": serialize(op.executor_config),
        "ui_color": op.ui_color,
        "ui_fgcolor": op.ui_fgcolor,
        "template_ext": list(op.template_ext),
        "template_fields": list(op.template_fields),
        "template_fields_renderers": dict(op.template_fields_renderers),
        "downstream_task_ids": sorted(op.downstream_task_ids),
        "params": serialize_params(op.params) if op.params else [],
        "doc_md": op.doc_md,
        "_is_setup": op.is_setup,
        "_is_teardown": op.is_teardown,
        "_on_failure_fail_dagrun": op.on_failure_fail_dagrun,
        "_is_mapped": mapped is not None,
        "task_display_name": op.__dict__.get("task_display_name"),
        "_operator_extra_links": _extra_links(op),
        "inlets": [_lineage_object(o) for o in _as_list(getattr(op, "inlets", None))],
        "outlets": [_lineage_object(o) for o in _as_list(getattr(op, "outlets", None))],
    }
    values = {}
    for field in op.template_fields:
        value = getattr(op, field, None)
        if value is not None:
            values[field] = template_value(value)
    out["template_values"] = values
    if mapped is not None:
        expand_input = mapped["expand_input"]
        if "__kwargs__" in expand_input:  # expand_kwargs (2.10.3 models/expandinput.py ListOfDictsExpandInput)
            out["expand_input"] = {"type": "list-of-dicts", "value": serialize(expand_input["__kwargs__"])}
        else:
            out["expand_input"] = {"type": "dict-of-lists", "value": {k: serialize(v) for k, v in expand_input.items()}}
        out["partial_kwargs"] = {k: serialize(v) for k, v in mapped["partial_kwargs"].items()}
    if op._airlite_generic:
        out["_airlite_generic"] = True
        out["kwargs"] = {k: serialize(v) for k, v in op._airlite_args.items()}
    sub = getattr(op, "subdag", None)
    if sub is not None and type(op).__name__ == "SubDagOperator":
        out["subdag"] = sub.dag_id
    return out


def serialize_group(tg):
    children = {}
    for key, child in tg.children.items():
        if hasattr(child, "task_id"):
            children[key] = ["operator", child.task_id]
        else:
            children[key] = ["taskgroup", serialize_group(child)]
    return {
        "_group_id": tg._group_id if tg.parent_group is None else tg.group_id,
        "prefix_group_id": tg.prefix_group_id,
        "tooltip": tg.tooltip,
        "ui_color": tg.ui_color,
        "ui_fgcolor": tg.ui_fgcolor,
        "children": children,
        "upstream_group_ids": sorted(tg.upstream_group_ids),
        "downstream_group_ids": sorted(tg.downstream_group_ids),
        "upstream_task_ids": sorted(tg.upstream_task_ids),
        "downstream_task_ids": sorted(tg.downstream_task_ids),
    }


def asset_expression(cond):
    """The condition as DagModel keeps it for display (dataset_expression
    in 2.10.3, datasets/__init__.py as_expression: a URI, {"alias": name},
    {"all"|"any": [...]}; asset_expression in 3.2.1, task-sdk
    definitions/asset/__init__.py as_expression: {"asset": {uri, name,
    group}}, {"alias": {name, group}}), from its encoded form."""
    kind = cond.get("__type")
    if kind == "dataset":
        return cond["uri"]
    if kind == "asset":
        return {"asset": {"uri": cond["uri"], "name": cond["name"], "group": cond["group"]}}
    if kind == "dataset_alias":
        return {"alias": cond["name"]}
    if kind == "asset_alias":
        return {"alias": {"name": cond["name"], "group": cond.get("group", "asset")}}
    key = "all" if kind.endswith("_all") else "any"
    return {key: [asset_expression(o) for o in cond["objects"]]}


def _timetable_expression(tt):
    if tt is None:
        return None
    var = tt.serialize()
    cond = var.get("dataset_condition", var.get("asset_condition"))
    return asset_expression(cond) if cond is not None else None


def _extra_links(op):
    # The fourth item is the XCom key a link class names (Airflow 3's
    # BaseOperatorLink.xcom_key, which the serialized DAG keeps per link).
    return [[type(link).__module__, type(link).__name__, getattr(link, "name", type(link).__name__),
             getattr(link, "xcom_key", None) or ""]
            for link in getattr(op, "operator_extra_links", ())]


def serialize_dag(dag, dags_folder):
    tt = dag.timetable
    out = {
        "_dag_id": dag.dag_id,
        "fileloc": dag.fileloc,
        "_processor_dags_folder": dags_folder,
        "_description": dag.description,
        "schedule_interval": serialize(dag.schedule_interval),
        "timetable": encode_timetable(tt) if tt is not None else None,
        "timetable_summary": tt.summary if tt is not None else None,
        "timetable_description": tt.description if tt is not None else None,
        "timezone": encode_timezone(dag.timezone),
        "start_date": _plain(dag.start_date),
        "end_date": _plain(dag.end_date),
        "catchup": dag.catchup,
        "max_active_runs": dag.max_active_runs,
        "_max_active_tasks": dag.max_active_tasks,
        "max_consecutive_failed_dag_runs": dag.max_consecutive_failed_dag_runs,
        "dagrun_timeout": _plain(dag.dagrun_timeout),
        "default_args": serialize(dag.default_args),
        "params": serialize_params(dag.params),
        "tags": list(dag.tags),
        "owner": dag.owner,
        "owner_links": dict(dag.owner_links),
        "doc_md": dag.doc_md,
        "_default_view": dag.default_view,
        "orientation": dag.orientation,
        "is_paused_upon_creation": dag.is_paused_upon_creation,
        "render_template_as_native_obj": dag.render_template_as_native_obj,
        "has_on_success_callback": dag.has_on_success_callback,
        "has_on_failure_callback": dag.has_on_failure_callback,
        "is_subdag": dag.is_subdag,
        "parent_dag": dag.parent_dag.dag_id if dag.parent_dag is not None else None,
        "edge_info": dag.edge_info,
        "tasks": [serialize_task(t) for t in dag.task_dict.values()],
        "dag_display_name": getattr(dag, "dag_display_name", None),
        "dataset_expression": _timetable_expression(tt),
    }
    if EDITION != "1.10":
        out["_task_group"] = serialize_group(dag.task_group)
    # Airflow 3.2's sorted values (serialization/serialized_objects.py:
    # 1716-1721 of c57fba0e); left out, not null, when the DAG names none,
    # so a DAG without them serializes as before.
    allowed = getattr(dag, "allowed_run_types", None)
    if allowed:
        out["allowed_run_types"] = sorted(v.value for v in allowed)
    return out
