"""Providers: airlite ships the standard provider's operators (Airflow 3);
any other provider's class is a generic operator (airflow/__init__.py)."""
