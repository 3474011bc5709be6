#!/usr/bin/env python3
"""Writes rows of testdata/cron_description_golden.jsonl: the
timetable_description Airflow gives a cron expression, asked of the real
cron-descriptor and croniter.

Airflow's CronMixin describes a cron schedule with cron-descriptor
(Sentence casing, 24-hour clock): Airflow 2.10.3 with cron-descriptor 1.4.5
and croniter 5.0.1 (constraints-2.10.3), Airflow 3.2 with cron-descriptor
2.0.6 and croniter 6.2.2 (uv.lock of c57fba0e). This script imports the two
libraries on its path and re-states, in its own words, what CronMixin does
around them for the Airflow release named by its one argument ("2.10.3" or
"3.2.1"). It writes one JSON object per expression:

    {"airflow": "<release>", "cron_descriptor": "<version>", "croniter": "<version>",
     "expr": "<schedule>", "croniter_accepts": true, "description": "<text>",
     "text": "<text>"}

description is CronMixin's description; text is the same without asking
croniter first (what the description would be if croniter took the
expression), which tests the wording on expressions airlite's own cron
compiler refuses. The Go tests (dag_crondescription_test.go) read only
the file. To regenerate, with python-dateutil and pytz, and each release's
libraries on PYTHONPATH in turn (run under LANG=C.UTF-8: cron-descriptor
picks its language from the locale):

    PYTHONPATH=<cron-descriptor 1.4.5>:<croniter 5.0.1>/src python3 scripts/cron_description_golden.py 2.10.3 > testdata/cron_description_golden.jsonl
    PYTHONPATH=<cron-descriptor 2.0.6>:<croniter 6.2.2>/src python3 scripts/cron_description_golden.py 3.2.1 >> testdata/cron_description_golden.jsonl
"""

import json
import random
import sys
import warnings

import cron_descriptor
from cron_descriptor import CasingTypeEnum, ExpressionDescriptor, FormatException, MissingFieldException
from croniter import CroniterBadCronError, croniter

RELEASE = sys.argv[1]
# The libraries each Airflow release installs: (cron-descriptor, croniter).
# croniter carries no version of its own: the caller puts the right one on
# the path.
LIBRARIES = {"2.10.3": ("1.4.5", "5.0.1"), "3.2.1": ("2.0.6", "6.2.2")}
if cron_descriptor.__version__ != LIBRARIES[RELEASE][0]:
    sys.exit(f"cron-descriptor {cron_descriptor.__version__} on the path; Airflow {RELEASE} installs {LIBRARIES[RELEASE][0]}")
# cron-descriptor 2.0.6 warns when the locale names no language.
warnings.simplefilter("ignore")

# airflow/utils/dates.py cron_presets (2.10.3; the same in 3.2).
PRESETS = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@quarterly": "0 0 1 */3 *",
    "@yearly": "0 0 1 1 *",
}

# Every preset airlite accepts (and two croniter knows that Airflow's
# cron_presets lacks).
PRESET_ROWS = ["@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@quarterly", "@yearly", "@annually"]

# The schedules of Airflow's example DAGs and test DAGs (2.10.3 and 3.2),
# and the expressions airlite's former table of texts held.
EXAMPLE_ROWS = [
    "0 0 * * *", "0 1 * * 3", "*/1 * * * *", "0 0 3 * *", "0 0 * * 1-5", "0 * * * *", "*/2 * * * *",
    "0 100 * * *", "0 0 * * 0", "0 0 1 * *", "0 0 1 */3 *", "0 0 1 1 *", "0 3 * * *", "0 6 * * *",
    "0 9 * * *", "* * * * *",
]

# cron-descriptor's own tests (1.4.5 and 2.0.6 tests/), all lengths: the
# ones of six or seven fields answer "" in Airflow.
LIBRARY_ROWS = [
    "* $ * * *", "* * * * *", "* * * * 4L", "* * * * MON#3", "* * * 3 *", "* * * 3,6 *", "* * 13W * *",
    "* * 1W * *", "* * 5W * *", "* * LW * *", "* * W1 * *", "* * W5 * *", "* * WL * *", "* 0 * * *",
    "*/1 * * * *", "*/5 * * * *", "*/5 15 * * MON-FRI", "*/5 15 * * MoN-fri", "0 * * * */7",
    "0 23 ? * MON-FRI", "0 7 * * * ", "0 9 * * 2", "0-10 11 * * *", "0-20/3 9 * * *", "1 1,3-4 * * *",
    "17 17 * * *", "2,4-5 1 * * *", "2-59/3 1,9,22 11-26 1-6 ?", "23 12 * * 1#2", "23 12 * * SUN",
    "23 12 * * SUN#2", "23 12 * * sun", "23 12 * JAN *", "23 12 * JAN-FEB *", "23 12 * JAN-MAR *",
    "23 12 * jan *", "23 12 15 * *", "23 12 ? JAN *", "30 11 * * *", "30 11 * * 1-5", "30 14,16 * * *",
    "30 4 1 * *", "30 6,14,16 * * *", "46 9 * * 1",
    "* * * * * *", "*/45 * * * * *", "0 0/1 * * * ?", "0 0 * * * ?", "0 0 0/1 * * ?", "0 0/10 * * * ?",
    "0 */5 * * * *", "30 */5 * * * *", "10 0/5 * * * ?", "0 0/5 14,18 * * ?", "0 0-5 14 * * ?",
    "0 0 12 LW * ?", "0 0 12 L * ?", "0 0 12 ? * 2#1", "0 15 10 ? * 6L", "0 23 ? * MON-FRI 2013",
    "0 30 10-13 ? * WED,FRI", "0 0 6-9 ? * *", "0 0/30 8-9 5,20 * ?", "0 0 0 ? * MON#1 2012",
    "30 11 * * 1-5 2010-2013", "* * * ? * 2-4,5", "0 25 7-19/8 ? * *", "0 0 3/4 ? * *",
    "0 15 10 * * ? 2003-2005", "0 0 0 ? * SAT#5 2005", "0 0 0 1 JAN/2 ? 2004", "",
]

# Hand-picked forms: times of day on the 24-hour clock, ranges, steps,
# lists, names, the special characters, and what croniter refuses.
FORM_ROWS = [
    "0 0 * * *", "59 23 * * *", "5 4 * * *", "0 12 * * *", "00 00 * * *", "07 08 * * *", "0 13 * * *",
    "30 18 * * *", "15 14 1 * *", "0 22 * * 1-5", "5 0 * 8 *", "0 0,12 1 */2 *", "0 4 8-14 * *",
    "23 0-20/2 * * *", "0 */2 * * *", "0 */3 * * *", "0 */4 * * 1-5", "0 9-17 * * 1-5", "*/15 9-17 * * 1-5",
    "*/10 * * * *", "*/30 * * * *", "15,45 * * * *", "0,30 9-17 * * *", "5-10 * * * *", "5-10/2 * * * *",
    "5/15 * * * *", "10-50/10 8 * * *", "0 5/6 * * *", "0 8-18/2 * * *", "0 0 */2 * *", "0 0 2/3 * *",
    "0 0 1-7 * *", "0 0 1-15/2 * *", "0 0 1,15 * *", "0 0 1,10,20 * *", "0 0 1-5,25-31 * *",
    "0 0 * 1-6 *", "0 0 1 */2 *", "0 0 1 2/3 *", "0 0 1 3,6,9,12 *", "0 0 1 JAN,JUL *", "0 0 1 jan-jun *",
    "0 0 1 Feb *", "0 0 * DEC *", "0 0 1 1-12/3 *", "0 0 * * 1", "0 0 * * 7", "0 0 * * 0,6",
    "0 0 * * 0-6", "0 0 * * 1-7", "0 0 * * 0-7", "0 0 * * 6,0", "0 0 * * */2", "0 0 * * 1/2",
    "0 0 * * */7", "0 0 * * 1-5/2", "0 0 * * SUN", "0 0 * * mon", "0 0 * * MON-FRI", "0 0 * * sat,sun",
    "0 0 * * MON,WED,FRI", "0 0 * * Tue-Thu", "0 0 * * 1#1", "0 0 * * 1#2", "0 0 * * 5#3", "0 0 * * 2#4",
    "0 0 * * 6#5", "0 0 * * FRI#4", "0 0 * * 5L", "0 0 * * L5", "0 0 * * 1#6", "0 0 L * *", "0 0 LW * *",
    "0 0 15W * *", "0 0 1W * *", "0 0 W15 * *", "0 0 L-3 * *", "0 0 ? * 1", "0 0 1 * ?", "0 0 ? * ?",
    "0 0 1 * 1", "0 0 15 * 5", "0 0 1-7 * 1", "0 0 */2 * 1", "0 0 1,15 * MON-FRI", "* * 1 * 1",
    "0 0 1-31 * 1", "0 0 1 * 0-6", "0 0 L * 5", "*/5 * * * *", "* 9 * * *", "* 9-17 * * *", "* */2 * * *",
    "*/5 9 * * *", "0-30 9 * * *", "0-30 9,10 * * *", "0 9,12,15,18 * * *", "30 6,14 * * *",
    "15 10,11 * * 1-5", "0 1,13 1 JAN,JUN *", "0 22-2 * * *", "0 0 28-3 * *", "0 0 * NOV-FEB *",
    "0 0 * * FRI-MON", "50-10 * * * *", "0 0 * * 5-1", "0 25 * * *", "60 * * * *", "0 0 32 * *",
    "0 0 0 * *", "0 0 * 13 *", "0 0 * 0 *", "0 0 * * 8", "0 0 * * FOO", "0 0 * JANUARY *", "a b c d e",
    "0 0 * *", "0 0 * * * *", "0 0 * * * * *", "0 0 1 1 * 2030", "@once", "@every 5m", "H * * * *",
    "H(0-29) * * * *", "*/0 * * * *", "0 0 */32 * *", "0 */24 * * *", "0 */25 * * *", "*/60 * * * *",
    "*/90 * * * *", "0 0 * */12 *", "0 0 * */13 *", "0 0 * * */6", "0 0 * * */8", "0-59/1 * * * *",
    "0 0 1/1 * *", "0 0 * 1/1 *", "0 0/1 * * *", "1-1 * * * *", "0 0 5-5 * *", "0 0 * JAN-JAN *",
    "0 0 * * MON-MON", "0 0 30 2 *", "0 0 31 4,6 *", "0 0 L 2 *", "0 0 1,L * *", "0 0 L,15 * *",
    "0 0 15W,L * *", "0 0 * * 1,2#2", "0 0 * * 1#2,3#4", "0 0 * * 1L,5L", "0 0 ?,1 * *",
    "0 0 * * ?", "0  0  *  *  *", "\t0 0 * * *", "0 0 * * *\n", "0 0 *\t* *", "0 0\u00a0* * *",
    "0 0 * * 1-5,0", "0 0 1-5,10,20-25 * *", "0 0 * 1-3,6,9-12 *", "0 1-3,5 * * *", "1-5,10 * * * *",
    "10,20,30,40 * * * *", "0 12 * * 1,3,5", "0 12 * * 1-3,5", "0 0,6,12,18 * * *", "0 0 1-10/3 1-6/2 *",
]

# Random expressions of every form above, seeded so the rows stay put.
RANDOM_COUNT = 700
MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
BOUNDS = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]


def random_rows():
    rng = random.Random(17)

    def number(lo, hi, stray=0.08):
        if rng.random() < stray:
            return str(rng.choice([hi + 1, hi + 5, 99]))
        v = rng.randint(lo, hi)
        return f"0{v}" if v < 10 and rng.random() < 0.05 else str(v)

    def name(names):
        n = rng.choice(names)
        return rng.choice([n, n, n.lower(), n.title()])

    def item(pos):
        lo, hi = BOUNDS[pos]
        r = rng.random()
        if pos == 3 and r < 0.15:
            return name(MONTH_NAMES)
        if pos == 4 and r < 0.15:
            return name(DAY_NAMES)
        if r < 0.45:
            return number(lo, hi)
        if r < 0.7:
            if pos in (3, 4) and rng.random() < 0.3:
                names = MONTH_NAMES if pos == 3 else DAY_NAMES
                return f"{rng.choice(names)}-{rng.choice(names)}"
            a, b = sorted([rng.randint(lo, hi), rng.randint(lo, hi)])
            if rng.random() < 0.1:
                a, b = b, a
            return f"{a}-{b}"
        if r < 0.85:
            step = rng.choice([1, 2, 3, 4, 5, 6, 7, 10, 12, 15, 20, 30, 45, 90])
            a, b = sorted([rng.randint(lo, hi), rng.randint(lo, hi)])
            return f"{rng.choice(['*', str(a), f'{a}-{b}'])}/{step}"
        return "*"

    def field(pos):
        r = rng.random()
        if r < 0.35:
            return "*"
        if pos in (2, 4) and r < 0.4:
            return "?"
        if pos == 2 and r < 0.47:
            return rng.choice(["L", "LW", "15W", "1W", "W3", "L-3", "31W"])
        if pos == 4 and r < 0.47:
            return rng.choice(["5L", "1#2", "MON#1", "3#4", "6#5", "0#3", "FRI#4", "L", "7L", "2#6"])
        if r < 0.8:
            return item(pos)
        return ",".join(item(pos) for _ in range(rng.randint(2, 4)))

    rows = []
    while len(rows) < RANDOM_COUNT:
        rows.append(" ".join(field(pos) for pos in range(5)))
    return rows


def describe(expr):
    return ExpressionDescriptor(expr, casing_type=CasingTypeEnum.Sentence, use_24hour_time_format=True).get_description()


def wording(expr):
    """CronMixin's text without its croniter check."""
    try:
        fields = expr.split()
        if len(fields) != 5:
            # Fewer: cron-descriptor refuses them; more: CronMixin does.
            return ""
        if RELEASE != "2.10.3" and fields[2] != "*" and fields[4] != "*":
            month_day, week_day = list(fields), list(fields)
            month_day[4], week_day[2] = "*", "*"
            return describe(" ".join(month_day)) + " (or) " + describe(" ".join(week_day))
        return describe(expr)
    except (FormatException, MissingFieldException):
        return ""


def croniter_accepts(expr):
    try:
        croniter(expr)
    except CroniterBadCronError:
        return False
    return True


def main():
    seen = set()
    for expr in PRESET_ROWS + EXAMPLE_ROWS + LIBRARY_ROWS + FORM_ROWS + random_rows():
        if expr in seen:
            continue
        seen.add(expr)
        cron = PRESETS.get(expr, expr)
        accepts = croniter_accepts(cron)
        text = wording(cron)
        description = text if accepts and len(croniter(cron).expanded) <= 5 else ""
        print(json.dumps({
            "airflow": RELEASE,
            "cron_descriptor": LIBRARIES[RELEASE][0],
            "croniter": LIBRARIES[RELEASE][1],
            "expr": expr,
            "croniter_accepts": accepts,
            "description": description,
            "text": text,
        }, ensure_ascii=False))


main()
