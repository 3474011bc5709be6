from airflow._airlite.sensor import BaseSensorOperator


class PythonSensor(BaseSensorOperator):
    __module__ = "airflow.sensors.python"
    template_fields = ("templates_dict", "op_args", "op_kwargs")

    def __init__(self, *, python_callable, op_args=None, op_kwargs=None, templates_dict=None, **kwargs):
        super().__init__(**kwargs)
        self.python_callable = python_callable
        self.op_args = list(op_args or [])
        self.op_kwargs = dict(op_kwargs or {})
        self.templates_dict = templates_dict
