"""BaseOperatorLink, the class a DAG file's extra links derive from: 2.10.3
airflow/models/baseoperatorlink.py; Airflow 3.2.1's is the Task SDK's
(task-sdk bases/operatorlink.py, airflow.sdk.BaseOperatorLink, which
airflow.models.baseoperatorlink still names, deprecated), with the
xcom_key a link is read from. 1.10.15 keeps its class in
airflow.models.baseoperator (see there) and has no such module.

Both releases make it an attrs class without fields (attr.s, attrs.define):
equal to another instance of the same class, shown as ClassName(), and
not hashable."""
from abc import ABCMeta, abstractmethod

from airflow import EDITION


class BaseOperatorLink(metaclass=ABCMeta):
    operators = []

    @property
    @abstractmethod
    def name(self):
        """The link's name, its button's text in the UI."""

    @abstractmethod
    def get_link(self, operator, *, ti_key):
        """The link to the external system."""

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return True

    __hash__ = None

    def __repr__(self):
        return "%s()" % type(self).__qualname__


if EDITION == "3":
    def _xcom_key(self):
        return "_link_%s" % self.__class__.__name__

    BaseOperatorLink.xcom_key = property(_xcom_key, doc="The XCom key the whole link is stored under.")
    BaseOperatorLink.__module__ = "airflow.sdk.bases.operatorlink"
