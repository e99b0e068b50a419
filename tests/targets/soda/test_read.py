"""Soda reader: every hand-edit kind is seen, from the operative parts of the SodaCL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.drift.base import SEVERITY_WEAKENED, UNKNOWN_CHECK, UNREADABLE
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.soda import TARGET
from tacit_gen.targets.soda.read import read
from tacit_gen.targets.soda.render import project

ROOT = Path(__file__).resolve().parents[3]
P = Path("soda/fct_sensor_readings.yml")


@pytest.fixture(scope="module")
def fct() -> tuple[str, dict]:
    contract = load(ROOT / "contracts" / "fct_sensor_readings.yaml")
    clauses = plan(contract)
    text = TARGET.render(contract, clauses, RenderOptions()).artifacts[0].content
    return text, {c.id: project(contract, c) for c in clauses}


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_generated_file_reads_back_as_the_plan(fct: tuple[str, dict]) -> None:
    text, expected = fct
    got = read(P, text)
    assert got.findings == ()
    assert {c.id: c for c in got.clauses} == expected
    assert got.header_contract == "fct_sensor_readings"


def test_deleted_check(fct: tuple[str, dict]) -> None:
    text, _ = fct
    block = (
        "  - missing_count(source_id) = 0:\n"
        "      name: 'not_null:source_id: source_id: {type: string, nullable: false}'\n"
        "      identity: not_null:source_id\n"
    )
    got = read(P, _edit(text, block, ""))
    ids = {c.id for c in got.clauses}
    assert "not_null:source_id" not in ids
    assert "not_null:series_id" in ids


def test_changed_bound(fct: tuple[str, dict]) -> None:
    text, expected = fct
    got = read(P, _edit(text, "valid max: 150", "valid max: 1500"))
    rng = {c.id: c for c in got.clauses}["range:value_degc"]
    assert rng.param("max") == "1500"
    assert rng.param("min") == "-40"
    assert rng != expected["range:value_degc"]


def test_changed_bound_written_as_min_max_by_hand(fct: tuple[str, dict]) -> None:
    text, _ = fct
    old = (
        "  - invalid_count(value_degc) = 0:\n"
        "      name: 'range:value_degc: -40 <= value_degc <= 150'\n"
        "      identity: range:value_degc\n"
        "      valid min: -40\n"
        "      valid max: 150\n"
        "      filter: ('${tacit_since}' = '' OR event_ts >= CAST(NULLIF('${tacit_since}', '') AS "
        "TIMESTAMPTZ) OR event_ts IS NULL)\n"
    )
    new = "  - min(value_degc) >= -40\n  - max(value_degc) < 150.5\n"
    rng = {c.id: c for c in read(P, _edit(text, old, new)).clauses}["range:value_degc"]
    assert (rng.param("min"), rng.param("min_inclusive")) == ("-40", True)
    assert (rng.param("max"), rng.param("max_inclusive")) == ("150.5", False)


def test_changed_type(fct: tuple[str, dict]) -> None:
    text, expected = fct
    got = read(P, _edit(text, "value_degc: decimal(9,3)", "value_degc: double"))
    col = {c.id: c for c in got.clauses}["column:value_degc"]
    assert col.param("soda_type") == "double"
    assert col != expected["column:value_degc"]


def test_warn_instead_of_fail(fct: tuple[str, dict]) -> None:
    text, _ = fct
    got = read(
        P,
        _edit(
            text,
            "      name: invariant:value_degc is null",
            "      warn: when > 0\n      name: invariant:value_degc is null",
        ),
    )
    # `warn:` without `fail:` is the clause's severity; check compares it with the contract's
    assert [f for f in got.findings if f.code == SEVERITY_WEAKENED] == []
    by_id = {c.id: c for c in got.clauses}
    assert by_id["invariant:value_degc is null only when quality = bad"].severity == "warn"
    assert by_id["range:value_degc"].severity == "error"


def test_warn_on_schema_check(fct: tuple[str, dict]) -> None:
    text, _ = fct
    got = read(
        P,
        _edit(
            text,
            "      fail:\n        when required column missing:",
            "      warn:\n        when required column missing:",
        ),
    )
    weakened = {f.clause_id for f in got.findings if f.code == SEVERITY_WEAKENED}
    assert "column:series_id" in weakened


def test_count_threshold_loosened(fct: tuple[str, dict]) -> None:
    text, _ = fct
    got = read(P, _edit(text, "missing_count(series_id) = 0", "missing_count(series_id) < 5"))
    assert [(f.code, f.clause_id) for f in got.findings] == [
        (SEVERITY_WEAKENED, "not_null:series_id")
    ]


def test_removed_column_from_schema_check(fct: tuple[str, dict]) -> None:
    text, _ = fct
    text = _edit(text, "          - unit\n", "")
    text = _edit(text, "          unit: varchar\n", "")
    ids = {c.id for c in read(P, text).clauses}
    assert "column:unit" not in ids
    assert "column:quality" in ids


def test_unknown_check(fct: tuple[str, dict]) -> None:
    text, _ = fct
    got = read(P, text + "  - row_count > 0\n  - avg(value_degc) between 0 and 50\n")
    assert [f.code for f in got.findings] == [UNKNOWN_CHECK, UNKNOWN_CHECK]


def test_unreadable() -> None:
    assert [f.code for f in read(P, "checks for x:\n  - [unclosed\n").findings] == [UNREADABLE]


def test_hand_written_seed_file() -> None:
    """Seed 001's Soda example, as a person writes it: no header, no identity, no names."""
    seed = """\
checks for fct_sensor_readings:
  - missing_count(series_id) = 0
  - missing_count(event_ts) = 0
  - duplicate_count(series_id, event_ts, revision) = 0
  - min(value_degc) >= -40
  - max(value_degc) <= 150
  - freshness(event_ts) < 15m
  - schema:
      fail:
        when required column missing: [series_id, event_ts, value_degc, unit, revision]
        when wrong column type:
          value_degc: numeric
"""
    got = read(Path("seed.yml"), seed)
    assert got.findings == ()
    assert got.header_contract is None
    by_id = {c.id: c for c in got.clauses}
    assert set(by_id) == {
        "not_null:series_id",
        "not_null:event_ts",
        "unique:series_id,event_ts,revision",
        "range:value_degc",
        "freshness:event_ts",
        "column:series_id",
        "column:event_ts",
        "column:value_degc",
        "column:unit",
        "column:revision",
    }
    assert by_id["range:value_degc"].params_dict == {
        "column": "value_degc",
        "min": "-40",
        "max": "150",
        "min_inclusive": True,
        "max_inclusive": True,
    }
    assert by_id["freshness:event_ts"].param("max_age_seconds") == 900
    assert by_id["column:value_degc"].param("soda_type") == "numeric"
    assert by_id["column:unit"].param("soda_type") is None
    assert by_id["unique:series_id,event_ts,revision"].columns == (
        "series_id",
        "event_ts",
        "revision",
    )
