"""Freshness on a `date` time column: the age is counted in whole days against the UTC date of the
pinned "now" (never in hours from midnight), in every target, on DuckDB and on a real PostgreSQL
whose own time zone is America/New_York. The DuckDB cases are verified in one batch
(`verify_cases`: each engine once, one dbt build)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tacit_gen.compare import compare, read_artifact
from tacit_gen.contract.loader import load, load_report
from tacit_gen.engines.postgres_server import Server
from tacit_gen.plan import plan
from tacit_gen.render import render_contract
from tacit_gen.semantics.freshness import stale
from tacit_gen.targets.base import RenderOptions
from tacit_gen.verify import VerifyCase, VerifyReport, run_verify, verify_cases
from tests.conftest import engine_targets, value_targets

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "contracts" / "daily_sales.yaml"
ENGINES = engine_targets()
SQL_TARGETS = value_targets(own_environment=False)
NEWEST = dt.date(2023, 12, 31)
# (now, verdict) for data whose newest date is 2023-12-31 and freshness 2 days. A check that
# counted seconds from midnight would fail the second case (2 days 23:59 old) and pass none of
# the others differently; the third is the same UTC date written in another offset.
CASES = [
    (dt.datetime(2024, 1, 2, 0, 0, tzinfo=dt.UTC), "pass"),
    (dt.datetime(2024, 1, 2, 23, 59, 59, tzinfo=dt.UTC), "pass"),
    (dt.datetime(2024, 1, 3, 1, 0, tzinfo=dt.timezone(dt.timedelta(hours=3))), "pass"),
    (dt.datetime(2024, 1, 3, 0, 0, tzinfo=dt.UTC), "fail"),
]


def test_the_reference_counts_whole_days_against_the_utc_date() -> None:
    for now, verdict in CASES:
        assert stale(NEWEST, now, 2 * 86400) is (verdict == "fail"), now
    assert stale(None, CASES[0][0], 86400)
    # an instant keeps exact seconds
    assert stale(dt.datetime(2023, 12, 31, tzinfo=dt.UTC), CASES[1][0], 2 * 86400)


def test_the_plan_marks_a_date_freshness_and_lint_refuses_what_needs_instants(tmp_path: Path) -> None:
    clause = next(c for c in plan(load(FIXTURE)) if c.kind == "freshness")
    assert clause.params_dict == {"column": "sales_date", "max_age_seconds": 172800, "whole_days": True}
    text = FIXTURE.read_text(encoding="utf-8")
    for edit, words in (
        (("  freshness: 2 days\n", "  freshness: 2 days\n  cadence: 1d\n"), "time.cadence needs a timestamp"),
        (("  freshness: 2 days\n", "  freshness: 36h\n"), "freshness '36h' must be whole days"),
    ):
        p = tmp_path / "c.yaml"
        p.write_text(text.replace(*edit), encoding="utf-8")
        _, diags = load_report(p)
        assert any(d.code == "TG206" and words in d.message for d in diags), [d.render() for d in diags]


@pytest.mark.parametrize("target", SQL_TARGETS)
def test_every_target_carries_it_and_reads_it_back(tmp_path: Path, target: str) -> None:
    contract = load(FIXTURE)
    arts, unsupported = render_contract(contract, (target,), RenderOptions())
    assert "freshness:sales_date" not in {u.clause_id for u in unsupported}
    path = tmp_path / arts[0].path
    path.parent.mkdir(parents=True)
    path.write_text(arts[0].content, encoding="utf-8")
    assert compare(contract, plan(contract), read_artifact(target, path), str(path), target) == []
    # a day more, by hand, is drift
    edited = {"dbt": ("max_age_days: 2", "max_age_days: 3"), "soda": ("INTERVAL '2' DAY", "INTERVAL '3' DAY"),
              "gx": ("INTERVAL '2' DAY", "INTERVAL '3' DAY"),
              "pandera": ("max_age_seconds=172800", "max_age_seconds=259200"),
              "ibis": ("max_age_seconds=172800,", "max_age_seconds=259200,")}[target]
    assert edited[0] in arts[0].content, target
    path.write_text(arts[0].content.replace(*edited), encoding="utf-8")
    found = compare(contract, plan(contract), read_artifact(target, path), str(path), target)
    assert any(f.clause_id == "freshness:sales_date" for f in found), found


def data(tmp_path: Path, newest: dt.date) -> Path:
    rows = ["store,sales_date,revenue,orders"]
    for days in range(3):
        for store in ("s1", "s2"):
            rows.append(f"{store},{(newest - dt.timedelta(days=days)).isoformat()},10.50,3")
    p = tmp_path / "sales.csv"
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return p


def verdicts(report, clause: str = "freshness:sales_date") -> dict[str, str]:  # type: ignore[no-untyped-def]
    row = next(r for r in report.rows if r.clause.id == clause)
    return {t: v.status for t, v in row.verdicts.items()}


def check(report: VerifyReport, now: dt.datetime, verdict: str) -> None:
    table = report.render_text()
    got = verdicts(report)
    assert {got[t] for t in SQL_TARGETS} == {verdict}, f"now {now.isoformat()}\n{table}"
    assert report.exit_code == (0 if verdict == "pass" else 1), table
    others = {r.clause.id for r in report.rows if r.failed} - {"freshness:sales_date"}
    assert not others, table


@pytest.fixture(scope="module")
def duckdb_reports(tmp_path_factory: pytest.TempPathFactory) -> list[VerifyReport]:
    """Every case verified on DuckDB in ONE run: each engine once (one dbt build) for all of them."""
    tmp = tmp_path_factory.mktemp("freshness_date")
    contract = load(FIXTURE)
    cases = []
    for i, (now, _) in enumerate(CASES):
        (tmp / f"c{i}").mkdir()
        cases.append(VerifyCase(contract, data(tmp / f"c{i}", NEWEST), None, now, ENGINES, FIXTURE))
    return verify_cases(cases, engine="duckdb", workdir=tmp / "work")


@pytest.mark.engine
def test_duckdb_every_engine_counts_whole_days(duckdb_reports: list[VerifyReport]) -> None:
    assert len(duckdb_reports) == len(CASES)
    for report, (now, verdict) in zip(duckdb_reports, CASES, strict=True):
        assert set(report.targets) == set(ENGINES), report.render_text()
        check(report, now, verdict)


@pytest.mark.engine
def test_postgres_every_engine_counts_whole_days(pg_server: Server, tmp_path: Path) -> None:
    raw = f"postgresql://postgres@{pg_server.host}:{pg_server.port}/postgres"  # no UTC option: verify sets it
    contract = load(FIXTURE)
    path = data(tmp_path, NEWEST)
    for i, (now, verdict) in enumerate(CASES):  # the targets that run in PostgreSQL
        report = run_verify(contract, path, None, SQL_TARGETS, now, keep=tmp_path / f"w{i}",
                            engine="postgres", dsn=raw)
        check(report, now, verdict)
