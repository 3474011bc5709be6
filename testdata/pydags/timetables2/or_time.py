import pendulum

from airflow import DAG
from airflow.datasets import Dataset
from airflow.operators.empty import EmptyOperator
from airflow.timetables.datasets import DatasetOrTimeSchedule
from airflow.timetables.trigger import CronTriggerTimetable

with DAG("tt2_or_time", catchup=False, start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
         schedule=DatasetOrTimeSchedule(timetable=CronTriggerTimetable("0 1 * * 3", timezone="UTC"),
                                        datasets=[Dataset("s3://tt/a")])):
    EmptyOperator(task_id="t")
