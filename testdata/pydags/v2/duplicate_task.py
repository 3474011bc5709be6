import datetime
from airflow import DAG
from airflow.operators.empty import EmptyOperator

with DAG("py_dup", schedule=None, start_date=datetime.datetime(2024, 1, 1)) as dag:
    EmptyOperator(task_id="same")
    EmptyOperator(task_id="same")
