"""Parity on the `plausible:` fixture contract `line_pressure` (tests/fixtures/plausible), every
engine on DuckDB: clean data passes; a value inside the hard bounds but outside the plausible ones
is a warn in every engine (exit 0); one beyond the hard bounds fails catalog_bounds and warns
plausible beside it (exit 1). Its other clauses are the bundled contracts' kinds, whose parity
runs on those (see tests/parity/harness.py)."""

from tests.parity.harness import parity_tests

test_clean_data_passes_in_every_engine, test_one_violation_is_flagged_by_every_engine = parity_tests(
    "line_pressure", only=("plausible:value", "catalog_bounds:value")
)
