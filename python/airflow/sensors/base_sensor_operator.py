from airflow._airlite.sensor import BaseSensorOperator  # noqa: F401
