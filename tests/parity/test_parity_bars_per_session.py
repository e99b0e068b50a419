"""Parity on completeness per session (issue 18), every engine on DuckDB: the fixture contracts
`bars_per_session` (minute bars on XNYS, tests/fixtures/series/completeness_session.yaml) and
`bars_per_venue_session` (each symbol on its catalog's calendar, XNYS or XLON). `sample`'s clean
data passes; its violation (one session of one series short of readings) fails
`completeness:bar_start` alone in every engine that renders it (the wire schemas declare it
unsupported). Soda 4 runs these cases in test_parity_soda4.py, Spark in the `kinds` tier of
test_parity_spark.py; the hand-made cases with known failures are
tests/timeseries/test_completeness_session_engines.py."""

from tests.parity.harness import parity_tests

test_clean_data_passes_in_every_engine, test_one_violation_is_flagged_by_every_engine = parity_tests(
    "bars_per_session", only=("completeness:bar_start",)
)
