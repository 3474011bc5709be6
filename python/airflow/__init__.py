"""airlite's Airflow authoring surface: the names DAG files import, without
Airflow. The parsing program (airlite_parse.py) sets the edition before the
first import; modules the edition's release does not ship are refused as
Python refuses a missing module, and a class of a module airlite does not
know (providers included) is a generic operator that keeps its arguments.
"""
import importlib.abc
import importlib.machinery
import os
import sys
import types

EDITION = os.environ.get("AIRLITE_EDITION", "2")
__version__ = {"1.10": "1.10.15", "3": "3.2.1"}.get(EDITION, "2.10.3")

# Modules of this package that the 1.10.15 release does not have.
_ABSENT_110 = (
    "airflow.decorators", "airflow.operators.bash", "airflow.operators.python",
    "airflow.operators.empty", "airflow.operators.dummy", "airflow.datasets",
    "airflow.timetables", "airflow.models.param", "airflow.utils.edgemodifier",
    "airflow.utils.task_group", "airflow.sensors.base", "airflow.operators.subdag",
    "airflow.models.taskinstance", "airflow.sensors.external_task", "airflow.timetables.assets",
    "airflow.listeners", "airflow.io", "airflow.task", "airflow.utils.types",
    "airflow.models.baseoperatorlink",
)
# Modules 2.10.3 removed (2.0 moved them; the deprecated aliases that
# airflow/operators/__init__.py keeps stay importable), and Airflow 3's
# task SDK and asset timetables, which 2.10.3 does not have.
_ABSENT_2 = ("airflow.contrib", "airflow.sdk", "airflow.timetables.assets")
# Modules Airflow 3.2.1 removed: sub-DAGs, DummyOperator, 1.10's module
# paths (airflow-core/src/airflow/operators/__init__.py keeps deprecated
# names for bash, python, empty ... only).
_ABSENT_3 = ("airflow.contrib", "airflow.operators.dummy", "airflow.operators.dummy_operator",
             "airflow.operators.bash_operator", "airflow.operators.python_operator",
             "airflow.operators.subdag", "airflow.operators.subdag_operator",
             "airflow.sensors.base_sensor_operator")

# Where airlite's generic classes may come from: any class-looking name of
# a module under these prefixes that airlite does not ship itself.
_GENERIC_PREFIXES = ("airflow.providers.", "airflow.operators.", "airflow.sensors.", "airflow.contrib.",
                     "airflow.hooks.", "airflow.macros.", "airflow.models.", "airflow.utils.")


def _absent(name):
    absent = {"1.10": _ABSENT_110 + ("airflow.sdk",), "3": _ABSENT_3}.get(EDITION, _ABSENT_2)
    return any(name == a or name.startswith(a + ".") for a in absent)


def _generic_standard(name):
    # The standard provider's modules are airlite's operators in Airflow 3,
    # where the operators live there; before, a provider like any other.
    return EDITION != "3" and (name == "airflow.providers.standard" or name.startswith("airflow.providers.standard."))


class _GenericModule(types.ModuleType):
    """A module airlite does not ship: each CapWords attribute is a generic
    operator class named after it, recorded with this module's path."""

    def __getattr__(self, attr):
        if attr.startswith("__") or not attr[:1].isupper():
            raise AttributeError(attr)
        from airflow.models.baseoperator import generic_operator_class
        cls = generic_operator_class(attr, self.__name__)
        setattr(self, attr, cls)
        return cls


class _EditionFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if not name.startswith("airflow."):
            return None
        if _absent(name):
            raise ModuleNotFoundError("No module named %r" % name, name=name)
        if _generic_standard(name):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                return None  # a real module of this package: the normal import
        if name.startswith(_GENERIC_PREFIXES) or name in ("airflow.providers", "airflow.contrib"):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        mod = _GenericModule(spec.name)
        mod.__path__ = []
        return mod

    def exec_module(self, module):
        pass


if not any(isinstance(f, _EditionFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _EditionFinder())


def __getattr__(name):
    # airflow.DAG and the other top-level names load lazily, as in Airflow.
    if name == "DAG":
        from airflow.models.dag import DAG
        return DAG
    if name == "Dataset" and EDITION != "1.10":
        from airflow.datasets import Dataset
        return Dataset
    if name == "settings":
        return importlib.import_module("airflow.settings")
    raise AttributeError("module 'airflow' has no attribute %r" % name)
