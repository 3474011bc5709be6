import pendulum

from airflow import DAG
from airflow.operators.empty import EmptyOperator
from airflow.utils.types import DagRunType

with DAG("rt_edition2", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
         allowed_run_types=[DagRunType.MANUAL]):
    EmptyOperator(task_id="t")
