#!/usr/bin/env python3
"""Writes rows of testdata/croniter_days_golden.jsonl: croniter's ticks for
cron expressions whose day fields meet in every way airlite knows.

Airflow asks croniter for a cron schedule's ticks with day_or=True: croniter
5.0.1 in Airflow 2.10.3 (constraints-2.10.3), 0.3.36 in Airflow 1.10.15
(constraints-1.10.15). This script imports the croniter on its path, the
release named by its one argument, and writes one JSON object per line:

    {"croniter": "<release>", "expr": "<cron>", "from": "<UTC instant>",
     "next": true, "ticks": ["<UTC tick>", ...]}

ticks are the successive get_next (or, with "next": false, get_prev)
answers from "from". Left out: expressions croniter refuses or cannot
answer (CroniterBadDateError), the fifth Friday of February (years
apart: beyond airlite's eight-year search), and 0.3.36's get_prev, which
skips ticks its own get_next finds. The Go test (TestCronSchedule_CroniterGolden)
reads only the file. To regenerate, with python-dateutil, pytz and natsort,
and croniter's src/ of each release on PYTHONPATH in turn:

    PYTHONPATH=<croniter 5.0.1>/src python3 scripts/croniter_golden.py 5.0.1 > testdata/croniter_days_golden.jsonl
    PYTHONPATH=<croniter 0.3.36>/src python3 scripts/croniter_golden.py 0.3.36 >> testdata/croniter_days_golden.jsonl
"""

import datetime
import json
import sys

from croniter import croniter

RELEASE = sys.argv[1]
UTC = "%Y-%m-%dT%H:%M:%SZ"

MONTH_DAYS = ["*", "?", "1", "15", "31", "*/2", "1-31", "*/1", "L", "1,15", "10-20", "5/3", "1-31/2", "2-31", "29"]
WEEK_DAYS = ["*", "?", "1", "0-6", "1-7", "0-7", "*/2", "*/1", "mon-fri", "1#2", "5#5", "sun", "7", "0,6", "2-6/2"]
MONTHS = ["*", "2"]
FROMS = [datetime.datetime(2021, 11, 17, 13, 47, 5), datetime.datetime(2024, 2, 29)]


def ticks(expr, start, forwards):
    it = croniter(expr, start)
    step = it.get_next if forwards else it.get_prev
    return [step(datetime.datetime).strftime(UTC) for _ in range(2)]


for dom in MONTH_DAYS:
    for month in MONTHS:
        for dow in WEEK_DAYS:
            if month == "2" and dow == "5#5":
                continue
            expr = "0 0 %s %s %s" % (dom, month, dow)
            for start in FROMS:
                for forwards in (True, False):
                    if not forwards and RELEASE.startswith("0."):
                        continue
                    try:
                        got = ticks(expr, start, forwards)
                    except Exception:  # refused, or no tick: not compared
                        continue
                    print(json.dumps({"croniter": RELEASE, "expr": expr, "from": start.strftime(UTC),
                                      "next": forwards, "ticks": got}, separators=(",", ":")))
