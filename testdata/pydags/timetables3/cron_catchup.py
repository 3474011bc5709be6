import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, CronTriggerTimetable

with DAG("tt_cron_catchup", schedule=CronTriggerTimetable("0 0 * * *", timezone="UTC"), catchup=True,
         start_date=pendulum.datetime(2024, 4, 29, tz="UTC")):
    EmptyOperator(task_id="t")
