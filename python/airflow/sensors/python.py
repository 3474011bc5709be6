from airflow._airlite.python_sensor import PythonSensor  # noqa: F401
