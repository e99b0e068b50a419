"""`load_data`: CSV and Parquet into a real DuckDB file, typed per the contract, nothing hidden."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.contract.model import Contract
from tacit_gen.engines.load import LoadError, duckdb_type, load_data
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write

from ..conftest import BUNDLED, ROOT

FCT = "contracts/fct_sensor_readings.yaml"
HEADER = "series_id,event_ts,value_degc,unit,quality,source_id,revision"


def _contract(path: str) -> Contract:
    return load(path)


def _fetch(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("ext", ["csv", "parquet"])
@pytest.mark.parametrize("path", [str(p.relative_to(ROOT)) for p in BUNDLED])
def test_round_trip_of_sample_output(path: str, ext: str, tmp_path: Path) -> None:
    c = _contract(path)
    data = sample(c, plan(c))
    data_path, cat_path = write(data, tmp_path / f"d.{ext}")
    db = tmp_path / "d.duckdb"
    report = load_data(c, data_path, db, catalog_path=cat_path)
    assert report.ok and report.failures == () and report.missing == () and report.extra == ()
    assert report.table == c.name and report.rows == data.row_count
    assert report.source_format == ext
    types = dict(_fetch(db, f"SELECT column_name, data_type FROM information_schema.columns "
                            f"WHERE table_name = '{c.name}'"))
    assert types == {f.name: duckdb_type(f.type) for f in c.fields}
    assert dict(report.columns) == types
    # values survive exactly (decimals, instants, nulls), in file order
    got = _fetch(db, f"SELECT * FROM {c.name}")
    want = [tuple(r.values()) for r in data.rows()]
    assert got == want
    if data.catalog is not None:
        assert report.catalog is not None and report.catalog.ok
        cat_types = dict(report.catalog.columns)
        assert cat_types == {"series_id": "VARCHAR", "unit": "VARCHAR",
                             "hard_min": "DECIMAL(38,10)", "hard_max": "DECIMAL(38,10)",
                             "cadence_seconds": "BIGINT"}
        assert _fetch(db, "SELECT * FROM series_catalog ORDER BY 1") == sorted(data.catalog.rows)
    else:
        assert report.catalog is None


def test_conversion_failures_are_reported_not_nulled(tmp_path: Path) -> None:
    c = _contract(FCT)
    csv_path = tmp_path / "bad.csv"
    csv_path.write_text("\n".join([
        HEADER,
        "s1,2024-01-02T14:59:00.000+00:00,12.345,degC,good,src,abc",
        "s1,2024-01-02 15:00:00,12.5,degC,good,src,0",  # naive: no offset
        "s1,2024-01-02T17:01:00+02:00,12.34567,degC,good,src,0",  # +02:00 is fine; 12.34567 not
        "s1,2024-01-02T15:02:00.000Z,,degC,bad,src,1",
    ]) + "\n", encoding="utf-8")
    db = tmp_path / "bad.duckdb"
    report = load_data(c, csv_path, db, table="readings")
    assert report.table == "readings" and report.rows == 4
    assert not report.ok
    by_col = {f.column: f for f in report.failures}
    assert sorted(by_col) == ["event_ts", "revision", "value_degc"]
    ts = by_col["event_ts"]
    assert (ts.count, ts.rows, ts.samples) == (1, (2,), ("2024-01-02 15:00:00",))
    assert ts.expected == "timestamp_ms_utc" and ts.loaded_as == "VARCHAR"  # mixed: text kept
    dec = by_col["value_degc"]
    assert (dec.count, dec.rows, dec.samples, dec.loaded_as) == (1, (3,), ("12.34567",), "DOUBLE")
    rev = by_col["revision"]
    assert (rev.count, rev.rows, rev.samples, rev.loaded_as) == (1, (1,), ("abc",), "VARCHAR")
    assert report.clause_ids == ("column:event_ts", "column:value_degc", "column:revision")
    assert any("12.34567" in m for m in report.messages())
    # no value was nulled: the table holds every value, in a type that keeps it
    rows = _fetch(db, "SELECT event_ts, value_degc, revision FROM readings")
    assert rows[1] == ("2024-01-02 15:00:00", 12.5, "0")
    assert rows[2][0] == "2024-01-02T17:01:00+02:00" and rows[2][1] == 12.34567
    assert rows[0][2] == "abc" and rows[3][1] is None
    d = report.to_dict()
    assert d["failures"][0]["clause"] == "column:event_ts" and d["failures"][0]["rows"] == [2]


def test_offsets_convert_to_the_utc_instant(tmp_path: Path) -> None:
    c = _contract(FCT)
    p = tmp_path / "ok.csv"
    p.write_text(HEADER + "\n" + "s1,2024-01-02T17:01:00.250+02:00,1,degC,good,src,0\n"
                 "s1,2024-01-02T15:02:00Z,1.5,degC,good,src,0\n", encoding="utf-8")
    db = tmp_path / "ok.duckdb"
    report = load_data(c, p, db)
    assert report.ok
    (a,), (b,) = _fetch(db, "SELECT event_ts FROM fct_sensor_readings")
    assert a == datetime(2024, 1, 2, 15, 1, 0, 250000, tzinfo=UTC)
    assert b.utcoffset().total_seconds() == 0 and b.hour == 15
    assert _fetch(db, "SELECT value_degc FROM fct_sensor_readings") == [(Decimal("1.000"),),
                                                                       (Decimal("1.500"),)]


def test_all_naive_timestamps_load_as_timestamp(tmp_path: Path) -> None:
    c = _contract(FCT)
    p = tmp_path / "naive.csv"
    p.write_text(HEADER + "\ns1,2024-01-02T15:00:00.000,1,degC,good,src,0\n", encoding="utf-8")
    report = load_data(c, p, tmp_path / "n.duckdb")
    f = report.failure("event_ts")
    assert f is not None and f.loaded_as == "TIMESTAMP"
    assert report.column_type("event_ts") == "TIMESTAMP"


def test_precision_finer_than_the_contract_is_kept_for_its_clause(tmp_path: Path) -> None:
    # the time column keeps its microseconds: the precision clause (not the load) judges them
    import duckdb

    c = _contract(FCT)
    p = tmp_path / "us.csv"
    p.write_text(HEADER + "\ns1,2024-01-02T15:00:00.000123+00:00,1,degC,good,src,0\n"
                 "s1,2024-01-02T15:01:00.000+00:00,1,degC,good,src,0\n", encoding="utf-8")
    report = load_data(c, p, tmp_path / "p.duckdb", table="t")
    assert report.failure("event_ts") is None
    con = duckdb.connect(str(tmp_path / "p.duckdb"))
    try:
        us = con.execute("SELECT epoch_us(event_ts) % 1000 FROM t ORDER BY event_ts").fetchall()
    finally:
        con.close()
    assert us == [(123,), (0,)]


def test_missing_and_extra_columns(tmp_path: Path) -> None:
    c = _contract(FCT)
    p = tmp_path / "cols.csv"
    p.write_text("series_id,event_ts,value_degc,quality,source_id,revision,colour\n"
                 "s1,2024-01-02T15:00:00.000+00:00,1,good,src,0,red\n", encoding="utf-8")
    db = tmp_path / "c.duckdb"
    report = load_data(c, p, db)
    assert report.missing == ("unit",) and report.extra == ("colour",)
    assert report.failures == ()
    assert report.clause_ids == ("column:unit", "no_unknown_columns")
    cols = dict(report.columns)
    assert "unit" not in cols and cols["colour"] == "VARCHAR"
    assert _fetch(db, "SELECT colour FROM fct_sensor_readings") == [("red",)]


def test_int_overflow_and_bad_bool(tmp_path: Path) -> None:
    y = tmp_path / "t.yaml"
    y.write_text("contract: t\nversion: 1.0.0\nfields:\n  n: {type: int32}\n"
                 "  flag: {type: bool}\n  d: {type: date}\n  x: {type: float32, unit: m}\n",
                 encoding="utf-8")
    c = load(str(y))
    p = tmp_path / "t.csv"
    p.write_text("n,flag,d,x\n1,true,2024-01-02,1.5\n3000000000,maybe,2024-01-02T00:00:00,x\n"
                 "-7,false,,\n", encoding="utf-8")
    report = load_data(c, p, tmp_path / "t.duckdb")
    by_col = {f.column: f for f in report.failures}
    assert by_col["n"].rows == (2,) and by_col["n"].loaded_as == "DOUBLE"
    assert by_col["flag"].samples == ("maybe",) and by_col["flag"].loaded_as == "VARCHAR"
    assert by_col["d"].samples == ("2024-01-02T00:00:00",)
    assert by_col["x"].samples == ("x",) and by_col["x"].loaded_as == "VARCHAR"


def test_parquet_uses_the_file_types_then_the_same_checks(tmp_path: Path) -> None:
    c = _contract(FCT)
    n = 3
    table = pa.table({
        "series_id": pa.array(["s1"] * n),
        "event_ts": pa.array([datetime(2024, 1, 2, 15, i) for i in range(n)], pa.timestamp("ms")),
        "value_degc": pa.array([Decimal("1.5000"), Decimal("2.2500"), Decimal("3.1234")],
                               pa.decimal128(9, 4)),
        "unit": pa.array(["degC"] * n),
        "quality": pa.array(["good"] * n),
        "source_id": pa.array(["src"] * n),
        "revision": pa.array([0, 0, 0], pa.int32()),
    })
    p = tmp_path / "f.parquet"
    pq.write_table(table, p)
    db = tmp_path / "f.duckdb"
    report = load_data(c, p, db)
    by_col = {f.column: f for f in report.failures}
    assert sorted(by_col) == ["event_ts", "value_degc"]
    assert by_col["event_ts"].count == 3 and by_col["event_ts"].loaded_as == "TIMESTAMP"
    assert by_col["value_degc"].rows == (3,)  # 1.5000 and 2.2500 are exact in decimal(9,3)
    assert by_col["value_degc"].loaded_as == "DECIMAL(9,4)"
    assert report.column_type("revision") == "BIGINT"  # int32 widens exactly


def test_catalog_errors(tmp_path: Path) -> None:
    c = _contract(FCT)
    data_path, _ = write(sample(c, plan(c), rows=3), tmp_path / "d.csv")
    with pytest.raises(LoadError, match="reads none"):
        load_data(c, data_path, tmp_path / "x.duckdb", catalog_path=data_path)
    with pytest.raises(LoadError, match="no such file"):
        load_data(c, tmp_path / "nope.csv", tmp_path / "x.duckdb")
    other = tmp_path / "d.json"
    other.write_text("{}", encoding="utf-8")
    with pytest.raises(LoadError, match=r"\.csv or \.parquet"):
        load_data(c, other, tmp_path / "x.duckdb")


def test_catalog_conversion_failures(tmp_path: Path) -> None:
    c = _contract("contracts/plant_sensor_reading.yaml")
    data = sample(c, plan(c), rows=6)
    data_path, _ = write(data, tmp_path / "p.csv")
    cat = tmp_path / "cat.csv"
    cat.write_text("series_id,unit,hard_min,hard_max,cadence_seconds\n"
                   "series_id_01,bar,0,350,sixty\n", encoding="utf-8")
    report = load_data(c, data_path, tmp_path / "p.duckdb", catalog_path=cat)
    assert report.catalog is not None and report.catalog.table == "series_catalog"
    f = report.catalog.failure("cadence_seconds")
    assert f is not None and f.samples == ("sixty",)
    assert not report.ok
