"""DagRunType, the types of DAG runs (2.10.3 airflow/utils/types.py:75-85;
Airflow 3's airflow-core utils/types.py, whose values the task SDK's
DagRunType shares, c57fba0e task-sdk api/datamodels/_generated.py:138-147),
and the module's other names a DAG file may import, each edition's own.
Airflow 1.10.15 has no such module (airflow/__init__.py refuses it)."""
import enum
from typing import Optional, TypedDict

from airflow import EDITION

if EDITION == "3":
    class DagRunType(str, enum.Enum):
        """The kinds of DAG run (the run_type values)."""

        BACKFILL_JOB = "backfill"
        SCHEDULED = "scheduled"
        MANUAL = "manual"
        ASSET_TRIGGERED = "asset_triggered"
        ASSET_MATERIALIZATION = "asset_materialization"

        def __str__(self):
            return self.value

    class DagRunTriggeredByType(enum.Enum):
        """What made a run: the values of a run's triggered_by (c57fba0e
        airflow-core utils/types.py:54-64)."""

        CLI = "cli"
        OPERATOR = "operator"
        REST_API = "rest_api"
        UI = "ui"
        TEST = "test"
        TIMETABLE = "timetable"
        ASSET = "asset"
        BACKFILL = "backfill"
else:
    class DagRunType(str, enum.Enum):
        """The kinds of DAG run (the run_type values)."""

        BACKFILL_JOB = "backfill"
        SCHEDULED = "scheduled"
        MANUAL = "manual"
        DATASET_TRIGGERED = "dataset_triggered"

        def __str__(self):
            return self.value


class ArgNotSet:
    """The type of NOTSET, an argument not given (2.10.3
    airflow/utils/types.py:28-45; a deprecated alias in Airflow 3's,
    c57fba0e airflow-core utils/types.py:71)."""


NOTSET = ArgNotSet()


if EDITION != "3":
    class AttributeRemoved:
        """Stands where serialization dropped an attribute: reading anything
        of it but its name fails (2.10.3 airflow/utils/types.py:49-73)."""

        def __init__(self, attribute_name):
            self.attribute_name = attribute_name

        def __getattr__(self, item):
            raise RuntimeError(
                "attribute %s was dropped when the DAG was serialized; set it again (read: %s)"
                % (self.attribute_name, item))

    class EdgeInfoType(TypedDict):
        """What a DAG keeps of an edge, an EdgeModifier's label (2.10.3
        airflow/utils/types.py:98-101)."""

        label: Optional[str]
