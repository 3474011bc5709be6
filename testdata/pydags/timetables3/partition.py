"""CronPartitionTimetable runs for partition keys, which airlite does not
schedule: shown as Airflow shows it, never planned."""
import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, CronPartitionTimetable

with DAG("tt_partition", schedule=CronPartitionTimetable("0 0 * * *", timezone="UTC"),
         start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")
