"""A scheduled DAG whose param's default its schema refuses: an import
error."""
import pendulum
from airflow import DAG
from airflow.models.param import Param
from airflow.operators.empty import EmptyOperator

with DAG(
    dag_id="sched_invalid",
    schedule="@daily",
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    params={"rows": Param("abc", type="integer")},
):
    EmptyOperator(task_id="t")
