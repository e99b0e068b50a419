"""ibis engine for real: the generated module, imported by path, runs parse() on a DuckDB file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import ibis  # noqa: F401
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import EngineRun, VerifyInput
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.ibis import TARGET
from tacit_gen.targets.ibis.engine import run
from tests.calendar.data import add_sessions

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[3]
NOW = datetime(2024, 3, 4, 10, 0, tzinfo=UTC)
T0 = datetime(2024, 3, 4, 9, 50, tzinfo=UTC)

OHLCV = {
    "symbol": "VARCHAR", "bar_start": "TIMESTAMPTZ", "open": "DECIMAL(18,8)",
    "high": "DECIMAL(18,8)", "low": "DECIMAL(18,8)", "close": "DECIMAL(18,8)",
    "volume": "DECIMAL(24,4)", "trade_count": "BIGINT", "adjusted": "BOOLEAN",
    "source_id": "VARCHAR", "ingest_run_id": "VARCHAR", "transform_version": "VARCHAR",
    "revision": "BIGINT",
}
PLANT = {
    "series_id": "VARCHAR", "event_ts": "TIMESTAMPTZ", "value": "DECIMAL(12,4)",
    "unit": "VARCHAR", "quality": "VARCHAR", "calibration_id": "VARCHAR",
    "source_id": "VARCHAR", "ingest_run_id": "VARCHAR", "transform_version": "VARCHAR",
    "revision": "BIGINT",
}


def ohlcv_rows() -> list[dict[str, Any]]:
    return [
        {"symbol": sym, "bar_start": T0 + timedelta(seconds=60 * i), "open": Decimal("10.5"),
         "high": Decimal("11"), "low": Decimal("10"), "close": Decimal("10.75"),
         "volume": Decimal("100.5"), "trade_count": None if i == 1 else 7, "adjusted": False,
         "source_id": "venue", "ingest_run_id": "run-1", "transform_version": "1.0", "revision": 0}
        for sym in ("AAA", "BBB") for i in range(3)
    ]


def plant_rows() -> list[dict[str, Any]]:
    rows = [
        {"series_id": sid, "event_ts": T0 + timedelta(seconds=step * i),
         "value": None if i == 2 else Decimal("12.5"), "unit": unit,
         "quality": "bad" if i == 2 else "good", "calibration_id": "cal-1", "source_id": "plc",
         "ingest_run_id": "run-1", "transform_version": "1.0", "revision": 0}
        for sid, unit, step in (("p1", "kPa", 10), ("t1", "degC", 60)) for i in range(3)
    ]
    rows.append({**rows[1], "value": Decimal("12.75"), "revision": 1})  # a restated point
    return rows


def setup(tmp_path: Path, name: str, types: dict[str, str], rows: list[dict[str, Any]],
          catalog: bool = False) -> VerifyInput:
    contract = load(str(ROOT / "contracts" / f"{name}.yaml"))
    clauses = plan(contract)
    art = TARGET.render(contract, clauses, RenderOptions()).artifacts[0]
    (tmp_path / "artifacts" / "ibis").mkdir(parents=True, exist_ok=True)
    (tmp_path / "artifacts" / art.path).write_text(art.content, encoding="utf-8")
    db = tmp_path / "data.duckdb"
    con = duckdb.connect(str(db))
    con.execute("SET TimeZone = 'UTC'")
    cols = ", ".join(f'"{c}" {t}' for c, t in types.items())
    con.execute(f'CREATE TABLE "{name}" ({cols})')
    if rows:
        marks = ", ".join("?" for _ in types)
        con.executemany(f'INSERT INTO "{name}" VALUES ({marks})',
                        [tuple(r.get(c) for c in types) for r in rows])
    if catalog:
        con.execute("CREATE TABLE series_catalog (series_id VARCHAR, unit VARCHAR, "
                    "hard_min DECIMAL(12,4), hard_max DECIMAL(12,4), cadence_seconds INTEGER)")
        con.execute("INSERT INTO series_catalog VALUES ('p1', 'kPa', 0, 300, 10), "
                    "('t1', 'degC', -40, 150, 60)")
    con.close()
    add_sessions(db, clauses)
    return VerifyInput(contract, clauses, tmp_path / "artifacts", db, name, NOW, tmp_path)


def statuses(r: EngineRun) -> dict[str, str]:
    return {v.clause_id: v.status for v in r.verdicts}


def failing(r: EngineRun) -> dict[str, int | None]:
    return {v.clause_id: v.failures for v in r.verdicts if v.status != "pass"}


def test_clean_ohlcv_passes_every_clause(tmp_path: Path) -> None:
    inp = setup(tmp_path, "ohlcv_1m", OHLCV, ohlcv_rows())
    r = run(inp)
    assert r.target == "ibis"
    assert set(statuses(r)) == {c.id for c in inp.clauses}
    assert failing(r) == {}


def test_broken_ohlcv_fails_exactly_the_broken_clauses(tmp_path: Path) -> None:
    rows = ohlcv_rows()
    rows[0]["high"] = Decimal("9")  # low <= open <= high and low <= close <= high
    rows[1]["adjusted"] = True
    rows[2]["volume"] = Decimal("-1")
    rows[4]["bar_start"] = rows[3]["bar_start"] + timedelta(seconds=90)  # off cadence
    r = run(setup(tmp_path, "ohlcv_1m", OHLCV, rows))
    assert failing(r) == {
        "invariant:low <= open <= high": 1, "invariant:low <= close <= high": 1,
        "fixed_value:adjusted": 1, "range:volume": 1, "cadence:bar_start": 2,
    }


def test_plant_with_catalog(tmp_path: Path) -> None:
    rows = plant_rows()
    assert failing(run(setup(tmp_path, "plant_sensor_reading", PLANT, rows, True))) == {}
    rows[0]["unit"] = "bar"  # the kPa incident, in reverse
    rows[3]["value"] = Decimal("500")  # out of the catalog's hard bounds
    rows.append({**rows[4], "series_id": "zz9"})  # a series the catalog does not know
    r = run(setup(tmp_path / "b", "plant_sensor_reading", PLANT, rows, True))
    # the unknown series fails every clause that reads the catalog, cadence included
    assert failing(r) == {"catalog_unit:unit": 2, "catalog_bounds:value": 2, "cadence:event_ts": 1}


def test_missing_catalog_is_an_error_never_a_pass(tmp_path: Path) -> None:
    r = run(setup(tmp_path, "plant_sensor_reading", PLANT, plant_rows(), catalog=False))
    s = statuses(r)
    assert s["catalog_unit:unit"] == s["catalog_bounds:value"] == s["cadence:event_ts"] == "error"
    assert s["not_null:series_id"] == "pass"


def test_missing_column_and_freshness(tmp_path: Path) -> None:
    types = {"series_id": "VARCHAR", "event_ts": "TIMESTAMPTZ", "value_degc": "DECIMAL(9,3)",
             "unit": "VARCHAR", "quality": "VARCHAR", "source_id": "VARCHAR"}  # no revision
    rows = [{"series_id": "s1", "event_ts": NOW - timedelta(minutes=20), "value_degc": Decimal("1"),
             "unit": "degC", "quality": "good", "source_id": "x"}]
    r = run(setup(tmp_path, "fct_sensor_readings", types, rows))
    s = statuses(r)
    assert s["column:revision"] == "fail"
    assert s["not_null:revision"] == s["unique:series_id,event_ts,revision"] == "error"
    assert s["freshness:event_ts"] == "fail"  # 20 minutes old, 15 allowed
    assert s["range:value_degc"] == "pass"


def test_unloadable_artifact_errors_every_clause(tmp_path: Path) -> None:
    inp = setup(tmp_path, "ohlcv_1m", OHLCV, ohlcv_rows())
    (inp.artifact_dir / "ibis" / "ohlcv_1m.py").write_text("raise RuntimeError('no')\n")
    r = run(inp)
    assert {v.status for v in r.verdicts} == {"error"}


def test_type_drift_fails_column_structurally_as_in_pandera(tmp_path: Path) -> None:
    """A DOUBLE where the contract says decimal: parse() converts, but column: is judged as cast()
    judges it, so ibis and pandera (and dbt, Soda, GX) give the same verdict (no exit 3)."""
    from tacit_gen.targets.pandera import TARGET as PANDERA
    from tacit_gen.targets.pandera.engine import run as run_pandera

    inp = setup(tmp_path, "ohlcv_1m", {**OHLCV, "volume": "DOUBLE"}, ohlcv_rows())
    for art in PANDERA.render(inp.contract, inp.clauses, RenderOptions()).artifacts:
        (tmp_path / "artifacts" / art.path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "artifacts" / art.path).write_text(art.content, encoding="utf-8")
    ours = run(inp)
    assert set(failing(ours)) == {"column:volume"}, failing(ours)
    volume = next(v for v in ours.verdicts if v.clause_id == "column:volume")
    assert volume.status == "fail" and "structural" in volume.detail
    # the other clauses on volume still ran on the converted values
    assert statuses(ours)["range:volume"] == "pass"
    theirs = run_pandera(inp)
    assert statuses(theirs)["column:volume"] == "fail"
