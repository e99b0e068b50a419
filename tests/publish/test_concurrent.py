"""Atomicity of `Schema.publish` as another connection sees it: a reader counting the rows of
each batch in a loop while batches of 50,000 rows, some failing, are published never sees a
part of a batch nor a failed one; two publishers at once never both pass the key check. On a
DuckDB file database and a real PostgreSQL 15."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import ibis
import pytest

from tacit_gen.runtime import ConstraintError

from .batches import COLUMNS, NOW, PG_COLUMNS, SERIES, Minutes, batch, create

pytestmark = pytest.mark.engine

MINUTES = 1000  # x 50 series: 50,000 rows a batch
ROWS = MINUTES * SERIES


@pytest.fixture(params=["duckdb", "postgres"])
def connect(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Any]]:
    """A factory of new connections (each its own session) to one database."""
    opened: list[Any] = []
    if request.param == "duckdb":
        path = str(tmp_path / "published.duckdb")

        def new() -> Any:
            opened.append(ibis.duckdb.connect(path))
            return opened[-1]
    else:
        dsn = request.getfixturevalue("pg_server").dsn

        def new() -> Any:
            opened.append(ibis.connect(dsn))
            return opened[-1]
    new.engine = request.param  # type: ignore[attr-defined]
    yield new
    for con in opened:
        con.disconnect()


def _types(connect: Any) -> dict[str, str]:
    return COLUMNS if connect.engine == "duckdb" else PG_COLUMNS


def _state(con: Any, name: str) -> frozenset[tuple[int, int]]:
    """(batch, rows) of every batch in the table, read in ONE statement (one snapshot)."""
    sql = f'SELECT batch, count(*) FROM "{name}" GROUP BY batch'
    if con.name == "duckdb":
        rows = con.con.execute(sql).fetchall()  # the connection itself: not to be closed
    else:
        with con.con.cursor() as cur:  # autocommit: the statement is its own transaction
            rows = cur.execute(sql).fetchall()
    return frozenset((int(b), int(n)) for b, n in rows)


def test_a_reader_sees_only_whole_passing_batches(connect) -> None:  # type: ignore[no-untyped-def]
    name = f"pub_{uuid.uuid4().hex[:8]}"
    writer = connect()
    create(writer, name, _types(connect))
    plan = [  # (batch, passes)
        (batch(1, 0, MINUTES), True),
        (batch(2, MINUTES // 2, MINUTES), False),  # repeats keys of batch 1
        (batch(3, MINUTES, MINUTES), True),
        (batch(4, 2 * MINUTES + 1, MINUTES), False),  # a cadence gap at the boundary
        (batch(5, 2 * MINUTES, MINUTES, bad_v=True), False),  # one value out of range
        (batch(6, 2 * MINUTES, MINUTES), True),
    ]
    allowed = {frozenset()}
    whole: set[tuple[int, int]] = set()
    for i, (b, passes) in enumerate(plan, start=1):
        assert b.num_rows >= ROWS - 1
        if passes:
            whole.add((i, b.num_rows))
            allowed.add(frozenset(whole))

    seen: list[frozenset[tuple[int, int]]] = []
    started, done = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def read() -> None:
        try:
            reader = connect()
            while not done.is_set():
                seen.append(_state(reader, name))
                started.set()
            seen.append(_state(reader, name))
        except BaseException as e:  # reported by the main thread
            errors.append(e)
            started.set()

    thread = threading.Thread(target=read)
    thread.start()
    assert started.wait(60)
    t = writer.table(name)
    outcomes = []
    try:
        for b, _ in plan:
            try:
                outcomes.append(Minutes.publish(b, into=t, now=NOW).rows)
            except ConstraintError:
                outcomes.append(None)
    finally:
        done.set()
        thread.join(120)
    assert errors == []
    assert outcomes == [ROWS, None, ROWS, None, None, ROWS]
    assert seen[-1] == frozenset(whole)
    assert set(seen) <= allowed, sorted(set(seen) - allowed)
    # the reader ran while batches were published: it saw the table grow, not only the end
    assert len(set(seen)) >= 3, (len(seen), set(seen))


def test_two_publishers_at_once_do_not_both_pass_the_key_check(connect) -> None:  # type: ignore[no-untyped-def]
    name = f"pub_{uuid.uuid4().hex[:8]}"
    first = connect()
    create(first, name, _types(connect))
    second = connect()
    same = batch(1, 0, MINUTES)
    gate = threading.Barrier(2)
    results: list[Any] = []

    def publish(con: Any) -> None:
        gate.wait()
        try:
            results.append(Minutes.publish(same, into=con.table(name), now=NOW).rows)
        except ConstraintError as e:
            results.append(sorted(f.clause_id for f in e.failures))

    threads = [threading.Thread(target=publish, args=(c,)) for c in (first, second)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(300)
    assert sorted(results, key=str) == sorted([ROWS, ["cadence:ts", "unique:sid,ts"]], key=str)
    assert first.table(name).count().to_pyarrow().as_py() == ROWS
