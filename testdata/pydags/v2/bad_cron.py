import datetime
from airflow import DAG

dag = DAG("py_bad_cron", schedule="61 * * * *", start_date=datetime.datetime(2024, 1, 1))
