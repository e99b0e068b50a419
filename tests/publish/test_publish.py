"""`Schema.publish`: a passing batch lands, a failing one raises and leaves the published table
unchanged, a structural mismatch raises before anything is written; on a DuckDB file database
and a real PostgreSQL 15."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import ibis
import pandas as pd
import pytest

from tacit_gen.runtime import (
    CoercionError,
    ConstraintError,
    ContractWarning,
    StructuralError,
    UsageError,
)

from .batches import COLUMNS, NOW, PG_COLUMNS, SERIES, Minutes, batch, create, snapshot

pytestmark = pytest.mark.engine



@pytest.fixture(params=["duckdb", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, str, dict[str, str]]]:
    """(a connection, a fresh table name, its column types) on each engine."""
    name = f"pub_{uuid.uuid4().hex[:8]}"
    if request.param == "duckdb":
        con = ibis.duckdb.connect(str(tmp_path / "published.duckdb"))
        yield con, name, COLUMNS
    else:
        server = request.getfixturevalue("pg_server")
        con = ibis.connect(server.dsn)
        yield con, name, PG_COLUMNS
        con.raw_sql(f'DROP TABLE IF EXISTS "{name}"').close()
    con.disconnect()


def _published(db: tuple[Any, str, dict[str, str]]) -> Any:
    con, name, types = db
    create(con, name, types)
    return con.table(name)


def test_a_passing_batch_lands_and_the_next_continues_it(db) -> None:  # type: ignore[no-untyped-def]
    t = _published(db)
    first = Minutes.publish(batch(1, 0, 20), into=t, now=NOW)
    second = Minutes.publish(batch(2, 20, 20), into=t, now=NOW)
    assert (first.rows, second.rows) == (20 * SERIES, 20 * SERIES)
    assert second.since == batch(2, 20, 20).column("ts")[0].as_py()
    assert second.report is not None and second.report.ok
    assert t.count().to_pyarrow().as_py() == 40 * SERIES
    assert sorted(t.batch.value_counts().to_pyarrow().to_pylist(), key=str) == [
        {"batch": 1, "batch_count": 20 * SERIES}, {"batch": 2, "batch_count": 20 * SERIES}]


@pytest.mark.parametrize(("failing", "clause"), [
    # minutes 15..19 repeat published keys (and repeat their points: a zero cadence step)
    (batch(9, 15, 20), ["unique:sid,ts", "cadence:ts"]),
    (batch(9, 21, 20), ["cadence:ts"]),  # minute 20 missing: a gap straddling the boundary
    (batch(9, 20, 20, skip=20), ["cadence:ts"]),  # the same gap in one series only
    (batch(9, 20, 20, bad_v=True), ["range:v"]),
])
def test_a_failing_batch_raises_and_leaves_the_table_unchanged(db, failing, clause) -> None:  # type: ignore[no-untyped-def]
    con, name, _ = db
    t = _published(db)
    Minutes.publish(batch(1, 0, 20), into=t, now=NOW)
    before = snapshot(con, name)
    with pytest.raises(ConstraintError) as caught:
        Minutes.publish(failing, into=t, now=NOW)
    assert sorted(f.clause_id for f in caught.value.failures) == sorted(clause)
    assert caught.value.failures[0].rows  # the offending rows
    assert snapshot(con, name) == before
    # and a passing batch still lands after the failed one
    assert Minutes.publish(batch(2, 20, 20), into=t, now=NOW).rows == 20 * SERIES


def test_a_gap_wholly_before_the_published_history_is_not_the_batch_s_failure(db) -> None:  # type: ignore[no-untyped-def]
    """The check is `since`'s: an old gap already published is not reported again."""
    con, name, _ = db
    t = _published(db)
    con.insert(name, batch(0, 0, 10, skip=5).to_pandas())  # written around publish
    assert Minutes.publish(batch(1, 10, 10), into=t, now=NOW).rows == 10 * SERIES


def test_a_published_table_of_another_structure_is_refused_before_writing(db) -> None:  # type: ignore[no-untyped-def]
    con, name, types = db
    create(con, name, {**types, "v": "TEXT"})
    t = con.table(name)
    with pytest.raises(StructuralError, match="column:v"):
        Minutes.publish(batch(1, 0, 5), into=t, now=NOW)
    assert t.count().to_pyarrow().as_py() == 0


def test_a_batch_of_another_structure_is_refused_before_writing(db) -> None:  # type: ignore[no-untyped-def]
    con, name, _ = db
    t = _published(db)
    Minutes.publish(batch(1, 0, 5), into=t, now=NOW)
    before = snapshot(con, name)
    wrong = batch(2, 5, 5).drop_columns(["v"])
    with pytest.raises(StructuralError, match=r"column:v.*batch: column is missing"):
        Minutes.publish(wrong, into=t, now=NOW)
    extra = batch(2, 5, 5).append_column("x", batch(2, 5, 5).column("v"))
    with pytest.raises(StructuralError, match="unknown column"):
        Minutes.publish(extra, into=t, now=NOW)
    assert snapshot(con, name) == before


def test_an_empty_batch_appends_and_checks_nothing(db) -> None:  # type: ignore[no-untyped-def]
    con, name, _ = db
    t = _published(db)
    Minutes.publish(batch(1, 0, 5), into=t, now=NOW)
    before = snapshot(con, name)
    empty = Minutes.publish(batch(2, 5, 0), into=t, now=NOW)
    assert (empty.rows, empty.since, empty.report) == (0, None, None)
    assert snapshot(con, name) == before


def test_a_pandas_batch_and_a_table_of_the_same_database_are_published(db) -> None:  # type: ignore[no-untyped-def]
    con, name, types = db
    t = _published(db)
    frame = batch(1, 0, 5).to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert Minutes.publish(frame, into=t, now=NOW).rows == 5 * SERIES
    create(con, name + "_staging", types)
    con.insert(name + "_staging", batch(2, 5, 5).to_pandas())
    assert Minutes.publish(con.table(name + "_staging"), into=t, now=NOW).rows == 5 * SERIES
    assert t.count().to_pyarrow().as_py() == 10 * SERIES
    con.drop_table(name + "_staging")


def test_into_must_be_a_database_table() -> None:
    with pytest.raises(UsageError, match="into= must be a table of the database"):
        Minutes.publish(batch(1, 0, 1), into=ibis.memtable(batch(0, 0, 1)), now=NOW)


def test_a_value_the_engine_refuses_to_convert_is_a_coercion_error(db) -> None:  # type: ignore[no-untyped-def]
    con, name, _ = db
    t = _published(db)
    Minutes.publish(batch(1, 0, 5), into=t, now=NOW)
    before = snapshot(con, name)
    frame = batch(2, 5, 5).to_pandas()
    frame["v"] = frame["v"].astype(str)
    frame.loc[3, "v"] = "seven"
    with pytest.raises(CoercionError, match="refused to convert"):
        Minutes.publish(frame, into=t, now=NOW)
    assert snapshot(con, name) == before
    frame.loc[3, "v"] = "7"  # text that converts: published as int64
    assert Minutes.publish(frame, into=t, now=NOW).rows == 5 * SERIES


class Warned(Minutes):
    """The range clause as a warning: reported, never a failure."""

    __clauses__ = tuple(replace(c, severity="warn") if c.kind == "range" else c
                        for c in Minutes.__clauses__)


def test_a_violated_warn_clause_publishes_with_a_warning(db) -> None:  # type: ignore[no-untyped-def]
    t = _published(db)
    with pytest.warns(ContractWarning, match="range:v"):
        done = Warned.publish(batch(1, 0, 5, bad_v=True), into=t, now=NOW)
    assert done.rows == 5 * SERIES
    assert done.report is not None and [r.clause.id for r in done.report.warnings] == ["range:v"]


def test_another_backend_or_an_expression_is_a_usage_error(tmp_path: Path) -> None:
    lite = ibis.sqlite.connect(str(tmp_path / "x.sqlite"))
    lite.raw_sql("CREATE TABLE t (sid TEXT, ts TEXT, v INTEGER, batch INTEGER)")
    with pytest.raises(UsageError, match="a DuckDB or PostgreSQL table; into= is a sqlite table"):
        Minutes.publish(batch(1, 0, 1), into=lite.table("t"), now=NOW)
    duck = ibis.duckdb.connect()
    create(duck, "t", COLUMNS)
    with pytest.raises(UsageError, match="into= must be a table of the database"):
        Minutes.publish(batch(1, 0, 1), into=duck.table("t").filter(True), now=NOW)
