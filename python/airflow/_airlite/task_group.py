"""TaskGroup: ids prefixed by their group, roots and leaves for >>
(2.10.3 airflow/utils/task_group.py)."""
import re

from airflow.exceptions import DuplicateTaskIdFound
from airflow.models.taskmixin import DependencyMixin


class TaskGroupContext:
    _stack = []

    @classmethod
    def push(cls, group):
        cls._stack.append(group)

    @classmethod
    def pop(cls):
        return cls._stack.pop() if cls._stack else None

    @classmethod
    def get_current_task_group(cls, dag):
        if cls._stack:
            return cls._stack[-1]
        return dag.task_group if dag is not None else None

    get_current = get_current_task_group


class TaskGroup(DependencyMixin):
    __module__ = "airflow.utils.task_group"
    def __init__(self, group_id, prefix_group_id=True, parent_group=None, dag=None,
                 default_args=None, tooltip="", ui_color="CornflowerBlue", ui_fgcolor="#000",
                 add_suffix_on_collision=False, group_display_name=""):
        from airflow.models.dag import DagContext
        from airflow.models.baseoperator import validate_key
        self.prefix_group_id = prefix_group_id
        self.default_args = dict(default_args or {})
        self.tooltip = tooltip
        self.ui_color = ui_color
        self.ui_fgcolor = ui_fgcolor
        self.children = {}
        self.upstream_group_ids = set()
        self.downstream_group_ids = set()
        self.upstream_task_ids = set()
        self.downstream_task_ids = set()
        if group_id is None:  # the root group
            self._group_id = None
            self.dag = dag
            self.parent_group = None
            self.used_group_ids = set()
            return
        parent_group = parent_group or TaskGroupContext.get_current_task_group(dag or DagContext.get_current_dag())
        self.parent_group = parent_group
        self.dag = dag or (parent_group.dag if parent_group else DagContext.get_current_dag())
        validate_key(group_id)
        self._group_id = group_id
        self.used_group_ids = parent_group.used_group_ids if parent_group else set()
        if self.group_id in self.used_group_ids:
            if not add_suffix_on_collision:
                raise DuplicateTaskIdFound("group_id '%s' has already been added to the DAG" % self._group_id)
            base = re.split(r"__\d+$", group_id)[0]
            suffixes = sorted(int(re.split(r"^.+__", u)[1]) for u in self.used_group_ids
                              if u is not None and re.match(r"^%s__\d+$" % re.escape(base), u))
            self._group_id = "%s__%d" % (base, suffixes[-1] + 1 if suffixes else 1)
        self.used_group_ids.add(self.group_id)
        self.used_group_ids.add(self.downstream_join_id)
        self.used_group_ids.add(self.upstream_join_id)
        if parent_group is not None:
            parent_group.add(self)

    @classmethod
    def create_root(cls, dag):
        return cls(group_id=None, dag=dag)

    @property
    def is_root(self):
        return self._group_id is None

    @property
    def group_id(self):
        if self.parent_group is not None and self.parent_group.prefix_group_id and self.parent_group._group_id:
            return self.parent_group.child_id(self._group_id)
        return self._group_id

    @property
    def label(self):
        return self._group_id

    @property
    def upstream_join_id(self):
        return "%s.upstream_join_id" % self.group_id

    @property
    def downstream_join_id(self):
        return "%s.downstream_join_id" % self.group_id

    def child_id(self, label):
        if self.prefix_group_id and self.group_id:
            return "%s.%s" % (self.group_id, label)
        return label

    def add(self, task):
        key = task.group_id if isinstance(task, TaskGroup) else task.task_id
        if key in self.children:
            raise DuplicateTaskIdFound("%s '%s' has already been added to the DAG"
                                       % ("group_id" if isinstance(task, TaskGroup) else "Task id", key))
        if not isinstance(task, TaskGroup):
            task.task_group = self
        self.children[key] = task

    def _all_tasks(self):
        for child in self.children.values():
            if isinstance(child, TaskGroup):
                yield from child._all_tasks()
            else:
                yield child

    @property
    def roots(self):
        ids = {t.task_id for t in self._all_tasks()}
        return [t for t in self._all_tasks() if not (t.upstream_task_ids & ids)]

    @property
    def leaves(self):
        ids = {t.task_id for t in self._all_tasks()}
        return [t for t in self._all_tasks() if not (t.downstream_task_ids & ids)]

    def __enter__(self):
        TaskGroupContext.push(self)
        return self

    def __exit__(self, *exc):
        TaskGroupContext.pop()

    def __repr__(self):
        return "<TaskGroup: %s>" % self.group_id
