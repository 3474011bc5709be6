"""A scheduled DAG with a param without a default: an import error, as
Airflow's DAG refuses it when it is made."""
import pendulum
from airflow import DAG
from airflow.models.param import Param
from airflow.operators.empty import EmptyOperator

with DAG(
    dag_id="sched_required",
    schedule="@daily",
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    params={"rows": Param(type="integer")},
):
    EmptyOperator(task_id="t")
