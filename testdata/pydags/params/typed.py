"""A DAG with typed params and one without schemas, for the trigger's params check."""
import pendulum
from airflow import DAG
from airflow.models.param import Param
from airflow.operators.empty import EmptyOperator

with DAG(
    dag_id="typed_params",
    schedule=None,
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    params={
        "rows": Param(5, type="integer", minimum=3),
        "mode": Param("full", enum=["full", "delta"]),
        "plain": "x",
    },
):
    EmptyOperator(task_id="t")

with DAG(
    dag_id="untyped_params",
    schedule=None,
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    params={"rows": 5},
):
    EmptyOperator(task_id="t")
