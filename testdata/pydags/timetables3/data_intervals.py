import datetime

import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, CronDataIntervalTimetable, DeltaDataIntervalTimetable

with DAG("tt_cron_data", schedule=CronDataIntervalTimetable("0 0 * * *", timezone="Europe/Paris"),
         start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")

with DAG("tt_delta_data", schedule=DeltaDataIntervalTimetable(datetime.timedelta(hours=6)),
         start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")
