#!/usr/bin/env python3
"""Writes rows of testdata/croniter_accept_golden.jsonl: whether croniter
takes a cron expression (and its message when it does not), and the ticks
it gives when it does, for the croniter each Airflow release installs:
0.3.36 (Airflow 1.10.15, constraints-1.10.15), 5.0.1 (Airflow 2.10.3,
constraints-2.10.3), 6.2.2 (Airflow 3.2, uv.lock of c57fba0e).

Airflow asks croniter to read a DAG's cron expression when it parses the
file and refuses the DAG with croniter's message; airlite re-states that
reading (scheduler_croniter.go). The expressions: every one of
testdata/cron_description_golden.jsonl, forms croniter reads its own way
(ranges that wrap around, a range from a value to itself, names, L, W,
#, `?`, `*` in a list), and random ones, seeded. One JSON object a line:

    {"croniter": "<release>", "expr": "<cron>", "error": null | "<class>: <message>",
     "from": "<UTC>", "next": ["<UTC tick>", ...], "prev": [...]}

next and prev are successive get_next and get_prev answers from "from"
(naive UTC, day_or=True as Airflow asks), left out when croniter finds no
tick (CroniterBadDateError) or when a search would be past airlite's
eight years; prev is left out for 0.3.36, whose get_prev skips ticks its
own get_next finds. The Go test (TestCroniterExpand_Golden) reads only
the file. To regenerate, with python-dateutil and pytz (and natsort for
0.3.36), and each release's src/ on PYTHONPATH in turn:

    PYTHONPATH=<croniter 0.3.36>/src python3 scripts/croniter_accept_golden.py 0.3.36 > testdata/croniter_accept_golden.jsonl
    PYTHONPATH=<croniter 5.0.1>/src python3 scripts/croniter_accept_golden.py 5.0.1 >> testdata/croniter_accept_golden.jsonl
    PYTHONPATH=<croniter 6.2.2>/src python3 scripts/croniter_accept_golden.py 6.2.2 >> testdata/croniter_accept_golden.jsonl
"""

import datetime
import json
import os
import random
import sys

from croniter import croniter

RELEASE = sys.argv[1]
UTC = "%Y-%m-%dT%H:%M:%SZ"
FROM = datetime.datetime(2024, 2, 27, 13, 47, 5)
HERE = os.path.dirname(os.path.abspath(__file__))

# airflow/utils/dates.py cron_presets: Airflow hands croniter the expression.
PRESETS = {"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *",
           "@quarterly": "0 0 1 */3 *", "@yearly": "0 0 1 1 *"}

FORMS = [
    # Ranges that wrap around, with and without steps, by number and name.
    "0 22-2 * * *", "0 23-0 * * *", "50-10 * * * *", "55-5/3 * * * *", "0 20-4/3 * * *", "0 0 28-3 * *",
    "0 0 25-5/4 * *", "0 0 * 11-2 *", "0 0 * NOV-FEB *", "0 0 * DEC-MAR *", "0 0 * oct-jan/2 *", "0 0 * APR-JAN/3 *",
    "0 0 * * FRI-MON", "0 0 * * 5-1", "0 0 * * 6-0", "0 0 * * 5-7", "0 0 * * 6-2/2", "0 0 * * sat-tue",
    "0 0 * * 3-0", "0 0 * * 7-3", "0 0 1 * FRI-MON", "0 9 * DEC-FEB FRI-MON", "30 22-2 1,15 * *",
    # A range from a value to itself: the whole field.
    "1-1 * * * *", "0 5-5 * * *", "0 0 3-3 * *", "0 0 * 4-4 *", "0 0 * * 2-2", "0 0 * JAN-JAN *", "0 0 * * MON-MON",
    "0 0 * * 0-7", "0 0 * * 7-7", "0 0 * * SUN-SUN", "0 0 5-5/2 * *",
    # `*` in a list, out-of-range values beside it.
    "*,5 * * * *", "*,99 * * * *", "0 0 * Jun,*,13 *", "0 0 *,32 * *", "0 0 * * *,8", "0 0 *,L * *", "0 *,3 * * *",
    # ?, L, W, #.
    "0 0 ? * *", "0 0 * * ?", "0 0 ?,1 * *", "0 0 ? ? ?", "0 0 L * *", "0 0 L-3 * *", "0 0 1-L * *", "0 0 15W * *",
    "0 0 W15 * *", "0 0 1W * *", "0 0 31W * *", "0 0 W3 * *", "0 0 LW * *", "0 0 15W,L * *", "0 0 1,15W * *",
    "0 0 32W * *", "0 0 0W * *", "0 0 * * 5L", "0 0 * * L5", "0 0 * * l0", "0 0 * * 1#2", "0 0 * * 2#6",
    "0 0 * * 1,2#2", "0 0 * * 1#2,3#4", "0 0 * * MON#1", "0 0 * * mon-wed#2", "0 0 * * 1-3#2", "0 0 * * 0-6,1#2",
    "0 0 * * 1#0", "0 0 * * 7#3", "0 0 * * 1#", "0 0 1 * 1#3", "0 0 L * 5#2",
    # Bounds, steps, negatives, names, hashes.
    "60 * * * *", "0 24 * * *", "0 0 0 * *", "0 0 * 0 *", "0 0 * * 8", "0 0 * * 7", "*/0 * * * *", "0-5/0 * * * *",
    "5-0/0 * * * *", "0 0 * * */7", "0 0 1/40 * *", "-5 * * * *", "0 0 * JANUARY *", "0 0 * * Mon", "H * * * *",
    "H/5 * * * *", "R * * * *", "0 0 1-0 * *", "0 0 * 1-0 *", "0 0 * * 1-0", "007 * * * *", "0 0 1-5/ * *",
    "0 0 * * 1-5/2", "0 0 * * 6,0", "0 0 31 * *", "0 0 30 2 *", "0 0 29 2 *",
]

BOUNDS = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]


def random_rows(count):
    rng = random.Random(29)

    def value(pos):
        lo, hi = BOUNDS[pos]
        if pos == 3 and rng.random() < 0.2:
            return rng.choice(MONTHS)
        if pos == 4 and rng.random() < 0.2:
            return rng.choice(DAYS)
        return str(rng.randint(lo, hi + (1 if rng.random() < 0.05 else 0)))

    def item(pos):
        r = rng.random()
        if r < 0.35:
            return value(pos)
        if r < 0.75:
            part = value(pos) + "-" + value(pos)
            return part + ("/" + str(rng.choice([2, 3, 4, 5, 7])) if rng.random() < 0.3 else "")
        if r < 0.85:
            return rng.choice(["*", value(pos)]) + "/" + str(rng.choice([2, 3, 5, 10, 15]))
        if pos == 2:
            return rng.choice(["L", "15W", "W3", "1W", "L-2"])
        if pos == 4:
            return rng.choice(["1#2", "5L", "L3", "FRI#3", "2#5"])
        return "*"

    def field(pos):
        r = rng.random()
        if r < 0.3:
            return "*"
        if r < 0.75:
            return item(pos)
        return ",".join(item(pos) for _ in range(rng.randint(2, 3)))

    return [" ".join(field(pos) for pos in range(5)) for _ in range(count)]


def ticks(expr, forwards):
    it = croniter(expr, FROM)
    step = it.get_next if forwards else it.get_prev
    out = []
    for _ in range(3):
        t = step(datetime.datetime)
        if abs((t - FROM).days) > 7 * 366:
            return None
        out.append(t.strftime(UTC))
    return out


def main():
    golden = os.path.join(HERE, "..", "testdata", "cron_description_golden.jsonl")
    exprs = [json.loads(line)["expr"] for line in open(golden)]
    seen = set()
    for expr in exprs + FORMS + random_rows(600):
        if expr in seen:
            continue
        seen.add(expr)
        cron = PRESETS.get(expr, expr)
        row = {"croniter": RELEASE, "expr": expr, "error": None}
        try:
            croniter(cron)
        except Exception as e:  # Airflow records the class and the message
            row["error"] = "%s: %s" % (type(e).__name__, e)
        if row["error"] is None and len(cron.split()) == 5:
            row["from"] = FROM.strftime(UTC)
            for key, forwards in (("next", True), ("prev", False)):
                if key == "prev" and RELEASE.startswith("0."):
                    continue
                try:
                    got = ticks(cron, forwards)
                except Exception:  # no tick (CroniterBadDateError): not compared
                    got = None
                if got:
                    row[key] = got
        print(json.dumps(row, ensure_ascii=False, separators=(",", ":")))


main()
