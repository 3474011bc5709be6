"""The few settings DAG files read."""
import os

DAGS_FOLDER = os.environ.get("AIRLITE_DAGS_FOLDER", "")
