"""Parity on `fct_sensor_readings` with dbt's model under test built as a VIEW (dbt's own default
materialization; the other parity modules build tables): dbt passes the clean data and flags
exactly the broken clause on data breaking each clause, as every engine does on the same data in
test_parity_fct_sensor_readings.py. Only dbt runs here (the other engines read no dbt
materialization), so the configuration costs one dbt project build.

`test_the_model_is_a_view` shows the configuration is real: with `not_null = "constraint"`,
which dbt ignores on a view, a NULL in a not-null column passes dbt under views and fails it
under tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.dbt.options import DbtOptions
from tacit_gen.verify import VerifyCase, verify_cases
from tests.parity.harness import ROWS, contract_path, parity_tests, with_materialization

NAME = "fct_sensor_readings"

test_clean_data_passes_in_every_engine, test_one_violation_is_flagged_by_every_engine = parity_tests(
    NAME, targets=("dbt",), materialized="view")


@pytest.mark.engine
@pytest.mark.parametrize(("materialized", "status"), [("view", "pass"), ("table", "fail")])
def test_the_model_is_a_view(tmp_path: Path, materialized: str, status: str) -> None:
    contract = load(contract_path(NAME))
    column = next(c.param("column") for c in plan(contract) if c.kind == "not_null")
    data = sample(contract, plan(contract), rows=ROWS, seed=7, violate=f"not_null:{column}")
    data_path, catalog_path = write(data, tmp_path / f"{NAME}.csv")
    options = RenderOptions(targets=(DbtOptions(not_null="constraint"),))
    case = VerifyCase(contract, data_path, catalog_path, data.now, ("dbt",), contract_path(NAME))
    report = with_materialization(materialized, lambda: verify_cases(
        [case], workdir=tmp_path / "work", options=options, engine="duckdb")[0])
    verdict = next(r for r in report.rows if r.clause.id == f"not_null:{column}").verdicts["dbt"]
    assert verdict.status == status, report.render_text()
