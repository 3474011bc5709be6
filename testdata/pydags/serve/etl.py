"""Python and YAML DAGs in one folder, as the served-DAG tests read it."""
import datetime

import pendulum
from airflow import DAG
from airflow.decorators import task
from airflow.models.param import Param
from airflow.operators.bash import BashOperator
from airflow.operators.empty import EmptyOperator
from airflow.operators.python import PythonOperator
from airflow.utils.task_group import TaskGroup


def shout():
    print("loud")


with DAG(
    dag_id="py_etl",
    description="extract, transform, load",
    doc_md="Loads *everything*.",
    schedule="@daily",
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    catchup=False,
    default_args={"owner": "etl-team", "retries": 2, "retry_delay": datetime.timedelta(seconds=30)},
    tags=["etl", "py"],
    params={"rows": Param(5, type="integer", description="rows to load"), "mode": "full"},
) as dag:
    start = BashOperator(task_id="start", bash_command="echo starting {{ params.rows }}")
    with TaskGroup("extract") as extract:
        pull = EmptyOperator(task_id="pull")
        check = PythonOperator(task_id="check", python_callable=shout, owner="qa")
        pull >> check

    @task
    def double(x):
        return 2 * x

    @task
    def total(values):
        return sum(values)

    doubled = double.expand(x=[1, 2, 3])
    end = EmptyOperator(task_id="end", trigger_rule="all_done")
    start >> extract >> doubled
    total(doubled) >> end
    total([1]) >> end
