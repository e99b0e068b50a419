"""`references:` in every engine, for real: verify runs dbt (a `relationships` test, dbt-duckdb),
Soda v3 (a reference check), Soda 4 (`invalid` with `valid_reference_data`, soda-core 4.28), GX
(an unexpected-rows anti-join), pandera (`schema(refs=)`) and the ibis runtime (`parse(refs=)`)
on sample data whose referenced relation `sample` wrote beside it and `verify` loaded from there.
Clean data passes in every engine; one order whose customer is absent from `customers` fails
exactly that clause, with one failing row, in every engine; a `severity: warn` reference warns in
every engine (Soda v3 checks it as an anti-join fail query then); on PostgreSQL 15 the same
violation fails in every engine. The wire schemas say n/a (declared unsupported). The DuckDB cases
are verified in one batch (`verify_cases`: each engine once, one dbt build)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.verify import VerifyCase, VerifyReport, verify_cases
from tests.conftest import engine_targets, record_targets, value_targets

pytestmark = pytest.mark.engine

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "references" / "orders.yaml"
CLAUSE = "references:customer_id"
ENGINES = engine_targets()
CHECKING = value_targets()
WIRE = record_targets()


def case(tmp_path: Path, violate: str | None, fixture: Path = FIXTURE) -> VerifyCase:
    contract = load(fixture)
    data = sample(contract, plan(contract), rows=20, seed=11, violate=violate)
    assert data.violated == ((violate,) if violate else ())
    data_path, catalog = write(data, tmp_path / "data" / "orders.csv")
    assert (tmp_path / "data" / "customers.csv").is_file()
    return VerifyCase(contract, data_path, catalog, data.now, ENGINES, fixture)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    """Every DuckDB case verified in ONE run: each engine once (one dbt build) for all of them."""
    tmp = tmp_path_factory.mktemp("references")
    fixture = tmp / "orders.yaml"
    fixture.write_text(FIXTURE.read_text(encoding="utf-8") + f"severity:\n  warn: [\"{CLAUSE}\"]\n",
                       encoding="utf-8")
    cases = {"clean": case(tmp / "clean", None), "bad": case(tmp / "bad", CLAUSE),
             "warn": case(tmp / "warn", CLAUSE, fixture)}
    got = verify_cases(list(cases.values()), engine="duckdb", workdir=tmp / "work")
    return dict(zip(cases, got, strict=True))


def statuses(report: VerifyReport, clause: str) -> dict[str, tuple[str, int | None]]:
    row = next(r for r in report.rows if r.clause.id == clause)
    return {t: (v.status, v.failures) for t, v in row.verdicts.items()}


def test_every_engine_checks_the_reference(reports: dict[str, VerifyReport]) -> None:
    assert set(CHECKING) | set(WIRE) <= set(ENGINES)
    clean = reports["clean"]
    table = clean.render_text()
    assert set(clean.targets) == set(ENGINES), table
    assert clean.exit_code == 0, table
    got = statuses(clean, CLAUSE)
    assert {t: got[t][0] for t in CHECKING} == dict.fromkeys(CHECKING, "pass"), table
    assert {t: got[t][0] for t in WIRE} == dict.fromkeys(WIRE, "n/a"), table

    bad = reports["bad"]
    table = bad.render_text()
    assert set(bad.targets) == set(ENGINES), table
    assert bad.exit_code == 1, table
    got = statuses(bad, CLAUSE)
    assert {t: got[t] for t in CHECKING} == dict.fromkeys(CHECKING, ("fail", 1)), table
    others = {(r.clause.id, t, v.status) for r in bad.rows if r.clause.id != CLAUSE
              for t, v in r.verdicts.items() if v.status not in ("pass", "n/a")}
    assert others == set(), table


def test_a_warn_reference_warns_in_every_engine(reports: dict[str, VerifyReport]) -> None:
    report = reports["warn"]
    table = report.render_text()
    assert set(report.targets) == set(ENGINES), table
    assert report.exit_code == 0, table
    got = statuses(report, CLAUSE)
    assert {t: got[t][0] for t in CHECKING} == dict.fromkeys(CHECKING, "warn"), table


def test_postgres_flags_the_absent_customer_in_every_engine(pg_server: Server, tmp_path: Path) -> None:
    contract = load(FIXTURE)
    cases = []
    for i, violate in enumerate((None, CLAUSE)):
        data = sample(contract, plan(contract), rows=20, seed=11, violate=violate)
        data_path, catalog = write(data, tmp_path / f"d{i}" / "orders.csv")
        cases.append(VerifyCase(contract, data_path, catalog, data.now, CHECKING, FIXTURE))
    clean, bad = verify_cases(cases, engine="postgres", workdir=tmp_path / "work", dsn=pg_server.dsn)
    assert clean.exit_code == 0, clean.render_text()
    assert {t: s for t, (s, _) in statuses(clean, CLAUSE).items()} == dict.fromkeys(CHECKING, "pass")
    assert bad.exit_code == 1, bad.render_text()
    assert statuses(bad, CLAUSE) == dict.fromkeys(CHECKING, ("fail", 1)), bad.render_text()
    others = {(r.clause.id, t, v.status) for r in bad.rows if r.clause.id != CLAUSE
              for t, v in r.verdicts.items() if v.status not in ("pass", "n/a")}
    assert others == set(), bad.render_text()  # the broken clause alone
