from airflow._airlite.edgemodifier import EdgeModifier, Label  # noqa: F401
