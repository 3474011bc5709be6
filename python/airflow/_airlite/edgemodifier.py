"""Label: the text on an edge (2.10.3 airflow/utils/edgemodifier.py): it
sits between two nodes in a >> chain, links them, and records its label
for each task pair it joins."""
from airflow.models.taskmixin import DependencyMixin, _flatten


class EdgeModifier(DependencyMixin):
    __module__ = "airflow.utils.edgemodifier"
    def __init__(self, label=None):
        self.label = label
        self._upstream = []
        self._downstream = []

    def set_upstream(self, other, edge_modifier=None):
        for up in _flatten(other):
            self._upstream.append(up)
            for down in self._downstream:
                up.set_downstream(down, edge_modifier=self)

    def set_downstream(self, other, edge_modifier=None):
        for down in _flatten(other):
            self._downstream.append(down)
            for up in self._upstream:
                up.set_downstream(down, edge_modifier=self)

    def add_edge_info(self, dag, upstream_id, downstream_id):
        dag.set_edge_info(upstream_id, downstream_id, {"label": self.label})


def Label(label):
    return EdgeModifier(label)
