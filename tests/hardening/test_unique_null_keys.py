"""A NULL in a key column: every engine gives uniqueness SQL's UNIQUE verdict.

Two rows are duplicates when they are equal in every key column and none of those is NULL
(docs/contract-language.md, "Uniqueness and NULL"): a NULL key is `not_null`'s failure. Before,
dbt's compound test, GX's compound expectation (`ignore_row_if: never`), pandera's `unique=`,
Soda 4's `duplicate` check and the runtime counted two `(x, NULL)` rows as duplicates while Soda's
`duplicate_count` did not; with one key column, dbt, Soda, GX and pandera skipped NULLs and the
runtime and Soda 4 did not. Either way verify exited 3 ("engines DISAGREE"). One verify of two
contracts (`--data-dir`, each engine imported once), every engine for real on DuckDB.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tacit_gen.engines.postgres_server import Server
from tests.conftest import value_targets
from tests.hardening.helpers import cli

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
EXPECTED = {  # contract -> clause -> status in every engine of CHECKING
    "key_pair": {"unique:a,b": "pass", "not_null:a": "fail", "not_null:b": "fail"},
    "key_one": {"unique:a": "fail", "not_null:a": "fail"},
}


def _write(tmp_path: Path) -> tuple[Path, Path]:
    contracts, data = tmp_path / "contracts", tmp_path / "data"
    contracts.mkdir()
    data.mkdir()
    for name, text, rows in (("key_pair", COMPOUND, COMPOUND_DATA), ("key_one", SINGLE, SINGLE_DATA)):
        (contracts / f"{name}.yaml").write_text(text, encoding="utf-8")
        (data / f"{name}.csv").write_text(rows, encoding="utf-8")
    return contracts, data


def _check(tmp_path: Path, *engine: str) -> None:
    contracts, data = _write(tmp_path)
    res = cli("verify", str(contracts), "--data-dir", str(data), "--now", "2024-01-02T00:00:00Z",
              "--format", "json", *engine, timeout=900)
    assert "Traceback" not in res.stderr, res.stderr[-3000:]
    reports = {r["contract"]: r for r in json.loads(res.stdout)["contracts"]}
    assert set(reports) == set(EXPECTED)
    for name, want in EXPECTED.items():
        rows = {r["id"]: r for r in reports[name]["clauses"]}
        assert {c: r["disagreement"] for c, r in rows.items() if r["disagreement"]} == {}, name
        for cid, status in want.items():
            got = {t: rows[cid]["verdicts"][t]["status"] for t in CHECKING}
            assert got == dict.fromkeys(CHECKING, status), (name, cid, got)
        # nothing else fails: the NULLs are not_null's, the duplicate unique's
        failing = {c for c, r in rows.items() if any(v["status"] == "fail" for v in r["verdicts"].values())}
        assert failing == {c for c, s in want.items() if s == "fail"}, (name, failing)
        assert reports[name]["exit_code"] == 1
    assert res.returncode == 1, res.stdout[-2000:]


def test_null_keys_are_no_duplicates_in_any_engine(tmp_path: Path) -> None:
    _check(tmp_path)


def test_null_keys_are_no_duplicates_on_postgres(pg_server: Server, tmp_path: Path) -> None:
    """The same on a PostgreSQL 15 server (dbt-postgres, Soda and GX on SQL, the runtime)."""
    _check(tmp_path, "--engine", "postgres", "--dsn", pg_server.dsn)
