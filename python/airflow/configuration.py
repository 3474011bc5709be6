"""A read-only conf with the defaults DAG files ask for."""

_DEFAULTS = {
    ("core", "dags_folder"): "",
    ("core", "default_timezone"): "utc",
    ("core", "dagbag_import_timeout"): "30.0",
    ("core", "load_examples"): "False",
    ("scheduler", "create_cron_data_intervals"): "True",
}


class _Conf:
    def get(self, section, key, fallback=None, **_):
        return _DEFAULTS.get((section.lower(), key.lower()), fallback)

    def getboolean(self, section, key, fallback=False, **_):
        v = self.get(section, key)
        return fallback if v is None else str(v).lower() in ("true", "t", "1")

    def getint(self, section, key, fallback=0, **_):
        v = self.get(section, key)
        return fallback if v is None else int(float(v))

    def getfloat(self, section, key, fallback=0.0, **_):
        v = self.get(section, key)
        return fallback if v is None else float(v)


conf = _Conf()
