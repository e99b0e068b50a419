"""Parity on `fct_sensor_readings`: every engine passes clean data, and on data that breaks one clause
every engine flags exactly that clause (verdicts from each engine's own result objects)."""

from tests.parity.harness import parity_tests

test_clean_data_passes_in_every_engine, test_one_violation_is_flagged_by_every_engine = parity_tests(
    "fct_sensor_readings"
)
