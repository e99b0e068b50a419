"""What the wire-schema engines (avro, protobuf, jsonschema) share: the rows of the loaded table as
Python values, and verdicts from per-row problems.

Each engine encodes every row with its generated schema and decodes it back; a row whose value
cannot travel as the field's type fails `column:<c>`, a NULL where the schema has no null fails
`not_null:<c>`, a value outside the enum fails `accepted_values:<c>`, a value other than the
constant fails `fixed_value:<c>`, a column the schema has no field for fails `no_unknown_columns`.
Clauses the artifact does not carry are `n/a` (the target declared them unsupported at render).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen.engines.base import EngineRun, Verdict

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause


@dataclass
class Table:
    """The data relation: column names in order, their DuckDB types, and the rows as dicts."""

    columns: list[str]
    types: dict[str, str]
    rows: list[dict[str, Any]]


def read_table(database: Path, table: str) -> Table:
    """Every row of `table` as Python values (DECIMAL -> Decimal, TIMESTAMPTZ -> aware datetime in UTC)."""
    import duckdb

    from tacit_gen.sql import ident

    con = duckdb.connect(str(database), read_only=True)
    try:
        con.execute("SET TimeZone = 'UTC'")
        desc = con.execute(f"DESCRIBE {ident(table)}").fetchall()
        columns = [str(r[0]) for r in desc]
        types = {str(r[0]): str(r[1]) for r in desc}
        rows = [dict(zip(columns, r, strict=True))
                for r in con.execute(f"SELECT * FROM {ident(table)}").fetchall()]
    finally:
        con.close()
    return Table(columns, types, rows)


def json_value(v: Any) -> Any:
    """A Python value from DuckDB as the JSON value a producer sends."""
    if isinstance(v, Decimal):
        return format(v, "f")
    if isinstance(v, datetime):
        text = v.isoformat()
        if v.microsecond:
            head, _, rest = text.partition(".")
            frac = rest[:6].rstrip("0")
            text = f"{head}.{frac}{rest[6:]}"
        return text.replace("+00:00", "Z") if v.tzinfo is not None else text
    if isinstance(v, date):
        return v.isoformat()
    return v


@dataclass
class Tally:
    """Failing rows per clause id, with the first reason seen for each."""

    counts: Counter[str] = field(default_factory=Counter)
    why: dict[str, str] = field(default_factory=dict)

    def fail(self, clause_id: str, reason: str, rows: int = 1) -> None:
        self.counts[clause_id] += rows
        self.why.setdefault(clause_id, reason)


def same(a: Any, b: Any) -> bool:
    """A value and what came back after the wire are the same: ``==``, except that NaN is the
    same NaN (IEEE says ``nan != nan``; a float64 NaN is a value the wire carries, not a loss)."""
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return bool(a == b)


def verdicts(target: str, clauses: tuple[Clause, ...], carried: set[str], tally: Tally,
             notes: tuple[str, ...] = ()) -> EngineRun:
    """One verdict per plan clause: fail/pass for what the artifact carries, n/a for the rest."""
    out = []
    for c in clauses:
        if c.id not in carried:
            out.append(Verdict(c.id, "n/a", None, f"not in the {target} schema"))
        elif c.warn:  # declared unsupported at render: a schema cannot warn
            out.append(Verdict(c.id, "n/a", None, f"severity warn: {target} cannot warn"))
        elif tally.counts[c.id]:
            out.append(Verdict(c.id, "fail", tally.counts[c.id], tally.why.get(c.id, "")))
        else:
            out.append(Verdict(c.id, "pass", 0))
    return EngineRun(target, tuple(out), notes)


def at_precision(row: dict[str, Any], clauses: tuple[Clause, ...]) -> dict[str, Any]:
    """`row` with the instants a `precision:` clause checks cut to that precision: their finer
    digits are that clause's to judge, not the column type's (a wire schema declares
    `precision:` not checked, so its verdict there is n/a, and the column's stays its type's)."""
    from datetime import datetime, timedelta

    from tacit_gen.plan_types import PRECISION_US

    out = row
    for c in clauses:
        name = str(c.param("column"))
        value = row.get(name)
        if c.kind != "precision" or not isinstance(value, datetime):
            continue
        finer = value.microsecond % PRECISION_US[str(c.param("precision"))]
        if finer:
            out = {**out, name: value - timedelta(microseconds=finer)}
    return out


def error_run(target: str, clauses: tuple[Clause, ...], detail: str) -> EngineRun:
    return EngineRun(target, tuple(Verdict(c.id, "error", None, detail) for c in clauses))
