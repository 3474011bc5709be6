"""A helper module DAG files import from the DAG folder (on sys.path, as
under Airflow). No DAG here."""


def shout(text):
    return text.upper() + "!"
