import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.operators.trigger_dagrun import TriggerDagRunOperator
from airflow.sdk import DAG

start = pendulum.datetime(2024, 1, 1, tz="UTC")

with DAG("clock_target", schedule=None, start_date=start):
    EmptyOperator(task_id="t")

with DAG("clock_controller", schedule=None, start_date=start):
    TriggerDagRunOperator(task_id="wait", trigger_dag_id="clock_target", trigger_run_id="waited",
                          wait_for_completion=True, poke_interval=3600)
