"""DagRunType, the types of DAG runs (2.10.3 airflow/utils/types.py:75-85;
Airflow 3's airflow-core utils/types.py, whose values the task SDK's
DagRunType shares, c57fba0e task-sdk api/datamodels/_generated.py:138-147).
Airflow 1.10.15 has no such module (airflow/__init__.py refuses it)."""
import enum

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
