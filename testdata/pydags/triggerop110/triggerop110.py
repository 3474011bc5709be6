from datetime import datetime

from airflow import DAG
from airflow.operators.bash_operator import BashOperator
from airflow.operators.dagrun_operator import TriggerDagRunOperator

start = datetime(2024, 1, 1)


def order(context, dag_run_obj):
    dag_run_obj.run_id = dag_run_obj.run_id + "_by_" + context["run_id"]
    dag_run_obj.payload = {"msg": "from the callable"}
    return dag_run_obj


def no_order(context, dag_run_obj):
    return None


with DAG("run_target", schedule_interval=None, start_date=start) as target:
    BashOperator(task_id="t", bash_command="echo got {{ dag_run.conf }}")

with DAG("run_controller", schedule_interval=None, start_date=start) as controller:
    TriggerDagRunOperator(task_id="fire", trigger_dag_id="run_target")
    TriggerDagRunOperator(task_id="dated", trigger_dag_id="{{ 'run_target' }}", execution_date="{{ '2024-02-01' }}")
    TriggerDagRunOperator(task_id="with_callable", trigger_dag_id="run_target", python_callable=order,
                          execution_date="2024-03-01T00:00:00+00:00")
    TriggerDagRunOperator(task_id="no_order", trigger_dag_id="run_target", python_callable=no_order)
