"""`tacit-gen sample`: clean data passes every clause, each violation breaks exactly one.

Two oracles: the reference evaluator of `tacit_gen.sample` (every clause kind), and plain DuckDB
SQL written here (every kind), run on the data after `load_data` put it in a real DuckDB file.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.contract.model import Contract
from tacit_gen.contract.types import parse_type
from tacit_gen.engines.load import LoadReport, duckdb_type, load_data
from tacit_gen.expr import nodes as n
from tacit_gen.plan import plan
from tacit_gen.plan_types import Clause
from tacit_gen.sample import (
    DEFAULT_NOW,
    CatalogData,
    CatalogSpec,
    SampleData,
    SampleError,
    check_sample,
    evaluate,
    sample,
    violated_clauses,
    write,
)
from tacit_gen.sql import ident, literal, to_sql

from .conftest import BUNDLED, ROOT

# Contracts beyond the bundled ones, to reach every clause kind and type.
EXTRA = {
    # `revision` only as a provenance column, the key without it and no revision_policy: clean
    # data must not restate a point (a second row of the key is a duplicate key)
    "revprov": """
contract: revprov
version: 1.0.0
key: [pair, ts]
time:
  column: ts
  precision: us
  timezone: UTC instant
  cadence: 15m
fields:
  pair: {type: string, nullable: false}
  ts: {type: timestamp_us_utc}
  mid: {type: decimal(18,6), unit: quote_currency}
invariants:
  - mid > 0
provenance_required: [source_id, revision]
""",
    "rich_feed": """
contract: rich_feed
version: 1.0.0
key: [venue, instrument, ts, revision]
time:
  column: ts
  precision: s
  timezone: UTC instant
  cadence: 15m; tolerance +/-5% of interval; gaps allowed
  freshness: 1h
  ingest_column: ingested_at
catalog: {relation: instruments, key: instrument, unit: ccy, hard_min: lo, hard_max: hi}
fields:
  venue: {type: enum[XNYS, XLON]}
  instrument: {type: string}
  ts: {type: timestamp_s_utc}
  ingested_at: {type: timestamp_us_utc, nullable: false}
  price: {type: decimal(10,2), unit: USD}
  ccy: {type: string, constraint: equals catalog unit for instrument}
  qty: {type: int32}
  ratio: {type: float64, unit: percent}
  halted: {type: bool}
  trade_date: {type: date}
  status: {type: string}
  revision_reason: {type: string}
invariants:
  - 0 < price < 100000
  - price within catalog hard_bounds for instrument
  - qty between 1 and 500
  - ratio >= 0 and ratio <= 100
  - status in ('open', 'closed') or halted
  - qty > 10 only when status = 'open'
revision_policy:
  allowed: true
  window: 2 trading days
  reasons: [correction, late]
provenance_required: [revision]
""",
    "frozen": """
contract: frozen
version: 1.0.0
key: [id, ts, revision]
time:
  column: ts
  precision: ns
  timezone: UTC instant
  cadence: 1h
  freshness: 2h
  ingest_column: loaded_at
fields:
  id: {type: string}
  ts: {type: timestamp_ns_utc}
  loaded_at: {type: timestamp_ms_utc}
  amount: {type: decimal(5,2), unit: EUR}
  revision: {type: int64}
invariants:
  - amount > -10 and amount <= 999.99
revision_policy:
  allowed: false
""",
    "window": """
contract: window
version: 1.0.0
key: [id, ts, revision]
time:
  column: ts
  precision: ms
  timezone: UTC instant
  ingest_column: loaded_at
fields:
  id: {type: string}
  ts: {type: timestamp_ms_utc}
  loaded_at: {type: timestamp_ms_utc}
  revision: {type: int64}
revision_policy:
  allowed: true
  window: 2 days
""",
    "norev": """
contract: norev
version: 1.0.0
key: [sensor, ts]
time:
  column: ts
  precision: us
  timezone: UTC instant
  cadence: 10s
fields:
  sensor: {type: int64}
  ts: {type: timestamp_us_utc}
  reading: {type: float32, unit: m}
""",
    "notime": """
contract: notime
version: 1.0.0
key: [code]
fields:
  code: {type: string}
  label: {type: string, nullable: false}
  weight: {type: float64, unit: kg}
invariants:
  - weight > 0
""",
    # a key that leaves the time column out: each key value occurs once (an order, not a series)
    "orderkey": """
contract: orderkey
version: 1.0.0
key: [order_id]
time:
  column: ordered_at
  precision: s
  timezone: UTC instant
fields:
  order_id: {type: int64, nullable: false}
  ordered_at: {type: timestamp_s_utc, nullable: false}
  amount: {type: decimal(12,2), unit: USD, dimension: money}
invariants:
  - amount >= 0
""",
    # pattern:, revision_policy.by and source: (issue 18)
    "series_clauses": (ROOT / "tests" / "fixtures" / "series" / "series_clauses.yaml").read_text(),
    # plausible: catalog (issue 18): a value inside the hard bounds, outside the plausible ones
    "plausible": (ROOT / "tests" / "fixtures" / "plausible" / "plausible.yaml").read_text(),
    # a catalog unit checked against the stated dimension (issue 13)
    "catalog_dimension": (ROOT / "tests" / "fixtures" / "series" / "catalog_dimension.yaml").read_text(),
    # references: (issue 19): a foreign key to a relation written beside the data
    "orders": (ROOT / "tests" / "fixtures" / "references" / "orders.yaml").read_text(),
}

# Violations that cannot be isolated, and why: without a revision below the latest one, a
# duplicated key is also a duplicated point of the series, which the cadence clause flags.
UNAVOIDABLE = {
    ("norev", "unique:sensor,ts"): ("cadence:ts",),  # key is (series, time): no revision
    ("revprov", "unique:pair,ts"): ("cadence:ts",),  # the same: revision is not in the key
    ("frozen", "unique:id,ts,revision"): ("cadence:ts",),  # revisions not allowed: all are 0
    # beyond the hard bounds is beyond the plausible ones too (these lie inside those)
    ("line_pressure", "catalog_bounds:value"): ("plausible:value",),
}


def _extra_contract(tmp_path_factory: pytest.TempPathFactory, name: str) -> Contract:
    d = tmp_path_factory.mktemp("contracts")
    p = d / f"{name}.yaml"
    p.write_text(EXTRA[name].lstrip(), encoding="utf-8")
    return load(str(p))


@pytest.fixture(scope="module", params=[p.stem for p in BUNDLED] + sorted(EXTRA))
def contract(request: pytest.FixtureRequest,
             tmp_path_factory: pytest.TempPathFactory) -> tuple[Contract, tuple[Clause, ...]]:
    name = request.param
    if name in EXTRA:
        c = _extra_contract(tmp_path_factory, name)
    else:
        c = load(str((ROOT / "contracts" / f"{name}.yaml").relative_to(ROOT)))
    return c, plan(c)


# --------------------------------------------------------------------------------------------
# the SQL oracle
# --------------------------------------------------------------------------------------------


def _weekdays_sql(d: str) -> str:
    days = f"date_diff('day', DATE '0001-01-01', {d})"
    return f"(5 * ({days} // 7) + least({days} % 7 + 1, 5))"


def _sql_value(v: Any) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return literal(v)
    return str(v)


def sql_verdicts(db: Path, table: str, contract: Contract, clauses: tuple[Clause, ...],
                 report: LoadReport, now: datetime) -> dict[str, int | None]:
    """clause id -> failing count by hand-written DuckDB SQL; None when not applicable."""
    con = duckdb.connect(str(db), read_only=True)
    con.execute("SET TimeZone = 'UTC'")
    try:
        cols = {r[0]: r[1] for r in con.execute(f"DESCRIBE {ident(table)}").fetchall()}
        t = ident(table)
        out: dict[str, int | None] = {}

        def count(sql: str) -> int:
            row = con.execute(sql).fetchone()
            return int(row[0] or 0) if row else 0

        for c in clauses:
            if c.kind not in ("column", "no_unknown_columns") and any(
                x not in cols for x in c.columns
            ):
                out[c.id] = None
                continue
            col = c.param("column")
            q = ident(col) if col else ""
            if c.kind == "column":
                ok = (col in cols and cols[col] == duckdb_type(parse_type(c.param("type")))
                      and report.failure(col) is None)
                out[c.id] = 0 if ok else 1
            elif c.kind == "no_unknown_columns":
                out[c.id] = sum(1 for k in cols if k not in c.param("columns"))
            elif c.kind == "not_null":
                out[c.id] = count(f"SELECT count(*) FROM {t} WHERE {q} IS NULL")
            elif c.kind == "unique":
                keys = ", ".join(ident(k) for k in c.param("columns"))
                out[c.id] = count(f"SELECT sum(k - 1) FROM (SELECT count(*) AS k FROM {t} "
                                  f"GROUP BY {keys} HAVING count(*) > 1)")
            elif c.kind == "accepted_values":
                vals = ", ".join(literal(v) for v in c.param("values"))
                out[c.id] = count(f"SELECT count(*) FROM {t} WHERE {q} NOT IN ({vals})")
            elif c.kind == "fixed_value":
                out[c.id] = count(
                    f"SELECT count(*) FROM {t} WHERE {q} <> {_sql_value(c.param('value'))}")
            elif c.kind == "range":
                conds = []
                if c.param("min") is not None:
                    conds.append(f"{q} {'>=' if c.param('min_inclusive') else '>'} {c.param('min')}")
                if c.param("max") is not None:
                    conds.append(f"{q} {'<=' if c.param('max_inclusive') else '<'} {c.param('max')}")
                out[c.id] = count(f"SELECT count(*) FROM {t} WHERE NOT ({' AND '.join(conds)})")
            elif c.kind == "invariant":
                assert c.expr is not None
                out[c.id] = count(f"SELECT count(*) FROM {t} WHERE NOT ({to_sql(c.expr)})")
            elif c.kind == "freshness":
                limit = now.timestamp() - int(c.param("max_age_seconds"))
                out[c.id] = count(f"SELECT CASE WHEN max(epoch_us({q})) >= {int(limit * 1e6)} "
                                  f"THEN 0 ELSE 1 END FROM {t}")
            elif c.kind == "cadence":
                series = [ident(s) for s in c.param("series")]
                point = ", ".join([*series, q])
                src = f"(SELECT * FROM {t} WHERE {q} IS NOT NULL)"
                if "revision" in cols:
                    src = (f"(SELECT * FROM (SELECT *, max(revision) OVER (PARTITION BY {point}) "
                           f"AS _l FROM {t} WHERE {q} IS NOT NULL) WHERE revision = _l)")
                part = f"PARTITION BY {', '.join(series)} " if series else ""
                steps = (f"(SELECT *, epoch_us({q}) - epoch_us(lag({q}) OVER ({part}ORDER BY {q})) "
                         f"AS _step FROM {src})")
                tol = Decimal(c.param("tolerance_pct"))
                if c.param("from_catalog"):
                    interval = f"CAST(c.{ident(c.param('catalog_column'))} AS BIGINT) * 1000000"
                    steps += (f" AS s JOIN {ident(c.param('relation'))} AS c "
                              f"ON c.{ident(c.param('catalog_key'))} = s.{series[0]}")
                else:
                    interval = f"CAST({int(c.param('interval_seconds')) * 1_000_000} AS BIGINT)"
                cond = f"_step * 100 < {interval} * {100 - tol}"
                if not c.param("gaps_allowed"):
                    cond += f" OR _step * 100 > {interval} * {100 + tol}"
                out[c.id] = count(f"SELECT count(*) FROM {steps} WHERE _step IS NOT NULL "
                                  f"AND ({cond})")
            elif c.kind in ("catalog_unit", "catalog_bounds", "plausible"):
                rel = ident(c.param("relation"))
                ck = ident(c.param("catalog_key"))
                if c.kind == "catalog_unit":
                    bad = f"d.{q} <> c.{ident(c.param('catalog_column'))}"
                else:
                    lo, hi = ident(c.param("min_column")), ident(c.param("max_column"))
                    bad = f"NOT (c.{lo} <= d.{q} AND d.{q} <= c.{hi})"
                out[c.id] = count(
                    f"SELECT count(*) FROM {t} AS d LEFT JOIN {rel} AS c "
                    f"ON c.{ck} = d.{ident(c.param('key'))} "
                    f"WHERE d.{q} IS NOT NULL AND (c.{ck} IS NULL OR {bad})")
            elif c.kind == "catalog_dimension":
                rel, ck = ident(c.param("relation")), ident(c.param("catalog_key"))
                cu = f"c.{ident(c.param('catalog_column'))}"
                units = ", ".join(literal(u) for u in c.param("units"))
                key = f"d.{ident(c.param('key'))}"
                out[c.id] = count(
                    f"SELECT count(*) FROM {t} AS d LEFT JOIN {rel} AS c ON c.{ck} = {key} "
                    f"WHERE {key} IS NOT NULL AND (c.{ck} IS NULL OR {cu} IS NULL "
                    f"OR {cu} NOT IN ({units}))")
            elif c.kind == "revision_window":
                rev = ident(c.param("column"))
                if not c.param("allowed"):
                    out[c.id] = count(f"SELECT count(*) FROM {t} WHERE {rev} <> 0")
                    continue
                tc, ic = ident(c.param("time_column")), ident(c.param("ingest_column"))
                if c.param("business_days") is not None:
                    late = (f"{_weekdays_sql(f'CAST({ic} AS DATE)')} - "
                            f"{_weekdays_sql(f'CAST({tc} AS DATE)')} > {c.param('business_days')}")
                else:
                    late = (f"epoch_us({ic}) - epoch_us({tc}) > "
                            f"{int(c.param('window_seconds')) * 1_000_000}")
                out[c.id] = count(f"SELECT count(*) FROM {t} WHERE {rev} > 0 AND {late}")
            elif c.kind == "completeness":  # the shared SQL tree (tacit_gen.sql.completeness)
                from tacit_gen.sql import relation
                from tacit_gen.sql.completeness import short_windows_sql

                windows = short_windows_sql(c, relation(table), "duckdb")
                out[c.id] = count(f"SELECT count(*) FROM ({windows}) AS w")
            elif c.kind == "pattern":
                out[c.id] = count(f"SELECT count(*) FROM {t} WHERE NOT regexp_full_match({q}, "
                                  f"{literal(c.param('pattern'))})")
            elif c.kind == "references":
                rel, rc = ident(c.param("to_relation")), ident(c.param("to_column"))
                out[c.id] = count(f"SELECT count(*) FROM {t} WHERE {q} IS NOT NULL AND {q} NOT IN "
                                  f"(SELECT {rc} FROM {rel} WHERE {rc} IS NOT NULL)")
            elif c.kind == "precision":
                unit = {"s": 1_000_000, "ms": 1_000, "us": 1}[c.param("precision")]
                out[c.id] = count(f"SELECT count(*) FROM {t} WHERE epoch_us({q}) % {unit} <> 0")
            elif c.kind == "revision_by":
                vals = ", ".join(literal(v) for v in c.param("values"))
                rev = ident(c.param("revision_column"))
                out[c.id] = count(f"SELECT count(*) FROM {t} WHERE {rev} > 0 AND "
                                  f"({q} IS NULL OR {q} NOT IN ({vals}))")
            else:
                raise AssertionError(c.kind)
        return out
    finally:
        con.close()


def _sql_failing(verdicts: dict[str, int | None]) -> tuple[str, ...]:
    return tuple(k for k, v in verdicts.items() if v)


def _load(tmp_path: Path, contract: Contract, data: SampleData, ext: str = "csv") -> tuple[
        Path, LoadReport]:
    data_path, cat_path = write(data, tmp_path / f"data.{ext}")
    db = tmp_path / "db.duckdb"
    return db, load_data(contract, data_path, db, catalog_path=cat_path)


# --------------------------------------------------------------------------------------------
# clean data
# --------------------------------------------------------------------------------------------


def test_clean_data_passes_every_clause(contract: tuple[Contract, tuple[Clause, ...]],
                                        tmp_path: Path) -> None:
    c, clauses = contract
    data = sample(c, clauses)
    assert data.row_count == 24
    assert list(data.columns) == list(c.column_names)
    checks = check_sample(data, clauses)
    assert [x.clause_id for x in checks] == [cl.id for cl in clauses]
    assert [x for x in checks if x.status != "pass"] == []
    db, report = _load(tmp_path, c, data)
    assert report.ok, report.messages()
    verdicts = sql_verdicts(db, c.name, c, clauses, report, data.now)
    assert set(verdicts) == {cl.id for cl in clauses}
    assert {k: v for k, v in verdicts.items() if v != 0} == {}


def test_clean_data_has_the_features_engines_must_handle(
        contract: tuple[Contract, tuple[Clause, ...]]) -> None:
    c, clauses = contract
    data = sample(c, clauses)
    kinds = {cl.kind for cl in clauses}
    if "revision" in data.columns and (not c.key or "revision" in c.key) and not any(
        cl.kind == "revision_window" and not cl.param("allowed") for cl in clauses
    ):
        assert 1 in data.columns["revision"], "restatements are part of clean data"
    ids = {cl.id for cl in clauses}
    ingest = c.time.ingest_column if c.time else None
    nullable = [f.name for f in c.fields if f"not_null:{f.name}" not in ids
                and f"fixed_value:{f.name}" not in ids and f.name != ingest]
    assert any(None in data.columns[x] for x in nullable) or not nullable
    if kinds & {"catalog_unit", "catalog_bounds"} or any(
        cl.kind == "cadence" and cl.param("from_catalog") for cl in clauses
    ):
        assert data.catalog is not None
        keys = {r[0] for r in data.catalog.rows}
        key_col = next(cl.param("key") or cl.param("series")[0] for cl in clauses
                       if cl.kind in ("catalog_unit", "catalog_bounds", "cadence")
                       and (cl.kind != "cadence" or cl.param("from_catalog")))
        assert set(data.columns[key_col]) <= keys, "a catalog entry for every series"
    else:
        assert data.catalog is None
    for cl in clauses:
        if cl.kind == "column" and cl.param("type").startswith("timestamp"):
            vals = [v for v in data.columns[cl.param("column")] if v is not None]
            assert all(v.utcoffset().total_seconds() == 0 for v in vals)


def test_kinds_covered(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The bundled and extra contracts together reach every clause kind."""
    from tacit_gen.plan_types import KINDS

    seen: set[str] = set()
    for p in BUNDLED:
        seen |= {cl.kind for cl in plan(load(str(p.relative_to(ROOT))))}
    for name in EXTRA:
        seen |= {cl.kind for cl in plan(_extra_contract(tmp_path_factory, name))}
    assert seen == set(KINDS)


# --------------------------------------------------------------------------------------------
# one violation at a time
# --------------------------------------------------------------------------------------------


def test_each_violation_breaks_exactly_one_clause(
        contract: tuple[Contract, tuple[Clause, ...]]) -> None:
    c, clauses = contract
    for cl in clauses:
        data = sample(c, clauses, violate=cl.id)
        expected = (cl.id, *UNAVOIDABLE.get((c.name, cl.id), ()))
        assert set(violated_clauses(data, clauses)) == set(expected), (cl.id, data.description)
        assert set(data.violated) == set(expected)
        assert data.violate == cl.id and data.description


def _representatives(c: Contract, clauses: tuple[Clause, ...]) -> list[Clause]:
    """One clause per (kind, column type kind): the evaluator test covers every clause, this
    cross-check through DuckDB covers every way a violation is built (and stays fast)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for cl in clauses:
        f = c.field(str(cl.param("column"))) if cl.param("column") else None
        key = (cl.kind, f.type.kind if f is not None else "")
        if key not in seen:
            seen.add(key)
            out.append(cl)
    return out


def test_each_violation_seen_by_duckdb_sql(contract: tuple[Contract, tuple[Clause, ...]],
                                          tmp_path: Path) -> None:
    """The same data through load_data into DuckDB: SQL sees exactly the violated clause."""
    c, clauses = contract
    for i, cl in enumerate(_representatives(c, clauses)):
        data = sample(c, clauses, violate=cl.id)
        sub = tmp_path / str(i)
        db, report = _load(sub, c, data)
        verdicts = sql_verdicts(db, c.name, c, clauses, report, data.now)
        expected = {cl.id, *UNAVOIDABLE.get((c.name, cl.id), ())}
        assert set(_sql_failing(verdicts)) == expected, (cl.id, data.description, verdicts)
        # clauses the SQL cannot evaluate are exactly those on a dropped column
        na = {k for k, v in verdicts.items() if v is None}
        if cl.kind == "column" and cl.param("column") not in data.columns:
            assert all(cl.param("column") in x.columns for x in clauses if x.id in na)
        else:
            assert na == set()


def test_violation_details_bundled() -> None:
    """The documented shape of a few violations on the seed contracts."""
    c = load("contracts/plant_sensor_reading.yaml")
    clauses = plan(c)
    kpa = sample(c, clauses, violate="catalog_unit:unit")
    assert kpa.catalog is not None and kpa.catalog.rows[0][:2] == ("series_id_01", "bar")
    units = {r[0]: r[1] for r in kpa.catalog.rows}
    changed = [r for r in kpa.rows() if r["unit"] is not None and r["unit"] != units[r["series_id"]]]
    assert len(changed) == 1 and changed[0]["series_id"] == "series_id_01"  # the bar series
    assert changed[0]["unit"] == "kPa"  # the kPa incident

    o = load("contracts/ohlcv_1m.yaml")
    ocl = plan(o)
    dup = sample(o, ocl, violate="unique:symbol,bar_start,revision")
    assert dup.row_count == 25
    rows = dup.rows()
    counts: dict[tuple[Any, ...], int] = {}
    for r in rows:
        k = (r["symbol"], r["bar_start"], r["revision"])
        counts[k] = counts.get(k, 0) + 1
    (dk,) = [k for k, v in counts.items() if v > 1]
    # the duplicated row is below the latest revision of its point: cadence is untouched
    assert dk[2] == 0 and (dk[0], dk[1], 1) in counts

    f = load("contracts/fct_sensor_readings.yaml")
    fcl = plan(f)
    stale = sample(f, fcl, violate="freshness:event_ts")
    newest = max(v for v in stale.columns["event_ts"] if v is not None)
    assert (stale.now - newest).total_seconds() > 900
    naive = sample(f, fcl, violate="column:event_ts")
    assert naive.types["event_ts"] == "timestamp_ms"
    assert all(v.tzinfo is None for v in naive.columns["event_ts"] if v is not None)


def test_unknown_clause_and_bad_arguments() -> None:
    c = load("contracts/ohlcv_1m.yaml")
    clauses = plan(c)
    with pytest.raises(SampleError, match="unknown clause"):
        sample(c, clauses, violate="range:nope")
    with pytest.raises(SampleError):
        sample(c, clauses, rows=0)
    with pytest.raises(SampleError):
        sample(c, clauses, now=datetime(2024, 1, 1))  # naive now


def test_rows_seed_and_now() -> None:
    c = load("contracts/fct_sensor_readings.yaml")
    clauses = plan(c)
    for rows in (1, 2, 3, 7, 50):
        d = sample(c, clauses, rows=rows)
        assert d.row_count == rows
        assert violated_clauses(d, clauses) == ()
    assert sample(c, clauses, seed=1).columns != sample(c, clauses, seed=2).columns
    now = datetime(2030, 6, 1, 8, 7, 6, 543210, tzinfo=UTC)
    d = sample(c, clauses, now=now)
    assert d.now == now and violated_clauses(d, clauses) == ()
    assert max(v for v in d.columns["event_ts"] if v is not None) <= now
    assert sample(c, clauses).now == DEFAULT_NOW


def test_per_series_calendar_from_the_catalog(tmp_path: Path) -> None:
    """`calendar: per series from catalog`: the catalog puts the series on XNYS and XLON in turn,
    each series' bars lie in its own exchange's sessions, and the reference verdicts read each
    series' code: the same bars under swapped codes, or a series missing from the catalog, fail
    cadence (tests/calendar/test_calendar_sample.py runs the engines on the same data)."""
    from dataclasses import replace

    from tests.calendar.data import MINUTE

    src = tmp_path / "ps.yaml"
    src.write_text(MINUTE.replace("  calendar: XNYS\n", "  calendar: per series from catalog\n")
                   + "catalog: {relation: instruments, key: symbol, calendar: venue}\n", encoding="utf-8")
    c = load(str(src))
    clauses = plan(c)
    now = datetime(2024, 1, 2, 8, 30, tzinfo=UTC)  # London open since 08:00, New York closed
    d = sample(c, clauses, rows=120, now=now)
    assert d.catalog is not None and d.catalog.spec.columns == ("symbol", "venue")
    assert [r[1] for r in d.catalog.rows] == ["XNYS", "XLON", "XNYS"]
    bars = {s: [t for s2, t in zip(d.columns["symbol"], d.columns["bar_start"], strict=True) if s2 == s]
            for s in ("symbol_01", "symbol_02")}
    # New York's last session (Fri 2023-12-29, 14:30-21:00 UTC), after London's close at 16:30
    assert {t.date().isoformat() for t in bars["symbol_01"]} == {"2023-12-29"}
    assert min(t.hour for t in bars["symbol_01"]) >= 17, bars["symbol_01"]
    # London today from 08:00, then over the weekend and New Year's Day to Friday's session
    assert {t.date().isoformat() for t in bars["symbol_02"]} == {"2023-12-29", "2024-01-02"}
    assert min(t for t in bars["symbol_02"] if t.day == 2) == now.replace(minute=0)
    assert violated_clauses(d, clauses) == ()
    swapped = CatalogData(d.catalog.spec, tuple((k, "XLON" if v == "XNYS" else "XNYS")
                                                for k, v in d.catalog.rows))
    assert violated_clauses(replace(d, catalog=swapped), clauses) == ("cadence:bar_start",)
    missing = CatalogData(d.catalog.spec, d.catalog.rows[1:])
    assert violated_clauses(replace(d, catalog=missing), clauses) == ("cadence:bar_start",)
    for clause in ("cadence:bar_start", "revision_window"):
        assert sample(c, clauses, rows=120, now=now, violate=clause).violated == (clause,)
    a, b = write(d, tmp_path / "a.csv"), write(sample(c, clauses, rows=120, now=now), tmp_path / "b.csv")
    assert a[1] is not None and b[1] is not None
    assert a[0].read_bytes() == b[0].read_bytes() and a[1].read_bytes() == b[1].read_bytes()
    assert a[1].read_text(encoding="utf-8").splitlines()[:2] == ["symbol,venue", "symbol_01,XNYS"]


# --------------------------------------------------------------------------------------------
# the evaluator
# --------------------------------------------------------------------------------------------


def _c(name: str) -> n.Column:
    return n.Column(name)


def test_evaluator_three_valued_logic() -> None:
    lt = n.Compare((_c("a"), _c("b")), ("<",))
    assert evaluate(lt, {"a": 1, "b": 2}) is True
    assert evaluate(lt, {"a": None, "b": 2}) is None
    chain = n.Compare((_c("lo"), _c("x"), _c("hi")), ("<=", "<="))
    assert evaluate(chain, {"lo": 1, "x": 5, "hi": 3}) is False
    assert evaluate(chain, {"lo": None, "x": 5, "hi": 3}) is False  # UNKNOWN AND FALSE
    assert evaluate(chain, {"lo": None, "x": 2, "hi": 3}) is None
    only = n.OnlyWhen(n.IsNull(_c("v")), n.Compare((_c("q"), n.EnumLiteral("bad")), ("=",)))
    assert evaluate(only, {"v": None, "q": "good"}) is False
    assert evaluate(only, {"v": None, "q": None}) is None
    assert evaluate(only, {"v": Decimal("1.5"), "q": None}) is True
    inl = n.InList(_c("s"), (n.String("a"), n.String("b")))
    assert evaluate(inl, {"s": "c"}) is False
    assert evaluate(inl, {"s": None}) is None
    assert evaluate(n.Not(inl), {"s": None}) is None
    btw = n.Between(_c("x"), n.Number("1"), n.Number("2"))
    assert evaluate(btw, {"x": Decimal("2.0")}) is True
    assert evaluate(btw, {"x": 2.5}) is False
    assert evaluate(n.Or(n.Bool(True), lt), {"a": None, "b": None}) is True
    div = n.Compare((n.BinOp("/", _c("a"), _c("b")), n.Number("1")), (">",))
    assert evaluate(div, {"a": 1, "b": 0}) is None
    with pytest.raises(KeyError):
        evaluate(lt, {"a": 1})


def test_evaluator_catalog_forms() -> None:
    spec = CatalogSpec("cat", "k", unit="u", hard_min="lo", hard_max="hi")
    cat = CatalogData(spec, (("s1", "bar", Decimal(0), Decimal(10)),))
    unit = n.CatalogUnit(_c("unit"), _c("sid"))
    bounds = n.CatalogBounds(_c("v"), _c("sid"))
    assert evaluate(unit, {"unit": "bar", "sid": "s1"}, cat) is True
    assert evaluate(unit, {"unit": "kPa", "sid": "s1"}, cat) is False
    assert evaluate(unit, {"unit": "bar", "sid": "s9"}, cat) is False  # no catalog entry
    assert evaluate(unit, {"unit": None, "sid": "s9"}, cat) is None  # null passes first
    assert evaluate(bounds, {"v": Decimal("10.0001"), "sid": "s1"}, cat) is False
    assert evaluate(bounds, {"v": Decimal(10), "sid": "s1"}, cat) is True


# --------------------------------------------------------------------------------------------
# files and determinism
# --------------------------------------------------------------------------------------------


def test_csv_format(tmp_path: Path) -> None:
    c = load("contracts/ohlcv_1m.yaml")
    data = sample(c, plan(c), rows=4)
    path, cat = write(data, tmp_path / "o.csv")
    assert cat is None
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == ",".join(c.column_names)
    first = lines[1].split(",")
    assert first[1].endswith(".000+00:00") and "T" in first[1]
    assert len(first[2].split(".")[1]) == 8  # decimal(18,8) as exact text
    assert first[8] == "false"
    p = load("contracts/plant_sensor_reading.yaml")
    d2 = sample(p, plan(p))
    _, cat2 = write(d2, tmp_path / "p.csv")
    assert cat2 == tmp_path / "p.catalog.csv"
    assert cat2.read_text().splitlines()[0] == "series_id,unit,hard_min,hard_max,cadence_seconds"
    _, cat3 = write(d2, tmp_path / "p.parquet", tmp_path / "elsewhere.csv")
    assert cat3 == tmp_path / "elsewhere.csv"
    with pytest.raises(SampleError):
        write(d2, tmp_path / "p.json")


def test_parquet_types(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    c = load("contracts/plant_sensor_reading.yaml")
    path, cat = write(sample(c, plan(c)), tmp_path / "p.parquet")
    schema = pq.read_schema(path)
    assert str(schema.field("event_ts").type) == "timestamp[ms, tz=UTC]"
    assert str(schema.field("value").type) == "decimal128(12, 4)"
    assert str(schema.field("revision").type) == "int64"
    assert cat is not None and str(pq.read_schema(cat).field("hard_max").type) == \
        "decimal128(38, 10)"


def hash_cases(out_dir: Path) -> dict[str, str]:
    """sha256 of the files written for each bundled contract: clean, and two violations."""
    out = {}
    for p in BUNDLED:
        c = load(str(p.relative_to(ROOT)))
        cl = plan(c)
        for v in (None, cl[-1].id, next(x.id for x in cl if x.kind == "unique")):
            data = sample(c, cl, violate=v, seed=7)
            for ext in ("csv", "parquet"):
                path, cat = write(data, out_dir / f"x.{ext}")
                h = hashlib.sha256(path.read_bytes())
                if cat is not None:
                    h.update(cat.read_bytes())
                out[f"{c.name}:{v}:{ext}"] = h.hexdigest()
    return out


_HASH_SCRIPT = (
    "import json, sys, tempfile; from pathlib import Path; "
    "from tests.test_sample import hash_cases; "
    "d = tempfile.mkdtemp(); print(json.dumps(hash_cases(Path(d)), sort_keys=True))"
)


def test_byte_identical_across_runs_and_hash_seeds(tmp_path: Path) -> None:
    c = load("contracts/plant_sensor_reading.yaml")
    cl = plan(c)
    a, _ = write(sample(c, cl, seed=3), tmp_path / "a.parquet")
    b, _ = write(sample(c, cl, seed=3), tmp_path / "b.parquet")
    assert a.read_bytes() == b.read_bytes()
    here = hash_cases(tmp_path)  # pytest runs with a random hash seed
    seed = "4242" if os.environ.get("PYTHONHASHSEED") != "4242" else "7"
    res = subprocess.run([sys.executable, "-c", _HASH_SCRIPT], cwd=ROOT, check=True,
                         env=dict(os.environ, PYTHONHASHSEED=seed), capture_output=True, text=True)
    assert json.loads(res.stdout) == here
    assert len(set(here.values())) == len(here)  # every case is a different file


def test_sha_of_content_is_stable_in_process() -> None:
    c = load("contracts/ohlcv_1m.yaml")
    cl = plan(c)
    digests = {hashlib.sha256(repr(sample(c, cl, violate="cadence:bar_start").columns).encode())
               .hexdigest() for _ in range(3)}
    assert len(digests) == 1
