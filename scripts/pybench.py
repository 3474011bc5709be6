#!/usr/bin/env python3
"""Python DAG files and Python tasks on the real binary (issue #22's
performance figures), each as a ratio against a baseline measured in the
same round, binaries alternating round by round:

  ready_examples   exec to the ready line with Airflow's example_dags folder
  ready_500        exec to the ready line with 500 generated DAG files
                   (3 DAGs of 13 tasks each, one reader process)
  task_first       a Python task's first try: its TI's start (queued)
                   time to the callable's first line (starts the worker)
  task             the same for the next tries (median and range)
  python_pass      baseline: `python3 -c pass` (the interpreter airlite runs)

  go build -o /tmp/airlite . && python3 scripts/pybench.py /tmp/airlite
  python3 scripts/pybench.py --rounds 3 --examples /tmp/ex210/airflow/example_dags /tmp/before /tmp/after

Airflow's example files are not in the repository: get them with
  git --git-dir=<arenadata/airflow mirror> archive 2.10.3 airflow/example_dags | tar -x -C /tmp/ex210
Traffic goes to 127.0.0.1 only. Not part of CI.
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

GEN = '''from datetime import datetime, timedelta
from airflow import DAG
from airflow.operators.bash import BashOperator
from airflow.operators.python import PythonOperator
from airflow.operators.empty import EmptyOperator
from airflow.utils.task_group import TaskGroup
from airflow.models.baseoperator import chain


def work(**context):
    return context["ds"]

for n in range(3):
    with DAG(dag_id="gen_%(i)03d_%%d" %% n, start_date=datetime(2024, 1, 1), schedule="@daily",
             catchup=False, tags=["gen"], default_args={"retries": 1, "retry_delay": timedelta(minutes=1)}) as dag:
        start = EmptyOperator(task_id="start")
        with TaskGroup("grp") as grp:
            a = [BashOperator(task_id="b%%d" %% k, bash_command="echo {{ ds }} %%d" %% k) for k in range(5)]
        p = [PythonOperator(task_id="p%%d" %% k, python_callable=work) for k in range(5)]
        end = EmptyOperator(task_id="end")
        chain(start, grp, p[0], end)
        for x in p[1:]:
            start >> x >> end
    globals()["dag_%%d" %% n] = dag
'''

LATENCY = '''import time
from datetime import datetime
from airflow import DAG
from airflow.operators.python import PythonOperator


def first():
    return time.time()  # the callable's first line


with DAG("py_latency", start_date=datetime(2024, 1, 1), schedule=None, catchup=False):
    PythonOperator(task_id="t", python_callable=first)
'''


def start(binary, dags, home, extra=()):
    """Starts airlite; returns (process, base URL, seconds to the ready line)."""
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "--dags", dags, "--home", home, "--addr", "127.0.0.1:0", "--log-level", "warn",
                          *extra], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout:
        if line.startswith("listening on"):
            return p, line.split()[-1], time.monotonic() - t0
    p.wait()
    raise SystemExit("%s did not start" % binary)


def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def ready(binary, dags):
    home = tempfile.mkdtemp(prefix="pybench-home-")
    try:
        p, _, took = start(binary, dags, home, ("--snapshot", "off", "--scheduler", "off"))
        stop(p)
        return took
    finally:
        shutil.rmtree(home, ignore_errors=True)


def call(base, method, path, body=None):
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as res:
        return json.loads(res.read() or b"null")


def iso_epoch(text):
    from datetime import datetime
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def task_latencies(binary, dags, tries):
    """Seconds from each try's TI start date (airlite's queued time: the
    scheduler writes both at the launch) to its callable's first line."""
    home = tempfile.mkdtemp(prefix="pybench-home-")
    p, base, _ = start(binary, dags, home, ("--snapshot", "off"))
    out = []
    try:
        for i in range(tries):
            date = "2024-02-%02dT00:00:00+00:00" % (i + 1)
            call(base, "POST", "/api/experimental/dags/py_latency/dag_runs", {"execution_date": date})
            run = call(base, "GET", "/_airlite/dags/py_latency/dag_runs/manual__%s/wait?timeout=60s" % date)
            if run.get("state") != "success":
                raise SystemExit("run %s: %s" % (date, run))
            ti = call(base, "GET", "/api/v1/dags/py_latency/dagRuns/manual__%s/taskInstances/t" % urllib.request.quote(date))
            called = call(base, "GET", "/api/v1/dags/py_latency/dagRuns/manual__%s/taskInstances/t/xcomEntries/return_value"
                          % urllib.request.quote(date))
            out.append(float(called["value"]) - iso_epoch(ti["queued_when"] or ti["start_date"]))
    finally:
        stop(p)
        shutil.rmtree(home, ignore_errors=True)
    return out


def python_pass(n=5):
    took = []
    for _ in range(n):
        t0 = time.monotonic()
        subprocess.run(["python3", "-c", "pass"], check=True)
        took.append(time.monotonic() - t0)
    return statistics.median(took)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tries", type=int, default=10, help="Python task tries per round")
    ap.add_argument("--examples", help="Airflow's example_dags folder (not in the repository)")
    ap.add_argument("--only", default="examples,500,task", help="figures to take")
    args = ap.parse_args()
    only = set(args.only.split(","))
    work = tempfile.mkdtemp(prefix="pybench-")
    try:
        gen = os.path.join(work, "gen500")
        os.makedirs(gen)
        for i in range(500):
            with open(os.path.join(gen, "gen_%03d.py" % i), "w") as f:
                f.write(GEN % {"i": i})
        lat = os.path.join(work, "latency")
        os.makedirs(lat)
        with open(os.path.join(lat, "latency.py"), "w") as f:
            f.write(LATENCY)
        for r in range(args.rounds):
            for binary in args.binaries:
                load = os.getloadavg()[0]
                base = python_pass()
                row = {"round": r + 1, "binary": binary, "load": round(load, 1), "python_pass_s": round(base, 3)}
                if args.examples and "examples" in only:
                    s = ready(binary, args.examples)
                    row["ready_examples_s"], row["ready_examples_x_pass"] = round(s, 2), round(s / base, 1)
                if "500" in only:
                    s = ready(binary, gen)
                    row["ready_500_s"], row["ready_500_x_pass"] = round(s, 2), round(s / base, 1)
                if "task" in only:
                    lats = task_latencies(binary, lat, args.tries)
                    rest = sorted(lats[1:])
                    row["task_first_ms"] = round(lats[0] * 1000)
                    row["task_median_ms"] = round(statistics.median(rest) * 1000)
                    row["task_range_ms"] = [round(rest[0] * 1000), round(rest[-1] * 1000)]
                    row["task_median_x_pass"] = round(statistics.median(rest) / base, 2)
                print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
