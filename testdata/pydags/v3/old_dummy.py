"""DummyOperator, which Airflow 3 removed."""
import pendulum
from airflow import DAG
from airflow.operators.dummy import DummyOperator

with DAG(dag_id="v3_dummy", start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    DummyOperator(task_id="d")
