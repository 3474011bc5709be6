"""XCom values as Airflow 2.10.3 stores them (XComEncoder: a top-level
tuple, all of it, and what json cannot write in serde's form, a tuple
json writes as a list) and reads them back (XComDecoder)."""
import datetime
import decimal
import uuid

import pendulum
from airflow import DAG
from airflow.decorators import task
from airflow.operators.bash import BashOperator

with DAG("serde2", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):

    @task
    def make_tuple():
        return (1, (2, 3))

    @task
    def make_mixed():
        return {"set": {3}, "nested": [(1, "a")], "when": datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
                "dec": decimal.Decimal("1.5"), True: "bool key"}

    @task
    def make_uuid():
        return uuid.UUID("12345678-1234-5678-1234-567812345678")

    @task
    def read_back(t, m):
        assert t == (1, (2, 3)) and type(t[1]) is tuple, repr(t)
        assert m["set"] == {3} and m["nested"] == [[1, "a"]], repr(m)
        assert m["when"] == datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), repr(m)
        assert m["dec"] == decimal.Decimal("1.5") and m["true"] == "bool key", repr(m)
        return "read"

    render = BashOperator(
        task_id="render",
        bash_command='echo "{{ ti.xcom_pull(task_ids=\'make_tuple\') }}|{{ ti.xcom_pull(task_ids=\'make_mixed\')[\'set\'] }}"',
    )

    t, m = make_tuple(), make_mixed()
    read_back(t, m)
    [t, m] >> render
    make_uuid()
