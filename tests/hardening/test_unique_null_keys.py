"""A NULL in a key column: every engine gives uniqueness SQL's UNIQUE verdict.

Two rows are duplicates when they are equal in every key column and none of those is NULL
(docs/contract-language.md, "Uniqueness and NULL"): a NULL key is `not_null`'s failure. Before,
dbt's compound test, GX's compound expectation (`ignore_row_if: never`), pandera's `unique=`,
Soda 4's `duplicate` check and the runtime counted two `(x, NULL)` rows as duplicates while Soda's
`duplicate_count` did not; with one key column, dbt, Soda, GX and pandera skipped NULLs and the
runtime and Soda 4 did not. Either way verify exited 3 ("engines DISAGREE"). Both contracts are
verified in one batch on each backend, in-process (`verify_many`, what `verify --data-dir` runs:
each engine once for both, one dbt build), every engine for real on DuckDB and on PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.verify import VerifyCase
from tacit_gen.verify.many import verify_many
from tests.conftest import engine_targets, value_targets

pytestmark = pytest.mark.engine

# a compound key: the only repeated keys hold a NULL, so uniqueness passes (not_null fails)
COMPOUND = """\
contract: key_pair
version: 1.0.0
key: [a, b]
fields:
  a: {type: string}
  b: {type: int64}
  v: {type: float64, unit: m}
"""
COMPOUND_DATA = """\
a,b,v
x,1,1.0
x,,2.0
x,,3.0
,2,4.0
,2,5.0
y,3,6.0
"""

# one key column: two NULLs (not duplicates) and one real duplicate, `z` twice
SINGLE = """\
contract: key_one
version: 1.0.0
key: [a]
fields:
  a: {type: string}
  v: {type: float64, unit: m}
"""
SINGLE_DATA = """\
a,v
x,1.0
,2.0
,3.0
z,4.0
z,5.0
"""

CHECKING = value_targets()
NOW = datetime(2024, 1, 2, tzinfo=UTC)
EXPECTED = {  # contract -> clause -> status in every engine of CHECKING
    "key_pair": {"unique:a,b": "pass", "not_null:a": "fail", "not_null:b": "fail"},
    "key_one": {"unique:a": "fail", "not_null:a": "fail"},
}


def _write(tmp_path: Path, engine: str) -> list[VerifyCase]:
    """Both contracts and their data written under `tmp_path`, a case each for every engine of
    `engine` (what `tacit-gen verify` runs by default)."""
    contracts, data = tmp_path / "contracts", tmp_path / "data"
    contracts.mkdir()
    data.mkdir()
    cases = []
    for name, text, rows in (("key_pair", COMPOUND, COMPOUND_DATA), ("key_one", SINGLE, SINGLE_DATA)):
        (contracts / f"{name}.yaml").write_text(text, encoding="utf-8")
        (data / f"{name}.csv").write_text(rows, encoding="utf-8")
        cases.append(VerifyCase(load(str(contracts / f"{name}.yaml")), data / f"{name}.csv", None,
                                NOW, engine_targets(engine), contracts / f"{name}.yaml"))
    return cases


def _check(tmp_path: Path, engine: str, dsn: str | None = None) -> None:
    run = verify_many(_write(tmp_path, engine), workdir=tmp_path / "work", engine=engine, dsn=dsn)
    shown = run.render_text()[-2000:]
    reports = {r["contract"]: r for r in run.as_json()["contracts"]}
    assert set(reports) == set(EXPECTED)
    for name, want in EXPECTED.items():
        rows = {r["id"]: r for r in reports[name]["clauses"]}
        assert set(reports[name]["targets"]) == set(engine_targets(engine)), (name, shown)
        assert {c: r["disagreement"] for c, r in rows.items() if r["disagreement"]} == {}, name
        for cid, status in want.items():
            got = {t: rows[cid]["verdicts"][t]["status"] for t in CHECKING}
            assert got == dict.fromkeys(CHECKING, status), (name, cid, got)
        # nothing else fails: the NULLs are not_null's, the duplicate unique's
        failing = {c for c, r in rows.items() if any(v["status"] == "fail" for v in r["verdicts"].values())}
        assert failing == {c for c, s in want.items() if s == "fail"}, (name, failing)
        assert reports[name]["exit_code"] == 1
    assert run.exit_code == 1, shown


def test_null_keys_are_no_duplicates_in_any_engine(tmp_path: Path) -> None:
    _check(tmp_path, "duckdb")


def test_null_keys_are_no_duplicates_on_postgres(pg_server: Server, tmp_path: Path) -> None:
    """The same on a PostgreSQL 15 server (dbt-postgres, Soda and GX on SQL, the runtime)."""
    _check(tmp_path, "postgres", pg_server.dsn)
