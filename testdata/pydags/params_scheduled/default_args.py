"""default_args' params are the DAG's: one without a default refuses a
scheduled DAG too."""
import pendulum
from airflow import DAG
from airflow.models.param import Param
from airflow.operators.empty import EmptyOperator

with DAG(
    dag_id="sched_default_args",
    schedule="0 3 * * *",
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    default_args={"params": {"rows": Param(type="integer")}},
):
    EmptyOperator(task_id="t")
