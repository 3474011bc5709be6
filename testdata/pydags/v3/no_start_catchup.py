"""Airflow 3: catching up a schedule needs a start_date."""
from airflow.sdk import DAG

with DAG("v3_no_start_catchup", schedule="@daily", catchup=True):
    pass
