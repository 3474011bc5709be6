import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, CronTriggerTimetable

with DAG("tt_cron_paris", schedule=CronTriggerTimetable("0 3 * * *", timezone="Europe/Paris"),
         start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")
