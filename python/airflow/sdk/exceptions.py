"""The Task SDK's exceptions (task-sdk src/airflow/sdk/exceptions.py of
Airflow 3.2.1): those a task raises or sees, on airlite's classes; the
mapping ones are TypeErrors there, not AirflowExceptions."""
from airflow.exceptions import (  # noqa: F401
    AirflowException, AirflowFailException, AirflowSkipException, AirflowTaskTimeout, ParamValidationError)
from airflow.exceptions import UnmappableTypeText


class AirflowRuntimeError(Exception):
    """An error the supervisor answered a request with: its type and its
    detail, as the task sees them ("API_SERVER_ERROR: {...}")."""

    def __init__(self, error, detail):
        self.error = error
        self.detail = detail
        super().__init__("%s: %s" % (error, detail))


class XComForMappingNotPushed(TypeError):
    def __str__(self):
        return "did not push XCom for task mapping"


class UnmappableXComTypePushed(UnmappableTypeText, TypeError):
    pass
