"""pandera engine: real pandera on DuckDB data; clean data passes, each broken clause fails alone."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import EngineRun, VerifyInput
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.pandera import TARGET
from tests.calendar.data import add_sessions

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[3]
T0 = datetime(2024, 1, 2, 10, 0, tzinfo=UTC)
DDL = {
    "string": "VARCHAR", "bool": "BOOLEAN", "int32": "INTEGER", "int64": "BIGINT",
    "float32": "REAL", "float64": "DOUBLE", "date": "DATE",
}

Rows = list[dict[str, Any]]


def ts(minutes: float = 0, seconds: float = 0) -> str:
    return (T0 + timedelta(minutes=minutes, seconds=seconds)).isoformat()


def column_types(contract: Any) -> dict[str, str]:
    out = {}
    for f in contract.fields:
        t = str(f.type)
        if t.startswith("decimal"):
            out[f.name] = t.upper()
        elif t.startswith("timestamp"):
            out[f.name] = "TIMESTAMPTZ"
        elif t.startswith("enum"):
            out[f.name] = "VARCHAR"
        else:
            out[f.name] = DDL[t]
    return out


def ohlcv_rows() -> Rows:
    base = {"adjusted": False, "source_id": "vendor", "ingest_run_id": "run-1", "transform_version": "1.0",
            "trade_count": 3}
    rows = []
    for symbol, minutes in (("AAA", (0, 1, 2)), ("BBB", (0, 1))):
        for m in minutes:
            rows.append({**base, "symbol": symbol, "bar_start": ts(m), "open": "10.5", "high": "12",
                         "low": "9.25", "close": "11", "volume": "100.5", "revision": 0})
    rows[1]["trade_count"] = None  # a null operand passes `trade_count is null or trade_count >= 0`
    rows.append({**rows[1], "revision": 1, "close": "12"})  # a restatement of AAA 10:01
    return rows


def plant_rows() -> Rows:
    rows = []
    for i, (series, unit, step) in enumerate((("s1", "kPa", 60), ("s2", "degC", 10))):
        for k in range(3):
            extra = 1 if (series == "s2" and k == 2) else 0  # 11 s: within +/-10% of 10 s
            rows.append({"series_id": series, "event_ts": ts(seconds=k * step + (k > 0) * extra),
                         "value": str(100 + i + k), "unit": unit, "quality": "good",
                         "calibration_id": f"cal-{series}", "source_id": "plant", "ingest_run_id": "r",
                         "transform_version": "2", "revision": 0})
    rows[1].update(value=None, quality="bad")  # value is null only when quality = bad: holds
    return rows


def plant_catalog() -> tuple[str, Rows]:
    ddl = "series_id VARCHAR, unit VARCHAR, hard_min DECIMAL(12,4), hard_max DECIMAL(12,4), cadence_seconds INTEGER"
    return ddl, [
        {"series_id": "s1", "unit": "kPa", "hard_min": "0", "hard_max": "1000", "cadence_seconds": 60},
        {"series_id": "s2", "unit": "degC", "hard_min": "-40", "hard_max": "150", "cadence_seconds": 10},
    ]


def fct_rows() -> Rows:
    rows = []
    for k in range(3):
        rows.append({"series_id": "t1", "event_ts": ts(k), "value_degc": str(20 + k), "unit": "degC",
                     "quality": "good", "source_id": "plant", "revision": 0})
    rows.append({**rows[0], "series_id": "t2", "value_degc": None, "quality": "bad"})
    rows.append({**rows[0], "series_id": "t3", "value_degc": "-40", "quality": None})
    return rows


CONTRACTS: dict[str, Callable[[], Rows]] = {
    "ohlcv_1m": ohlcv_rows,
    "plant_sensor_reading": plant_rows,
    "fct_sensor_readings": fct_rows,
}
NOW = {"fct_sensor_readings": T0 + timedelta(minutes=10)}


def write_db(path: Path, table: str, types: dict[str, str], rows: Rows,
             catalog: tuple[str, str, Rows] | None = None) -> None:
    import duckdb

    con = duckdb.connect(str(path))
    try:
        from tacit_gen.targets.pandera.engine import quote_ident

        cols = ", ".join(f"{quote_ident(c)} {t}" for c, t in types.items())
        con.execute(f"CREATE TABLE {quote_ident(table)} ({cols})")
        names = list(types)
        marks = ", ".join("?" for _ in names)
        if rows:
            con.executemany(f"INSERT INTO {quote_ident(table)} VALUES ({marks})",
                            [[r.get(c) for c in names] for r in rows])
        if catalog is not None:
            rel, ddl, crow = catalog
            con.execute(f'CREATE TABLE "{rel}" ({ddl})')
            keys = list(crow[0])
            con.executemany(f'INSERT INTO "{rel}" VALUES ({", ".join("?" for _ in keys)})',
                            [[r[k] for k in keys] for r in crow])
    finally:
        con.close()


def run_engine(tmp_path: Path, name: str, rows: Rows | None = None, types: dict[str, str] | None = None,
               with_catalog: bool = True, now: datetime | None = None,
               catalog_rows: Rows | None = None) -> EngineRun:
    from tacit_gen.targets.pandera import engine

    contract = load(ROOT / "contracts" / f"{name}.yaml")
    clauses = plan(contract)
    artifact = TARGET.render(contract, clauses, RenderOptions()).artifacts[0]
    (tmp_path / "art" / "pandera").mkdir(parents=True, exist_ok=True)
    (tmp_path / "art" / artifact.path).write_text(artifact.content, encoding="utf-8")
    catalog = None
    if name == "plant_sensor_reading" and with_catalog:
        ddl, crows = plant_catalog()
        catalog = ("series_catalog", ddl, catalog_rows if catalog_rows is not None else crows)
    db = tmp_path / "data.duckdb"
    write_db(db, name, types or column_types(contract), rows if rows is not None else CONTRACTS[name](), catalog)
    add_sessions(db, clauses)
    inp = VerifyInput(contract, clauses, tmp_path / "art", db, name, now or NOW.get(name, T0), tmp_path / "wd")
    return engine.run(inp)


def statuses(run: EngineRun) -> dict[str, str]:
    return {v.clause_id: v.status for v in run.verdicts}


def failing(run: EngineRun) -> set[str]:
    return {v.clause_id for v in run.verdicts if v.status != "pass"}


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_clean_data_passes(name: str, tmp_path: Path) -> None:
    run = run_engine(tmp_path, name)
    contract = load(ROOT / "contracts" / f"{name}.yaml")
    assert [v.clause_id for v in run.verdicts] == [c.id for c in plan(contract)]
    assert failing(run) == set(), [v for v in run.verdicts if v.status != "pass"]


def _set(index: int, **values: Any) -> Callable[[Rows], Rows]:
    def mutate(rows: Rows) -> Rows:
        rows[index].update(values)
        return rows
    return mutate


def _dup(index: int) -> Callable[[Rows], Rows]:
    return lambda rows: [*rows, dict(rows[index])]


# (contract, clause broken, mutation of the clean rows, every clause expected not to pass)
CASES: list[tuple[str, str, Callable[[Rows], Rows], set[str]]] = [
    ("ohlcv_1m", "not_null:open", _set(0, open=None), {"not_null:open"}),  # invariants: NULL passes
    ("ohlcv_1m", "unique", _dup(0), {"unique:symbol,bar_start,revision", "cadence:bar_start"}),
    ("ohlcv_1m", "fixed_value:adjusted", _set(2, adjusted=True), {"fixed_value:adjusted"}),
    ("ohlcv_1m", "range:volume", _set(0, volume="-0.0001"), {"range:volume"}),
    ("ohlcv_1m", "range:trade_count", _set(0, trade_count=-1), {"range:trade_count"}),
    ("ohlcv_1m", "range:revision", _set(3, revision=-1), {"range:revision"}),
    ("ohlcv_1m", "invariant open", _set(0, open="12.00000001"), {"invariant:low <= open <= high"}),
    ("ohlcv_1m", "invariant close", _set(0, low="11.5"),
     {"invariant:low <= open <= high", "invariant:low <= close <= high"}),
    ("ohlcv_1m", "cadence gap", _set(2, bar_start=ts(3)), {"cadence:bar_start"}),
    ("ohlcv_1m", "cadence off-grid", _set(4, bar_start=ts(1, 30)), {"cadence:bar_start"}),
    ("plant_sensor_reading", "invariant", _set(0, value=None),
     {"invariant:value is null only when quality = bad"}),
    ("plant_sensor_reading", "accepted_values", _set(0, quality="excellent"), {"accepted_values:quality"}),
    ("plant_sensor_reading", "catalog_unit", _set(3, unit="kPa"), {"catalog_unit:unit"}),
    # a series unknown to the catalog fails every clause that reads the catalog
    ("plant_sensor_reading", "catalog_unit unknown series", _set(5, series_id="s9"),
     {"catalog_unit:unit", "catalog_bounds:value", "cadence:event_ts"}),
    ("plant_sensor_reading", "catalog_bounds", _set(4, value="150.0001"), {"catalog_bounds:value"}),
    ("plant_sensor_reading", "cadence tolerance", _set(5, event_ts=ts(seconds=22)), {"cadence:event_ts"}),
    ("plant_sensor_reading", "not_null provenance", _set(2, ingest_run_id=None), {"not_null:ingest_run_id"}),
    ("fct_sensor_readings", "fixed_value:unit", _set(0, unit="degF"), {"fixed_value:unit"}),
    ("fct_sensor_readings", "range low", _set(0, value_degc="-40.001"), {"range:value_degc"}),
    ("fct_sensor_readings", "range high", _set(0, value_degc="150.001"), {"range:value_degc"}),
    ("fct_sensor_readings", "invariant", _set(0, value_degc=None),
     {"invariant:value_degc is null only when quality = bad"}),
]


@pytest.mark.parametrize(("name", "label", "mutate", "expected"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_broken_clause_fails(name: str, label: str, mutate: Callable[[Rows], Rows], expected: set[str],
                             tmp_path: Path) -> None:
    rows = mutate(copy.deepcopy(CONTRACTS[name]()))
    run = run_engine(tmp_path, name, rows)
    assert failing(run) == expected, [v for v in run.verdicts if v.status != "pass"]
    assert all(statuses(run)[c] == "fail" for c in expected)


def test_sql_null_semantics_in_fct(tmp_path: Path) -> None:
    # value NULL, quality NULL: `value_degc is null only when quality = bad` is
    # NOT TRUE OR NULL = NULL (UNKNOWN): the row passes, as in a SQL CHECK.
    rows = fct_rows()
    rows[4].update(value_degc=None, quality=None)
    run = run_engine(tmp_path, "fct_sensor_readings", rows)
    assert failing(run) == set()


def test_freshness(tmp_path: Path) -> None:
    stale = run_engine(tmp_path / "a", "fct_sensor_readings", now=T0 + timedelta(minutes=17, seconds=1))
    assert failing(stale) == {"freshness:event_ts"}
    edge = run_engine(tmp_path / "b", "fct_sensor_readings", now=T0 + timedelta(minutes=17))
    assert failing(edge) == set()  # max(event_ts) = 10:02 = now - 15m exactly: fresh
    empty = run_engine(tmp_path / "c", "fct_sensor_readings", rows=[])
    assert failing(empty) == {"freshness:event_ts"}


def test_catalog_clauses_fail_without_catalog(tmp_path: Path) -> None:
    run = run_engine(tmp_path, "plant_sensor_reading", with_catalog=False)
    assert failing(run) == {"cadence:event_ts", "catalog_unit:unit", "catalog_bounds:value"}


def test_structure(tmp_path: Path) -> None:
    contract = load(ROOT / "contracts" / "ohlcv_1m.yaml")
    types = column_types(contract)
    naive = run_engine(tmp_path / "a", "ohlcv_1m", types={**types, "bar_start": "TIMESTAMP"})
    # a naive timestamp fails its type; the cadence still runs on it
    assert failing(naive) == {"column:bar_start"}
    wrong = run_engine(tmp_path / "b", "ohlcv_1m", types={**types, "volume": "DECIMAL(24,2)", "revision": "INTEGER"})
    assert failing(wrong) == {"column:volume", "column:revision"}
    extra = run_engine(tmp_path / "c", "ohlcv_1m", types={**types, "note": "VARCHAR"})
    assert failing(extra) == {"no_unknown_columns"}
    dropped = {k: v for k, v in types.items() if k != "close"}
    missing = run_engine(tmp_path / "d", "ohlcv_1m", types=dropped)
    st = statuses(missing)
    assert st["column:close"] == "fail"
    assert st["not_null:close"] == "n/a" and st["invariant:low <= close <= high"] == "n/a"
    assert failing(missing) == {"column:close", "not_null:close", "invariant:low <= close <= high"}


def test_failure_counts(tmp_path: Path) -> None:
    rows = ohlcv_rows()
    rows[0]["volume"] = "-1"
    rows[2]["volume"] = "-2"
    run = run_engine(tmp_path, "ohlcv_1m", rows)
    by_id = {v.clause_id: v for v in run.verdicts}
    assert by_id["range:volume"].failures == 2
    assert by_id["column:open"].failures == 0


def test_read_frame_convention(tmp_path: Path) -> None:
    import pandas as pd
    import pyarrow

    from tacit_gen.targets.pandera.engine import read_frame

    contract = load(ROOT / "contracts" / "ohlcv_1m.yaml")
    db = tmp_path / "d.duckdb"
    write_db(db, "odd \"name\"", column_types(contract), ohlcv_rows())
    df = read_frame(db, "odd \"name\"")
    assert df["open"].dtype == pd.ArrowDtype(pyarrow.decimal128(18, 8))
    assert df["bar_start"].dtype == pd.ArrowDtype(pyarrow.timestamp("us", tz="UTC"))
    assert df["trade_count"].dtype == pd.ArrowDtype(pyarrow.int64())
    assert df["trade_count"].isna().sum() == 2  # nulls stay nulls in an int64 column


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_both_kinds_of_frame_are_validated(name: str, tmp_path: Path) -> None:
    """The engine validates DuckDB's `.df()` frame (numpy-backed: decimals as float64, a nullable
    integer column with a NULL as float64) beside the Arrow-backed one, and both pass."""
    import pandas as pd

    from tacit_gen.targets.pandera.engine import read_frame_numpy

    run = run_engine(tmp_path, name)
    assert "numpy-backed frame: validated too" in run.notes, run.notes
    assert failing(run) == set()
    df = read_frame_numpy(tmp_path / "data.duckdb", name)
    assert not any(isinstance(t, pd.ArrowDtype) for t in df.dtypes)
    if name == "ohlcv_1m":
        assert str(df["open"].dtype) == "float64" and str(df["trade_count"].dtype) == "float64"


def test_frames_that_disagree_give_an_error(tmp_path: Path) -> None:
    """A clause whose verdict on the numpy-backed frame differs from the Arrow-backed one is an
    error naming both (here the numpy frame's timestamps are naive: its type check fails)."""
    from tacit_gen.targets.pandera.engine import read_frame, read_frame_numpy, validate_frames

    run_engine(tmp_path, "fct_sensor_readings")
    contract = load(ROOT / "contracts" / "fct_sensor_readings.yaml")
    clauses = plan(contract)
    db = tmp_path / "data.duckdb"
    inp = VerifyInput(contract, clauses, tmp_path / "art", db, "fct_sensor_readings",
                      NOW["fct_sensor_readings"], tmp_path / "wd")

    def naive(name: str) -> Any:
        df = read_frame_numpy(db, name)
        return df.assign(event_ts=df["event_ts"].dt.tz_localize(None))

    run = validate_frames(inp, lambda name: read_frame(db, name), naive)
    bad = {v.clause_id: v.detail for v in run.verdicts if v.status == "error"}
    assert set(bad) == {"column:event_ts"}, bad
    assert bad["column:event_ts"].startswith("Arrow-backed frame: pass, numpy-backed frame: fail")


def test_nan_is_not_validated_numpy_backed(tmp_path: Path) -> None:
    """A NaN in a float column cannot be told from NULL in a numpy frame: that frame is not
    validated, and the note says why."""
    import pandas as pd
    import pyarrow

    from tacit_gen.targets.pandera.engine import numpy_cannot_hold

    arrow = pd.DataFrame({"x": pd.arrays.ArrowExtensionArray(pyarrow.array([1.0, float("nan"), None]))})
    assert numpy_cannot_hold(arrow, pd.DataFrame({"x": [1.0, float("nan"), float("nan")]})) == \
        "column x holds NaN, which a numpy float column cannot tell from NULL"
    decimals = pd.DataFrame({"d": pd.array([Decimal("0.1"), Decimal("12345678901234567.891")],
                                          dtype=pd.ArrowDtype(pyarrow.decimal128(20, 3)))})
    numpy = pd.DataFrame({"d": [0.1, 12345678901234567.891]})
    assert numpy_cannot_hold(decimals, numpy) == "column d: 12345678901234567.891 is 1.2345678901234568e+16 in a double"
    assert numpy_cannot_hold(decimals.head(1), numpy.head(1)) is None
    whole = pd.DataFrame({"n": pd.arrays.ArrowExtensionArray(pyarrow.array([846.0, None]))})
    assert numpy_cannot_hold(whole, pd.DataFrame({"n": [846.0, float("nan")]}), {"n": "int64"}) == \
        "column n is a double where the contract has an integer, which a numpy frame cannot tell apart"
    assert numpy_cannot_hold(whole, pd.DataFrame({"n": [846.0, float("nan")]}), {"n": "float64"}) is None


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_read_parquet_frames_pass(name: str, tmp_path: Path) -> None:
    """What `pd.read_parquet(path)` gives (Arrow's `to_pandas()`: a decimal as `object` holding
    `Decimal`, text as `str`, an integer column with a NULL as float64), as the engine builds it
    from PostgreSQL, passes the clean data; a decimal with a place too many fails its column."""
    import pandas as pd
    import pandera.errors
    import pyarrow.parquet as pq

    from tacit_gen.targets.pandera.engine import (
        failures_by_clause,
        load_module,
        read_frame,
        to_numpy_frame,
    )

    run_engine(tmp_path, name)
    db = tmp_path / "data.duckdb"
    pq.write_table(pyarrow_table(read_frame(db, name)), tmp_path / "data.parquet")
    df = pd.read_parquet(tmp_path / "data.parquet")
    assert df.dtypes.astype(str).to_dict() == to_numpy_frame(read_frame(db, name)).dtypes.astype(str).to_dict()
    assert not any(isinstance(t, pd.ArrowDtype) for t in df.dtypes)
    catalog = to_numpy_frame(read_frame(db, "series_catalog")) if name == "plant_sensor_reading" else None
    extra = {"sessions": to_numpy_frame(read_frame(db, "venue_sessions"))} if name == "ohlcv_1m" else {}
    schema = load_module(tmp_path / "art" / "pandera" / f"{name}.py").schema(
        catalog=catalog, now=NOW.get(name, T0), **extra)
    schema.validate(df, lazy=True)
    decimal = next(c for c in df.columns if df[c].dtype == object)
    assert any(isinstance(v, Decimal) for v in df[decimal])
    wrong = df.assign(**{decimal: [Decimal("1." + "0" * 20 + "1") if v is not None else None for v in df[decimal]]})
    with pytest.raises(pandera.errors.SchemaErrors) as info:
        schema.validate(wrong, lazy=True)
    rows, scalar, _ = failures_by_clause(info.value, schema)
    assert f"column:{decimal}" in scalar, (rows, scalar)


def pyarrow_table(frame: Any) -> Any:
    import pyarrow

    return pyarrow.table({name: pyarrow.array(frame[name]) for name in frame.columns})
