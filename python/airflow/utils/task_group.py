from airflow._airlite.task_group import TaskGroup, TaskGroupContext  # noqa: F401
