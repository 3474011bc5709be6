"""DAGs with typed params that produce an asset, for POST
/assets/{id}/materialize with a MaterializeAssetBody."""
import pendulum
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, Asset, Param

START = pendulum.datetime(2024, 1, 1, tz="UTC")

with DAG(dag_id="materialize_typed", schedule=None, start_date=START,
         params={"rows": Param(5, type="integer", minimum=3)}):
    EmptyOperator(task_id="t", outlets=[Asset("s3://materialize/typed")])

with DAG(dag_id="materialize_required", schedule=None, start_date=START,
         params={"rows": Param(type="integer")}):
    EmptyOperator(task_id="t", outlets=[Asset("s3://materialize/required")])
