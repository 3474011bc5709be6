import datetime

import pendulum
from dateutil.relativedelta import relativedelta

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, DeltaTriggerTimetable

with DAG("tt_delta_trigger", catchup=True, start_date=pendulum.datetime(2024, 5, 1, tz="UTC"),
         schedule=DeltaTriggerTimetable(datetime.timedelta(hours=6), interval=datetime.timedelta(hours=1))):
    EmptyOperator(task_id="t")

with DAG("tt_delta_months", catchup=True, start_date=pendulum.datetime(2024, 1, 31, tz="UTC"),
         schedule=DeltaTriggerTimetable(relativedelta(months=1))):
    EmptyOperator(task_id="t")
