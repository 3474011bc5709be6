from airflow import DAG
from airflow.operators.bash_operator import BashOperator
from airflow.operators.dummy_operator import DummyOperator
from airflow.operators.python_operator import PythonOperator
from airflow.utils.dates import days_ago


def work(**context):
    return 1


dag = DAG("py110", schedule_interval="@hourly", start_date=days_ago(2), default_args={"owner": "old"})
run = BashOperator(task_id="run", bash_command="date", dag=dag)
check = PythonOperator(task_id="check", python_callable=work, provide_context=True, dag=dag)
end = DummyOperator(task_id="end", dag=dag)
twice = DummyOperator(task_id="end", dag=dag)  # 1.10.15 warns and keeps the first
run >> check >> end
