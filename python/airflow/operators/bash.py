from airflow._airlite.bash import BashOperator  # noqa: F401
