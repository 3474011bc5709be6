from airflow._airlite.param import NOTSET, Param, ParamsDict  # noqa: F401
