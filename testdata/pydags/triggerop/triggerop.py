import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.operators.trigger_dagrun import TriggerDagRunOperator
from airflow.sdk import DAG
from airflow.utils.types import DagRunType

start = pendulum.datetime(2024, 1, 1, tz="UTC")

# A target that takes scheduled runs only: the execution API's trigger
# route refuses the operator's manual run.
with DAG("top_scheduled_only", schedule="@daily", start_date=start,
         allowed_run_types=[DagRunType.SCHEDULED]):
    EmptyOperator(task_id="t")

with DAG("top_any", schedule=None, start_date=start):
    EmptyOperator(task_id="t")

with DAG("top_controller", schedule=None, start_date=start):
    TriggerDagRunOperator(task_id="refused", trigger_dag_id="top_scheduled_only")
    TriggerDagRunOperator(task_id="refused_retried", trigger_dag_id="top_scheduled_only", retries=1)
    TriggerDagRunOperator(task_id="refused_templated", trigger_dag_id="{{ 'top_scheduled' ~ '_only' }}")
    TriggerDagRunOperator(task_id="missing", trigger_dag_id="top_nowhere")
    TriggerDagRunOperator(task_id="allowed", trigger_dag_id="top_any")
