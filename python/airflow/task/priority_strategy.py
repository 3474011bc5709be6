"""PriorityWeightStrategy, the base of custom weight rules (2.10.3
airflow/task/priority_strategy.py); airlite orders tasks by the
built-in rules only."""


class PriorityWeightStrategy:
    def get_weight(self, ti):
        raise NotImplementedError("must be implemented by a subclass")

    @classmethod
    def deserialize(cls, data):
        return cls(**data)

    def serialize(self):
        return {}
