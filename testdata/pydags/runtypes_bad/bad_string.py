import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, Asset
from airflow.utils.types import DagRunType

with DAG("bad_string", start_date=pendulum.datetime(2024, 1, 1, tz="UTC"), allowed_run_types="manual"):
    EmptyOperator(task_id="t")
