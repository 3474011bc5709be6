from airflow import EDITION
from airflow.models.baseoperator import BaseOperator


class BashOperator(BaseOperator):
    __module__ = "airflow.operators.bash"
    # 2.10.3 operators/bash.py:148-151; 1.10.15 operators/bash_operator.py:88-90
    template_fields = ("bash_command", "env") if EDITION == "1.10" else ("bash_command", "env", "cwd")
    template_fields_renderers = {"bash_command": "bash", "env": "json"}
    template_ext = (".sh", ".bash")
    ui_color = "#f0ede4"

    def __init__(self, *, bash_command, env=None, append_env=False, output_encoding="utf-8",
                 skip_exit_code=None, skip_on_exit_code=99, cwd=None, output_processor=None, **kwargs):
        super().__init__(**kwargs)
        self.bash_command = bash_command
        self.env = env
        self.append_env = append_env
        self.output_encoding = output_encoding
        self.skip_on_exit_code = skip_exit_code if skip_exit_code is not None else skip_on_exit_code
        self.cwd = cwd
