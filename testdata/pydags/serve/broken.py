"""An airflow DAG file that fails at import."""
from airflow import DAG  # noqa: F401

raise RuntimeError("settings.ini is missing")
