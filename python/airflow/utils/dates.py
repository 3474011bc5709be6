"""days_ago and the cron presets of airflow.utils.dates."""
import datetime as _dt

from airflow import EDITION
from airflow.utils import timezone

cron_presets = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@quarterly": "0 0 1 */3 *",
    "@yearly": "0 0 1 1 *",
}


def days_ago(n, hour=0, minute=0, second=0, microsecond=0):
    # Midnight UTC today, n days back (1.10.15 and 2.10.3 utils/dates.py).
    today = timezone.utcnow().replace(hour=hour, minute=minute, second=second, microsecond=microsecond)
    return today - _dt.timedelta(days=n)


if EDITION == "3":
    # Airflow 3.2.1's airflow/utils/dates.py keeps none of these: importing
    # days_ago fails as Python fails it ("cannot import name ...").
    del days_ago
