#!/usr/bin/env python3
"""Writes testdata/templates_golden.json: templates rendered by the real
Jinja2 against a context shaped like Airflow's, one row per edition.

Run from the repository root: python3 scripts/template_golden.py
TestTemplate_Golden (template_test.go) renders every row with airlite and
compares. The Go test needs only the JSON file, never Python.

Edition 2 renders as Airflow 2.10.3 does: jinja2.StrictUndefined
(airflow/models/dag.py:536), dates printed by pendulum 3 (str() with a
space). Edition 1.10 as 1.10.15: jinja2.Undefined (airflow/models/dag.py:810),
dates printed by pendulum 1.4 (str() is isoformat).
"""

import datetime
import json
import sys

import dateutil.relativedelta
import jinja2

LOGICAL = datetime.datetime(2024, 3, 4, 5, 6, 7, 123, tzinfo=datetime.timezone.utc)
CONF = {"x": "abc", "message": "hello there", "l": ["a", "b", 3], "n": {"k": 1},
        "none": None, "t": True, "f": 1.5, "i": 41, "q": "it's"}
VARIABLES = {"greeting": "hi", "cfg": '{"k": [1, 2]}'}


class Pendulum1(datetime.datetime):
    """A date whose str() is isoformat, as pendulum 1.4's Pendulum. Adding
    or subtracting a timedelta gives a Pendulum again (pendulum 1.4.4
    pendulum/pendulum.py:1885-1903); so does replace (line 1936)."""

    def __str__(self):
        return self.isoformat()

    def __add__(self, other):
        if not isinstance(other, datetime.timedelta):
            return NotImplemented  # a relativedelta adds itself (its __radd__)
        return as_pendulum1(datetime.datetime.__add__(self, other))

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, datetime.timedelta):
            return as_pendulum1(datetime.datetime.__sub__(self, other))
        return datetime.datetime.__sub__(self, other)

    def replace(self, **kwargs):
        return as_pendulum1(datetime.datetime.replace(self, **kwargs))


def as_pendulum1(d):
    return Pendulum1(d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond, d.tzinfo)


class Macros:
    """airflow.macros: ds_add and ds_format as Airflow 2.10.3 defines them
    (airflow/macros/__init__.py:47, 65), and the modules it imports
    (lines 20-24; 1.10.15's lines 20-26 import no json)."""

    timedelta = datetime.timedelta  # before datetime names the class here
    dateutil = dateutil
    datetime = datetime.datetime

    @staticmethod
    def ds_add(ds, days):
        if not days:
            return str(ds)
        dt = datetime.datetime.strptime(str(ds), "%Y-%m-%d") + datetime.timedelta(days=days)
        return dt.strftime("%Y-%m-%d")

    @staticmethod
    def ds_format(ds, input_format, output_format):
        return datetime.datetime.strptime(str(ds), input_format).strftime(output_format)


class Macros2(Macros):
    json = json


class VariableAccessor:
    """var.value / var.json: a missing Variable raises KeyError, as
    Variable.get does (airflow/models/variable.py:145)."""

    def __init__(self, deserialize):
        self.deserialize = deserialize

    def __getattr__(self, key):
        return self.get(key)

    def get(self, key, default=None, _missing=object()):
        if key not in VARIABLES:
            if default is not None:
                return default
            raise KeyError(f"Variable {key} does not exist")
        value = VARIABLES[key]
        return json.loads(value) if self.deserialize else value


class DagRun:
    def __init__(self, edition):
        self.conf = CONF
        self.run_id = "manual__2024-03-04T05:06:07.000123+00:00"
        self.dag_id = "example"
        self.external_trigger = True
        self.execution_date = LOGICAL
        if edition == "2":
            self.run_type = "manual"
            self.logical_date = LOGICAL


def context(edition):
    ds = LOGICAL.strftime("%Y-%m-%d")
    date = LOGICAL if edition == "2" else as_pendulum1(LOGICAL)
    params = {"p": "from the DAG"}
    params.update(CONF)  # dag_run_conf_overrides_params
    ctx = {
        "dag_run": DagRun(edition),
        "ds": ds,
        "ds_nodash": ds.replace("-", ""),
        "ts": LOGICAL.isoformat(),
        "ts_nodash": LOGICAL.strftime("%Y%m%dT%H%M%S"),
        "ts_nodash_with_tz": LOGICAL.isoformat().replace("-", "").replace(":", ""),
        "execution_date": date,
        "prev_ds": ds,  # a triggered run's neighbours are itself
        "next_ds": ds,
        "prev_execution_date": date,
        "yesterday_ds": (LOGICAL - datetime.timedelta(1)).strftime("%Y-%m-%d"),
        "tomorrow_ds": (LOGICAL + datetime.timedelta(1)).strftime("%Y-%m-%d"),
        "run_id": "manual__2024-03-04T05:06:07.000123+00:00",
        "task_instance_key_str": "example__t__" + ds.replace("-", ""),
        "params": params,
        "macros": Macros if edition == "1.10" else Macros2,
        "var": {"value": VariableAccessor(False), "json": VariableAccessor(True)},
        "test_mode": False,
        "inlets": [],
    }
    if edition == "2":
        ctx.update({"logical_date": LOGICAL, "data_interval_start": LOGICAL, "data_interval_end": LOGICAL})
    else:
        ctx.update({"END_DATE": ds, "latest_date": ds})
    return ctx


# Templates of both editions unless the edition is named.
CASES = [
    ("subscript", "{{ dag_run.conf['x'] }}", None),
    ("trigger target example", '{{ dag_run.conf["message"] if dag_run else "" }}', None),
    ("tutorial templated", '{% for i in range(5) %}\n    echo "{{ ds }}"\n    echo "{{ macros.ds_add(ds, 7)}}"\n{% endfor %}', None),
    ("replace", '{{ dag_run.conf.x|replace("b", "B") }}', None),
    ("join", '{{ dag_run.conf.l|join(",") }}', None),
    ("concatenation", '{{ dag_run.conf.x ~ "-" ~ ds }}', None),
    ("format filter", '{{ "%s-%s"|format(dag_run.conf.x, ds) }}', None),
    ("str.format", '{{ "{}/{}".format(ds, dag_run.conf.x) }}', None),
    ("upper and length", "{{ dag_run.conf.x|upper }} {{ dag_run.conf.l|length }}", None),
    ("slice", "{{ dag_run.conf.x[1:] }}", None),
    ("dict", "{{ dag_run.conf.n }}", None),
    ("list", "{{ dag_run.conf.l }}", None),
    ("None is none and false", "{{ dag_run.conf.none is none }} {{ 'y' if dag_run.conf.none else 'n' }} {{ dag_run.conf.get('zz') is none }}", "1.10"),
    ("subscript of None", "[{{ dag_run.conf.none['x'] }}]", "1.10"),
    ("subscript of None, strict", "[{{ dag_run.conf.none['x'] }}]", "2"),
    ("None, True, float", "{{ dag_run.conf.none }} {{ dag_run.conf.t }} {{ dag_run.conf.f }}", None),
    ("arithmetic", "{{ dag_run.conf.i + 1 }}", None),
    ("quote in a list", "{{ [dag_run.conf.q, 'x'] }}", None),
    ("if on a request value", "{% if dag_run.conf.x == 'abc' %}yes{% else %}no{% endif %}", None),
    ("for over a request list", "{% for v in dag_run.conf.l %}[{{ v }}]{% endfor %}", None),
    ("set", "{% set y = dag_run.conf.x %}{{ y }}", None),
    ("get with a default", "{{ dag_run.conf.get('zz', 'dflt') }}", None),
    ("default filter", "{{ dag_run.conf.x|default('d') }}", None),
    ("params overridden by conf", "{{ params.p }} {{ params.x }}", None),
    ("ds_format", '{{ macros.ds_format(ds, "%Y-%m-%d", "%d/%m/%Y") }}', None),
    ("ds_add", "{{ macros.ds_add(ds, -3) }}", None),
    ("dates", "{{ ds }} {{ ds_nodash }} {{ ts }} {{ ts_nodash }} {{ ts_nodash_with_tz }}", None),
    ("execution_date", "{{ execution_date }}", None),
    ("prev and next of a triggered run", "{{ prev_ds }} {{ next_ds }} {{ prev_execution_date }}", None),
    ("yesterday and tomorrow", "{{ yesterday_ds }} {{ tomorrow_ds }}", None),
    ("logical_date", "{{ logical_date }}", "2"),
    ("data interval", "{{ data_interval_start }} {{ data_interval_end }}", "2"),
    ("dag_run.logical_date", "{{ dag_run.logical_date }} {{ dag_run.run_type }}", "2"),
    ("END_DATE", "{{ END_DATE }} {{ latest_date }}", "1.10"),
    ("ds filter", "{{ execution_date | ds }}", None),
    ("date filters", "{{ data_interval_end | ds }} {{ logical_date | ts_nodash_with_tz }} {{ logical_date | ds_nodash }}", "2"),
    ("run_id", "{{ run_id }} {{ dag_run.run_id }} {{ dag_run.external_trigger }}", None),
    ("task_instance_key_str", "{{ task_instance_key_str }}", None),
    ("test_mode and inlets", "{{ test_mode }} {{ inlets }}", None),
    ("var.value", "{{ var.value.greeting }}", None),
    ("var.value.get with a fallback", "{{ var.value.get('nope', 'fallback') }}", None),
    ("var.json", "{{ var.json.cfg.k }}", None),
    ("missing variable", "{{ var.value.nope }}", None),
    ("undefined name", "{{ nope }}", None),
    ("undefined conf key", "{{ dag_run.conf.missing }}", None),
    ("strftime", "{{ execution_date.strftime('%Y/%m/%d %H') }}", None),
    ("date attributes", "{{ execution_date.year }}-{{ execution_date.month }}", None),
    ("timedelta before strftime", "{{ (execution_date - macros.timedelta(days=1)).strftime('%Y-%m-%d') }}", None),
    ("date plus timedelta", "{{ execution_date + macros.timedelta(hours=1) }}", None),
    ("timedelta plus date", "{{ macros.timedelta(weeks=1) + execution_date }}", None),
    ("date minus timedelta", "{{ execution_date - macros.timedelta(1, 30, 5) }}", None),
    ("interval end plus an hour, isoformat", "{{ (data_interval_end + macros.timedelta(hours=1)).isoformat() }}", "2"),
    ("timedelta str", "{{ macros.timedelta(days=1, hours=2, minutes=3, seconds=4.5) }} {{ macros.timedelta(seconds=-1) }} {{ macros.timedelta(milliseconds=1) }}", None),
    ("timedelta zero and days", "{{ macros.timedelta() }} {{ macros.timedelta(days=2) }} {{ macros.timedelta(hours=36) }}", None),
    ("negated timedelta", "{{ execution_date + -macros.timedelta(days=2) }}", None),
    ("timedelta sum", "{{ macros.timedelta(hours=1) + macros.timedelta(minutes=30) }} {{ macros.timedelta(hours=1) - macros.timedelta(hours=3) }}", None),
    ("timedelta attributes", "{{ macros.timedelta(days=1, seconds=5, microseconds=7).days }} {{ macros.timedelta(days=1, seconds=5).seconds }} {{ macros.timedelta(days=1, seconds=5, microseconds=7).microseconds }} {{ macros.timedelta(minutes=1, milliseconds=500).total_seconds() }}", None),
    ("date difference", "{{ (execution_date - prev_execution_date).total_seconds() }} {{ ((execution_date + macros.timedelta(days=3)) - execution_date).days }}", None),
    ("timedelta of a request value", "{{ execution_date + macros.timedelta(days=dag_run.conf.i) }}", None),
    ("date comparison", "{{ execution_date < execution_date + macros.timedelta(seconds=1) }} {{ execution_date >= execution_date }} {{ macros.timedelta(hours=1) > macros.timedelta(minutes=59) }}", None),
    ("arithmetic still numbers", "{{ 1 + 2 }} {{ 5 - 7 }} {{ 'a' + 'b' }} {{ [1] + [2] }} {{ 1.5 + 1 }} {{ 3 > 2 }} {{ 'a' < 'b' }} {{ -3 }}", None),
    ("arithmetic in if", "{% if execution_date - macros.timedelta(days=1) < execution_date %}earlier{% endif %}", None),
    ("arithmetic in for", "{% for d in [execution_date - macros.timedelta(days=1), execution_date] %}{{ d.day }} {% endfor %}", None),
    ("isoformat with a separator", "{{ execution_date.isoformat(' ') }}", None),
    ("date()", "{{ execution_date.date() }} {{ execution_date.date().isoformat() }} {{ execution_date.date().strftime('%d.%m.%Y') }}", None),
    ("date replace", "{{ execution_date.replace(hour=0, minute=0, second=0, microsecond=0) }} {{ execution_date.replace(day=1).strftime('%Y-%m-%d') }}", None),
    ("time attributes", "{{ execution_date.hour }}:{{ execution_date.minute }}:{{ execution_date.second }} {{ execution_date.weekday() }} {{ execution_date.isoweekday() }}", None),
    ("strftime year", "{{ execution_date.strftime('%Y') }}", None),
    ("ds_add back a week", "{{ macros.ds_add(ds, -7) }}", None),
    ("json.dumps", '{{ macros.json.dumps(dag_run.conf.n) }} {{ macros.json.dumps(dag_run.conf.l) }} {{ macros.json.dumps("é") }} {{ macros.json.dumps(dag_run.conf.n, indent=2) }}', "2"),
    ("json.dumps sort_keys", '{{ macros.json.dumps({"b": 1, "a": [true, None]}, sort_keys=true) }}', "2"),
    ("json.loads", """{{ macros.json.loads('{"a": [1, 2.5, null]}') }} {{ macros.json.loads('{"a": 1}').a }}""", "2"),
    ("no json in 1.10", "{{ macros.json.dumps(1) }}", "1.10"),
    ("relativedelta months", "{{ execution_date + macros.dateutil.relativedelta.relativedelta(months=1) }}", None),
    ("relativedelta clips to the month's end", "{{ (execution_date.replace(day=31, month=1) + macros.dateutil.relativedelta.relativedelta(months=1)).strftime('%Y-%m-%d') }}", None),
    ("relativedelta subtracted", "{{ (execution_date - macros.dateutil.relativedelta.relativedelta(months=14, days=3, hours=30)).strftime('%Y-%m-%d %H:%M') }}", None),
    ("relativedelta absolute fields", "{{ execution_date + macros.dateutil.relativedelta.relativedelta(day=1, hour=0, minute=0, second=0, microsecond=0) }}", None),
    ("relativedelta repr", "{{ macros.dateutil.relativedelta.relativedelta(months=14, hours=25, seconds=-61, day=1) }} {{ macros.dateutil.relativedelta.relativedelta(days=1000000) }} {{ -macros.dateutil.relativedelta.relativedelta(years=1, month=2) }}", None),
    ("relativedelta on the left", "{{ macros.dateutil.relativedelta.relativedelta(weeks=2) + execution_date }}", None),
    ("whitespace control", "a {%- if true %} b {% endif -%} c", None),
    ("comment", "a{# hidden #}b", None),
    ("raw", "{% raw %}{{ ds }}{% endraw %}", None),
]


def render(edition, source):
    undefined = jinja2.StrictUndefined if edition == "2" else jinja2.Undefined
    env = jinja2.Environment(undefined=undefined, cache_size=0)
    if edition == "2":  # airflow/templates.py:88 FILTERS
        env.filters.update({
            "ds": lambda v: v.strftime("%Y-%m-%d"),
            "ds_nodash": lambda v: v.strftime("%Y%m%d"),
            "ts": lambda v: v.isoformat(),
            "ts_nodash": lambda v: v.strftime("%Y%m%dT%H%M%S"),
            "ts_nodash_with_tz": lambda v: v.isoformat().replace("-", "").replace(":", ""),
        })
    try:
        return {"want": env.from_string(source).render(**context(edition))}
    except KeyError as e:
        return {"error": f"KeyError: {e}"}
    except jinja2.UndefinedError as e:
        return {"error": f"UndefinedError: {e}"}
    except jinja2.TemplateError as e:
        return {"error": f"{type(e).__name__}: {e}"}


def main():
    rows = []
    for name, source, only in CASES:
        for edition in ("2", "1.10"):
            if only and only != edition:
                continue
            rows.append({"name": name, "edition": edition, "template": source, **render(edition, source)})
    json.dump({"conf": CONF, "variables": VARIABLES, "rows": rows}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
