"""Which targets `verify` (and the benchmarks) run on each engine: `registry.without_engine`."""

from __future__ import annotations

from tacit_gen import registry
from tests.conftest import value_targets


def test_soda4_runs_on_duckdb_and_postgres_only() -> None:
    every = registry.names()
    assert "soda4" in every
    assert "soda4" in registry.without_engine(every, "spark")
    for engine in ("duckdb", "postgres"):
        assert "soda4" not in registry.without_engine(every, engine)


def test_the_in_process_value_targets_run_on_every_engine() -> None:
    assert len(value_targets(own_environment=False)) >= 5  # dbt, soda, gx, pandera, ibis
    for engine in ("duckdb", "postgres", "spark"):
        assert not set(value_targets(own_environment=False)) & set(
            registry.without_engine(registry.names(), engine))
