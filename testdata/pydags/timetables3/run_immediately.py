import datetime

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, CronTriggerTimetable

for dag_id, immediately in [("tt_immediately", True), ("tt_wait", False),
                            ("tt_within", datetime.timedelta(hours=12))]:
    with DAG(dag_id, schedule=CronTriggerTimetable("0 0 * * *", timezone="UTC", run_immediately=immediately)):
        EmptyOperator(task_id="t")
