from airflow.models.baseoperator import BaseOperator


class BaseSensorOperator(BaseOperator):
    __module__ = "airflow.sensors.base"
    ui_color = "#e6f1f2"

    def __init__(self, *, poke_interval=60, timeout=7 * 24 * 60 * 60, soft_fail=False, mode="poke",
                 exponential_backoff=False, max_wait=None, silent_fail=False, never_fail=False, **kwargs):
        super().__init__(**kwargs)
        self.poke_interval = poke_interval.total_seconds() if hasattr(poke_interval, "total_seconds") else poke_interval
        self.timeout = timeout.total_seconds() if hasattr(timeout, "total_seconds") else timeout
        self.soft_fail = soft_fail
        self.mode = mode
        self.exponential_backoff = exponential_backoff
        self.max_wait = max_wait


class PokeReturnValue:
    """What a sensor's poke may return: done or not, and an XCom value."""
    __module__ = "airflow.sensors.base"

    def __init__(self, is_done, xcom_value=None):
        self.xcom_value = xcom_value
        self.is_done = is_done

    def __bool__(self):
        return self.is_done
