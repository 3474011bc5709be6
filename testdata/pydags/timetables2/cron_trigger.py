import datetime

import pendulum

from airflow import DAG
from airflow.operators.empty import EmptyOperator
from airflow.timetables.trigger import CronTriggerTimetable

START = pendulum.datetime(2024, 1, 1, tz="UTC")

with DAG("tt2_cron_paris", schedule=CronTriggerTimetable("0 3 * * *", timezone="Europe/Paris"),
         catchup=False, start_date=START):
    EmptyOperator(task_id="t")

with DAG("tt2_cron_interval", catchup=False, start_date=START,
         schedule=CronTriggerTimetable("0 * * * *", timezone="UTC", interval=datetime.timedelta(hours=1))):
    EmptyOperator(task_id="t")
