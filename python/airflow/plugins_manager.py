"""AirflowPlugin, so that plugin modules in the DAG folder import as they
do in Airflow (2.10.3 airflow/plugins_manager.py); airlite loads no
plugins."""


class AirflowPlugin:
    name = None
    source = None
    hooks = []
    executors = []
    macros = []
    admin_views = []
    flask_blueprints = []
    menu_links = []
    appbuilder_views = []
    appbuilder_menu_items = []
    global_operator_extra_links = []
    operator_extra_links = []
    timetables = []
    listeners = []
    priority_weight_strategies = []

    @classmethod
    def validate(cls):
        if not cls.name:
            from airflow.exceptions import AirflowException
            raise AirflowException("Your plugin needs a name.")
