"""An extra link deriving from Airflow 3.2.1's BaseOperatorLink, by both
of the names 3.2.1 has for it: its XCom key is _link_<class name> unless
the class names its own."""
import pendulum
from airflow.models.baseoperatorlink import BaseOperatorLink as OldName
from airflow.sdk import DAG, BaseOperator, BaseOperatorLink


class DocsLink(BaseOperatorLink):
    name = "Docs"

    def get_link(self, operator, *, ti_key):
        return "https://docs.example"


class KeyedLink(OldName):
    name = "Keyed"
    xcom_key = "keyed"

    def get_link(self, operator, *, ti_key):
        return ""


assert OldName is BaseOperatorLink
assert DocsLink() == DocsLink() and repr(DocsLink()) == "DocsLink()"
try:
    BaseOperatorLink()
except TypeError:
    pass
else:
    raise AssertionError("BaseOperatorLink is abstract")


class LinkedOperator(BaseOperator):
    operator_extra_links = (DocsLink(), KeyedLink())

    def execute(self, context):
        pass


with DAG("opslinks3", start_date=pendulum.datetime(2021, 1, 1, tz="UTC"), schedule=None):
    LinkedOperator(task_id="linked")
