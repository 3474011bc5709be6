"""A teardown whose direct upstream tasks finish while a task between it
and its setup still runs (apache/airflow#64181's DAG): t_fail fails, so d
is upstream_failed at once, while t_slow runs on."""
import pendulum
from airflow import DAG
from airflow.operators.bash import BashOperator

with DAG(dag_id="teardown_scope", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    s = BashOperator(task_id="s", bash_command="true").as_setup()
    t_fail = BashOperator(task_id="t_fail", bash_command="exit 1")
    t_slow = BashOperator(task_id="t_slow", bash_command="sleep 120")
    d = BashOperator(task_id="d", bash_command="true")
    td = BashOperator(task_id="td", bash_command="true").as_teardown(setups=s)
    s >> [t_fail, t_slow] >> d >> td
