"""WeekDay: ISO weekday numbers by name (2.10.3 airflow/utils/weekday.py)."""
import enum


class WeekDay(enum.IntEnum):
    MONDAY = 1
    TUESDAY = 2
    WEDNESDAY = 3
    THURSDAY = 4
    FRIDAY = 5
    SATURDAY = 6
    SUNDAY = 7

    @classmethod
    def get_weekday_number(cls, week_day_str):
        sanitized = week_day_str.upper()
        if sanitized not in cls.__members__:
            raise AttributeError(f'Invalid Week Day passed: "{week_day_str}"')
        return cls[sanitized]

    @classmethod
    def convert(cls, day):
        return cls.get_weekday_number(day) if isinstance(day, str) else day

    @classmethod
    def validate_week_day(cls, week_day):
        if isinstance(week_day, (str, WeekDay)):
            return {cls.convert(week_day)}
        return {cls.convert(d) for d in week_day}
