"""Airflow 3's task SDK, the authoring surface of Airflow 3.2.1's DAG files
(task-sdk/src/airflow/sdk/__init__.py): the names a DAG file imports from
airflow.sdk, on airlite's classes. Only edition 3 has it
(airflow/__init__.py refuses it to the others, as 2.10.3 has no such
module)."""
from airflow._airlite.param import Param  # noqa: F401
from airflow._airlite.python import get_current_context  # noqa: F401
from airflow._airlite.task_group import TaskGroup  # noqa: F401
from airflow.datasets import Dataset as _Dataset, DatasetAlias as _DatasetAlias  # noqa: F401
from airflow.datasets import DatasetAll as AssetAll, DatasetAny as AssetAny  # noqa: F401
from airflow.decorators import setup, task, task_group, teardown  # noqa: F401
from airflow.models.baseoperator import BaseOperator, chain, cross_downstream  # noqa: F401
from airflow.models.baseoperatorlink import BaseOperatorLink  # noqa: F401
from airflow.models.dag import DAG, dag  # noqa: F401
from airflow.models.variable import Variable  # noqa: F401
from airflow.models.xcom_arg import XComArg  # noqa: F401
from airflow.utils.edgemodifier import EdgeModifier, Label  # noqa: F401

__version__ = "1.1.0"


class Asset(_Dataset):
    """Airflow 3's Asset (task-sdk definitions/asset/__init__.py): a name
    and a URI, each the other when only one is given."""

    def __init__(self, name=None, uri=None, *, group="asset", extra=None, watchers=None):
        if name is None and uri is None:
            raise TypeError("Asset() requires either 'name' or 'uri'")
        uri = uri if uri is not None else name
        super().__init__(uri, extra=extra)
        self.name = name if name is not None else uri
        self.group = group

    def as_expression_json(self):
        # Airflow 3's encode_asset_like form, which keeps the name the
        # scheduler matches events by (serialization/encoders.py).
        return {"__type": "asset", "name": self.name, "uri": self.uri, "group": self.group, "extra": self.extra}


class AssetAlias(_DatasetAlias):
    """Airflow 3's AssetAlias (task-sdk definitions/asset/__init__.py): a
    name (and a group, "asset" unless given) that a task adds asset
    events through at run time (outlet_events[alias].add(asset))."""

    def __init__(self, name, *, group="asset"):
        if not isinstance(name, str) or not name.strip():
            raise ValueError("'name' cannot be empty")
        super().__init__(name)
        self.group = group

    def as_expression_json(self):
        return {"__type": "asset_alias", "name": self.name, "group": self.group}


def chain_linear(*elements):
    """Each element downstream of every task of the one before (task-sdk
    definitions/baseoperator.py chain_linear)."""
    from airflow.models.taskmixin import as_leaves, as_roots
    for up, down in zip(elements, elements[1:]):
        for u in as_leaves(up):
            for d in as_roots(down):
                u >> d


# The timetables (task-sdk/src/airflow/sdk/__init__.py of c57fba0e exports
# them from definitions/timetables): airlite's are Airflow core's classes,
# which the serialized DAG names (encode_timetable writes the core path).
from airflow.timetables.assets import AssetOrTimeSchedule  # noqa: E402,F401
from airflow.timetables.events import EventsTimetable  # noqa: E402,F401
from airflow.timetables.interval import CronDataIntervalTimetable, DeltaDataIntervalTimetable  # noqa: E402,F401
from airflow.timetables.trigger import (  # noqa: E402,F401
    CronPartitionTimetable, CronTriggerTimetable, DeltaTriggerTimetable, MultipleCronTriggerTimetable)
