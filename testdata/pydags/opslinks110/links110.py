"""An extra link deriving from 1.10.15's BaseOperatorLink, which lives in
airflow.models.baseoperator (and airflow.models); get_link takes a date."""
from datetime import datetime

from airflow import DAG
from airflow.models import BaseOperatorLink as ModelsName
from airflow.models.baseoperator import BaseOperator, BaseOperatorLink


class DocsLink(BaseOperatorLink):
    name = "Docs"

    def get_link(self, operator, dttm):
        return "https://docs.example"


assert ModelsName is BaseOperatorLink
try:
    import airflow.models.baseoperatorlink  # noqa: F401
except ImportError:
    pass
else:
    raise AssertionError("1.10.15 has no airflow.models.baseoperatorlink")


class LinkedOperator(BaseOperator):
    operator_extra_links = (DocsLink(),)

    def execute(self, context):
        pass


dag = DAG("opslinks110", start_date=datetime(2021, 1, 1), schedule_interval=None)
LinkedOperator(task_id="linked", dag=dag)
