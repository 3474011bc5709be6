"""A plugin module in the DAG folder, as Airflow 2.10.3's example_dags has:
Airflow reads it (it names airflow and a dag's DagRunInfo), finds no DAG
and records no import error."""
from airflow.listeners import hookimpl
from airflow.plugins_manager import AirflowPlugin
from airflow.task.priority_strategy import PriorityWeightStrategy
from airflow.timetables.base import DagRunInfo, DataInterval, Timetable


class Halving(PriorityWeightStrategy):
    def get_weight(self, ti):
        return max(3 - ti.try_number, 1)


class NextDay(Timetable):
    def next_dagrun_info(self, *, last_automated_data_interval, restriction):
        return DagRunInfo(run_after=None, data_interval=DataInterval(None, None))


@hookimpl
def on_task_instance_running(previous_state, task_instance):
    pass


class WeightsPlugin(AirflowPlugin):
    name = "weights"
    priority_weight_strategies = [Halving]
