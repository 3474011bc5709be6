import datetime

import pendulum

from airflow import DAG
from airflow.operators.empty import EmptyOperator
from airflow.operators.trigger_dagrun import TriggerDagRunOperator

start = pendulum.datetime(2024, 1, 1, tz="UTC")

with DAG("fields_target", schedule=None, start_date=start):
    EmptyOperator(task_id="t")

with DAG("fields_controller", schedule=None, start_date=start):
    TriggerDagRunOperator(task_id="plain", trigger_dag_id="fields_target")
    TriggerDagRunOperator(task_id="templated", trigger_dag_id="{{ 'fields_' ~ 'target' }}",
                          trigger_run_id="t_{{ run_id }}", logical_date="{{ '2024-05-01' }}",
                          conf={"b": "from {{ run_id }}", "a": [1, "{{ ds }}"]},
                          skip_when_already_exists="{{ 'yes' }}")
    TriggerDagRunOperator(task_id="dated", trigger_dag_id="fields_target", trigger_run_id="d",
                          logical_date=datetime.datetime(2024, 6, 1, tzinfo=datetime.timezone.utc))
