"""Parity on the fixture contract `series_clauses` (tests/fixtures/series/series_clauses.yaml:
issue 18's series id scheme and who may restate), every engine on DuckDB: `sample`'s clean data
passes; its violations (a series id outside `pattern:`, a restatement by someone not in
`revision_policy.by`) fail that clause alone in every engine that renders it (the wire schemas
declare what they cannot say; JSON Schema checks the pattern). `pattern:` is also in the bundled
`plant_sensor_reading`; `revision_by` is in no bundled contract. Soda 4 runs these cases in
test_parity_soda4.py."""

from tests.parity.harness import parity_tests

test_clean_data_passes_in_every_engine, test_one_violation_is_flagged_by_every_engine = parity_tests(
    "series_clauses", only=("pattern:series_id", "revision_by:revised_by")
)
