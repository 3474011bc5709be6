from airflow.models.baseoperator import BaseOperator  # noqa: F401
from airflow.models.dag import DAG  # noqa: F401
from airflow.models.variable import Variable  # noqa: F401
from airflow import EDITION as _EDITION

if _EDITION == "1.10":
    from airflow.models.baseoperator import BaseOperatorLink  # noqa: F401

if _EDITION != "1.10":
    from airflow.models.baseoperatorlink import BaseOperatorLink  # noqa: F401
    from airflow.models.param import Param  # noqa: F401
    from airflow.models.xcom_arg import XComArg  # noqa: F401


class TaskInstance:  # a name DAG files import for type hints
    pass


class DagRun:
    pass
