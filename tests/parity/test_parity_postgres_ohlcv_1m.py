"""Parity of `ohlcv_1m` on a real PostgreSQL 15 (see tests/parity/postgres_harness.py)."""

from tests.parity.postgres_harness import postgres_parity_test

test_postgres_parity = postgres_parity_test("ohlcv_1m")
