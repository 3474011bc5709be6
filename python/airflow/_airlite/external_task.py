"""ExternalTaskSensor and ExternalTaskMarker as Airflow shows them: their
template fields, colour and extra link (2.10.3
airflow/sensors/external_task.py:150-152 and 476-478; Airflow 3.2.1 keeps
them in the standard provider, the marker's date field named
logical_date). airlite pokes nothing: the sensor is simulated, the marker
is an EmptyOperator, as in Airflow."""
from airflow import EDITION
from airflow._airlite.empty import EmptyOperator
from airflow._airlite.sensor import BaseSensorOperator

_MODULE = "airflow.sensors.external_task"
_DATE_FIELD = "logical_date" if EDITION == "3" else "execution_date"


class ExternalDagLink:
    __module__ = _MODULE
    name = "External DAG"


class ExternalTaskSensor(BaseSensorOperator):
    __module__ = _MODULE
    template_fields = ["external_dag_id", "external_task_id", "external_task_ids", "external_task_group_id"]
    ui_color = "#4db7db"
    operator_extra_links = [ExternalDagLink()]

    def __init__(self, *, external_dag_id, external_task_id=None, external_task_ids=None,
                 external_task_group_id=None, allowed_states=None, skipped_states=None, failed_states=None,
                 execution_delta=None, execution_date_fn=None, check_existence=False, poll_interval=2.0,
                 deferrable=False, **kwargs):
        super().__init__(**kwargs)
        if external_task_id is not None and external_task_ids:
            raise ValueError("Only one of `external_task_id` or `external_task_ids` may be provided to "
                             "ExternalTaskSensor; use external_task_id or external_task_ids or "
                             "external_task_group_id.")
        self.external_dag_id = external_dag_id
        self.external_task_id = external_task_id
        self.external_task_ids = [external_task_id] if external_task_id is not None else (external_task_ids or None)
        self.external_task_group_id = external_task_group_id
        self.allowed_states = list(allowed_states) if allowed_states else ["success"]
        self.skipped_states = list(skipped_states) if skipped_states else []
        self.failed_states = list(failed_states) if failed_states else []
        self.execution_delta = execution_delta
        self.execution_date_fn = execution_date_fn
        self.check_existence = check_existence
        self.poll_interval = poll_interval
        self.deferrable = deferrable


class ExternalTaskMarker(EmptyOperator):
    __module__ = _MODULE
    template_fields = ["external_dag_id", "external_task_id", _DATE_FIELD]
    ui_color = "#4db7db"
    operator_extra_links = [ExternalDagLink()]

    def __init__(self, *, external_dag_id, external_task_id, recursion_depth=10, **kwargs):
        date = kwargs.pop(_DATE_FIELD, "{{ logical_date.isoformat() }}")
        super().__init__(**kwargs)
        self.external_dag_id = external_dag_id
        self.external_task_id = external_task_id
        if hasattr(date, "isoformat") and not isinstance(date, str):
            date = date.isoformat()
        setattr(self, _DATE_FIELD, date)
        if recursion_depth <= 0:
            raise ValueError("recursion_depth should be a positive integer")
        self.recursion_depth = recursion_depth
