"""The Python twin of yaml_params.yaml: the same params, written with
Param, so that the two DAGs show and check their params alike."""
import pendulum
from airflow import DAG
from airflow.models.param import Param
from airflow.operators.empty import EmptyOperator

with DAG(
    dag_id="py_params",
    schedule=None,
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    params={
        "rows": Param(5, type="integer", minimum=3),
        "mode": Param("full", enum=["full", "delta"]),
        "plain": "x",
        "described": Param(5, type="integer", description="Rows to load", title="Rows"),
        "limited": Param("abc", schema={"type": "string", "maxLength": 3}),
        "obj": Param({"a": 1}, type="object", required=["a"]),
        "note": Param(None, type=["null", "string"]),
        "required": Param(type="integer"),
        "bare": Param(7),
        "nothing": Param(),
    },
):
    EmptyOperator(task_id="t")

with DAG(
    dag_id="py_defaults",
    schedule=None,
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    params={"a": 1, "b": 2},
    default_args={"owner": "x", "params": {"a": 10, "c": Param(3, type="integer")}},
):
    EmptyOperator(task_id="t")
