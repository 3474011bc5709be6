"""A DAG that builds an ObjectStoragePath at parse time, as 2.10.3's
tutorial_objectstorage.py does."""
import datetime

from airflow.decorators import dag, task
from airflow.io.path import ObjectStoragePath

base = ObjectStoragePath("s3://aws_default@conform-data/")


@dag(schedule=None, start_date=datetime.datetime(2024, 1, 1), catchup=False)
def conform_storage():
    @task
    def where():
        return str(base / "air_quality.parquet")

    where()


conform_storage()
