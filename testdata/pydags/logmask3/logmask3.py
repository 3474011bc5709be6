import pendulum

from airflow.sdk import DAG, Variable
from airflow.providers.standard.operators.python import PythonOperator

start = pendulum.datetime(2024, 1, 1, tz="UTC")


def tell():
    print("before=" + Variable.get("colour"))
    print("pw=%s short=%s plain=%s" % (Variable.get("db_password"), Variable.get("short_token"), Variable.get("colour")))
    print("json=" + Variable.get("creds", deserialize_json=True)["password"])


with DAG("logged_py", schedule=None, start_date=start):
    PythonOperator(task_id="tell", python_callable=tell)
