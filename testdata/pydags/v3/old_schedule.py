"""Airflow 2's schedule_interval, which Airflow 3 removed."""
import pendulum
from airflow import DAG

with DAG(dag_id="v3_old", schedule_interval="@daily", start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    pass
