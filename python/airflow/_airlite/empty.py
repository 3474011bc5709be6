from airflow.models.baseoperator import BaseOperator


class EmptyOperator(BaseOperator):
    __module__ = "airflow.operators.empty"
    ui_color = "#e8f7e4"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
