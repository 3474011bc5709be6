"""Metadata attached to a dataset event (2.10.3 airflow/datasets/metadata.py)."""
from airflow.datasets import DatasetAlias


class Metadata:
    def __init__(self, target, extra, alias=None):
        self.uri = getattr(target, "uri", target)
        self.extra = extra
        self.alias_name = alias.name if isinstance(alias, DatasetAlias) else alias
