import pendulum

from airflow import DAG
from airflow.operators.empty import EmptyOperator
from airflow.timetables.events import EventsTimetable

DATES = [pendulum.datetime(2024, 6, 1, tz="UTC"), pendulum.datetime(2024, 3, 1, tz="UTC"),
         pendulum.datetime(2024, 5, 3, tz="UTC")]

with DAG("tt2_events", schedule=EventsTimetable(DATES, restrict_to_events=True), catchup=False,
         start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")
