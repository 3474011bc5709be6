"""TaskFlow: @dag, @task and its variants."""
import pendulum

from airflow.datasets import Dataset
from airflow.decorators import dag, setup, task, task_group, teardown

orders = Dataset("s3://bucket/orders")
customers = Dataset("s3://bucket/customers")
fx = Dataset("s3://bucket/fx")


@dag(
    schedule=orders & (customers | fx),
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    catchup=False,
    tags=["taskflow"],
)
def py_taskflow(limit: int = 10):
    """Orders each day."""

    @setup
    def make_room():
        return "room"

    @task
    def extract():
        return [1, 2, 3]

    @task(multiple_outputs=True, retries=1)
    def summarize(values):
        return {"n": len(values)}

    @task.bash
    def echo(text):
        return "echo " + text

    @task.branch
    def pick():
        return "extract"

    @task.short_circuit
    def gate():
        return True

    @task.sensor(poke_interval=30, timeout=600, mode="reschedule")
    def wait():
        return True

    @task.virtualenv(requirements=["requests"])
    def in_venv():
        return 1

    @task.external_python(python="/usr/bin/python3")
    def outside():
        return 2

    @task
    def double(x):
        return 2 * x

    @task_group
    def section():
        first = extract()
        summarize(first)

    @teardown
    def clean():
        pass

    room = make_room()
    data = extract()
    again = extract()
    summary = summarize(data)
    echo(summary["n"])
    pick() >> gate() >> wait() >> [in_venv(), outside()]
    section()
    section()
    double.partial().expand(x=data)
    room >> again >> clean()


py_taskflow()
