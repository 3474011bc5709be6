"""`with setup_task:`, `with teardown_task:` and `with setup >> teardown:`
(2.10.3 airflow/utils/setup_teardown.py BaseSetupTeardownContext): the
tasks made inside the block go after the setups and before the teardowns
around them. Same state machine as Airflow's: a stack of setups and of
teardowns, and for each one the tasks made while it was the innermost."""
from airflow.exceptions import AirflowException


def _key(task):
    return tuple(task) if isinstance(task, list) else task


class BaseSetupTeardownContext:
    active = False
    context_map = {}
    _context_managed_setup_task = []
    _previous_context_managed_setup_task = []
    _context_managed_teardown_task = []
    _previous_context_managed_teardown_task = []
    _teardown_downstream_of_setup = []
    _previous_teardown_downstream_of_setup = []
    _setup_upstream_of_teardown = []
    _previous_setup_upstream_of_teardown = []

    @classmethod
    def push_context_managed_setup_task(cls, task):
        if cls._context_managed_setup_task and cls._context_managed_setup_task != task:
            cls._previous_context_managed_setup_task.append(cls._context_managed_setup_task)
        cls._context_managed_setup_task = task

    @classmethod
    def push_context_managed_teardown_task(cls, task):
        if cls._context_managed_teardown_task and cls._context_managed_teardown_task != task:
            cls._previous_context_managed_teardown_task.append(cls._context_managed_teardown_task)
        cls._context_managed_teardown_task = task

    @classmethod
    def pop_context_managed_setup_task(cls):
        old = cls._context_managed_setup_task
        if cls._previous_context_managed_setup_task:
            cls._context_managed_setup_task = cls._previous_context_managed_setup_task.pop()
            if cls._context_managed_setup_task and old:
                cls.set_dependency(old, cls._context_managed_setup_task, upstream=False)
        else:
            cls._context_managed_setup_task = []
        return old

    @classmethod
    def pop_context_managed_teardown_task(cls):
        old = cls._context_managed_teardown_task
        if cls._previous_context_managed_teardown_task:
            cls._context_managed_teardown_task = cls._previous_context_managed_teardown_task.pop()
            if cls._context_managed_teardown_task and old:
                cls.set_dependency(old, cls._context_managed_teardown_task)
        else:
            cls._context_managed_teardown_task = []
        return old

    @classmethod
    def pop_teardown_downstream_of_setup(cls):
        old = cls._teardown_downstream_of_setup
        if cls._previous_teardown_downstream_of_setup:
            cls._teardown_downstream_of_setup = cls._previous_teardown_downstream_of_setup.pop()
            if cls._teardown_downstream_of_setup and old:
                cls.set_dependency(old, cls._teardown_downstream_of_setup)
        else:
            cls._teardown_downstream_of_setup = []
        return old

    @classmethod
    def pop_setup_upstream_of_teardown(cls):
        old = cls._setup_upstream_of_teardown
        if cls._previous_setup_upstream_of_teardown:
            cls._setup_upstream_of_teardown = cls._previous_setup_upstream_of_teardown.pop()
            if cls._setup_upstream_of_teardown and old:
                cls.set_dependency(old, cls._setup_upstream_of_teardown, upstream=False)
        else:
            cls._setup_upstream_of_teardown = []
        return old

    @classmethod
    def set_dependency(cls, receiving_task, new_task, upstream=True):
        for task in (new_task if isinstance(new_task, (list, tuple)) else [new_task]):
            if upstream:
                task.set_upstream(receiving_task)
            else:
                task.set_downstream(receiving_task)

    @classmethod
    def update_context_map(cls, task):
        if task.is_setup or task.is_teardown:
            return
        for managed in (cls._context_managed_setup_task, cls._context_managed_teardown_task):
            if managed:
                cls.context_map.setdefault(_key(managed), []).append(task)

    @classmethod
    def push_setup_teardown_task(cls, operator):
        first = operator[0] if isinstance(operator, list) else operator
        if first.is_teardown:
            cls._push_tasks(operator)
        elif first.is_setup:
            cls._push_tasks(operator, setup=True)
        cls.active = True

    @classmethod
    def _push_tasks(cls, operator, setup=False):
        if isinstance(operator, list) and any(t.is_setup != operator[0].is_setup for t in operator):
            cls.error("All tasks in the list must be either setup or teardown tasks")
        if setup:
            cls.push_context_managed_setup_task(operator)
            cls._update_teardown_downstream(operator)
        else:
            cls.push_context_managed_teardown_task(operator)
            cls._update_setup_upstream(operator)

    @classmethod
    def _search(cls, operator, start, want):
        operator = operator[0] if isinstance(operator, list) else operator
        tasks = start
        seen = set()
        while tasks:
            found = [t for t in tasks if want(t)]
            if found:
                return found
            nxt = []
            for t in tasks:
                for x in t.downstream_list + t.upstream_list:
                    if x is not operator and id(x) not in seen:
                        seen.add(id(x))
                        nxt.append(x)
            tasks = nxt
        return []

    @classmethod
    def _update_teardown_downstream(cls, operator):
        first = operator[0] if isinstance(operator, list) else operator
        teardowns = cls._search(operator, first.downstream_list, lambda t: t.is_teardown)
        if cls._teardown_downstream_of_setup and cls._teardown_downstream_of_setup != teardowns:
            cls._previous_teardown_downstream_of_setup.append(cls._teardown_downstream_of_setup)
        cls._teardown_downstream_of_setup = teardowns

    @classmethod
    def _update_setup_upstream(cls, operator):
        first = operator[0] if isinstance(operator, list) else operator
        setups = cls._search(operator, first.upstream_list, lambda t: t.is_setup)
        if cls._setup_upstream_of_teardown and cls._setup_upstream_of_teardown != setups:
            cls._previous_setup_upstream_of_teardown.append(cls._setup_upstream_of_teardown)
        cls._setup_upstream_of_teardown = setups

    @classmethod
    def set_teardown_task_as_leaves(cls, leaves):
        if cls._context_managed_teardown_task:
            cls.set_dependency(cls._context_managed_teardown_task, cls._teardown_downstream_of_setup)
        else:
            cls.set_dependency(leaves, cls._teardown_downstream_of_setup)

    @classmethod
    def set_setup_task_as_roots(cls, roots):
        if cls._context_managed_setup_task:
            cls.set_dependency(cls._context_managed_setup_task, cls._setup_upstream_of_teardown, upstream=False)
        else:
            cls.set_dependency(roots, cls._setup_upstream_of_teardown, upstream=False)

    @classmethod
    def set_work_task_roots_and_leaves(cls):
        setup_task = cls._context_managed_setup_task
        if setup_task:
            work = [x for x in cls.context_map.get(_key(setup_task), []) if not x.is_teardown and not x.is_setup]
            if work:
                roots = [t for t in work if not t.upstream_list]
                if not roots:
                    cls.set_dependency(work[0], setup_task)  # setup_task >> work[0]
                else:
                    cls.set_dependency(roots, setup_task, upstream=False)
                leaves = [t for t in work if not t.downstream_list] or work[-1]
                cls.set_teardown_task_as_leaves(leaves)
        teardown_task = cls._context_managed_teardown_task
        if teardown_task:
            work = [x for x in cls.context_map.get(_key(teardown_task), []) if not x.is_teardown and not x.is_setup]
            if work:
                leaves = [t for t in work if not t.downstream_list]
                if not leaves:
                    cls.set_dependency(teardown_task, work[-1])  # teardown_task << work[-1]
                else:
                    cls.set_dependency(leaves, teardown_task)
                roots = [t for t in work if not t.upstream_list] or work[0]
                cls.set_setup_task_as_roots(roots)
        cls.set_setup_teardown_relationships()
        cls.active = False

    @classmethod
    def set_setup_teardown_relationships(cls):
        setup_task = cls.pop_context_managed_setup_task()
        teardown_task = cls.pop_context_managed_teardown_task()
        cls.pop_teardown_downstream_of_setup()
        cls.pop_setup_upstream_of_teardown()
        cls.context_map.pop(_key(setup_task), None) if setup_task else None
        cls.context_map.pop(_key(teardown_task), None) if teardown_task else None

    @classmethod
    def error(cls, message):
        cls.active = False
        cls.context_map.clear()
        cls._context_managed_setup_task = []
        cls._context_managed_teardown_task = []
        cls._previous_context_managed_setup_task = []
        cls._previous_context_managed_teardown_task = []
        raise ValueError(message)


class SetupTeardownContext(BaseSetupTeardownContext):
    @staticmethod
    def add_task(task):
        from airflow.models.xcom_arg import XComArg
        if not SetupTeardownContext.active:
            raise AirflowException("Cannot add task to context outside the context manager.")
        if isinstance(task, XComArg):
            task = task.operator
        SetupTeardownContext.update_context_map(task)


def enter(operator):
    """DependencyMixin.__enter__ (2.10.3 models/taskmixin.py)."""
    first = operator[0] if isinstance(operator, list) else operator
    if not first.is_setup and not first.is_teardown:
        raise AirflowException("Only setup/teardown tasks can be used as context managers.")
    SetupTeardownContext.push_setup_teardown_task(operator)
    return SetupTeardownContext


def exit_():
    SetupTeardownContext.set_work_task_roots_and_leaves()
