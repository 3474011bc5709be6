from airflow._airlite.empty import EmptyOperator

DummyOperator = EmptyOperator
