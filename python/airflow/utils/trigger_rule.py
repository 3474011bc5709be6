"""Trigger rules per release (2.10.3 airflow/utils/trigger_rule.py,
1.10.15 airflow/utils/trigger_rule.py)."""
import enum

from airflow import EDITION


class TriggerRule(str, enum.Enum):
    ALL_SUCCESS = "all_success"
    ALL_FAILED = "all_failed"
    ALL_DONE = "all_done"
    ALL_DONE_SETUP_SUCCESS = "all_done_setup_success"
    ONE_SUCCESS = "one_success"
    ONE_FAILED = "one_failed"
    ONE_DONE = "one_done"
    NONE_FAILED = "none_failed"
    NONE_FAILED_OR_SKIPPED = "none_failed_or_skipped"
    NONE_SKIPPED = "none_skipped"
    DUMMY = "dummy"
    ALWAYS = "always"
    NONE_FAILED_MIN_ONE_SUCCESS = "none_failed_min_one_success"
    ALL_SKIPPED = "all_skipped"

    def __str__(self):
        return self.value

    @classmethod
    def all_triggers(cls):
        return _RULES


_RULES = (
    {"all_success", "all_failed", "all_done", "one_success", "one_failed", "none_failed",
     "none_failed_or_skipped", "none_skipped", "dummy"}
    if EDITION == "1.10" else {r.value for r in TriggerRule} - {"dummy", "none_failed_or_skipped"}
)
