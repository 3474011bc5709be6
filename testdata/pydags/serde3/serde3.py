"""XCom values a task returns, stored in the Task SDK's serde forms
(Airflow 3.2.1) and read back as objects by every reader."""
import collections
import datetime
import decimal

import pendulum
from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import DAG, task

Point = collections.namedtuple("Point", "x y")

with DAG("serde3", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):

    @task
    def make_tuple():
        return (1, 2)

    @task
    def make_set():
        return {3}

    @task
    def make_dt():
        return datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)

    @task
    def make_pendulum():
        return pendulum.datetime(2024, 1, 2, 3, 4, 5, tz="UTC")

    @task
    def make_mixed():
        return {
            1: "int key",
            "day": datetime.date(2024, 1, 2),
            "span": datetime.timedelta(hours=1, seconds=1),
            "dec": decimal.Decimal("1.5"),
            "whole": decimal.Decimal("7"),
            "frozen": frozenset(["f"]),
            "nested": [(1, "a")],
            "point": Point(1, 2),
            "naive": datetime.datetime(2024, 1, 2, 3, 4, 5),
        }

    @task
    def pushes(ti=None):
        ti.xcom_push(key="pair", value=("a", "b"))

    @task
    def read_back(t, s, d, p, m, ti=None):
        assert t == (1, 2) and type(t) is tuple, repr(t)
        assert s == {3} and type(s) is set, repr(s)
        assert d == datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), repr(d)
        assert isinstance(p, datetime.datetime) and p == d, repr(p)
        assert m["1"] == "int key", repr(m)
        assert m["day"] == datetime.date(2024, 1, 2), repr(m)
        assert m["span"] == datetime.timedelta(hours=1, seconds=1), repr(m)
        assert m["dec"] == decimal.Decimal("1.5") and m["whole"] == decimal.Decimal("7"), repr(m)
        assert m["frozen"] == frozenset(["f"]) and type(m["frozen"]) is frozenset, repr(m)
        assert m["nested"] == [(1, "a")] and type(m["nested"][0]) is tuple, repr(m)
        assert m["point"] == (1, 2) and type(m["point"]) is tuple, repr(m)
        assert m["naive"] == datetime.datetime(2024, 1, 2, 3, 4, 5), repr(m)
        pair = ti.xcom_pull(task_ids="pushes", key="pair")
        assert pair == ("a", "b") and type(pair) is tuple, repr(pair)
        return "read"

    @task
    def show(x):
        return x

    render = BashOperator(
        task_id="render",
        bash_command='echo "{{ ti.xcom_pull(task_ids=\'make_tuple\') }}|{{ ti.xcom_pull(task_ids=\'make_set\') }}|'
        '{{ ti.xcom_pull(task_ids=\'make_dt\') }}|{{ ti.xcom_pull(task_ids=\'make_mixed\')[\'day\'] }}|'
        '{{ ti.xcom_pull(task_ids=\'make_mixed\')[\'span\'] }}|{{ ti.xcom_pull(task_ids=\'make_mixed\')[\'dec\'] }}|'
        '{{ ti.xcom_pull(task_ids=\'make_mixed\')[\'nested\'] }}"',
    )

    t, s, d, p, m = make_tuple(), make_set(), make_dt(), make_pendulum(), make_mixed()
    pushed = pushes()
    pushed >> read_back(t, s, d, p, m)
    [t, s, d, m] >> render
    show.expand(x=t)
