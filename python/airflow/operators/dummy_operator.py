"""1.10.15's module of DummyOperator; in 2.10.3 a deprecated alias of
EmptyOperator (airflow/operators/__init__.py)."""
from airflow import EDITION
from airflow.models.baseoperator import BaseOperator

if EDITION == "1.10":
    class DummyOperator(BaseOperator):
        ui_color = "#e8f7e4"

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
else:
    from airflow._airlite.empty import EmptyOperator
    DummyOperator = EmptyOperator
