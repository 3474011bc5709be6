import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, Asset
from airflow.utils.types import DagRunType

with DAG("no_manual", start_date=pendulum.datetime(2024, 1, 1, tz="UTC"), allowed_run_types=DagRunType.SCHEDULED):
    EmptyOperator(task_id="t")
