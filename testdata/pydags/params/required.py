"""DAGs with params that have no default (Param's value NOTSET), for the
trigger's params check: a trigger must give them a value."""
import pendulum
from airflow import DAG
from airflow.models.param import Param
from airflow.operators.empty import EmptyOperator

with DAG(
    dag_id="required_params",
    schedule=None,
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    params={
        "note": Param(None, type=["null", "string"]),
        "rows": Param(type="integer"),
    },
):
    EmptyOperator(task_id="t")

with DAG(
    dag_id="required_untyped",
    schedule=None,
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    params={"anything": Param()},
):
    EmptyOperator(task_id="t")
