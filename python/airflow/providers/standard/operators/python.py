"""airflow.providers.standard.operators.python: Airflow 3's Python operators."""
from airflow._airlite.python import (  # noqa: F401
    BranchExternalPythonOperator, BranchPythonOperator, BranchPythonVirtualenvOperator, ExternalPythonOperator,
    PythonOperator, PythonVirtualenvOperator, ShortCircuitOperator, get_current_context)
