from airflow import DAG
import module_that_is_not_there  # noqa: F401
