"""Soda v3 for real: clean data passes every clause; data breaking one clause fails that clause."""

from __future__ import annotations

import copy
import importlib.util
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import EngineRun, VerifyInput
from tacit_gen.plan import plan
from tacit_gen.targets.soda import TARGET
from tests.calendar.data import add_sessions
from tests.conftest import write_artifacts

pytestmark = pytest.mark.engine

# Importing soda here would read (and, when none exists, write ~/.soda/config.yml with usage stats
# on) before the engine has put its own config in place: only check that it is installed.
if importlib.util.find_spec("soda") is None:  # pragma: no cover
    pytest.fail("soda-core-duckdb is not installed: the Soda engine tests cannot run")

ROOT = Path(__file__).resolve().parents[3]
NOW = datetime(2024, 3, 4, 10, 0, tzinfo=UTC)
T0 = datetime(2024, 3, 4, 9, 50, tzinfo=UTC)

Table = tuple[dict[str, str], list[dict[str, Any]]]  # column -> DuckDB type, rows


def _ohlcv() -> Table:
    types = {
        "symbol": "VARCHAR",
        "bar_start": "TIMESTAMPTZ",
        "open": "DECIMAL(18,8)",
        "high": "DECIMAL(18,8)",
        "low": "DECIMAL(18,8)",
        "close": "DECIMAL(18,8)",
        "volume": "DECIMAL(24,4)",
        "trade_count": "BIGINT",
        "adjusted": "BOOLEAN",
        "source_id": "VARCHAR",
        "ingest_run_id": "VARCHAR",
        "transform_version": "VARCHAR",
        "revision": "BIGINT",
    }
    rows = []
    for sym in ("AAA", "BBB"):
        for i in range(3):
            rows.append(
                {
                    "symbol": sym,
                    "bar_start": T0 + timedelta(seconds=60 * i),
                    "open": Decimal("10.5"),
                    "high": Decimal("11"),
                    "low": Decimal("10"),
                    "close": Decimal("10.75"),
                    "volume": Decimal("100.5"),
                    "trade_count": None if i == 1 else 7,
                    "adjusted": False,
                    "source_id": "venue",
                    "ingest_run_id": "run-1",
                    "transform_version": "1.0",
                    "revision": 0,
                }
            )
    return types, rows


def _plant() -> Table:
    types = {
        "series_id": "VARCHAR",
        "event_ts": "TIMESTAMPTZ",
        "value": "DECIMAL(12,4)",
        "unit": "VARCHAR",
        "quality": "VARCHAR",
        "calibration_id": "VARCHAR",
        "source_id": "VARCHAR",
        "ingest_run_id": "VARCHAR",
        "transform_version": "VARCHAR",
        "revision": "BIGINT",
    }
    rows = []
    for sid, unit, step in (("p1", "kPa", 10), ("t1", "degC", 60)):
        for i in range(3):
            rows.append(
                {
                    "series_id": sid,
                    "event_ts": T0 + timedelta(seconds=step * i),
                    "value": None if i == 2 else Decimal("12.5"),
                    "unit": unit,
                    "quality": "bad" if i == 2 else "good",
                    "calibration_id": "cal-1",
                    "source_id": "plc",
                    "ingest_run_id": "run-1",
                    "transform_version": "1.0",
                    "revision": 0,
                }
            )
    # a restated point: the latest revision counts for the cadence, the older one is ignored
    rows.append({**rows[1], "value": Decimal("12.75"), "revision": 1})
    return types, rows


def _fct() -> Table:
    types = {
        "series_id": "VARCHAR",
        "event_ts": "TIMESTAMPTZ",
        "value_degc": "DECIMAL(9,3)",
        "unit": "VARCHAR",
        "quality": "VARCHAR",
        "source_id": "VARCHAR",
        "revision": "BIGINT",
    }
    rows = [
        {
            "series_id": "s1",
            "event_ts": NOW - timedelta(minutes=m),
            "value_degc": v,
            "unit": "degC",
            "quality": q,
            "source_id": "plc",
            "revision": 0,
        }
        for m, v, q in (
            (20, Decimal("21.5"), "good"),
            (10, None, "bad"),
            (5, Decimal("-40"), "suspect"),
        )
    ]
    return types, rows


CATALOG = (
    {
        "series_id": "VARCHAR",
        "unit": "VARCHAR",
        "hard_min": "DECIMAL(12,4)",
        "hard_max": "DECIMAL(12,4)",
        "cadence_seconds": "INTEGER",
    },
    [
        {
            "series_id": "p1",
            "unit": "kPa",
            "hard_min": Decimal("0"),
            "hard_max": Decimal("100"),
            "cadence_seconds": 10,
        },
        {
            "series_id": "t1",
            "unit": "degC",
            "hard_min": Decimal("-40"),
            "hard_max": Decimal("150"),
            "cadence_seconds": 60,
        },
    ],
)

CLEAN: dict[str, Callable[[], Table]] = {
    "ohlcv_1m": _ohlcv,
    "plant_sensor_reading": _plant,
    "fct_sensor_readings": _fct,
}


def _set(col: str, value: Any, row: int = 0) -> Callable[[Table], Table]:
    def f(t: Table) -> Table:
        t[1][row][col] = value
        return t

    return f


def _drop(col: str) -> Callable[[Table], Table]:
    def f(t: Table) -> Table:
        del t[0][col]
        for r in t[1]:
            del r[col]
        return t

    return f


def _retype(col: str, typ: str) -> Callable[[Table], Table]:
    def f(t: Table) -> Table:
        t[0][col] = typ
        return t

    return f


def _extra(t: Table) -> Table:
    t[0]["surprise"] = "VARCHAR"
    for r in t[1]:
        r["surprise"] = "x"
    return t


def _dup(t: Table) -> Table:
    t[1].append(dict(t[1][0]))
    return t


def _shift(col: str, seconds: int, row: int = 1) -> Callable[[Table], Table]:
    def f(t: Table) -> Table:
        t[1][row][col] = t[1][row][col] + timedelta(seconds=seconds)
        return t

    return f


def _stale(t: Table) -> Table:
    for r in t[1]:
        r["event_ts"] = r["event_ts"] - timedelta(hours=1)
    return t


# clause id -> a change of the clean data that breaks exactly that clause
BREAK: dict[str, dict[str, Callable[[Table], Table]]] = {
    "ohlcv_1m": {
        "column:open": _retype("open", "DOUBLE"),
        "column:trade_count": _drop("trade_count"),
        "no_unknown_columns": _extra,
        "not_null:symbol": _set("symbol", None, 2),
        "not_null:volume": _set("volume", None),
        "not_null:adjusted": _set("adjusted", None),
        "not_null:revision": _set("revision", None, 2),
        "unique:symbol,bar_start,revision": _dup,
        "fixed_value:adjusted": _set("adjusted", True),
        "range:volume": _set("volume", Decimal("-1")),
        "range:trade_count": _set("trade_count", -3),
        "invariant:low <= open <= high": _set("open", Decimal("12")),
        "invariant:low <= close <= high": _set("close", Decimal("9")),
        "cadence:bar_start": _shift("bar_start", 30),
    },
    "plant_sensor_reading": {
        "column:event_ts": _retype("event_ts", "TIMESTAMP"),
        "not_null:calibration_id": _set("calibration_id", None),
        "accepted_values:quality": _set("quality", "great"),
        "range:revision": _set("revision", -1, 0),
        "invariant:value is null only when quality = bad": _set("value", None, 0),
        "cadence:event_ts": _shift("event_ts", 4),
        "catalog_unit:unit": _set("unit", "bar"),
        "catalog_bounds:value": _set("value", Decimal("101")),
    },
    "fct_sensor_readings": {
        "column:quality": _drop("quality"),
        "fixed_value:unit": _set("unit", "degF"),
        "accepted_values:quality": _set("quality", "great"),
        "range:value_degc": _set("value_degc", Decimal("150.001")),
        "invariant:value_degc is null only when quality = bad": _set("quality", "good", 1),
        "freshness:event_ts": _stale,
    },
}


# a duplicated key is also a duplicated point, which the cadence clause counts as a step of 0
ALSO_FAILS = {("ohlcv_1m", "unique:symbol,bar_start,revision"): {"cadence:bar_start"}}


def _write(db: Path, name: str, t: Table) -> None:
    con = duckdb.connect(str(db))
    try:
        con.execute("SET TimeZone = 'UTC'")
        types, rows = t
        cols = ", ".join(f'"{c}" {ty}' for c, ty in types.items())
        con.execute(f'CREATE TABLE "{name}" ({cols})')
        if rows:
            marks = ", ".join("?" for _ in types)
            con.executemany(
                f'INSERT INTO "{name}" VALUES ({marks})', [[r[c] for c in types] for r in rows]
            )
    finally:
        con.close()


def _run(tmp: Path, contract_name: str, table: Table, table_name: str = "data") -> EngineRun:
    from tacit_gen.targets.soda.engine import run

    contract = load(ROOT / "contracts" / f"{contract_name}.yaml")
    clauses = plan(contract)
    art = write_artifacts(TARGET, contract, clauses, tmp / "generated")
    db = tmp / "data.duckdb"
    _write(db, table_name, table)
    rel = next((c.param("relation") for c in clauses if c.param("relation")), None)
    if rel:
        _write(db, rel, copy.deepcopy(CATALOG))
    add_sessions(db, clauses)
    work = tmp / "work"
    work.mkdir()
    return run(VerifyInput(contract, clauses, art, db, table_name, NOW, work))


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_clean_data_passes_every_clause(tmp_path: Path, name: str) -> None:
    result = _run(tmp_path, name, CLEAN[name]())
    bad = [v for v in result.verdicts if v.status != "pass"]
    assert bad == []
    assert {v.clause_id for v in result.verdicts} == {
        c.id for c in plan(load(ROOT / "contracts" / f"{name}.yaml"))
    }


CASES = [(n, cid) for n in sorted(BREAK) for cid in BREAK[n]]


@pytest.mark.parametrize(("name", "clause_id"), CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_breaking_one_clause_fails_that_clause(tmp_path: Path, name: str, clause_id: str) -> None:
    table = BREAK[name][clause_id](CLEAN[name]())
    result = _run(tmp_path, name, table)
    by_id = {v.clause_id: v for v in result.verdicts}
    assert by_id[clause_id].status == "fail", by_id[clause_id]
    # every other clause passes, or is not run because its column is gone
    also = ALSO_FAILS.get((name, clause_id), set())
    for cid in also:
        assert by_id[cid].status == "fail"
    others = {
        v.clause_id: v.status for v in result.verdicts if v.clause_id not in also | {clause_id}
    }
    assert {s for s in others.values()} <= {"pass", "n/a"}, others
    if clause_id.startswith("column:") and by_id[clause_id].detail == "column missing":
        col = clause_id.split(":", 1)[1]
        na = {cid for cid, s in others.items() if s == "n/a"}
        assert na and all(col in cid for cid in na)
    else:
        assert set(others.values()) == {"pass"}, others


def test_failing_row_counts_come_from_soda(tmp_path: Path) -> None:
    t = _ohlcv()
    t[1][0]["volume"] = Decimal("-1")
    t[1][3]["volume"] = Decimal("-2")
    t[1][1]["symbol"] = None
    result = _run(tmp_path, "ohlcv_1m", t, table_name="ohlcv_1m")
    by_id = {v.clause_id: v for v in result.verdicts}
    assert (by_id["range:volume"].status, by_id["range:volume"].failures) == ("fail", 2)
    assert (by_id["not_null:symbol"].status, by_id["not_null:symbol"].failures) == ("fail", 1)


def test_type_mismatch_on_a_column_errors_no_other_check(tmp_path: Path) -> None:
    # a VARCHAR `high` makes `low <= open <= high` a string comparison Soda still runs;
    # the scan must not lose the other checks' outcomes
    t = _ohlcv()
    t = _retype("high", "VARCHAR")(t)
    result = _run(tmp_path, "ohlcv_1m", t)
    by_id = {v.clause_id: v for v in result.verdicts}
    assert by_id["column:high"].status == "fail"
    assert by_id["not_null:symbol"].status == "pass"
