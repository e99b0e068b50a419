"""verify on DuckDB, every engine for real: data that breaks one `severity: warn` clause gets a
`warn` verdict from every target that renders it (dbt's warn status, Soda's warn outcome, a GX
expectation of severity `warning`, pandera's raise_warning, the runtime's ContractWarning), the
wire schemas say n/a (declared unsupported), and the run exits 0; an error clause still exits 1.
The cases run in one batch (`verify_cases`: each engine once, one dbt build)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.render import render_contract
from tacit_gen.sample import sample, write
from tacit_gen.targets.base import RenderOptions
from tacit_gen.verify import VerifyCase, VerifyReport, verify_cases
from tests.conftest import engine_targets, value_targets

pytestmark = pytest.mark.engine

ENGINES = engine_targets()
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "contracts" / "ohlcv_warn.yaml"
WARN_CASES = ("range:volume", "not_null:volume", "unique:symbol,bar_start,revision",
              "cadence:bar_start", "invariant:low <= close <= high")


ERROR_CASE = "range:revision"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    """Each case (one violated clause) verified in ONE run: every engine once for all of them."""
    tmp = tmp_path_factory.mktemp("severity")
    contract = load(FIXTURE)
    cases = []
    for i, clause in enumerate((*WARN_CASES, ERROR_CASE)):
        data = sample(contract, plan(contract), rows=24, seed=7, violate=clause)
        assert data.violated == (clause,)
        (tmp / f"c{i}").mkdir()
        data_path, catalog = write(data, tmp / f"c{i}" / "data.csv")
        cases.append(VerifyCase(contract, data_path, catalog, data.now, ENGINES, FIXTURE))
    got = verify_cases(cases, engine="duckdb", workdir=tmp / "work")
    return dict(zip((*WARN_CASES, ERROR_CASE), got, strict=True))


def declared_unsupported() -> dict[str, set[str]]:
    _, found = render_contract(load(FIXTURE), ENGINES, RenderOptions())
    out: dict[str, set[str]] = {}
    for u in found:
        out.setdefault(u.target, set()).add(u.clause_id)
    return out


@pytest.mark.parametrize("clause", WARN_CASES)
def test_a_warn_clause_warns_in_every_engine_and_exits_0(clause: str,
                                                         reports: dict[str, VerifyReport]) -> None:
    report = reports[clause]
    table = report.render_text()
    assert report.exit_code == 0, table
    skip = declared_unsupported()
    row = next(r for r in report.rows if r.clause.id == clause)
    for target, v in row.verdicts.items():
        want = "n/a" if clause in skip.get(target, set()) else "warn"
        assert v.status == want, f"{target}: {v.status}\n{table}"
    assert sum(v.status == "warn" for v in row.verdicts.values()) >= 6, table
    assert row.verdicts["soda4"].status == "warn", table  # soda-core 4's WARN outcome (level: warn)
    assert not any(r.failed for r in report.rows), table
    assert "1 warn clause(s) violated" in table and "WARN" in table
    assert report.as_json()["warnings"] == [clause]


def test_an_error_clause_beside_warn_ones_still_fails(reports: dict[str, VerifyReport]) -> None:
    report = reports[ERROR_CASE]
    assert report.exit_code == 1, report.render_text()
    row = next(r for r in report.rows if r.clause.id == ERROR_CASE)
    assert {v.status for t, v in row.verdicts.items() if t in value_targets()} == {"fail"}
