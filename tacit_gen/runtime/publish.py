"""Write-audit-publish: `Schema.publish(batch, into=published)` (docs/how-to/publish.md).

The batch is appended to the published table and checked there, inside ONE transaction on the
published table's own connection:

    DuckDB: a per-process lock on the database file, then BEGIN
    PostgreSQL: BEGIN, then LOCK TABLE ... IN SHARE ROW EXCLUSIVE MODE (publishers queue,
                readers do not wait)
    INSERT INTO published SELECT ... FROM the batch (uploaded first to a temporary table)
    parse(published, since=the batch's earliest time)   -- sees the rows just inserted
    COMMIT when every clause passed, else ROLLBACK and raise

A query the engine refuses aborts the transaction (DuckDB and PostgreSQL alike), and with it the
runtime's re-run of each check alone: the batch is then rolled back and the same check runs
outside any transaction on ``published UNION ALL batch``, only to name the culprits.

So the check is exactly `since`'s (docs/increments.md): the batch's keys against every key
already published, cadence continued from each series' last published point, the revision
window, the row clauses on the rows at or after the boundary. Readers on other connections see
the table before or after the whole batch, never a part of it and never a failed one.

DuckDB has no table lock and its optimistic concurrency does not make two appends conflict,
so publishers in one process are serialized by a lock on the database file here; a DuckDB file is written by
one process at a time (the engine's own file lock), so that covers every publisher. A writer
that does not publish is not held back on DuckDB (on PostgreSQL the table lock holds it).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from tacit_gen.runtime.errors import (
    CheckExecutionError,
    ClauseFailure,
    CoercionError,
    StructuralError,
    UsageError,
    ValidationPhase,
)
from tacit_gen.runtime.evaluate import Report, cast_table, report_of, structure_of
from tacit_gen.runtime.inputs import Inputs

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.runtime.schema import Schema

__all__ = ["Published", "publish_batch"]

BACKENDS = ("duckdb", "postgres")

_LOCKS: dict[tuple[str, ...], threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


@dataclass(frozen=True)
class Published:
    """What `Schema.publish` appended.

    Attributes:
        rows: the rows appended (0 for an empty batch: nothing is written or checked).
        table: the published table, qualified as the engine names it.
        since: the boundary of the check: the batch's earliest time (None: an empty batch, or
            a schema without a time column, whose check covers the whole table).
        report: every clause's verdict on the published table with the batch in it (None for
            an empty batch); its warnings are the violated `severity: warn` clauses.
    """

    rows: int
    table: str
    since: _dt.datetime | None
    report: Report | None


def _process_lock(key: tuple[str, ...]) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


def _target(into: Any) -> tuple[Any, Any, str]:
    """(backend, the table operation, the engine's qualified name) of the published table."""
    import ibis.expr.operations as ops
    import ibis.expr.types as ir
    from sqlglot import exp

    op: Any = into.op() if isinstance(into, ir.Table) else None
    if not isinstance(op, ops.DatabaseTable):
        raise UsageError("into= must be a table of the database (backend.table(name)), got "
                         f"{type(into).__module__}.{type(into).__qualname__}")
    backend = op.source
    if getattr(backend, "name", "") not in BACKENDS:
        raise UsageError(f"publish appends to a DuckDB or PostgreSQL table; into= is a "
                         f"{getattr(backend, 'name', '?')} table (docs/how-to/publish.md)")
    ns = op.namespace
    qualified = exp.table_(op.name, db=ns.database, catalog=ns.catalog, quoted=True)
    return backend, op, qualified.sql(backend.name)


def _as_table(batch: Any, backend: Any) -> ir.Table:
    """`batch` as an ibis table the published table's backend can read."""
    import ibis
    import ibis.expr.types as ir

    if not isinstance(batch, ir.Table):
        return ibis.memtable(batch)
    try:
        source = batch._find_backend()
    except Exception:  # an unbound expression (memtables only)
        return batch
    return batch if source is backend else ibis.memtable(batch.to_pyarrow())


def _structural(schema: type[Schema], batch: ir.Table, into: ir.Table) -> ir.Table:
    """The batch with the published table's columns, in its order and types.

    Raises:
        StructuralError: a column missing, unknown, or of a type that does not convert.
    """
    failures, conversions, _ = structure_of(schema, batch)
    if failures:
        by_id = {c.id: c for c in schema.clauses()}
        raise StructuralError(
            [ClauseFailure(cid, by_id[cid].kind if cid in by_id else cid.split(":")[0],
                           by_id[cid].text if cid in by_id else cid, f"batch: {msg}")
             for cid, msg in failures.items()],
            phase=ValidationPhase.PUBLISH, schema=schema)
    types: Any = into.schema()
    columns: Any = batch  # pyright reads a column of `batch` as a UUID value
    return batch.select(*[columns[c].cast(types[c]) if c in conversions else columns[c]
                          for c in types.names])


def _boundary(schema: type[Schema], batch: ir.Table, now: _dt.datetime) -> tuple[int, Any]:
    """(rows in the batch, the `since` of its check)."""
    tcol = schema.time_column()
    if tcol is None:
        return int(batch.count().to_pyarrow().as_py()), None
    row = batch.aggregate(n=batch.count(), t=batch[tcol].min()).to_pyarrow().to_pylist()[0]
    first = row["t"]
    # every time NULL (not_null reports them) or later than now: the boundary is now
    return int(row["n"]), now if first is None or first > now else first


def _duckdb_file(backend: Any, op: Any) -> str:
    """The database file that holds the table (a name of its own for an in-memory database)."""
    row = backend.con.execute(
        "SELECT path FROM duckdb_databases() WHERE database_name = coalesce(?, current_database())",
        [op.namespace.catalog]).fetchone()
    return str(row[0]) if row and row[0] else f"memory:{id(backend.con)}"


@contextlib.contextmanager
def _transaction(backend: Any, op: Any, qualified: str) -> Iterator[None]:
    """One transaction on the backend's connection, the published table locked against other
    publishers (not readers); rolled back when the body raises."""
    if backend.name == "postgres":
        con = backend.con
        with con.transaction():
            with con.cursor() as cur:
                cur.execute(f"LOCK TABLE {qualified} IN SHARE ROW EXCLUSIVE MODE")
            yield
        return
    # a DuckDB file has one writing process, so every publisher of the file queues here
    with _process_lock(("file", _duckdb_file(backend, op))):
        con = backend.con
        con.execute("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")


def _register(backend: Any, inputs: Inputs) -> None:
    """Upload the in-memory relations the check reads before the transaction: a PostgreSQL
    temporary table created inside a rolled-back transaction would vanish while ibis still
    counts it as uploaded."""
    import ibis.expr.types as ir

    given: list[Any] = [inputs.catalog, inputs.sessions, inputs.outages,
                        *(inputs.refs or {}).values()]
    for g in given:
        for t in (g.values() if isinstance(g, dict) else [g]):
            if isinstance(t, ir.Table):
                with contextlib.suppress(Exception):  # not this backend's: the check says so
                    backend.to_pyarrow(t.limit(0))


def publish_batch(schema: type[Schema], batch: Any, into: Any, inputs: Inputs) -> Published:
    """`Schema.publish`: check `batch` against what `into` holds and append it, atomically."""
    backend, op, qualified = _target(into)
    cast_table(schema, into)  # the published table's structure: nothing written when it differs
    now = inputs.now or _dt.datetime.now(_dt.UTC)
    if now.tzinfo is None:
        raise ValueError("now= must be timezone-aware (a UTC instant), not a naive datetime")
    source = _as_table(batch, backend)
    rows = _structural(schema, source, into)
    staged = _stage(schema, backend, rows, converted=rows.schema() != source.schema())
    try:
        n, since = _boundary(schema, backend.table(staged), now)
        if n == 0:
            return Published(0, qualified, None, None)
        _register(backend, inputs)
        checked = replace(inputs, now=now, since=since)
        try:
            with _transaction(backend, op, qualified):
                backend.insert(op.name, backend.table(staged), database=_database(op))
                report = report_of(schema, into, checked)
                err = report.error(ValidationPhase.PUBLISH)
                if err is not None:
                    raise err  # rolls the append back
        except CheckExecutionError as e:
            # a query that fails aborts the transaction, and with it the runtime's re-run of
            # each check alone: name the culprits from the same check outside it, on the
            # published rows and the batch side by side (nothing is written either way)
            aside = report_of(schema, into.union(backend.table(staged)), checked)
            raise aside.error(ValidationPhase.PUBLISH) or e from None
    finally:
        with contextlib.suppress(Exception):
            backend.drop_table(staged, force=True)
    warned = report.warning()
    if warned is not None:
        warnings.warn(warned, stacklevel=3)
    return Published(n, qualified, since, report)


def _stage(schema: type[Schema], backend: Any, rows: ir.Table, converted: bool) -> str:
    """Upload (and convert) the batch into a temporary table of the published table's backend,
    before the transaction: the check and the append then read one fixed copy of it.

    Raises:
        CoercionError: the engine refused to convert a value of the batch.
    """
    import ibis

    staged = f"tacit_publish_{ibis.util.guid()[:12]}"
    try:
        backend.create_table(staged, rows, temp=True)
    except Exception as e:
        if not converted:
            raise
        raise CoercionError([ClauseFailure("publish", "column", "batch",
                                           f"the engine refused to convert the batch: {e}")],
                            phase=ValidationPhase.PUBLISH, schema=schema) from e
    return staged


def _database(op: Any) -> Any:
    ns = op.namespace
    if ns.catalog is not None and ns.database is not None:
        return (ns.catalog, ns.database)
    return ns.database
