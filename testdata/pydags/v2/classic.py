"""Classic operators in a with-block DAG: the shapes an Airflow 2 user writes."""
import datetime

import pendulum
from airflow import DAG
from airflow.models import Variable
from airflow.models.baseoperator import chain, cross_downstream
from airflow.models.param import Param
from airflow.operators.bash import BashOperator
from airflow.operators.empty import EmptyOperator
from airflow.operators.python import PythonOperator
from airflow.providers.http.operators.http import HttpOperator
from airflow.utils.edgemodifier import Label
from airflow.utils.task_group import TaskGroup
from airflow.utils.trigger_rule import TriggerRule

from shared_names import TEAM

default_args = {"owner": TEAM, "retries": 3, "retry_delay": datetime.timedelta(minutes=2)}


def greet(name):
    print("hello", name)


with DAG(
    dag_id="py_classic",
    description="classic operators",
    schedule="30 6 * * 1-5",
    start_date=pendulum.datetime(2024, 3, 1, tz="UTC"),
    catchup=False,
    default_args=default_args,
    tags=["python", "classic"],
    params={"who": Param("world", type="string", description="who to greet"), "n": 2},
    max_active_runs=2,
) as dag:
    start = EmptyOperator(task_id="start")
    say = BashOperator(task_id="say", bash_command="echo {{ params.who }}", env={"MODE": Variable.get("mode", default_var="test")})
    hello = PythonOperator(task_id="hello", python_callable=greet, op_kwargs={"name": "ada"}, owner="ada")
    with TaskGroup("load", tooltip="load things") as load:
        one = EmptyOperator(task_id="one")
        two = EmptyOperator(task_id="two", trigger_rule=TriggerRule.ONE_SUCCESS)
        one >> two
    call = HttpOperator(task_id="call", endpoint="/ping", method="GET")
    done = EmptyOperator(task_id="done", trigger_rule="all_done")
    a = EmptyOperator(task_id="a")
    b = EmptyOperator(task_id="b")
    c = EmptyOperator(task_id="c")
    d = EmptyOperator(task_id="d")

    start >> Label("first") >> say >> load
    chain(start, hello, load, call, done)
    cross_downstream([a, b], [c, d])
    done >> a

# DAGs made in a loop, kept through globals() as Airflow users do.
for n in (1, 2):
    globals()["py_loop_%d" % n] = DAG("py_loop_%d" % n, schedule=None, start_date=datetime.datetime(2024, 1, n))
    BashOperator(task_id="only", bash_command="echo %d" % n, dag=globals()["py_loop_%d" % n])
