from airflow import EDITION
from airflow.models.baseoperator import BaseOperator


class PythonOperator(BaseOperator):
    __module__ = "airflow.operators.python"
    # 2.10.3 operators/python.py:192; 1.10.15 operators/python_operator.py
    template_fields = ("templates_dict", "op_args", "op_kwargs")
    template_fields_renderers = {"templates_dict": "json", "op_args": "py", "op_kwargs": "py"}
    ui_color = "#ffefeb"

    def __init__(self, *, python_callable, op_args=None, op_kwargs=None, templates_dict=None,
                 templates_exts=None, show_return_value_in_logs=True, provide_context=False, **kwargs):
        super().__init__(**kwargs)
        if not callable(python_callable):
            from airflow.exceptions import AirflowException
            raise AirflowException("`python_callable` param must be callable")
        self.python_callable = python_callable
        self.op_args = list(op_args or [])
        self.op_kwargs = dict(op_kwargs or {})
        self.templates_dict = templates_dict
        self.show_return_value_in_logs = show_return_value_in_logs
        self.provide_context = provide_context  # 1.10.15: the context only when asked (airlite_task.py)


class BranchPythonOperator(PythonOperator):
    __module__ = "airflow.operators.python"
    pass


class ShortCircuitOperator(PythonOperator):
    __module__ = "airflow.operators.python"
    def __init__(self, *, ignore_downstream_trigger_rules=True, **kwargs):
        super().__init__(**kwargs)
        self.ignore_downstream_trigger_rules = ignore_downstream_trigger_rules


class PythonVirtualenvOperator(PythonOperator):
    __module__ = "airflow.operators.python"
    # 2.10.3 operators/python.py:671 builds this from a set; airlite keeps one order.
    template_fields = ("index_urls", "op_args", "op_kwargs", "requirements", "templates_dict", "venv_cache_path")

    def __init__(self, *, python_callable, requirements=None, python_version=None,
                 serializer=None, system_site_packages=True, pip_install_options=None,
                 op_args=None, op_kwargs=None, string_args=None, templates_dict=None,
                 templates_exts=None, expect_airflow=True, skip_on_exit_code=None,
                 index_urls=None, venv_cache_path=None, use_dill=False, **kwargs):
        super().__init__(python_callable=python_callable, op_args=op_args, op_kwargs=op_kwargs,
                         templates_dict=templates_dict, templates_exts=templates_exts, **kwargs)
        self.requirements = requirements or []
        self.python_version = python_version
        self.index_urls = index_urls
        self.venv_cache_path = venv_cache_path


class BranchPythonVirtualenvOperator(PythonVirtualenvOperator):
    __module__ = "airflow.operators.python"
    pass


class ExternalPythonOperator(PythonOperator):
    __module__ = "airflow.operators.python"
    template_fields = ("op_args", "op_kwargs", "python", "templates_dict")

    def __init__(self, *, python, python_callable, serializer=None, op_args=None, op_kwargs=None,
                 string_args=None, templates_dict=None, templates_exts=None, expect_airflow=True,
                 expect_pendulum=False, skip_on_exit_code=None, use_dill=False, **kwargs):
        super().__init__(python_callable=python_callable, op_args=op_args, op_kwargs=op_kwargs,
                         templates_dict=templates_dict, templates_exts=templates_exts, **kwargs)
        self.python = python


class BranchExternalPythonOperator(ExternalPythonOperator):
    __module__ = "airflow.operators.python"
    pass


# The running task's context, set by airlite's task runner (airlite_task.py)
# around the callable, as 2.10.3 operators/python.py keeps _CURRENT_CONTEXT.
_CURRENT_CONTEXT = []


def get_current_context():
    if _CURRENT_CONTEXT:
        return _CURRENT_CONTEXT[-1]
    from airflow.exceptions import AirflowException
    raise AirflowException(
        "Current context was requested but no context was found! Are you running within an airflow task?")


def is_venv_installed():
    """Whether virtualenv is on PATH or importable (2.10.3 operators/python.py:68-76)."""
    import importlib.util
    import shutil
    return bool(shutil.which("virtualenv") or importlib.util.find_spec("virtualenv"))
