import datetime
from airflow import DAG
dag = DAG("bounds_last", schedule=None, start_date=datetime.datetime(2024, 1, 1))
