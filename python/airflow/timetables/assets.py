"""Airflow 3's AssetOrTimeSchedule (3.2.1 airflow-core
airflow/timetables/assets.py): runs on its timetable or on its assets'
condition; shown as "Asset or <summary>", "Triggered by assets or <text>"."""
from airflow.timetables.base import Timetable


class AssetOrTimeSchedule(Timetable):
    def __init__(self, *, timetable, assets):
        from airflow.datasets import BaseDataset, DatasetAll
        self.timetable = timetable
        self.asset_condition = assets if isinstance(assets, BaseDataset) else DatasetAll(*assets)
        self.description = "Triggered by assets or %s" % timetable.description
        self.summary = "Asset or %s" % timetable.summary

    def validate(self):
        self.timetable.validate()

    def serialize(self):
        from airlite_serialize import encode_timetable
        return {"asset_condition": self.asset_condition.as_expression_json(),
                "timetable": encode_timetable(self.timetable)}
