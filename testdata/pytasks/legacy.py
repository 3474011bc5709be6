"""Edition 1.10: PythonOperator from airflow.operators.python_operator,
the context only with provide_context."""
import datetime

from airflow import DAG
from airflow.operators.python_operator import BranchPythonOperator, PythonOperator


def with_context(greeting, ds, **kwargs):
    return "%s %s %s" % (greeting, ds, kwargs["ti"].task_id)


def without_context(x, **kwargs):
    return {"double": x * 2, "has_context": "ti" in kwargs}


dag = DAG("py_legacy", start_date=datetime.datetime(2024, 1, 1), schedule_interval=None)
a = PythonOperator(task_id="with_context", python_callable=with_context, provide_context=True,
                   op_kwargs={"greeting": "day {{ ds_nodash }}"}, dag=dag)
b = PythonOperator(task_id="without_context", python_callable=without_context, op_args=[21], dag=dag)
br = BranchPythonOperator(task_id="branch", python_callable=lambda: "kept", dag=dag)
kept = PythonOperator(task_id="kept", python_callable=lambda: 1, dag=dag)
gone = PythonOperator(task_id="gone", python_callable=lambda: 1, dag=dag)
br >> [kept, gone]
