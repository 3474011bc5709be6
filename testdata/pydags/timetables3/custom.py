"""A timetable class of the file's own: Airflow needs a plugin to register
it; airlite loads no plugins, shows it and never schedules it."""
import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, Asset, AssetOrTimeSchedule
from airflow.timetables.base import DagRunInfo, DataInterval, Timetable


class Weekdays(Timetable):
    description = "Every weekday at noon"

    def next_dagrun_info(self, *, last_automated_data_interval, restriction):
        start = pendulum.datetime(2024, 5, 1, 12, tz="UTC")
        return DagRunInfo.exact(start)

    def infer_manual_data_interval(self, *, run_after):
        return DataInterval.exact(run_after)


with DAG("tt_custom", schedule=Weekdays(), start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    EmptyOperator(task_id="t")


# Its time part not run, its assets still trigger it.
with DAG("tt_custom_or_time", start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
         schedule=AssetOrTimeSchedule(timetable=Weekdays(), assets=[Asset("s3://tt/b")])):
    EmptyOperator(task_id="t")
