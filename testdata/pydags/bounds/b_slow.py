# airflow dag: sleeps past the bound
import time
time.sleep(600)
