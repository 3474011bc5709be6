"""Airflow 3.2.1's example DAGs' features, in their style (airflow.sdk and
the standard provider), for what /api/v2 shows of them."""
import pendulum
from airflow.providers.standard.operators.bash import BashOperator
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.operators.python import BranchPythonOperator, PythonOperator
from airflow.providers.standard.sensors.external_task import ExternalTaskMarker, ExternalTaskSensor
from airflow.sdk import DAG, Asset, Label, Param, TaskGroup, chain, dag, setup, task, teardown
from airflow.timetables.assets import AssetOrTimeSchedule
from airflow.timetables.trigger import CronTriggerTimetable

START = pendulum.datetime(2021, 1, 1, tz="UTC")
left = Asset("s3://conform3/left")
right = Asset(name="right", uri="s3://conform3/right")


def pick():
    return "a"


@dag(schedule="@daily", start_date=START, catchup=False, tags=["conform3"],
     params={"n": Param(2, type="integer", minimum=0)}, dag_display_name="Conform three")
def conform3_flow():
    @task(task_display_name="Make one")
    def make():
        return 1

    @task.bash
    def echo(n):
        return "echo %s" % n

    @task.branch
    def choose():
        return "a"

    @setup
    def create():
        pass

    @teardown
    def delete():
        pass

    with TaskGroup("grp"):
        a = EmptyOperator(task_id="a")
        b = BashOperator(task_id="b", bash_command="echo b")
    branch = BranchPythonOperator(task_id="branch", python_callable=pick)
    c = choose()
    chain(make(), Label("to echo"), echo(2), c, [a, b])
    c >> branch
    create() >> delete()
    ExternalTaskSensor(task_id="wait", external_dag_id="x")
    ExternalTaskMarker(task_id="mark", external_dag_id="x", external_task_id="y")


conform3_flow()

with DAG("conform3_assets", start_date=START, schedule=(left | right)):
    PythonOperator(task_id="p", python_callable=pick, outlets=[left])

with DAG("conform3_list", start_date=START, schedule=[left, right]):
    EmptyOperator(task_id="e")

with DAG("conform3_or_time", start_date=START, catchup=False,
         schedule=AssetOrTimeSchedule(timetable=CronTriggerTimetable("0 1 * * 3", timezone="UTC"),
                                      assets=(left & right))):
    EmptyOperator(task_id="e")
