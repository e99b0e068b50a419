"""What a backend's types mean, where ibis's own mapping loses it.

Spark has two timestamp types: ``TimestampType`` is an instant (microseconds since the epoch,
UTC, shown and parsed in the session time zone) and ``TimestampNTZType`` is a wall-clock reading.
ibis 12's pyspark backend presents both as a naive ``timestamp``, so the runtime would refuse
every Spark instant. Decided (docs/runtime.md, "Spark"): when the session time zone is UTC, a
``TimestampType`` column is a UTC instant and is re-typed ``timestamp('UTC')`` before any check;
a ``TimestampNTZType`` column stays naive and fails the type check as on every other backend. In
a session with another zone the column is left naive (its day boundaries and text would be that
zone's), so the type check fails and says to set ``spark.sql.session.timeZone=UTC``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ibis.expr.types as ir

__all__ = ["backend_name", "spark_instants"]

_UTC_NAMES = frozenset({"UTC", "Etc/UTC", "Z", "+00:00", "GMT", "Etc/GMT", "UCT", "Zulu", "Etc/UCT"})


def _backend(table: ir.Table) -> Any:
    try:
        return table._find_backend()
    except Exception:  # an unbound (memtable-only) expression: nothing to adapt
        return None


def backend_name(expr: Any) -> str:
    """The name of the ibis backend an expression is bound to (``duckdb``, ``postgres``,
    ``pyspark``, ...), or "" for an unbound one."""
    backend = _backend(expr)
    return str(getattr(backend, "name", "")) if backend is not None else ""


def spark_instants(table: ir.Table) -> ir.Table:
    """`table` with Spark's instant columns typed ``timestamp('UTC')`` (when the session is UTC);
    any other backend's table unchanged."""
    backend = _backend(table)
    if backend is None or getattr(backend, "name", "") != "pyspark":
        return table
    import ibis.expr.datatypes as dt

    session = backend._session
    spark_schema = session.sql(backend.compile(table)).schema  # analysis only, no job
    # by class name: pyspark is imported by whoever made the session, not by this module
    instants = [f.name for f in spark_schema.fields if type(f.dataType).__name__ == "TimestampType"]
    zone = str(session.conf.get("spark.sql.session.timeZone"))
    if not instants or zone not in _UTC_NAMES:
        return table
    utc = dt.Timestamp(timezone="UTC")
    return table.cast({c: utc for c in instants})
