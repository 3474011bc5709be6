"""Setup and teardown tasks as Airflow 2.10.3 runs them: `with setup >>
teardown:` puts the work between them, a teardown runs when the work
fails, the run fails on the work and not on the teardown; what a callable
pushed before it failed stays; Variable.set and Variable.delete reach
airlite's variables."""
import pendulum
from airflow import DAG
from airflow.decorators import setup, task, teardown
from airflow.models import Variable
from airflow.operators.bash import BashOperator
from airflow.operators.empty import EmptyOperator

START = pendulum.datetime(2024, 1, 1, tz="UTC")

with DAG(dag_id="py_setup", schedule=None, start_date=START) as dag:

    @setup
    def create():
        Variable.set("made_by_setup", {"n": 1}, serialize_json=True)
        Variable.set("doomed", "x")
        return "cluster"

    @teardown
    def delete():
        print("gone:", Variable.delete("doomed"), Variable.delete("never_there"))

    @task
    def work(ti=None):
        ti.xcom_push(key="progress", value=50)
        raise ValueError("boom")

    with create() >> delete():
        w = work()
        after = EmptyOperator(task_id="after_work")
        w >> after


with DAG(dag_id="py_setup_fails", schedule=None, start_date=START) as dag2:
    make = BashOperator(task_id="make", bash_command="exit 1").as_setup()
    use = EmptyOperator(task_id="use")
    clean = BashOperator(task_id="clean", bash_command="echo cleaned").as_teardown(setups=make)
    make >> use >> clean


with DAG(dag_id="py_setup_classic", schedule=None, start_date=START) as dag3:
    s = EmptyOperator(task_id="s").as_setup()
    t = EmptyOperator(task_id="t").as_teardown()
    with s:
        inside = EmptyOperator(task_id="inside")
    with t:
        before_t = EmptyOperator(task_id="before_t")
