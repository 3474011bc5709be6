from airflow import DAG

dag = DAG("py_no_start", schedule="@daily")
