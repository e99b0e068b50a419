"""Batches of a minute series for the publish tests: 50 series x N minutes, as pyarrow tables,
each row tagged with its batch number so a reader can tell which batches it sees."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

import pyarrow as pa

from tacit_gen.plan_types import Clause, make_params
from tacit_gen.runtime import Column, Schema

T0 = dt.datetime(2024, 3, 4, 0, 0, tzinfo=dt.UTC)
NOW = T0 + dt.timedelta(days=30)
SERIES = 50


class Minutes(Schema):
    sid: Annotated[str, Column(type="string", nullable=False)]
    ts: Annotated[dt.datetime, Column(type="timestamp_us_utc", nullable=False)]
    v: Annotated[int | None, Column(type="int64")]
    batch: Annotated[int, Column(type="int64", nullable=False)]
    __time__ = "ts"
    __clauses__ = (
        Clause("unique:sid,ts", "unique", ("sid", "ts"), make_params(columns=("sid", "ts")),
               "key: [sid, ts]"),
        Clause("range:v", "range", ("v",), make_params(column="v", min="0", max="100"),
               "v: 0..100"),
        Clause("cadence:ts", "cadence", ("ts", "sid"),
               make_params(column="ts", series=("sid",), interval_seconds=60,
                           from_catalog=False, tolerance_pct="0", gaps_allowed=False),
               "cadence: 60s"),
    )


COLUMNS = {"sid": "VARCHAR", "ts": "TIMESTAMPTZ", "v": "BIGINT", "batch": "BIGINT"}
PG_COLUMNS = {"sid": "TEXT", "ts": "TIMESTAMPTZ", "v": "BIGINT", "batch": "BIGINT"}
ARROW = pa.schema([("sid", pa.string()), ("ts", pa.timestamp("us", tz="UTC")),
                   ("v", pa.int64()), ("batch", pa.int64())])


def batch(number: int, first: int, minutes: int, *, skip: int | None = None,
          bad_v: bool = False, series: int = SERIES) -> pa.Table:
    """Minutes [first, first + minutes) of every series, tagged `number`.

    skip: a minute left out of the first series (a cadence gap); bad_v: one value out of range.
    """
    sids: list[str] = []
    ts: list[dt.datetime] = []
    for s in range(series):
        for m in range(first, first + minutes):
            if s == 0 and m == skip:
                continue
            sids.append(f"s{s:03d}")
            ts.append(T0 + dt.timedelta(minutes=m))
    v = [m % 100 for m in range(len(sids))]
    if bad_v:
        v[len(v) // 2] = 500
    return pa.table({"sid": sids, "ts": ts, "v": v, "batch": [number] * len(sids)}, schema=ARROW)


def create(con: Any, name: str, types: dict[str, str]) -> None:
    cols = ", ".join(f'"{c}" {t}' for c, t in types.items())
    con.raw_sql(f'CREATE TABLE "{name}" ({cols})')


def snapshot(con: Any, name: str) -> list[tuple[Any, ...]]:
    """Every row, ordered: byte-for-byte what a reader sees."""
    return [tuple(r.values()) for r in
            con.table(name).order_by(["sid", "ts", "batch"]).to_pyarrow().to_pylist()]
