"""hookimpl, the marker of listener functions (2.10.3
airflow/listeners/__init__.py, pluggy's HookimplMarker): airlite calls no
listeners, so it marks nothing."""


def hookimpl(function=None, **_):
    if function is None:
        return lambda f: f
    return function
