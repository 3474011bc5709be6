import datetime

from airflow import DAG
from airflow.operators.empty import EmptyOperator
from airflow.operators.subdag import SubDagOperator

START = datetime.datetime(2024, 1, 1)


def child(parent, name):
    with DAG("%s.%s" % (parent, name), schedule="@daily", start_date=START) as sub:
        EmptyOperator(task_id="inner")
    return sub


with DAG("py_parent", schedule="@daily", start_date=START) as parent:
    SubDagOperator(task_id="section", subdag=child("py_parent", "section"))
