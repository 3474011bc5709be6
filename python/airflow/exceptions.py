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


class XComForMappingNotPushed(AirflowException):
    """2.10.3: the return value a mapped task downstream expands over is
    None (an AirflowException there; the Task SDK's is a TypeError)."""

    def __str__(self):
        return "did not push XCom for task mapping"


class UnmappableTypeText:
    """UnmappableXComTypePushed's words, shared by 2.10.3's class and the
    Task SDK's (airflow.sdk.exceptions), whose bases differ."""

    def __init__(self, value, *values):
        super().__init__(value, *values)

    def __str__(self):
        typename = type(self.args[0]).__qualname__
        for arg in self.args[1:]:
            typename = "%s[%s]" % (typename, type(arg).__qualname__)
        return "unmappable return type %r" % typename


class UnmappableXComTypePushed(UnmappableTypeText, AirflowException):
    """2.10.3: the return value a mapped task downstream expands over is
    no sequence or dict."""


class UnmappableXComLengthPushed(AirflowException):
    """2.10.3: the return value is longer than [core] max_map_length."""

    def __init__(self, value, max_length):
        super().__init__(value)
        self.value = value
        self.max_length = max_length

    def __str__(self):
        return "unmappable return value length: %d > %d" % (len(self.value), self.max_length)
