import pendulum

from airflow.sdk import DAG
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.operators.python import PythonOperator
from airflow.providers.standard.operators.trigger_dagrun import TriggerDagRunOperator

start = pendulum.datetime(2024, 1, 1, tz="UTC")


def noop(*args, **kwargs):
    return None


with DAG("masked_target", schedule=None, start_date=start):
    EmptyOperator(task_id="t")

with DAG("masked_py", schedule=None, start_date=start):
    PythonOperator(task_id="call", python_callable=noop,
                   op_args=["{{ var.value.db_password }}-suffix", "{{ var.value.colour }}"],
                   op_kwargs={"password": "{{ dag_run.conf.password }}", "who": "{{ var.value.colour }}",
                              "dsn": "postgres://u:{{ conn.warehouse.password }}@{{ conn.warehouse.host }}"})
    TriggerDagRunOperator(task_id="trigger", trigger_dag_id="masked_target", trigger_run_id="t1",
                          conf={"password": "{{ dag_run.conf.password }}", "copy": "{{ var.value.db_password }}",
                                "short": "{{ var.value.short_token }}"})
