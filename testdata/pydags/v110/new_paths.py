from airflow import DAG
from airflow.operators.bash import BashOperator  # 2.0's path: not in 1.10.15
