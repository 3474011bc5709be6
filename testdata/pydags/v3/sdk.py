"""An Airflow 3 DAG file: airflow.sdk and the standard provider's
operators."""
import pendulum
from airflow.providers.standard.operators.bash import BashOperator
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import (DAG, Asset, BaseOperator, Label, Param, TaskGroup, Variable, chain, dag,
                         get_current_context, setup, task, task_group, teardown)


def hello():
    return "hi"


with DAG(dag_id="v3_classic", start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
         params={"n": Param(1, type="integer")}, tags=["v3"]) as classic:
    start = EmptyOperator(task_id="start")
    say = BashOperator(task_id="say", bash_command="echo {{ params.n }}")
    with TaskGroup("grp"):
        py = PythonOperator(task_id="py", python_callable=hello)
    chain(start, Label("then"), say, py)


@dag(schedule="@daily", start_date=pendulum.datetime(2024, 1, 1, tz="UTC"))
def v3_taskflow():
    @setup
    def make():
        return Variable.get("missing", default_var="made")

    @teardown
    def clean():
        pass

    @task
    def work(x):
        get_current_context()
        return x

    @task_group
    def inner():
        return work.expand(x=[1, 2])

    with make() >> clean():
        inner()


v3_taskflow()
