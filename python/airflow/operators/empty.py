from airflow._airlite.empty import EmptyOperator  # noqa: F401
