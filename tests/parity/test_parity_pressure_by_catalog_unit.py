"""Parity on the `catalog_dimension` fixture contract `pressure_by_catalog_unit`
(tests/fixtures/series/catalog_dimension.yaml), every engine on DuckDB: `sample`'s clean data
passes, and its violation (one series' catalog unit turned into `kg`, a unit of another dimension,
with the data's unit column following it) fails `catalog_dimension:value` alone in every engine.
Its other clauses are the bundled contracts' kinds, whose parity runs on those."""

from tests.parity.harness import parity_tests

test_clean_data_passes_in_every_engine, test_one_violation_is_flagged_by_every_engine = parity_tests(
    "pressure_by_catalog_unit", only=("catalog_dimension:value",)
)
