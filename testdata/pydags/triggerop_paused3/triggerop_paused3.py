import pendulum

from airflow.sdk import DAG
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.operators.trigger_dagrun import TriggerDagRunOperator

start = pendulum.datetime(2024, 1, 1, tz="UTC")

with DAG("paused_target", schedule=None, start_date=start):
    EmptyOperator(task_id="t")

with DAG("paused_controller", schedule=None, start_date=start):
    TriggerDagRunOperator(task_id="fire", trigger_dag_id="paused_target", trigger_run_id="fired")
    TriggerDagRunOperator(task_id="wait", trigger_dag_id="paused_target", trigger_run_id="waited",
                          logical_date="2024-02-01", wait_for_completion=True, poke_interval=0.05)
