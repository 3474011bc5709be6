from airflow._airlite.python import (  # noqa: F401
    BranchPythonOperator, PythonOperator, PythonVirtualenvOperator, ShortCircuitOperator)
