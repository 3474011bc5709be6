"""@task.bash, as Airflow users write it: the callable returns the command,
which is then rendered and run as a BashOperator's (airlite's tests)."""
import pendulum

from airflow.decorators import dag, task


@dag(schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC"), catchup=False, params={"rows": 5})
def py_task_bash():
    @task.bash
    def greet(name):
        return 'echo "hello %s on {{ ds }}" && echo "rows={{ params.rows }}"' % name

    @task.bash(env={"WHO": "{{ dag_run.conf.get('who', 'nobody') }}"}, append_env=True)
    def from_conf():
        return 'echo "env=$WHO" && echo "inline={{ dag_run.conf.get(\'who\') }}"'

    @task.bash
    def blank():
        return "   "

    @task.bash
    def skip_me():
        return "exit 99"

    @task.bash
    def fail_me():
        return "echo about to fail; exit 3"

    greet("world")
    from_conf()
    blank()
    skip_me()
    fail_me()


py_task_bash()
