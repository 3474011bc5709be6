"""airflow.providers.standard.operators.empty: Airflow 3's EmptyOperator."""
from airflow._airlite.empty import EmptyOperator  # noqa: F401
