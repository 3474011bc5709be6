import pendulum

from airflow.sdk import DAG, task

# Mapped tasks over upstream return values that a client changes through
# PATCH .../xcomEntries/return_value before the mapped tasks expand.
with DAG("map_patched", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):

    @task
    def letters():
        return ["x", "y", "z"]

    @task
    def numbers():
        return {"a": 1, "b": 2}

    @task
    def show(v):
        return v

    show.override(task_id="show_letters").expand(v=letters())
    show.override(task_id="show_numbers").expand(v=numbers())
