"""Values a mapped task cannot expand over fail the task that pushed
them: Airflow 3.2.1 before the push (task_runner.py _push_xcom_if_needed),
2.10.3 after it (_record_task_map_for_downstreams). Read in editions 2
and 3 (3.2.1 keeps airflow.DAG and airflow.decorators as deprecated names)."""
import pendulum
from airflow import DAG
from airflow.decorators import task
from airflow.operators.bash import BashOperator

with DAG("mapfail", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):

    @task
    def a_set():
        return {1, 2}

    @task
    def nothing():
        return None

    @task
    def too_long():
        return list(range(1025))

    @task
    def show(x):
        return x

    show.override(task_id="over_set").expand(x=a_set())
    show.override(task_id="over_nothing").expand(x=nothing())
    show.override(task_id="over_too_long").expand(x=too_long())
    show.override(task_id="over_bash").expand(x=BashOperator(task_id="bash_line", bash_command="echo hi").output)
