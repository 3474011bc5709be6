"""Python callable tasks that airlite runs for real (scheduler_python_test.go)."""
import datetime
import os
import subprocess
import time

from airflow import DAG
from airflow.decorators import task
from airflow.exceptions import AirflowFailException, AirflowSkipException
from airflow.models import Variable
from airflow.operators.python import BranchPythonOperator, PythonOperator, ShortCircuitOperator

from pytasks_helpers import shout  # a helper module beside the DAG files

START = datetime.datetime(2024, 1, 1)

with DAG("py_xcom", start_date=START, schedule=None) as xcom_dag:

    @task
    def produce() -> dict:
        print("producing")
        return {"a": 1, "b": "two"}

    @task
    def total(a, b, ti=None, ds=None):
        pulled = ti.xcom_pull(task_ids="produce", key="a")
        whole = ti.xcom_pull(task_ids=["produce"])
        return {"sum": a + len(b), "pulled": pulled, "whole": whole, "var": Variable.get("greeting"),
                "missing": Variable.get("nope", default_var="fallback"), "ds": ds, "shout": shout("hi")}

    p = produce()
    total(p["a"], p["b"])

    def echo_args(day, hostile, run=None, **context):
        return {"day": day, "hostile": hostile, "run": run,
                "conf": context["dag_run"].conf["hostile"], "params_conf": context["params"]["hostile"],
                "has_ti": "ti" in context, "task_id": context["ti"].task_id}

    PythonOperator(task_id="templated", python_callable=echo_args,
                   op_args=["{{ ds }}", "{{ dag_run.conf['hostile'] }}"], op_kwargs={"run": "{{ run_id }}"})

    def by_signature(ds, params, logical_date, dag_run, ti, templates_dict):
        return {"ds": ds, "params": params, "logical_date": logical_date.isoformat(),
                "run_id": dag_run.run_id, "try": ti.try_number, "templates_dict": templates_dict}

    PythonOperator(task_id="signature", python_callable=by_signature, params={"p": 1},
                   templates_dict={"when": "{{ ds_nodash }}"})

    def only_ds(ds):
        from airflow.operators.python import get_current_context
        assert get_current_context()["ds"] == ds
        return ds

    PythonOperator(task_id="only_ds", python_callable=only_ds)

    def push_extra(ti):
        ti.xcom_push(key="extra", value=[1, 2])

    PythonOperator(task_id="push_extra", python_callable=push_extra)


def flaky(ti):
    print("try", ti.try_number)
    if ti.try_number == 1:
        raise ValueError("boom on try %d" % ti.try_number)
    return "ok on try %d" % ti.try_number


def skipper():
    raise AirflowSkipException("nothing to do")


def fatal():
    raise AirflowFailException("no point retrying")


def crash():
    print("about to vanish")
    os._exit(3)


with DAG("py_outcomes", start_date=START, schedule=None) as outcomes_dag:
    PythonOperator(task_id="crash", python_callable=crash)
    PythonOperator(task_id="flaky", python_callable=flaky, retries=1)
    PythonOperator(task_id="skipper", python_callable=skipper)
    PythonOperator(task_id="fatal", python_callable=fatal, retries=3)


with DAG("py_branch", start_date=START, schedule=None) as branch_dag:

    @task.branch
    def choose(params=None):
        return params["way"]

    @task
    def left():
        return "went left"

    @task
    def right():
        return "went right"

    @task(trigger_rule="none_failed_min_one_success")
    def join():
        return "joined"

    c = choose()
    lt, rt, j = left(), right(), join()
    c >> [lt, rt]
    [lt, rt] >> j
    # join is downstream of choose too: following left keeps it (it is
    # downstream of left), as Airflow 2's skip_all_except does
    c >> j

    classic = BranchPythonOperator(task_id="classic", python_callable=lambda: ["up"])
    classic >> [PythonOperator(task_id="up", python_callable=lambda: 1),
                PythonOperator(task_id="down", python_callable=lambda: 2)]


with DAG("py_short", start_date=START, schedule=None) as short_dag:
    gate = ShortCircuitOperator(task_id="gate", python_callable=lambda: 0)
    after = PythonOperator(task_id="after", python_callable=lambda: 1)
    further = PythonOperator(task_id="further", python_callable=lambda: 2)
    gate >> after >> further

    @task.short_circuit
    def open_gate():
        return "yes"

    @task
    def behind():
        return 3

    open_gate() >> behind()


def sleeper(pid_file):
    child = subprocess.Popen(["sleep", "300"])
    with open(pid_file + ".tmp", "w") as f:
        f.write("%d %d" % (os.getpid(), child.pid))
    os.rename(pid_file + ".tmp", pid_file)
    time.sleep(300)


with DAG("py_sleep", start_date=START, schedule=None) as sleep_dag:
    PythonOperator(task_id="sleeper", python_callable=sleeper, op_kwargs={"pid_file": "{{ params.pid_file }}"})


with DAG("py_fast", start_date=START, schedule=None) as fast_dag:

    @task
    def quick():
        return time.time()  # when the callable runs (the benchmark's measure)

    quick()
