"""A timetable class of the file's own: Airflow needs a plugin to register
it; airlite loads no plugins, shows it and never schedules it."""
import pendulum

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG
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
