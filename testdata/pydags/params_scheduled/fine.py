"""DAGs that load: a scheduled one whose params resolve, and one without a
schedule, whose params need not (a trigger must then resolve them)."""
import pendulum
from airflow import DAG
from airflow.models.param import Param
from airflow.operators.empty import EmptyOperator

with DAG(
    dag_id="sched_ok",
    schedule="@daily",
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    params={"rows": Param(5, type="integer"), "note": Param(None, type=["null", "string"])},
):
    EmptyOperator(task_id="t")

with DAG(
    dag_id="unsched_invalid",
    schedule=None,
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    params={"rows": Param("abc", type="integer"), "required": Param()},
):
    EmptyOperator(task_id="t")
