from airflow import DAG
raise RuntimeError("an ignored folder must not be read")
