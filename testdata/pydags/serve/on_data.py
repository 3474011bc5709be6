"""A dataset-triggered DAG: a timetable airlite shows and does not run."""
import pendulum
from airflow import DAG
from airflow.datasets import Dataset
from airflow.operators.bash import BashOperator

with DAG("py_on_data", schedule=[Dataset("s3://lake/orders")], start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    BashOperator(task_id="report", bash_command="echo report", owner="ana", max_active_tis_per_dag=1)
