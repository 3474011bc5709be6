"""An extra link deriving from 2.10.3's BaseOperatorLink
(airflow.models.baseoperatorlink, also airflow.models), which has no
xcom_key and no airflow.sdk."""
import pendulum
from airflow import DAG
from airflow.models import BaseOperator, BaseOperatorLink as ModelsName
from airflow.models.baseoperatorlink import BaseOperatorLink


class DocsLink(BaseOperatorLink):
    name = "Docs"

    def get_link(self, operator, *, ti_key):
        return "https://docs.example"


assert ModelsName is BaseOperatorLink
assert not hasattr(DocsLink(), "xcom_key")
try:
    import airflow.sdk  # noqa: F401
except ImportError:
    pass
else:
    raise AssertionError("2.10.3 has no airflow.sdk")


class LinkedOperator(BaseOperator):
    operator_extra_links = (DocsLink(),)

    def execute(self, context):
        pass


with DAG("opslinks2", start_date=pendulum.datetime(2021, 1, 1, tz="UTC"), schedule=None):
    LinkedOperator(task_id="linked")
