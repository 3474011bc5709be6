import datetime

import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG
from airflow.timetables.trigger import CronTriggerTimetable

with DAG("tt_cron_interval", schedule=CronTriggerTimetable("0 * * * *", timezone="UTC", interval=datetime.timedelta(hours=1)),
         start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")
