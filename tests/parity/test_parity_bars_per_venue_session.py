"""Parity on completeness per session with a per-series calendar (each symbol on its catalog's
calendar, XNYS or XLON: tests/fixtures/series/completeness_venue_session.yaml), every engine on
DuckDB; see test_parity_bars_per_session.py."""

from tests.parity.harness import parity_tests

test_clean_data_passes_in_every_engine, test_one_violation_is_flagged_by_every_engine = parity_tests(
    "bars_per_venue_session", only=("completeness:bar_start",)
)
