#!/usr/bin/env python3
"""Writes testdata/dateutil_golden.jsonl: how python-dateutil reads loose dates.

airlite's pycompat_dateutil.go reads the dates that are not ISO 8601 the way Airflow
does: pendulum (1.4.4 in Airflow 1.10.15, 3.0 in Airflow 2.10.3) falls back to
dateutil.parser.parse(text, dayfirst=False, yearfirst=True) with no default,
that is today's midnight in the server's zone, and Airflow reads a naive
result as UTC. This script asks dateutil, in a UTC process, with "today"
fixed at TODAY, and writes one JSON object per line:

    {"in": "<text>", "want": "<ISO 8601 with offset>"}   accepted
    {"in": "<text>", "want": ""}                          refused

The Go test (TestDateutilGolden) reads only this file, so `go test` needs no
Python. To regenerate (needs python3 with python-dateutil 2.8 or 2.9):

    python3 scripts/dateutil_golden.py > testdata/dateutil_golden.jsonl
"""

import datetime
import itertools
import json
import os
import sys
import time
import warnings

os.environ["TZ"] = "UTC"  # Airflow's servers run in UTC; time.tzname decides what "UTC" means
time.tzset()

from dateutil import parser, tz  # noqa: E402

TODAY = datetime.datetime(2024, 7, 31)  # must match dateutilToday in pycompat_dateutil_test.go

# Two-digit years are read against the year of the parser's creation.
info = parser.parserinfo(dayfirst=False, yearfirst=True)
info._year = TODAY.year
info._century = TODAY.year // 100 * 100
PARSER = parser.parser(info)

# dateutil's own documentation and test suite (parser.parse docstring,
# dateutil/test/test_parser.py), then the forms Airflow users send.
DOCUMENTED = [
    "Thu Sep 25 10:36:28 BRST 2003", "Thu Sep 25 10:36:28 2003", "Thu Sep 25 10:36:28", "Thu Sep 10:36:28",
    "Thu 10:36:28", "Sep 10:36:28", "10:36:28", "10:36", "Sep 2003", "Sep", "2003", "10h36m28.5s", "10h36m28s",
    "10h36m", "10h", "10 h 36", "10 h 36.5", "36 m 5", "36 m 5 s", "36 m 05", "36 m 05 s", "10h am", "10h pm",
    "10am", "10pm", "10:00 am", "10:00 pm", "10:00am", "10:00pm", "10:00a.m", "10:00p.m", "10:00a.m.",
    "10:00p.m.", "Wed", "Wednesday", "October", "31-Dec-00", "0:01:02", "12h 01m02s am", "12:08 PM",
    "01h02m03", "01h02", "01h02s", "01m02", "01m02h", "2004 10 Apr 11h30m", "2003-09-25T10:49:41",
    "2003-09-25T10:49", "2003-09-25T10", "2003-09-25", "20030925T104941", "20030925T1049", "20030925T10",
    "20030925", "2003-09-25 10:49:41,502", "199709020908", "19970902090807", "09-25-2003", "25-09-2003",
    "10-09-2003", "10-09-03", "2003.09.25", "09.25.2003", "25.09.2003", "10.09.2003", "10.09.03", "2003/09/25",
    "09/25/2003", "25/09/2003", "10/09/2003", "10/09/03", "2003 09 25", "09 25 2003", "25 09 2003",
    "10 09 2003", "10 09 03", "25 09 03", "03 25 Sep", "25 03 Sep", "  July   4 ,  1976   12:01:02   am  ",
    "Wed, July 10, '96", "1996.July.10 AD 12:08 PM", "July 4, 1976", "7 4 1976", "4 jul 1976", "4 Jul 1976",
    "7-4-76", "19760704", "0:01:02 on July 4, 1976", "July 4, 1976 12:01:02 am", "Mon Jan  2 04:24:27 1995",
    "04.04.95 00:22", "Jan 1 1999 11:23:34.578", "950404 122212", "3rd of May 2001", "5th of March 2001",
    "1st of May 2003", "0099-01-01T00:00:00", "0031-01-01T00:00:00", "20080227T21:26:01.123456789",
    "13NOV2017", "0003-03-04", "December.0031.30", "Thu, 25 Sep 2003 10:49:41 -0300",
    "2003-09-25T10:49:41.5-03:00", "2003-09-25T10:49:41-03:00", "Tue Apr 4 00:22:12 PDT 1995",
    "Thu Sep 25 2003", "Sep 25 2003", "Sep 25 10:36:28 2003", "Thu Sep 25 10:36:28 -0300 2003",
    "10:36:28 BRST 2003", "Thu, 25 Sep 2003 10:49:41 -0300 (BRST)", "2003-09-25 10:49:41.5 -0300 (BRST)",
    "Jan 29, 1945 14:45 AM", "Feb 30, 2007", "Feb 29, 2008", "2008 29 Feb", "Jan of 01", "May of 99",
    "5 Jan of 03", "990101", "20190101T12", "1 PM", "12 AM", "12 PM", "0 AM", "13 PM", "12h PM",
    "Sept 3 2018", "Sept.3.2018", "3rd Sept 2018", "June 31 2020", "2020 Jun 30", "Jun-30-2020",
    "Jun/30/2020", "30-Jun-2020", "2020-Jun-30", "Jun-30", "30-Jun", "2020-30-Jun", "12:00:00.5",
    "12:00:00,5", "12:30.5", "12.5h", "12.25h", "1.5m", "30.5s", "2024-05-01 10:00:00.1234567",
]

REAL_WORLD = [
    "2024-05-01 10:00:00 UTC", "2024-05-01T10:00:00 UTC", "Wed May 01 2024 12:00:00 GMT+0200",
    "Wed May 01 2024 12:00:00 GMT+0200 (Central European Summer Time)", "Wed May 01 2024 12:00:00 GMT-0500 (EST)",
    "May 1 2024 10:00", "05/01/2024 10:00", "2024/05/01 10:00", "2024.05.01", "2024-5-1",
    "Wednesday, May 1, 2024 10:00 AM", "Wednesday, May 1, 2024 10:00 PM", "Wed, 01 May 2024 10:00:00 GMT",
    "Wed, 01 May 2024 10:00:00 +0000", "Wed, 01 May 2024 10:00:00 +02:00", "Wed, 01 May 2024 10:00:00 Z",
    "2024-05-01 10:00:00 +0530", "2024-05-01 10:00:00 -05:00", "2024-05-01 10:00:00 -5", "2024-05-01 10:00 +01",
    "2024-05-01 10:00:00 GMT", "2024-05-01 10:00:00 UTC+3", "2024-05-01 10:00:00 GMT-3", "2024-05-01 10:00:00 z",
    "2024-05-01 10:00:00 EST", "2024-05-01 10:00:00 CEST", "2024-05-01 10:00:00 PST8", "2024-05-01 10:00:00 utc",
    "1 May 2024", "1 May 2024 10:00", "May 1st, 2024", "May 1st 2024 at 10:00", "the 1st of May 2024",
    "1st of May, 2024 10am", "01-May-2024", "01-May-24", "01/May/2024:10:00:00 +0000", "2024-05-01 10h30",
    "2024-05-01 10h30m15s", "2024-05-01 10.5h", "May 2024", "2024 May", "May", "10:00", "10:00:00", "10pm",
    "noon", "midnight", "tomorrow", "now", "today", "yesterday", "next monday", "Monday", "mon", "Mon 10:00",
    "5/1/24", "1/5/24", "24/5/1", "13/5/24", "5/13/24", "2024/13/05", "2024/05/13", "01.05.2024",
    "1.5.2024", "2024.5.1", "2024.05.01 10:00", "20240501", "20240501T1000", "20240501 1000", "202405011000",
    "20240501100000", "240501", "240501 100000", "100000", "2024-05-01T10:00:00.5Z", "2024-05-01T10:00:00,5Z",
    "2024-05-01 10:00:00.", "2024-05-01T10:00:00+00:00", "2024-05-01T10:00:00+24:00", "2024-05-01T10:00:00+23:59",
    "2024-05-01 10:00 +9999", "2024-05-01 10:00 -2400", "2024-05-01 10:00 +0299", "2024-05-01 10:00:00 +",
    "2024-05-01 10:00:00 -", "2024-05-01 10:00:00 +0", "2024-05-01 10:00:00 +123", "2024-05-01 10:00:00 +12345",
    "2024-05-01 10:00 -03:30 (NST)", "10:00 UTC 2024-05-01", "UTC 2024-05-01 10:00", "2024-05-01 UTC",
    "10:00 +0200 2024-05-01", "2024-02-30", "2023-02-29", "2024-02-29", "2024-04-31", "2024-13-01",
    "2024-00-01", "2024-05-00", "2024-05-32", "25:00", "24:00", "23:60", "23:59:60", "10:00:61",
    "0000-01-01 10:00", "9999-12-31 23:59:59", "10000-01-01", "99999", "12345", "1", "01", "001", "0001",
    "31", "32", "100", "101", "1000", "99", "1999", "abc", "", " ", "-", "/", ".", ",", "at", "on", "of",
    "May-", "May-x", "May 1 2024 x", "2024-05-01 foo", "2024-05-01 10:00 foo", "nan", "inf", "Infinity",
    "2024-05-01 nan", "10:nan", "1e5", "2024-05-01\t10:00", "2024-05-01\n10:00", "\u00a02024-05-01",
    "2024\u200305\u200301", "2024-05-01\x00", "\x002024-05-01", "2024-05-01\x1c10:00", "Mai 1 2024",
    "1 mai 2024", "MAY 1 2024", "may 1 2024", "mAy 1 2024", "WEDNESDAY May 1 2024", "Wed. May. 1. 2024",
    "May. 1, 2024", "Sep.20.2009", "20.Sep.2009", "4:30:21.447", "4:30:21.447123456", "4:30:21.", "a.m.",
    "10 a.m.", "10 am", "10 p", "10 a", "am", "pm", "13 am", "10:00 am pm", "0 pm", "12:30 am",
    "2024-05-01 10:00 AM", "2024-05-01 12:00 AM", "2024-05-01 12:00 PM", "2024-05-01 13:00 PM",
    "May 1 2024 10:00:00.000001", "May 1 2024 10:00:00.9999999", "1st", "2nd", "3rd", "4th", "31st",
    "32nd", "Feb 29", "Feb 30", "Jan 31", "31 Jan", "Apr 31", "Wed May 2024", "Wed 1", "Sat 2024-05-01",
    "Monday 10:00", "Sunday", "Tue 2024", "2024 Tue", "1 2 3", "1 2 3 4", "2024 5 1", "1 5 2024",
    "13 5 2024", "32 5 2024", "5 13 2024", "2024 13 5", "5 2024 1", "99 1 1", "1 1 99", "1 99 1",
    "00 01 01", "50 01 01", "74 01 01", "75 01 01", "76 01 01", "May 5 99", "99 May 5", "5 99 May",
    "1 May 5", "May 1 5", "5 1 May", "01-01", "99-01", "01-99", "13-01", "01-13", "32-13", "2024-05",
    "05-2024", "May-2024", "2024-May", "2024/May/01", "01/May", "May/01/2024", "2024-May-01 10:00",
    "T10:00", "2024-05-01T", "2024-05-01 T 10:00", "2024-05-01t10:00", "10:00 T", "10:00:00 ABCDEF",
    "10:00:00 ABCDE", "10:00:00 AbC", "2024-05-01 10:00 (UTC)", "2024-05-01 10:00 +0200 (CEST)",
    "2024-05-01 10:00 -0300 (xyz)", "2024-05-01 10:00 +02:00:00", "2024-05-01 10:00 +2:30",
    "2024-05-01 10:00 GMT+2:30", "2024-05-01 10:00 GMT+", "GMT+2", "10:00 GMT+2", "10:00 BRST+3",
    "10:00 BRST-3", "10:00 Z", "10:00 z", "10:00 UTC", "10:00 GMT", "10:00 UTC+0", "10:00 +00:00",
    "2024-05-01 10:00 +02:00 +03:00", "2024-05-01 10:00 UTC +0200", "2024-05-01 10:00 GMT +0200",
    "10h30m 2024-05-01", "30m", "30s", "5h", "1.5h", "0.5h", "10 h", "10 hours", "10 hours 30 minutes",
    "10 hour 30 minute 15 second", "36 m", "h", "10h 5", "2024-05-01 5h 30", "12h04", "12h 04",
    "12 h 04 m 05 s", "12 h 04 m 05", "4 5 s", "4 5 m", "10:", "10::00", ":10", "10:00:", "10:00:00:00",
    "10:0", "1:2:3", "10:30.5", "10:30.25:00", "10.5:30", "99:00", "10:99", "2024-05-01 10:00:00.5.5",
    "2024-05-01,10:00", "2024-05-01;10:00", "2024-05-01 'at' 10:00", "2024-05-01 at 10:00",
    "2024-05-01 on 10:00", "2024-05-01 and 10:00", "2024-05-01 ad 10:00", "May 1 AD 2024", "2024 AD",
    "May 1, 2024 - 10:00", "May 1 2024 @ 10:00", "May 1 2024 | 10:00", "(May 1 2024)", "[2024-05-01]",
    "2024-05-01 10:00 +0200 (CEST) extra", "1234567", "123456789", "1234567890", "12345678901",
    "123456789012", "1234567890123", "12345678901234", "123456789012345", "20240501T100000.5",
    "20240501T10", "20240501T1", "20240501 10", "2024050110", "240501T10", "240501T1000",
    "240501T100000", "240501T100000.25", "1000.5", "100000.5", "1000000.5", "T", "t", "Z", "UTC",
    "2024-05-01 ZZZ", "May 1 2024 BST", "12/31/1999 11:59 pm", "1999-12-31 23:59:59.999999",
    "Friday 13th", "Fri 13", "the 13th", "13th May", "May 13th 2024 10:00am", "0:00", "00:00:00",
    "0", "00", "000", "0000", "00000", "000000", "00000000",
]


def variations():
    dates = ["2024-05-01", "2024/05/01", "05/01/2024", "01.05.2024", "May 1 2024", "1 May 2024",
             "May 1, 2024", "Wed May 1 2024", "Wednesday, May 1, 2024", "2024 May 1", "20240501",
             "1-May-2024", "May-01-2024", "2024-5-1", "5/1/2024"]
    times = ["", " 10:00", " 10:00:00", " 10:00:00.123", " 10am", " 10:30 PM", " 10h30", "T10:00"]
    zones = ["", " UTC", " GMT", " Z", " +0200", " -03:00", " GMT+0200", " UTC-5", " EST", " +02"]
    for d, t, z in itertools.product(dates, times, zones):
        yield d + t + z


def read(text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            dt = PARSER.parse(text, default=TODAY, dayfirst=False, yearfirst=True)
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=tz.UTC)  # Airflow's default_timezone
            dt.utcoffset()  # raises for offsets of a day or more
            return dt.isoformat()
        except Exception:  # ParserError, ValueError, OverflowError: refused
            return ""


def main():
    seen = set()
    for text in itertools.chain(DOCUMENTED, REAL_WORLD, variations()):
        if text in seen:
            continue
        seen.add(text)
        sys.stdout.write(json.dumps({"in": text, "want": read(text)}) + "\n")


if __name__ == "__main__":
    main()
