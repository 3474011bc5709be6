"""airflow.providers.standard.sensors.python: Airflow 3's PythonSensor."""
from airflow._airlite.python_sensor import PythonSensor  # noqa: F401
