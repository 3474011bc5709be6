import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, Asset, AssetOrTimeSchedule, CronTriggerTimetable

with DAG("tt_asset_or_time", start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
         schedule=AssetOrTimeSchedule(timetable=CronTriggerTimetable("0 1 * * 3", timezone="UTC"),
                                      assets=[Asset("s3://tt/a")])):
    EmptyOperator(task_id="t")
