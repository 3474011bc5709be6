"""A dag_id the YAML file beside it has already."""
import pendulum
from airflow import DAG
from airflow.operators.empty import EmptyOperator

with DAG("yaml_hello", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="x")
