"""`tacit-gen publish` through the real command line: exit 0 published, 1 refused (the table
unchanged), 2 usage; text and JSON; a DuckDB file and a real PostgreSQL 15."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import duckdb
import ibis
import pytest

from tests.conftest import ROOT

from .batches import batch

pytestmark = pytest.mark.engine

NOW = "2024-04-01T00:00:00Z"
CONTRACT = """\
contract: minutes
version: 1.0.0
owner: data@example
key: [sid, ts]
time:
  column: ts
  precision: us
  timezone: UTC instant
  cadence: 60s
fields:
  sid: {type: string, nullable: false}
  ts: {type: timestamp_us_utc, nullable: false}
  v: {type: int64}
  batch: {type: int64, nullable: false}
invariants:
  - 0 <= v <= 100
"""
CREATE = 'CREATE TABLE {} (sid {}, ts TIMESTAMPTZ, v BIGINT, batch BIGINT)'


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tacit_gen.cli", *args], cwd=ROOT,
                          env={**os.environ, "COLUMNS": "80"}, capture_output=True, text=True,
                          timeout=600, check=False)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "minutes.yaml").write_text(CONTRACT, encoding="utf-8")
    for name, b in {"b1": batch(1, 0, 10, series=3), "b2": batch(2, 10, 10, series=3),
                    "gap": batch(3, 21, 10, series=3), "dup": batch(4, 5, 10, series=3),
                    "range": batch(5, 10, 10, series=3, bad_v=True)}.items():
        b.to_pandas().to_csv(tmp_path / f"{name}.csv", index=False)
    return tmp_path


@pytest.fixture(params=["duckdb", "postgres"])
def target(request: pytest.FixtureRequest, files: Path) -> tuple[list[str], str, Any]:
    """(the --database/--dsn arguments, the --into name, an ibis connection to read it)."""
    if request.param == "duckdb":
        db = files / "published.duckdb"
        with duckdb.connect(str(db)) as con:
            con.execute(CREATE.format("minutes", "VARCHAR"))
        return ["--database", str(db)], "minutes", lambda: ibis.duckdb.connect(str(db))
    dsn = request.getfixturevalue("pg_server").dsn
    schema = f"s_{uuid.uuid4().hex[:8]}"
    con = ibis.connect(dsn)
    con.raw_sql(f"CREATE SCHEMA {schema}").close()
    con.raw_sql(CREATE.format(f"{schema}.minutes", "TEXT")).close()
    con.disconnect()
    return ["--dsn", dsn], f"{schema}.minutes", lambda: ibis.connect(dsn)


def _rows(target: tuple[list[str], str, Any]) -> list[dict[str, Any]]:
    con = target[2]()
    schema, _, name = target[1].rpartition(".")
    try:
        t = con.table(name, database=schema or None)
        return t.order_by(["sid", "ts"]).to_pyarrow().to_pylist()  # type: ignore[no-any-return]
    finally:
        con.disconnect()


def _publish(files: Path, target: tuple[list[str], str, Any], data: str,
             *more: str) -> subprocess.CompletedProcess[str]:
    return cli("publish", str(files / "minutes.yaml"), "--data", str(files / f"{data}.csv"),
               "--into", target[1], *target[0], "--now", NOW, *more)


def test_a_passing_batch_is_published_and_exits_0(files, target) -> None:  # type: ignore[no-untyped-def]
    res = _publish(files, target, "b1")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == (f"published 30 row(s) into {target[1]} "
                                  "(checked from 2024-03-04T00:00:00+00:00)")
    res = _publish(files, target, "b2", "--format", "json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert (out["published"], out["rows"], out["failures"], out["exit_code"]) == (True, 30, [], 0)
    assert out["since"] == "2024-03-04T00:10:00+00:00"
    assert len(_rows(target)) == 60


@pytest.mark.parametrize(("data", "clauses"), [
    ("gap", ["cadence:ts"]),
    ("dup", ["unique:sid,ts", "cadence:ts"]),
    ("range", ["range:v"]),
])
def test_a_failing_batch_exits_1_and_leaves_the_table_unchanged(files, target, data, clauses) -> None:  # type: ignore[no-untyped-def]
    assert _publish(files, target, "b1").returncode == 0
    before = _rows(target)
    res = _publish(files, target, data, "--format", "json")
    assert res.returncode == 1, res.stderr
    out = json.loads(res.stdout)
    assert out["published"] is False and out["error"] == "ConstraintError"
    assert sorted(f["clause"] for f in out["failures"]) == sorted(clauses)
    assert all(f["rows"] for f in out["failures"])
    assert _rows(target) == before
    text = _publish(files, target, data)
    assert text.returncode == 1
    assert text.stdout.startswith(f"not published: {len(clauses)} clause(s) violated; "
                                  f"{target[1]} is unchanged\n")
    assert all(len(line) <= 80 for line in text.stdout.splitlines()[:2])


def test_a_table_of_another_structure_exits_1_before_writing(files: Path) -> None:
    db = files / "published.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE minutes (sid VARCHAR, ts TIMESTAMPTZ, v VARCHAR, batch BIGINT)")
    res = cli("publish", str(files / "minutes.yaml"), "--data", str(files / "b1.csv"),
              "--into", "minutes", "--database", str(db), "--now", NOW, "--format", "json")
    assert res.returncode == 1, res.stderr
    out = json.loads(res.stdout)
    assert out["error"] == "StructuralError"
    assert [f["clause"] for f in out["failures"]] == ["column:v"]
    with duckdb.connect(str(db)) as con:
        assert con.execute("SELECT count(*) FROM minutes").fetchone() == (0,)


@pytest.mark.parametrize(("args", "message"), [
    ([], "give one of --database FILE (DuckDB) or --dsn URL (PostgreSQL)"),
    (["--into", "nope"], "no table nope in"),
    (["--now", "2024-04-01T00:00:00"], "has no offset"),
    (["--dsn", "mysql://x"], "cannot connect"),
])
def test_usage_errors_exit_2_saying_why(files: Path, args: list[str], message: str) -> None:
    db = files / "published.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(CREATE.format("minutes", "VARCHAR"))
    base = {"--into": "minutes", "--database": str(db)}
    if "--dsn" in args:
        base.pop("--database")
    if not args:
        base.pop("--database")
    given = dict(zip(args[::2], args[1::2], strict=True))
    flat = [x for k, v in {**base, **given}.items() for x in (k, v)]
    res = cli("publish", str(files / "minutes.yaml"), "--data", str(files / "b1.csv"), *flat)
    assert res.returncode == 2, res.stdout + res.stderr
    assert message in res.stderr


def test_a_check_the_engine_cannot_evaluate_exits_4_and_writes_nothing(files: Path) -> None:
    """DuckDB refuses a product past 38 digits: the invariant is a CheckExecutionError, never a
    pass, and the batch stays out."""
    (files / "minutes.yaml").write_text(CONTRACT + "  - v * v * v * v * v >= 0\n", encoding="utf-8")
    frame = batch(1, 0, 3, series=1).to_pandas()
    frame.loc[1, "v"] = 10**9
    frame.to_csv(files / "huge.csv", index=False)
    db = files / "published.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(CREATE.format("minutes", "VARCHAR"))
    res = cli("publish", str(files / "minutes.yaml"), "--data", str(files / "huge.csv"),
              "--into", "minutes", "--database", str(db), "--now", NOW, "--format", "json")
    assert res.returncode == 4, res.stdout + res.stderr
    out = json.loads(res.stdout)
    assert out["error"] == "CheckExecutionError"
    # each check alone outside the aborted transaction: the range fails, the invariant errors
    assert {f["clause"]: f["count"] for f in out["failures"]} == {
        "range:v": 1, "invariant:v * v * v * v * v >= 0": None}
    with duckdb.connect(str(db)) as con:
        assert con.execute("SELECT count(*) FROM minutes").fetchone() == (0,)
