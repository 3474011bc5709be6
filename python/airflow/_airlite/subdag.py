from airflow.exceptions import AirflowException
from airflow.models.baseoperator import BaseOperator


class SubDagOperator(BaseOperator):
    __module__ = "airflow.operators.subdag"
    ui_color = "#555"
    ui_fgcolor = "#fff"

    def __init__(self, *, subdag, session=None, conf=None, propagate_skipped_state=None, **kwargs):
        super().__init__(**kwargs)
        self.subdag = subdag
        dag = self.dag
        if dag is not None and subdag.dag_id != "%s.%s" % (dag.dag_id, kwargs.get("task_id")):
            # 2.10.3 operators/subdag.py _validate_dag
            raise AirflowException(
                "The subdag's dag_id should have the form '{parent_dag_id}.{this_task_id}'. "
                "Expected '%s.%s'; received '%s'." % (dag.dag_id, kwargs.get("task_id"), subdag.dag_id))
        subdag.parent_dag = dag
        subdag.is_subdag = True
        self.conf = conf
        self.propagate_skipped_state = propagate_skipped_state
