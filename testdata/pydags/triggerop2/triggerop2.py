import pendulum

from airflow import DAG
from airflow.operators.bash import BashOperator
from airflow.operators.trigger_dagrun import TriggerDagRunOperator

start = pendulum.datetime(2024, 1, 1, tz="UTC")

with DAG("run_target", schedule=None, start_date=start):
    BashOperator(task_id="t", bash_command="echo got {{ dag_run.conf.get('msg') }}")

with DAG("run_failing", schedule=None, start_date=start):
    BashOperator(task_id="t", bash_command="exit 3")

with DAG("run_controller", schedule=None, start_date=start):
    TriggerDagRunOperator(task_id="fire", trigger_dag_id="run_target", conf={"msg": "from {{ run_id }}"})
    TriggerDagRunOperator(task_id="wait_fail", trigger_dag_id="run_failing", logical_date="2024-02-01",
                          wait_for_completion=True, poke_interval=0.05, retries=1)
    TriggerDagRunOperator(task_id="exists_reset", trigger_dag_id="run_target", execution_date="{{ '2024-03-01' }}",
                          reset_dag_run=True, wait_for_completion=True, poke_interval=0.05)
    TriggerDagRunOperator(task_id="exists_skip", trigger_dag_id="run_target",
                          logical_date="2024-03-01T00:00:00+00:00", skip_when_already_exists=True)
    TriggerDagRunOperator(task_id="exists_fail", trigger_dag_id="run_target", logical_date="2024-03-01T00:00:00+00:00")
