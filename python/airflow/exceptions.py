"""The exceptions DAG files raise or catch, by Airflow's names
(2.10.3 airflow/exceptions.py)."""


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


class AirflowNotFoundException(AirflowException):
    pass
