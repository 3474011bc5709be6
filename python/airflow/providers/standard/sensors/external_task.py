"""airflow.providers.standard.sensors.external_task: Airflow 3's home of
the external-task sensor and marker."""
from airflow._airlite.external_task import ExternalDagLink, ExternalTaskMarker, ExternalTaskSensor  # noqa: F401
