"""Soda 4 on a real PostgreSQL 15 (`verify --engine postgres`): soda-postgres 4 runs the contract
rendered for PostgreSQL (PostgreSQL's type names; SQL in its dialect) in the verify schema of a
server whose own time zone is America/New_York. Clean data passes every clause; data breaking one
clause is flagged by Soda 4 on exactly that clause (the PostgreSQL parity suite's expectation for
every engine on the same sampled data)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.soda4 import TARGET
from tacit_gen.verify import VerifyCase, verify_cases
from tests.conftest import CONTRACTS
from tests.parity.harness import ROWS, failed_by_engine, verdict_table

pytestmark = pytest.mark.engine

# A few cases (each loads a schema and starts a worker): the DuckDB parity suite has them all.
CASES = [("fct_sensor_readings", None), ("plant_sensor_reading", None),
         ("ohlcv_1m", "invariant:low <= open <= high"), ("plant_sensor_reading", "catalog_bounds:value"),
         ("fct_sensor_readings", "column:value_degc")]


def test_soda4_on_postgres_flags_exactly_the_broken_clause(pg_server: Server, tmp_path: Path) -> None:
    cases = []
    for i, (name, clause) in enumerate(CASES):
        contract = load(str(CONTRACTS / f"{name}.yaml"))
        data = sample(contract, plan(contract), rows=ROWS, seed=7, violate=clause)
        assert data.violated == ((clause,) if clause else ())
        data_path, catalog = write(data, tmp_path / f"d{i}" / f"{name}.csv")
        cases.append(VerifyCase(contract, data_path, catalog, data.now, ("soda4",),
                                CONTRACTS / f"{name}.yaml"))
    reports = verify_cases(cases, engine="postgres", workdir=tmp_path / "work", dsn=pg_server.dsn)
    for (name, clause), report in zip(CASES, reports, strict=True):
        table = verdict_table(report)
        assert report.exit_code == (1 if clause else 0), f"{name} {clause}\n{table}"
        assert failed_by_engine(report) == {"soda4": {clause} if clause else set()}, table
        if clause is None:  # n/a only where the render declared the clause unsupported
            rendered = TARGET.render(report.contract, plan(report.contract),
                                     RenderOptions(dialect="postgres"))
            skip = {u.clause_id for u in rendered.unsupported}
            assert {r.clause.id: r.verdicts["soda4"].status for r in report.rows} == {
                r.clause.id: "n/a" if r.clause.id in skip else "pass" for r in report.rows}, table
