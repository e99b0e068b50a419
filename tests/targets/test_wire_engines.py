"""The three wire-schema engines (avro, protobuf, jsonschema) on data loaded into DuckDB: clean data
passes every clause they carry; an extra column, a NULL in a non-null field and a value outside an
enum fail the clause they break, in each engine, as in the runtime (ibis) beside them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.verify import run_verify
from tests.conftest import record_targets

ROOT = Path(__file__).resolve().parents[2]
WIRE = record_targets()


def _verify(name: str, violate: str | None, tmp: Path):  # type: ignore[no-untyped-def]
    c = load(ROOT / "contracts" / f"{name}.yaml")
    data = sample(c, plan(c), rows=24, seed=7, violate=violate)
    dp, cp = write(data, tmp / f"{name}.csv")
    return run_verify(c, dp, cp, (*WIRE, "ibis"), data.now), data


@pytest.mark.engine
@pytest.mark.parametrize("name", ["fct_sensor_readings", "ohlcv_1m", "plant_sensor_reading"])
def test_clean_data_passes(name: str, tmp_path: Path) -> None:
    report, _ = _verify(name, None, tmp_path)
    assert report.exit_code == 0, report.render_text()
    for row in report.rows:
        for t in WIRE:
            v = row.verdicts[t]
            assert v.status in ("pass", "n/a"), report.render_text()
            if row.clause.kind in ("column", "no_unknown_columns"):
                assert v.status == "pass", (t, row.clause.id)


@pytest.mark.engine
@pytest.mark.parametrize(("name", "clause"), [
    ("fct_sensor_readings", "no_unknown_columns"),
    ("fct_sensor_readings", "not_null:source_id"),
    ("fct_sensor_readings", "accepted_values:quality"),
    ("plant_sensor_reading", "column:event_ts"),
    ("ohlcv_1m", "column:open"),
])
def test_violation_fails_in_every_wire_engine(name: str, clause: str, tmp_path: Path) -> None:
    report, data = _verify(name, clause, tmp_path)
    assert data.violated == (clause,)
    assert report.exit_code == 1, report.render_text()
    for t in (*WIRE, "ibis"):
        failed = {r.clause.id for r in report.rows if r.verdicts[t].status == "fail"}
        assert failed == {clause}, (t, failed, report.render_text())


@pytest.mark.engine
def test_measurement_null_fails_protobuf_required_and_elsewhere(tmp_path: Path) -> None:
    """ohlcv_1m's `open` is a non-null measurement: protobuf gives it presence (optional), so
    that absent differs from zero, and protovalidate's ``required`` refuses the NULL (it once
    was `n/a` there); Avro and JSON Schema refuse it through the type."""
    report, _ = _verify("ohlcv_1m", "not_null:open", tmp_path)
    row = next(r for r in report.rows if r.clause.id == "not_null:open")
    for t in WIRE:
        assert row.verdicts[t].status == "fail", (t, report.render_text())
    assert report.exit_code == 1, report.render_text()


@pytest.mark.engine
def test_an_enum_value_in_another_case_fails_in_every_wire_engine(tmp_path: Path) -> None:
    """'GOOD' is not the enum value 'good': proto enum value names are upper-cased
    (QUALITY_GOOD), and protobuf once matched by that name alone and passed it."""
    c = load(ROOT / "contracts" / "fct_sensor_readings.yaml")
    data = sample(c, plan(c), rows=24, seed=7)
    dp, cp = write(data, tmp_path / "fct_sensor_readings.csv")
    lines = dp.read_text(encoding="utf-8").splitlines()
    col = lines[0].split(",").index("quality")
    row = next(i for i, line in enumerate(lines[1:], 1) if line.split(",")[col] == "good")
    cells = lines[row].split(",")
    cells[col] = "GOOD"
    lines[row] = ",".join(cells)
    dp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = run_verify(c, dp, cp, (*WIRE, "ibis"), data.now)
    for t in (*WIRE, "ibis"):
        failed = {r.clause.id for r in report.rows if r.verdicts[t].status == "fail"}
        assert failed == {"accepted_values:quality"}, (t, failed, report.render_text())


@pytest.mark.engine
@pytest.mark.parametrize(("name", "clause"), [
    ("fct_sensor_readings", "range:value_degc"),
    ("fct_sensor_readings", "range:revision"),
    ("fct_sensor_readings", "fixed_value:unit"),
    ("fct_sensor_readings", "invariant:value_degc is null only when quality = bad"),
    ("ohlcv_1m", "range:volume"),
    ("ohlcv_1m", "range:trade_count"),
    ("ohlcv_1m", "fixed_value:adjusted"),
    ("ohlcv_1m", "not_null:high"),
    ("plant_sensor_reading", "pattern:series_id"),
])
def test_a_value_rule_fails_in_protobuf(name: str, clause: str, tmp_path: Path) -> None:
    """protovalidate, run by the protobuf engine on each message, fails the clause the data
    breaks, and only that one, as the runtime (ibis) does: not `n/a`."""
    report, data = _verify(name, clause, tmp_path)
    assert data.violated == (clause,)
    for t in ("protobuf", "ibis"):
        failed = {r.clause.id for r in report.rows if r.verdicts[t].status == "fail"}
        assert failed == {clause}, (t, failed, report.render_text())
