from airflow.models.baseoperator import chain, cross_downstream  # noqa: F401
