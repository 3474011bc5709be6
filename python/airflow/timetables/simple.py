from airflow.timetables.base import Timetable


class NullTimetable(Timetable):
    summary = "None"
    description = "Never, external triggers only"
    can_be_scheduled = False


class OnceTimetable(Timetable):
    summary = "@once"
    description = "Once, as soon as possible"


class ContinuousTimetable(Timetable):
    summary = "@continuous"
    description = "As frequently as possible, but only one run at a time."


class DatasetTriggeredTimetable(Timetable):
    summary = "Dataset"
    description = "Triggered by datasets"

    def __init__(self, datasets):
        self.dataset_condition = datasets

    def serialize(self):
        return {"dataset_condition": self.dataset_condition.as_expression_json()}
