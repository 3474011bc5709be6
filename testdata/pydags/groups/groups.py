"""Task groups as the file makes them: nested, with a tooltip, and one
that does not prefix its tasks' ids (whose task id holds a dot)."""
import pendulum
from airflow import DAG
from airflow.operators.empty import EmptyOperator
from airflow.utils.task_group import TaskGroup

with DAG(dag_id="py_groups", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")) as dag:
    with TaskGroup("outer", tooltip="the outer group"):
        a = EmptyOperator(task_id="a")
        with TaskGroup("inner"):
            b = EmptyOperator(task_id="b")
    with TaskGroup("flat", prefix_group_id=False, tooltip="no prefix"):
        c = EmptyOperator(task_id="c")
        d = EmptyOperator(task_id="d.e")
    top = EmptyOperator(task_id="top")
    top >> a >> b >> c >> d
