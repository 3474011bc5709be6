from airflow import DAG
from airflow.operators.dummy_operator import DummyOperator
from airflow.utils.dates import days_ago

dag = DAG("py110_cycle", start_date=days_ago(1))
p = DummyOperator(task_id="p", dag=dag)
q = DummyOperator(task_id="q", dag=dag)
p >> q >> p
