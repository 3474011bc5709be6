"""An operator whose extra links name their XCom keys, as the
CustomBaseIndexOpLink of Airflow's tests does (xcom_key bigquery_1, ...)."""
import pendulum
from airflow.sdk import DAG, BaseOperator


class IndexLink:
    def __init__(self, index):
        self.name = "BigQuery Console #%d" % (index + 1)
        self.xcom_key = "bigquery_%d" % (index + 1)


class PlainLink:
    name = "Plain"


class LinkedOperator(BaseOperator):
    operator_extra_links = (IndexLink(0), IndexLink(1), PlainLink())

    def execute(self, context):
        pass


with DAG("links3", start_date=pendulum.datetime(2021, 1, 1, tz="UTC"), schedule=None):
    LinkedOperator(task_id="linked")
