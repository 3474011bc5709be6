"""A default JSON cannot hold: Airflow 3's Param refuses it as it is made,
2.10.3's only warns."""
import datetime

import pendulum
from airflow import DAG
from airflow.models.param import Param
from airflow.operators.empty import EmptyOperator

with DAG(
    dag_id="not_json",
    schedule=None,
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    params={"when": Param(datetime.date(2024, 1, 1))},
):
    EmptyOperator(task_id="t")
