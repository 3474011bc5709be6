"""The >> and << of tasks, groups, XCom arguments and labels."""


def _flatten(other):
    if isinstance(other, (list, tuple, set, frozenset)):
        out = []
        for o in other:
            out.extend(_flatten(o))
        return out
    return [other]


def as_roots(other):
    out = []
    for o in _flatten(other):
        out.extend(o.roots)
    return out


def as_leaves(other):
    out = []
    for o in _flatten(other):
        out.extend(o.leaves)
    return out


class DependencyMixin:
    def __rshift__(self, other):
        self.set_downstream(other)
        return other

    def __lshift__(self, other):
        self.set_upstream(other)
        return other

    def __rrshift__(self, other):
        self.set_upstream(other)
        return self

    def __rlshift__(self, other):
        self.set_downstream(other)
        return self

    def set_downstream(self, other, edge_modifier=None):
        _link(self, other, edge_modifier, downstream=True)

    def set_upstream(self, other, edge_modifier=None):
        _link(self, other, edge_modifier, downstream=False)


def _link(node, other, edge_modifier, downstream):
    from airflow._airlite.edgemodifier import EdgeModifier
    for item in _flatten(other):
        if isinstance(item, EdgeModifier):
            if downstream:
                item.set_upstream(node)
            else:
                item.set_downstream(node)
            continue
        if downstream:
            ups, downs = node.leaves, item.roots
        else:
            ups, downs = item.leaves, node.roots
        for up in ups:
            for down in downs:
                link_tasks(up, down, edge_modifier)
        _note_groups(node, item, downstream)


def _note_groups(node, item, downstream):
    # A task group remembers the groups and tasks it was linked with
    # (2.10.3 utils/task_group.py _set_relatives), which its serialized
    # form carries.
    from airflow._airlite.task_group import TaskGroup
    up, down = (node, item) if downstream else (item, node)
    if isinstance(up, TaskGroup):
        if isinstance(down, TaskGroup):
            up.downstream_group_ids.add(down.group_id)
        else:
            up.downstream_task_ids.update(t.task_id for t in down.roots)
    if isinstance(down, TaskGroup):
        if isinstance(up, TaskGroup):
            down.upstream_group_ids.add(up.group_id)
        else:
            down.upstream_task_ids.update(t.task_id for t in up.leaves)


def link_tasks(up, down, edge_modifier=None):
    if up.dag is None and down.dag is not None:
        down.dag.add_task(up)
    elif down.dag is None and up.dag is not None:
        up.dag.add_task(down)
    elif up.dag is not None and down.dag is not None and up.dag is not down.dag:
        from airflow.exceptions import AirflowException
        raise AirflowException("Tried to set relationships between tasks in more than one DAG: %s"
                               % ({up.dag.dag_id, down.dag.dag_id},))
    up.downstream_task_ids.add(down.task_id)
    down.upstream_task_ids.add(up.task_id)
    if edge_modifier is not None and up.dag is not None:
        edge_modifier.add_edge_info(up.dag, up.task_id, down.task_id)
