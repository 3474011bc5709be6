import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, Asset, AssetOrTimeSchedule, CronTriggerTimetable
from airflow.utils.types import DagRunType

start = pendulum.datetime(2024, 1, 1, tz="UTC")

# One DagRunType alone.
with DAG("rt_manual_only", allowed_run_types=DagRunType.MANUAL):
    EmptyOperator(task_id="t")

# A collection: DagRunType members, their values, a duplicate.
with DAG("rt_no_manual", schedule="@daily", start_date=start,
         allowed_run_types=[DagRunType.SCHEDULED, "backfill", DagRunType("scheduled")]):
    EmptyOperator(task_id="t")

# Scheduled on assets or a time, not allowing scheduled runs.
with DAG("rt_asset_or_time", start_date=start,
         schedule=AssetOrTimeSchedule(timetable=CronTriggerTimetable("0 1 * * *", timezone="UTC"),
                                      assets=[Asset("s3://rt/a")]),
         allowed_run_types={DagRunType.ASSET_TRIGGERED, DagRunType.MANUAL}):
    EmptyOperator(task_id="t")

# An empty collection allows every run type.
with DAG("rt_empty", schedule="@daily", start_date=start, allowed_run_types=[]):
    EmptyOperator(task_id="t")

with DAG("rt_unset", schedule="@daily", start_date=start):
    EmptyOperator(task_id="t")

# The same with catchup: its next run stays at start_date's first tick.
with DAG("rt_asset_or_time_catchup", start_date=start, catchup=True,
         schedule=AssetOrTimeSchedule(timetable=CronTriggerTimetable("0 1 * * *", timezone="UTC"),
                                      assets=[Asset("s3://rt/a")]),
         allowed_run_types=[DagRunType.ASSET_TRIGGERED]):
    EmptyOperator(task_id="t")
