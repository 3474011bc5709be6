from airflow._airlite.external_task import ExternalDagLink, ExternalTaskMarker, ExternalTaskSensor  # noqa: F401
