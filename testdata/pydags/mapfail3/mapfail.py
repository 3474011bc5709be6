"""Values a mapped task cannot expand over fail the task that pushed
them, as Airflow 3.2.1's task runner and execution API do."""
import pendulum
from airflow.sdk import DAG, task

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
