import datetime

from airflow import DAG
from airflow.timetables.trigger import CronTriggerTimetable
from airflow.utils import timezone

START = timezone.datetime(2024, 1, 1)

trigger = DAG("py_trigger", schedule=CronTriggerTimetable("0 3 * * *", timezone="UTC"), start_date=START)
once = DAG("py_once", schedule="@once", start_date=START)
every = DAG("py_every", schedule=datetime.timedelta(hours=6), start_date=START)
unset = DAG("py_unset", start_date=START)
