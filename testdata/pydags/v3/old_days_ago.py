"""days_ago, which Airflow 3 removed."""
from airflow import DAG
from airflow.utils.dates import days_ago

dag = DAG(dag_id="v3_days_ago", start_date=days_ago(1))
