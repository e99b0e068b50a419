"""The increment for a GX suite (docs/engines/gx.md#increments): each expectation runs on a
batch made of the increment (the rows whose time column is at or after `since`, or NULL) and
the boundary rows its clause needs, and a custom-SQL expectation whose rows may still belong to
the history keeps only the rows of the increment.

The batches (`slice_query`, one SQL query each, run as a GX query asset, a pandas frame read
from it, or a Spark dataframe):

- ``rows``: the increment alone. Every clause on each row alone (docs/increments.md), and the
  revision window (each restated row with its own ingest time).
- ``keys``: the increment plus the earlier rows that repeat one of its keys (a semi-join on the
  key): every repeated key in this batch involves a row of the increment, so the key's
  expectation fails exactly when the increment repeats a key of the relation.
- ``steps``: the increment plus each series' last point(s) before `since`, the predecessor of
  its first new point. The cadence query steps every point from its predecessor; the steps that
  end before `since` (between two boundary rows: a duplicated last point) are dropped by
  `keep_increment`.
- ``all``: the whole relation: the structure (columns, types), freshness (the newest point) and
  completeness, whose windows (or sessions) that end after `since` `keep_increment` keeps
  (``window_end_ms``; each counts all its rows, those before `since` included).

`expectations_by_slice` groups a suite's expectations so; the engine runs one validation per
non-empty group.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tacit_gen.sql import ident

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause

SLICES = ("rows", "keys", "steps", "all")
_ALIAS = "tacit_increment"
_WHOLE = frozenset({"column", "no_unknown_columns", "freshness", "completeness"})


def slice_of(clause: Clause | None) -> str:
    """The batch a clause's expectations run on under `since` (module docstring)."""
    if clause is None or clause.kind in _WHOLE:
        return "all"
    if clause.kind == "unique":
        return "keys"
    if clause.kind == "cadence":
        return "steps"
    return "rows"


def expectations_by_slice(expectations: Iterable[dict[str, Any]],
                          clauses: Iterable[Clause]) -> dict[str, list[dict[str, Any]]]:
    """The expectations per batch (`SLICES` order, empty batches left out), by the kind of the
    clause each one's ``meta.tacit_clause`` names."""
    by_id = {c.id: c for c in clauses}
    out: dict[str, list[dict[str, Any]]] = {s: [] for s in SLICES}
    for e in expectations:
        out[slice_of(by_id.get(str((e.get("meta") or {}).get("tacit_clause"))))].append(e)
    return {s: es for s, es in out.items() if es}


def slice_query(name: str, contract: Contract, clauses: Iterable[Clause], table: str,
                since_sql: str, dialect: str) -> str | None:
    """The SQL of batch `name` over the relation `table` (SQL text, quoted as needed), the
    increment starting at `since_sql` (an instant literal of `dialect`); None for ``all`` (the
    relation itself)."""
    if name == "all":
        return None
    if contract.time is None or not contract.time.column:
        raise ValueError(f"contract {contract.name} has no time column: no increment to select")
    t = ident(contract.time.column, dialect)
    new = f"SELECT * FROM {table} WHERE {t} >= {since_sql} OR {t} IS NULL"
    if name == "rows":
        return new
    if name == "keys":
        keys = [c.columns for c in clauses if c.kind == "unique"]
        parts = [new]
        for key in dict.fromkeys(keys):
            cols = [ident(k, dialect) for k in key]
            same = " AND ".join(f"tacit_n.{k} = tacit_h.{k}" for k in cols)
            parts.append(f"SELECT tacit_h.* FROM {table} AS tacit_h WHERE tacit_h.{t} < {since_sql} "
                         f"AND EXISTS (SELECT 1 FROM {table} AS tacit_n WHERE "
                         f"(tacit_n.{t} >= {since_sql} OR tacit_n.{t} IS NULL) AND {same})")
        if len(parts) == 2:
            return " UNION ALL ".join(parts)
        # several keys: a history row repeating two of them is one row of the batch
        return f"{parts[0]} UNION ALL SELECT * FROM ({' UNION '.join(parts[1:])}) AS tacit_k"
    if name == "steps":
        series = [ident(s, dialect) for s in contract.series_key]
        last = (f"SELECT {''.join(f'{s}, ' for s in series)}MAX({t}) AS tacit_last FROM {table} "
                f"WHERE {t} < {since_sql}"
                + "".join(f" AND {s} IS NOT NULL" for s in series)
                + (f" GROUP BY {', '.join(series)}" if series else ""))
        on = " AND ".join([*(f"tacit_h.{s} = tacit_l.{s}" for s in series),
                           f"tacit_h.{t} = tacit_l.tacit_last"])
        return (f"{new} UNION ALL SELECT tacit_h.* FROM {table} AS tacit_h "
                f"JOIN ({last}) AS tacit_l ON {on}")
    raise ValueError(f"unknown increment batch {name!r}")


def keep_increment(query: str, clause: Clause | None, since: datetime, since_sql: str,
                   dialect: str) -> str:
    """A custom-SQL expectation's query keeping only the rows of the increment: for a cadence,
    the steps that end at or after `since`; for completeness, the windows (or sessions) that
    end after it. Other queries are returned as they are."""
    if clause is None:
        return query
    if clause.kind == "cadence":
        t = ident(str(clause.param("column")), dialect)
        where = f"{_ALIAS}.{t} >= {since_sql} OR {_ALIAS}.{t} IS NULL"
    elif clause.kind == "completeness":
        where = f"{_ALIAS}.window_end_ms > {_epoch_ms(since)}"
    else:
        return query
    return f"SELECT {_ALIAS}.* FROM ({query}) AS {_ALIAS} WHERE {where}"


def _epoch_ms(instant: datetime) -> int:
    """Whole milliseconds since 1970-01-01 UTC, floored."""
    delta = instant.astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400_000_000 + delta.seconds * 1_000_000 + delta.microseconds) // 1000


def restrict(expectations: list[dict[str, Any]], clauses: Iterable[Clause], since: datetime,
             since_sql: str, dialect: str, custom_type: str) -> list[dict[str, Any]]:
    """`expectations` with each custom-SQL query (`custom_type`) passed through `keep_increment`."""
    by_id = {c.id: c for c in clauses}
    out = []
    for e in expectations:
        kw = e.get("kwargs") or {}
        q = kw.get("unexpected_rows_query")
        if e.get("type") == custom_type and isinstance(q, str):
            clause = by_id.get(str((e.get("meta") or {}).get("tacit_clause")))
            e = {**e, "kwargs": {**kw, "unexpected_rows_query":
                                 keep_increment(q, clause, since, since_sql, dialect)}}
        out.append(e)
    return out

