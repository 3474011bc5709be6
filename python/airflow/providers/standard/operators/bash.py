"""airflow.providers.standard.operators.bash: Airflow 3's BashOperator."""
from airflow._airlite.bash import BashOperator  # noqa: F401
