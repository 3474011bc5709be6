"""Features of Airflow 2.10.3's example DAGs that airlite's reader was seen
to show differently from the real Airflow 2.10.3 (the answers the tests
expect are the ones it gave for this file)."""
import datetime

from airflow import DAG
from airflow.datasets import Dataset
from airflow.models.baseoperator import BaseOperator
from airflow.operators.empty import EmptyOperator
from airflow.operators.python import PythonOperator
from airflow.sensors.external_task import ExternalTaskMarker, ExternalTaskSensor
from airflow.timetables.datasets import DatasetOrTimeSchedule
from airflow.timetables.trigger import CronTriggerTimetable

START = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)


class Plus(BaseOperator):
    def __init__(self, value, **kwargs):
        super().__init__(**kwargs)
        self.value = value


class Total(BaseOperator):
    template_fields = ("values",)

    def __init__(self, values, **kwargs):
        super().__init__(**kwargs)
        self.values = values


def show(x):
    print(x)


# An XComArg given to a template field makes its task upstream
# (BaseOperator.set_xcomargs_dependencies), from a mapped task too.
with DAG("conform_xcomarg", schedule=None, start_date=START, dag_display_name="XComArg upstreams"):
    plus = Plus.partial(task_id="plus").expand(value=[1, 2])
    total = Total(task_id="total", values=plus.output, task_display_name="Sum it")
    PythonOperator(task_id="show", python_callable=show, op_kwargs={"x": total.output})
    Total(task_id="not_a_field", values=[1])

with DAG("conform_external", schedule="@daily", start_date=START, catchup=False):
    wait = ExternalTaskSensor(task_id="wait", external_dag_id="conform_xcomarg", external_task_id="total")
    mark = ExternalTaskMarker(task_id="mark", external_dag_id="conform_xcomarg", external_task_id="show")
    wait >> mark >> EmptyOperator(task_id="done")

a = Dataset("s3://conform/a")
b = Dataset("s3://conform/b")
c = Dataset("s3://conform/c")

with DAG("conform_or_time", start_date=START, catchup=False,
         schedule=DatasetOrTimeSchedule(timetable=CronTriggerTimetable("0 1 * * 3", timezone="UTC"),
                                        datasets=(a & b))):
    EmptyOperator(task_id="t")

with DAG("conform_every_minute", schedule="*/1 * * * *", start_date=START, catchup=False):
    EmptyOperator(task_id="t")

with DAG("conform_any", start_date=START, schedule=(a | (b & c))):
    EmptyOperator(task_id="t")

with DAG("conform_list", start_date=START, schedule=[a]):
    EmptyOperator(task_id="t")

# Core sensors and operators airlite keeps as generic classes, shown with
# their class's fields (Airflow 2.10.3's example_sensors.py and
# example_trigger_controller_dag.py use them).
from airflow.operators.latest_only import LatestOnlyOperator  # noqa: E402
from airflow.operators.trigger_dagrun import TriggerDagRunOperator  # noqa: E402
from airflow.sensors.bash import BashSensor  # noqa: E402
from airflow.sensors.filesystem import FileSensor  # noqa: E402
from airflow.sensors.time_delta import TimeDeltaSensor  # noqa: E402

with DAG("conform_core", schedule="*/2 * * * *", start_date=START, catchup=False):
    LatestOnlyOperator(task_id="latest")
    BashSensor(task_id="bash_sensor", bash_command="true", poke_interval=1)
    FileSensor(task_id="file_sensor", filepath="/tmp/x")
    TimeDeltaSensor(task_id="delta_sensor", delta=datetime.timedelta(seconds=1))
    TriggerDagRunOperator(task_id="trigger", trigger_dag_id="conform_xcomarg", conf={"a": 1})
