import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.operators.trigger_dagrun import TriggerDagRunOperator
from airflow.sdk import DAG

start = pendulum.datetime(2024, 1, 1, tz="UTC")

# Paused by the test: the run the controller waits for stays queued.
with DAG("held_target", schedule=None, start_date=start):
    EmptyOperator(task_id="t")

with DAG("held_controller", schedule=None, start_date=start):
    TriggerDagRunOperator(task_id="wait", trigger_dag_id="held_target", trigger_run_id="held",
                          wait_for_completion=True, poke_interval=0.05)
