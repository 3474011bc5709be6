import pendulum

from airflow.providers.standard.operators.bash import BashOperator
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.operators.trigger_dagrun import TriggerDagRunOperator
from airflow.sdk import DAG

start = pendulum.datetime(2024, 1, 1, tz="UTC")

# The DAGs the controller's tasks trigger.
with DAG("run_target", schedule=None, start_date=start):
    BashOperator(task_id="t", bash_command="echo got {{ dag_run.conf['msg'] }}")

with DAG("run_failing", schedule=None, start_date=start):
    BashOperator(task_id="t", bash_command="exit 3")

with DAG("run_controller", schedule=None, start_date=start):
    TriggerDagRunOperator(task_id="fire", trigger_dag_id="run_target",
                          conf={"msg": "from {{ run_id }}", "n": 1})
    named = TriggerDagRunOperator(task_id="named", trigger_dag_id="{{ 'run_' ~ 'target' }}",
                          trigger_run_id="named_{{ run_id }}", logical_date="2024-03-01T10:00:00+00:00",
                          conf={"msg": "named"})
    TriggerDagRunOperator(task_id="wait_ok", trigger_dag_id="run_target", trigger_run_id="waited",
                          conf={"msg": "waited"}, logical_date=None,
                          wait_for_completion=True, poke_interval=0.05)
    TriggerDagRunOperator(task_id="wait_fail", trigger_dag_id="run_failing", trigger_run_id="waited_fail",
                          wait_for_completion=True, poke_interval=0.05, retries=2)
    TriggerDagRunOperator(task_id="exists_fail", trigger_dag_id="run_target", trigger_run_id="existing",
                          logical_date=None, retries=2)
    TriggerDagRunOperator(task_id="exists_skip", trigger_dag_id="run_target", trigger_run_id="existing",
                          logical_date=None, skip_when_already_exists=True)
    TriggerDagRunOperator(task_id="exists_reset", trigger_dag_id="run_target", trigger_run_id="reset_me",
                          logical_date=None, reset_dag_run=True, wait_for_completion=True, poke_interval=0.05)
    # The logical date "named" took, under another run id: 3.2.1's unique
    # key on (dag_id, logical_date) refuses the insert.
    named >> TriggerDagRunOperator(task_id="date_taken", trigger_dag_id="run_target", trigger_run_id="other_id",
                                   logical_date="2024-03-01T10:00:00+00:00")
