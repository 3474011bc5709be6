from airflow._airlite.subdag import SubDagOperator  # noqa: F401
