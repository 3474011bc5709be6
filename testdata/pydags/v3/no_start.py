"""Airflow 3: a schedule without a start_date loads (catchup is off by
default)."""
from airflow.sdk import DAG

with DAG("v3_no_start", schedule="@daily"):
    pass
