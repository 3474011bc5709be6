#!/usr/bin/env python3
"""Writes testdata/cron_tz_golden.jsonl: when a cron timetable in a DAG's
time zone fires, as Airflow 2.10.3 and 3.2.1 work it out with croniter and
pendulum 3 (timetables/_cron.py CronMixin, the same in both releases:
2.10.3 airflow/timetables/_cron.py:106-148, c57fba0e
airflow-core/src/airflow/timetables/_cron.py:149-193).

What this script does, in its own words, with the real libraries:
- the instant is turned into the zone's wall clock, without its fold;
- croniter steps that naive wall clock to the next (or previous) tick;
- when the expression's hour field expands to every hour, the answer is
  the instant moved by as much as the wall clock moved (so an hourly
  schedule stays an hour apart through a DST change); otherwise the tick's
  wall clock is placed in the zone by pendulum's Timezone.convert with
  fold=1 (a skipped time moves forward by the gap, a repeated time is the
  second one), re-stated here with the standard library's zoneinfo: the
  file it writes was byte for byte pendulum's on every row pendulum wrote;
- aligning is Airflow's: the next tick after t unless the tick before that
  one is t itself (then t), and the same backwards.

Each line: {"tz": zone (a name, or seconds east of UTC), "expr": cron,
"from": UTC instant, "op": "next" | "prev" | "align_next" | "align_prev",
"ticks": successive answers, each asked from the one before (an align
once)}. To regenerate, with croniter's sources and python-dateutil and
pytz on the path:

    PYTHONPATH=<croniter 6.2.2>/src python3 scripts/cron_tz_golden.py > testdata/cron_tz_golden.jsonl

The Go test (TestCronSchedule_ZoneGolden) reads only the file.
"""

import datetime
import json

import zoneinfo
from croniter import croniter

UTC_FMT = "%Y-%m-%dT%H:%M:%S.%fZ"


def zone(tz):
    if isinstance(tz, int):
        return datetime.timezone(datetime.timedelta(seconds=tz))
    return zoneinfo.ZoneInfo(tz)


def naive_in(t, tz):
    local = t.astimezone(tz)
    return datetime.datetime(local.year, local.month, local.day, local.hour, local.minute, local.second,
                             local.microsecond)


def place(naive, tz):
    late = naive.replace(tzinfo=tz, fold=1)
    back = late.astimezone(datetime.timezone.utc).astimezone(tz).replace(tzinfo=None)
    if back != naive:  # skipped: moved forward by the gap
        late = naive.replace(tzinfo=tz, fold=0)
    return late.astimezone(datetime.timezone.utc)


def step(expr, tz, t, forwards):
    naive = naive_in(t, tz)
    it = croniter(expr, start_time=naive)
    tick = it.get_next(datetime.datetime) if forwards else it.get_prev(datetime.datetime)
    if it.expanded[1] != ["*"]:
        return place(tick, tz)
    return t + (tick - naive)


def align(expr, tz, t, forwards):
    first = step(expr, tz, t, forwards)
    if step(expr, tz, first, not forwards) != t:
        return first
    return t


def utc(*args):
    return datetime.datetime(*args, tzinfo=datetime.timezone.utc)


ZONES = ["Europe/Amsterdam", "America/New_York", "Australia/Sydney", "Asia/Kolkata", 7200, -16200]
EXPRS = ["0 0 * * *", "30 2 * * *", "0 */2 * * *", "0 * * * *", "*/45 * * * *", "15 1-3 * * *", "0 0 * * 0",
         # Ranges that wrap around (croniter 5 and 6 read them alike).
         "30 22-3 * * *", "0 23-2/2 * * *", "0 2 * * FRI-MON", "45 1 * OCT-APR *"]
# Around 2024's DST changes in the zones above (Europe: 03-31, 10-27;
# New York: 03-10, 11-03; Sydney: 04-07, 10-06), and a plain day.
FROMS = [utc(2024, 3, 9, 20, 0), utc(2024, 3, 30, 21, 30), utc(2024, 4, 6, 12, 0), utc(2024, 10, 5, 12, 0),
         utc(2024, 10, 26, 22, 0), utc(2024, 11, 2, 22, 0), utc(2024, 6, 15, 10, 17, 30, 250000),
         utc(2024, 10, 27, 0, 30), utc(2024, 10, 27, 1, 0)]

for tz_name in ZONES:
    tz = zone(tz_name)
    for expr in EXPRS:
        for start in FROMS:
            for op in ("next", "prev"):
                ticks, t = [], start
                for _ in range(4):
                    t = step(expr, tz, t, op == "next")
                    ticks.append(t.strftime(UTC_FMT))
                print(json.dumps({"tz": tz_name, "expr": expr, "from": start.strftime(UTC_FMT), "op": op,
                                  "ticks": ticks}, separators=(",", ":")))
            for op in ("align_next", "align_prev"):
                t = align(expr, tz, start, op == "align_next")
                print(json.dumps({"tz": tz_name, "expr": expr, "from": start.strftime(UTC_FMT), "op": op,
                                  "ticks": [t.strftime(UTC_FMT)]}, separators=(",", ":")))
