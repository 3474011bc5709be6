from airflow.timetables.base import Timetable


class DatasetOrTimeSchedule(Timetable):
    def __init__(self, *, timetable, datasets):
        from airflow.datasets import DatasetAll, BaseDataset
        self.timetable = timetable
        self.datasets = datasets if isinstance(datasets, BaseDataset) else DatasetAll(*datasets)
        # 2.10.3 timetables/datasets.py:52 and 77-78.
        self.description = "Triggered by datasets or %s" % timetable.description
        self.summary = "Dataset or %s" % timetable.summary

    def validate(self):
        self.timetable.validate()

    def serialize(self):
        from airlite_serialize import encode_timetable
        return {"timetable": encode_timetable(self.timetable),
                "dataset_condition": self.datasets.as_expression_json()}
