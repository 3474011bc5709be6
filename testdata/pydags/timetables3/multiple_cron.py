import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, MultipleCronTriggerTimetable

with DAG("tt_multi", schedule=MultipleCronTriggerTimetable("0 6 * * *", "0 9 * * *", timezone="UTC"),
         start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")

with DAG("tt_multi_catchup", schedule=MultipleCronTriggerTimetable("0 6 * * *", "0 9 * * *", timezone="UTC"),
         catchup=True, start_date=pendulum.datetime(2024, 5, 1, tz="UTC")):
    EmptyOperator(task_id="t")
