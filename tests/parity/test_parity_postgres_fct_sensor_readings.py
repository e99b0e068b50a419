"""Parity of `fct_sensor_readings` on a real PostgreSQL 15 (see tests/parity/postgres_harness.py)."""

from tests.parity.postgres_harness import postgres_parity_test

test_postgres_parity = postgres_parity_test("fct_sensor_readings")
