"""The exceptions DAG files raise or catch, by Airflow's names
(2.10.3 airflow/exceptions.py)."""
from airflow import EDITION


class AirflowException(Exception):
    status_code = 500


class AirflowSkipException(AirflowException):
    pass


class AirflowFailException(AirflowException):
    pass


class AirflowTaskTimeout(BaseException):
    # 2.10.3 airflow/exceptions.py: a BaseException, so that a DAG file's
    # own "except Exception" does not swallow the import timeout.
    pass


class AirflowDagCycleException(AirflowException):
    pass


class AirflowDagDuplicatedIdException(AirflowException):
    pass


class AirflowDagInconsistent(AirflowException):
    pass


class AirflowTimetableInvalid(AirflowException):
    pass


class DuplicateTaskIdFound(AirflowException):
    pass


class TaskNotFound(AirflowException):
    pass


class AirflowSensorTimeout(AirflowException):
    pass


class ParamValidationError(AirflowException):
    pass


if EDITION == "3":
    # The Task SDK's own class (task-sdk airflow/sdk/exceptions.py), as a
    # traceback names it.
    ParamValidationError.__module__ = "airflow.sdk.exceptions"


class AirflowNotFoundException(AirflowException):
    pass
