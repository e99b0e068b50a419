"""Parity of `plant_sensor_reading` on a real PostgreSQL 15 (see tests/parity/postgres_harness.py)."""

from tests.parity.postgres_harness import postgres_parity_test

test_postgres_parity = postgres_parity_test("plant_sensor_reading")
