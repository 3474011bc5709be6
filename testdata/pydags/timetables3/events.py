import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, EventsTimetable

DATES = [pendulum.datetime(2024, 6, 1, tz="UTC"), pendulum.datetime(2024, 3, 1, tz="UTC"),
         pendulum.datetime(2024, 5, 3, tz="UTC")]

with DAG("tt_events", schedule=EventsTimetable(DATES, restrict_to_events=True),
         start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")

with DAG("tt_events_named", schedule=EventsTimetable(DATES, description="Race days"), catchup=True,
         start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")
