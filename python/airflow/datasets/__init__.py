"""Datasets and their & / | conditions (2.10.3 airflow/datasets/__init__.py);
the serialized forms are 2.10.3 serialization/serialized_objects.py
encode_dataset_condition's."""


class BaseDataset:
    def __or__(self, other):
        return DatasetAny(self, other)

    def __and__(self, other):
        return DatasetAll(self, other)


class Dataset(BaseDataset):
    def __init__(self, uri, extra=None):
        self.uri = uri
        self.extra = extra or {}

    def as_expression_json(self):
        return {"__type": "dataset", "uri": self.uri, "extra": self.extra}

    def __eq__(self, other):
        return isinstance(other, Dataset) and other.uri == self.uri

    def __hash__(self):
        return hash(self.uri)


class DatasetAlias(BaseDataset):
    def __init__(self, name):
        self.name = name

    def as_expression_json(self):
        return {"__type": "dataset_alias", "name": self.name}

    def __eq__(self, other):
        return isinstance(other, DatasetAlias) and other.name == self.name

    def __hash__(self):
        return hash(("alias", self.name))


class _Boolean(BaseDataset):
    type_name = ""

    def __init__(self, *objects):
        self.objects = objects

    def as_expression_json(self):
        return {"__type": self.type_name, "objects": [o.as_expression_json() for o in self.objects]}


class DatasetAny(_Boolean):
    type_name = "dataset_any"

    def __or__(self, other):
        return DatasetAny(*self.objects, other)


class DatasetAll(_Boolean):
    type_name = "dataset_all"

    def __and__(self, other):
        return DatasetAll(*self.objects, other)
