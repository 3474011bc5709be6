import datetime
from airflow import DAG
from airflow.operators.empty import EmptyOperator

with DAG("py_cycle", schedule=None, start_date=datetime.datetime(2024, 1, 1)) as dag:
    x = EmptyOperator(task_id="x")
    y = EmptyOperator(task_id="y")
    x >> y >> x
