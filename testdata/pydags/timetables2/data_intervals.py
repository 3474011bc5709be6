import pendulum
from dateutil.relativedelta import relativedelta

from airflow import DAG
from airflow.operators.empty import EmptyOperator
from airflow.timetables.interval import CronDataIntervalTimetable, DeltaDataIntervalTimetable

with DAG("tt2_cron_data", schedule=CronDataIntervalTimetable("0 0 * * *", timezone="Europe/Paris"),
         catchup=False, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")

with DAG("tt2_delta_months", schedule=DeltaDataIntervalTimetable(relativedelta(months=1)),
         start_date=pendulum.datetime(2024, 1, 31, tz="UTC")):
    EmptyOperator(task_id="t")
