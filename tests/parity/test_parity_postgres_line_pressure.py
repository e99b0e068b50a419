"""Parity of the `plausible:` fixture contract `line_pressure` on a real PostgreSQL 15 (see
tests/parity/postgres_harness.py): clean data passes; a value inside the hard bounds but outside
the plausible ones is a warn in every target there (exit 0); one beyond the hard bounds fails
catalog_bounds and warns plausible beside it (exit 1). The other clauses of this fixture are the
bundled contracts' kinds, whose PostgreSQL parity runs on those."""

from tests.parity.postgres_harness import postgres_parity_test

test_postgres_parity = postgres_parity_test(
    "line_pressure", only=(None, "plausible:value", "catalog_bounds:value"))
