"""Shared test data for the runtime: schemas, a DuckDB table builder, a query counter."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Any

import ibis
import ibis.expr.types as ir

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.runtime import Column, Schema

from ..conftest import CONTRACTS

NOW = dt.datetime(2024, 3, 4, 10, 0, tzinfo=dt.UTC)


class Bars(Schema):
    """A small OHLC schema built from the bundled ohlcv contract's invariants, by hand."""

    symbol: Annotated[str, Column(type="string", nullable=False)]
    bar_start: Annotated[dt.datetime, Column(type="timestamp_ms_utc", nullable=False)]
    low: Annotated[Decimal, Column(type="decimal(18,8)", nullable=False, unit="quote_currency")]
    open: Annotated[Decimal, Column(type="decimal(18,8)", nullable=False, unit="quote_currency")]
    high: Annotated[Decimal, Column(type="decimal(18,8)", nullable=False, unit="quote_currency")]
    trade_count: Annotated[int | None, Column(type="int64")]
    quality: Annotated[str | None, Column(type="enum[good, suspect, bad]")]


def fct_schema() -> type[Schema]:
    """The bundled fct_sensor_readings contract as a Schema (clauses from the real plan)."""
    clauses = plan(load(str(CONTRACTS / "fct_sensor_readings.yaml")))

    class Fct(Schema):
        series_id: Annotated[str, Column(type="string", nullable=False)]
        event_ts: Annotated[dt.datetime, Column(type="timestamp_ms_utc", nullable=False)]
        value_degc: Annotated[
            Decimal | None,
            Column(type="decimal(9,3)", unit="degC", dimension="temperature"),
        ]
        unit: Annotated[str, Column(type="string", nullable=False)]
        quality: Annotated[str | None, Column(type="enum[good, suspect, bad]")]
        source_id: Annotated[str, Column(type="string", nullable=False)]
        revision: Annotated[int, Column(type="int64", nullable=False)]
        __clauses__ = clauses

    return Fct


def duck_table(
    con: Any, name: str, types: dict[str, str], rows: list[tuple[Any, ...]]
) -> ir.Table:
    """A real DuckDB table with exact column types, filled through parameters."""
    cols = ", ".join(f'"{c}" {t}' for c, t in types.items())
    con.raw_sql(f'CREATE OR REPLACE TABLE "{name}" ({cols})')
    if rows:
        marks = ", ".join("?" for _ in types)
        con.con.executemany(f'INSERT INTO "{name}" VALUES ({marks})', rows)
    return con.table(name)  # type: ignore[no-any-return]


BAR_TYPES = {
    "symbol": "VARCHAR",
    "bar_start": "TIMESTAMPTZ",
    "low": "DECIMAL(18,8)",
    "open": "DECIMAL(18,8)",
    "high": "DECIMAL(18,8)",
    "trade_count": "BIGINT",
    "quality": "VARCHAR",
}
T0 = dt.datetime(2024, 3, 4, 9, 0, tzinfo=dt.UTC)


def bar_rows(n: int = 3) -> list[tuple[Any, ...]]:
    return [
        ("AAA", T0 + dt.timedelta(minutes=i), Decimal("10"), Decimal("10.5"), Decimal("11"), 7,
         "good")
        for i in range(n)
    ]


class CountingConnection:
    """Wraps a DuckDB connection and counts every call that can run SQL."""

    RUNS = ("execute", "executemany", "sql", "query", "cursor", "register", "from_arrow",
            "read_csv", "read_parquet", "table", "view")

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name in self.RUNS and callable(attr):
            def counted(*args: Any, **kwargs: Any) -> Any:
                self.calls.append(f"{name}: {str(args[0])[:60] if args else ''}")
                return attr(*args, **kwargs)

            return counted
        return attr


def counting(con: Any) -> CountingConnection:
    """Install a counter on an ibis DuckDB backend (every engine call goes through `con.con`)."""
    counter = CountingConnection(con.con)
    con.con = counter
    return counter


def connect() -> Any:
    return ibis.duckdb.connect()
