from airflow._airlite.sensor import BaseSensorOperator, PokeReturnValue  # noqa: F401
