"""A thin re-export for users of the generated suites: `duckdb_datasource` and `load_suite` live in
the gx target's package (`tacit_gen.targets.gx.recipe`); ``tacit_gen.gx.duckdb_datasource`` is the
documented name (docs/engines/gx.md, "Validate a DuckDB file"), so it stays importable here."""

from tacit_gen.targets.gx.recipe import duckdb_datasource, load_suite

__all__ = ["duckdb_datasource", "load_suite"]
