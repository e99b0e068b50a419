"""The GX engine for real: clean data passes every clause, data breaking one clause fails it.

GX takes ~11 s to import; the engine keeps one ephemeral context per process, so every test of
this module shares it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest

import tacit_gen.targets.gx.engine as gx_engine
from tacit_gen.contract.loader import load
from tacit_gen.engines.base import VerifyInput
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.gx import TARGET
from tests.calendar.data import add_sessions

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[3]
T0 = datetime(2024, 1, 2, 10, 0, tzinfo=UTC)


def ts(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).isoformat()


def duck_type(t: str) -> str:
    simple = {"string": "VARCHAR", "bool": "BOOLEAN", "int32": "INTEGER", "int64": "BIGINT",
              "float32": "FLOAT", "float64": "DOUBLE", "date": "DATE"}
    if t in simple:
        return simple[t]
    if t.startswith("enum["):
        return "VARCHAR"
    if t.startswith("decimal"):
        return t.upper()
    if t.startswith("timestamp_"):
        return "TIMESTAMPTZ"
    raise ValueError(t)


def ohlcv_rows() -> list[dict[str, Any]]:
    rows = []
    for sym in ("AAA", "BBB"):
        for i in range(3):
            rows.append({"symbol": sym, "bar_start": ts(i), "open": "10.5", "high": "12", "low": "9.25",
                         "close": "11", "volume": "100.5", "trade_count": 7 if i else None,
                         "adjusted": False, "source_id": "vendor", "ingest_run_id": "run1",
                         "transform_version": "1.0", "revision": 0})
    restated = dict(rows[1], revision=1, close="11.5")
    return [*rows, restated]


def plant_rows() -> list[dict[str, Any]]:
    rows = []
    for sid, unit, step, value in (("s1", "degC", 1, "20.5"), ("s2", "bar", 0.5, "3.25")):
        for i in range(4):
            rows.append({"series_id": sid, "event_ts": ts(i * step), "value": value, "unit": unit,
                         "quality": "good", "calibration_id": "cal1", "source_id": "dev",
                         "ingest_run_id": "r", "transform_version": "1", "revision": 0})
    rows[3] = dict(rows[3], value=None, quality="bad")
    return rows


def fct_rows() -> list[dict[str, Any]]:
    rows = []
    for i in range(4):
        rows.append({"series_id": "s1", "event_ts": ts(i), "value_degc": "21.125", "unit": "degC",
                     "quality": "good", "source_id": "dev", "revision": 0})
    rows[2] = dict(rows[2], value_degc=None, quality="bad")
    return rows


DATA = {"ohlcv_1m": ohlcv_rows, "plant_sensor_reading": plant_rows, "fct_sensor_readings": fct_rows}
NOW = {"ohlcv_1m": T0, "plant_sensor_reading": T0, "fct_sensor_readings": T0 + timedelta(minutes=10)}

# SQL that breaks exactly the named clause (other clauses may fail too; only this one is asserted)
BREAK: dict[str, dict[str, list[str]]] = {
    "ohlcv_1m": {
        "invariant:low <= open <= high": ["UPDATE d SET open = 13 WHERE symbol = 'AAA' AND revision = 0"],
        "invariant:low <= close <= high": ["UPDATE d SET close = 9 WHERE symbol = 'BBB'"],
        "cadence:bar_start": ["DELETE FROM d WHERE symbol = 'AAA' AND bar_start = TIMESTAMPTZ '" + ts(1) + "'"],
        "fixed_value:adjusted": ["UPDATE d SET adjusted = TRUE WHERE symbol = 'BBB'"],
    },
    "plant_sensor_reading": {
        "invariant:value is null only when quality = bad": ["UPDATE d SET value = NULL WHERE series_id = 's2'"],
        "cadence:event_ts": ["UPDATE d SET event_ts = event_ts + INTERVAL 7 SECOND WHERE series_id = 's1' AND event_ts = TIMESTAMPTZ '" + ts(2) + "'"],
        "catalog_unit:unit": ["UPDATE d SET unit = 'kPa' WHERE series_id = 's2'"],
        # a reading of s1 at midnight two days before: that UTC day is judged, with 1 of 1440
        "completeness:event_ts": ["INSERT INTO d SELECT * REPLACE (TIMESTAMPTZ '2023-12-31 00:00:00+00' "
                                  "AS event_ts) FROM d WHERE series_id = 's1' AND rowid = (SELECT "
                                  "min(rowid) FROM d WHERE series_id = 's1')"],
        "catalog_bounds:value": ["UPDATE d SET value = 11 WHERE series_id = 's2' AND value IS NOT NULL"],
        "accepted_values:quality": ["UPDATE d SET quality = 'great' WHERE series_id = 's1'"],
    },
    "fct_sensor_readings": {
        "invariant:value_degc is null only when quality = bad": ["UPDATE d SET quality = 'suspect' WHERE value_degc IS NULL"],
        "range:value_degc": ["UPDATE d SET value_degc = 150.001 WHERE quality = 'good'"],
        "fixed_value:unit": ["UPDATE d SET unit = 'degF' WHERE revision = 0"],
        "accepted_values:quality": ["UPDATE d SET quality = 'fine' WHERE quality = 'good'"],
        "freshness:event_ts": ["UPDATE d SET event_ts = event_ts - INTERVAL 1 HOUR"],
    },
}


def generic_breaks(clauses: tuple[Any, ...]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for c in clauses:
        col = c.param("column")
        if c.kind == "column":
            t = c.param("type")
            alter = {"timestamp_ms_utc": "TIMESTAMP", "int64": "INTEGER", "bool": "VARCHAR"}.get(t)
            if t.startswith("decimal"):
                alter = "DOUBLE"
            out[c.id] = ([f'ALTER TABLE d ALTER "{col}" TYPE {alter}'] if alter
                         else [f'ALTER TABLE d DROP COLUMN "{col}"'])
        elif c.kind == "no_unknown_columns":
            out[c.id] = ["ALTER TABLE d ADD COLUMN surprise INTEGER"]
        elif c.kind == "not_null":
            out[c.id] = [f'ALTER TABLE d ALTER "{col}" DROP NOT NULL',
                         f'UPDATE d SET "{col}" = NULL WHERE rowid = (SELECT min(rowid) FROM d)']
        elif c.kind == "unique":
            out[c.id] = ["INSERT INTO d SELECT * FROM d WHERE rowid = (SELECT min(rowid) FROM d)"]
        elif c.kind == "pattern":  # an upper-case id with a hyphen: no portable pattern of ours takes it
            out[c.id] = [f"UPDATE d SET \"{col}\" = 'X-1' WHERE rowid = (SELECT min(rowid) FROM d)"]
        elif c.kind == "precision":  # a microsecond digit in a millisecond column
            out[c.id] = [f'UPDATE d SET "{col}" = "{col}" + INTERVAL 1 MICROSECOND '
                         "WHERE rowid = (SELECT min(rowid) FROM d)"]
        elif c.kind == "range":
            lo, hi = c.param("min"), c.param("max")
            val = f"{lo} - 1" if lo is not None else f"{hi} + 1"
            out[c.id] = [f'UPDATE d SET "{col}" = {val} WHERE rowid = (SELECT min(rowid) FROM d)']
    return out


def make_db(path: Path, name: str, clauses: tuple[Any, ...], contract: Any, statements: list[str]) -> None:
    path.unlink(missing_ok=True)
    con = duckdb.connect(str(path))
    try:
        con.execute("SET TimeZone='UTC'")
        fields = [(f.name, duck_type(str(f.type))) for f in contract.fields]
        types = {c.param("column"): duck_type(c.param("type")) for c in clauses if c.kind == "column"}
        cols = [(n, types.get(n, t)) for n, t in fields]
        con.execute("CREATE TABLE d (" + ", ".join(f'"{n}" {t}' for n, t in cols) + ")")
        select = ", ".join(f"CAST(? AS {t})" for _, t in cols)
        for row in DATA[name]():
            con.execute(f"INSERT INTO d SELECT {select}", [row.get(n) for n, _ in cols])
        con.execute("CREATE TABLE series_catalog (series_id VARCHAR, unit VARCHAR, "
                    "hard_min DECIMAL(12,4), hard_max DECIMAL(12,4), cadence_seconds INTEGER)")
        con.execute("INSERT INTO series_catalog VALUES ('s1', 'degC', -40, 150, 60), "
                    "('s2', 'bar', 0, 10, 30)")
        for stmt in statements:
            con.execute(stmt)
    finally:
        con.close()
    add_sessions(path, clauses)


NAMES = sorted(DATA)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("gx_art")
    out: dict[str, Any] = {"root": root}
    for name in NAMES:
        contract = load(ROOT / "contracts" / f"{name}.yaml")
        clauses = plan(contract)
        art = TARGET.render(contract, clauses, RenderOptions()).artifacts[0]
        (root / art.path).parent.mkdir(parents=True, exist_ok=True)
        (root / art.path).write_text(art.content, encoding="utf-8")
        out[name] = (contract, clauses)
    return out


def run(rendered: dict[str, Any], name: str, statements: list[str], tmp: Path) -> dict[str, Any]:
    contract, clauses = rendered[name]
    db = tmp / f"{name}.duckdb"
    make_db(db, name, clauses, contract, statements)
    inp = VerifyInput(contract, clauses, rendered["root"], db, "d", NOW[name], tmp)
    res = gx_engine.run(inp)
    assert res.target == "gx"
    return {v.clause_id: v for v in res.verdicts}


@pytest.mark.parametrize("name", NAMES)
def test_clean_data_passes_every_clause(rendered: dict[str, Any], name: str, tmp_path: Path) -> None:
    verdicts = run(rendered, name, [], tmp_path)
    _, clauses = rendered[name]
    assert set(verdicts) == {c.id for c in clauses}
    bad = {cid: (v.status, v.detail) for cid, v in verdicts.items() if v.status != "pass"}
    assert bad == {}


def _cases() -> list[tuple[str, str]]:
    out = []
    for name in NAMES:
        contract = load(ROOT / "contracts" / f"{name}.yaml")
        clauses = plan(contract)
        breaks = {**generic_breaks(clauses), **BREAK[name]}
        for c in clauses:
            out.append((name, c.id))
        missing = [c.id for c in clauses if c.id not in breaks]
        assert not missing, f"no breaking data for {missing}"
    return out


@pytest.mark.parametrize(("name", "clause_id"), _cases())
def test_breaking_data_fails_the_clause(rendered: dict[str, Any], name: str, clause_id: str,
                                        tmp_path: Path) -> None:
    _, clauses = rendered[name]
    breaks = {**generic_breaks(clauses), **BREAK[name]}
    verdicts = run(rendered, name, breaks[clause_id], tmp_path)
    v = verdicts[clause_id]
    assert v.status == "fail", (v.status, v.detail)
    if v.failures is not None:
        assert v.failures >= 1


def test_suite_loads_with_no_expectation_dropped(rendered: dict[str, Any]) -> None:
    import json

    import great_expectations as gx

    gx_engine.context()
    for name in NAMES:
        doc = json.loads((rendered["root"] / "gx" / f"{name}.json").read_text(encoding="utf-8"))
        suite = gx.ExpectationSuite(**doc)
        assert len(suite.expectations) == len(doc["expectations"]) > 0
        assert {e.expectation_type for e in suite.expectations} == {e["type"] for e in doc["expectations"]}


def test_native_expectations_also_pass_on_the_duckdb_sql_datasource(rendered: dict[str, Any],
                                                                     tmp_path: Path) -> None:
    """The type lists and row conditions hold on SQL too, not only on pandas."""
    import json

    contract, clauses = rendered["ohlcv_1m"]
    db = tmp_path / "sql.duckdb"
    make_db(db, "ohlcv_1m", clauses, contract, [])
    doc = json.loads((rendered["root"] / "gx" / "ohlcv_1m.json").read_text(encoding="utf-8"))
    results = gx_engine.run_suite(gx_engine.context(), doc["expectations"], ("sql", (str(db), "d")))
    assert len(results) == len(doc["expectations"])
    failed = [(m.get("tacit_clause"), d) for m, ok, _, d, _ in results if not ok]
    assert failed == []


def test_custom_sql_on_pandas_is_an_error_not_a_pass(rendered: dict[str, Any], tmp_path: Path) -> None:
    """GX cannot run unexpected_rows_expectation on pandas: the engine sends it to SQL."""
    import json

    contract, clauses = rendered["fct_sensor_readings"]
    db = tmp_path / "p.duckdb"
    make_db(db, "fct_sensor_readings", clauses, contract, [])
    doc = json.loads((rendered["root"] / "gx" / "fct_sensor_readings.json").read_text(encoding="utf-8"))
    custom = [e for e in doc["expectations"] if e["type"] == "unexpected_rows_expectation"]
    assert custom
    df = gx_engine.to_pandas(str(db), "d")
    res = gx_engine.run_suite(gx_engine.context(), custom, ("pandas", df))
    assert all(not ok and errored for _, ok, _, _, errored in res)
