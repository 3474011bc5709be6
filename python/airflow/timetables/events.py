"""EventsTimetable: a run at each listed date (2.10.3 and c57fba0e
timetables/events.py). Its summary is "N events" or the description
given; its description names the first and last dates, str() of them in
2.10.3, isoformat(sep="T") in Airflow 3."""
from airflow import EDITION
from airflow.timetables.base import Timetable


def _text(when):
    return str(when) if EDITION == "2" else when.isoformat(sep="T")


class EventsTimetable(Timetable):
    def __init__(self, event_dates, restrict_to_events=False, presorted=False, description=None):
        self.event_dates = list(event_dates)
        if not presorted:
            self.event_dates.sort()
        self.restrict_to_events = restrict_to_events
        if description is None:
            if self.event_dates:
                self.description = "%d events between %s and %s" % (
                    len(self.event_dates), _text(self.event_dates[0]), _text(self.event_dates[-1]))
            else:
                self.description = "No events"
            self._summary = "%d events" % len(self.event_dates)
        else:
            self._summary = description
            self.description = description

    @property
    def summary(self):
        return self._summary

    def __repr__(self):
        return self.summary

    def serialize(self):
        # The dates as isoformat, whichever edition, for airlite's Go side
        # (2.10.3 writes str() of them, which Go reads alike).
        return {"event_dates": [x.isoformat(sep="T") for x in self.event_dates],
                "restrict_to_events": self.restrict_to_events,
                "description": self.description, "_summary": self._summary}
