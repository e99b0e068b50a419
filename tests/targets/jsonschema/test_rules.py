"""The per-record rules of the JSON Schema target: a table covering every clause kind, and the
verdicts of the jsonschema engine on ranges and a null-only-when invariant, equal to the runtime's
(ibis) and the SQL's (dbt is too slow here; the parity suites compare every engine)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.render import render_contract
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.jsonschema import rules
from tacit_gen.verify import run_verify

ROOT = Path(__file__).resolve().parents[3]
CONTRACT = ROOT / "tests" / "fixtures" / "wire" / "rules.yaml"


def _schema() -> dict:  # type: ignore[type-arg]
    artifacts, _ = render_contract(load(CONTRACT), ("jsonschema",), RenderOptions())
    text = next(a.content for a in artifacts if a.path.endswith(".schema.json"))
    return json.loads(text)


def test_ranges_and_the_null_only_when_form_are_rules() -> None:
    doc = _schema()
    entries = {e["$comment"]: e for e in doc["allOf"]}
    assert entries["range:ratio"]["properties"]["ratio"] == {"maximum": 0.1}
    assert entries["range:gain"]["properties"]["gain"] == {"exclusiveMinimum": -1.5, "exclusiveMaximum": 2.5}
    assert entries["range:count"]["properties"]["count"] == {"exclusiveMinimum": 0}
    # a decimal travels as a string: its sign bound is a pattern the text must not match
    assert entries["range:price"]["properties"]["price"] == {"not": {"type": "string", "pattern": rules.NOT_POSITIVE}}
    inv = entries["invariant:reading is null only when quality = bad"]
    assert inv["if"] == {"properties": {"reading": {"type": "null"}}}
    assert inv["then"] == {"properties": {"quality": {"enum": ["bad", None]}}}
    from tacit_gen.targets.jsonschema.render import HEADER, tacit_note

    # what it cannot state is not listed in the registered schema (`explain --targets` says it)
    assert "unsupported" not in tacit_note(doc, HEADER) and "unique" not in json.dumps(doc)


def test_a_decimal_bound_is_a_pattern_of_the_texts_it_refuses() -> None:
    """A decimal travels as text: `-40 <= reading < 150.5` is one pattern per bound, which the
    text must not match, and the reader recovers the bound from it (by probing the pattern, then
    writing it again)."""
    from tacit_gen.targets.jsonschema.decimal_bounds import read_bound

    entry = {e["$comment"]: e for e in _schema()["allOf"]}["range:reading"]
    below, above = (n["not"] for n in entry["properties"]["reading"]["allOf"])
    assert below["type"] == above["type"] == "string"
    assert read_bound(below["pattern"], False, 2, 8) == ("-40", True)
    assert read_bound(above["pattern"], True, 2, 8) == ("150.5", False)
    assert read_bound(above["pattern"].replace("15", "16"), True, 2, 8) is None
    c = load(ROOT / "contracts" / "fct_sensor_readings.yaml")
    _, unsupported = render_contract(c, ("jsonschema",), RenderOptions())
    assert "range:value_degc" not in {u.clause_id for u in unsupported}


@pytest.mark.parametrize(("bound", "upper", "inclusive"), [
    (b, u, i) for b in ("-40", "0", "0.5", "-0.25", "150", "99.99", "100", "1", "-1", "0.01")
    for u in (True, False) for i in (True, False)])
def test_a_bound_pattern_refuses_exactly_the_texts_beyond_it(bound: str, upper: bool, inclusive: bool) -> None:
    """Every text of a decimal(7,2), in every spelling (trailing zeros, no fraction, -0), against
    the comparison it stands for."""
    import re
    from decimal import Decimal

    from tacit_gen.targets.jsonschema.decimal_bounds import outside

    pattern = re.compile(outside(bound, upper, inclusive))
    b = Decimal(bound)
    for units in range(-25000, 25001, 13):
        v = Decimal(units).scaleb(-2)
        for text in {format(v, "f"), format(v.normalize(), "f"), f"{v}0", "-" + format(abs(v), "f")}:
            if text.startswith("--") or text == "-0E+2":
                continue
            x = Decimal(text)
            refused = (x > b if inclusive else x >= b) if upper else (x < b if inclusive else x <= b)
            assert (pattern.fullmatch(text) is not None) == refused, (text, pattern.pattern)


HEADER = "id,ratio,gain,count,price,reading,quality"
CLEAN = ["1,0.0625,0,1,0.01,1.50,good", "2,,,,,,", "3,-5,-1.25,7,3.00,,bad", "4,0.09375,2.25,2,1,2,"]


@pytest.mark.engine
@pytest.mark.parametrize(("rows", "failing"), [
    ([], {}),
    # a float32 0.1 is 0.100000001490116 on the wire: above the bound 0.1, as in PostgreSQL
    (["5,0.1,0,1,1,1,good", "6,0.5,0,1,1,1,good"], {"range:ratio": 2}),
    (["5,0,-1.5,1,1,1,good", "6,0,2.5,1,1,1,good"], {"range:gain": 2}),
    (["5,0,0,0,1,1,good"], {"range:count": 1}),
    # NaN is above every number (SQL's order): above `<= 0.1`, within `> -1.5` but not `< 2.5`
    (["5,nan,0,1,1,1,good", "6,0,nan,1,1,1,good"], {"range:ratio": 1, "range:gain": 1}),
    (["5,0,0,1,0.00,1,good", "6,0,0,1,-0.01,1,good", "7,0,0,1,-12,1,good"], {"range:price": 3}),
    # a decimal's bounds, as text: -40 is in, 150.5 is out, in any spelling
    (["5,0,0,1,1,-40.00,good", "6,0,0,1,1,150.49,good", "7,0,0,1,1,-0.00,good"], {}),
    (["5,0,0,1,1,-40.01,good", "6,0,0,1,1,150.50,good", "7,0,0,1,1,150.5,good",
      "8,0,0,1,1,1000,good", "9,0,0,1,1,-1000.25,good"], {"range:reading": 5}),
    # a null quality makes `quality = bad` unknown: the row passes, as a SQL CHECK does
    (["5,0,0,1,1,,good", "6,0,0,1,1,,suspect", "7,0,0,1,1,,"], {"invariant:reading is null only when quality = bad": 2}),
])
def test_verdicts_equal_the_runtime(rows: list[str], failing: dict[str, int], tmp_path: Path) -> None:
    data = tmp_path / "wire_rules.csv"
    data.write_text("\n".join([HEADER, *CLEAN, *rows]) + "\n", encoding="utf-8")
    report = run_verify(load(CONTRACT), data, None, ("jsonschema", "ibis"), datetime(2026, 12, 4, tzinfo=UTC))
    by_target: dict[str, dict[str, int | None]] = {"jsonschema": {}, "ibis": {}}
    for row in report.rows:
        for t, v in row.verdicts.items():
            if v.status == "fail":
                by_target[t][row.clause.id] = v.failures
            if row.clause.kind in ("range", "invariant"):
                assert v.status in ("pass", "fail"), (t, row.clause.id, v)
    assert by_target["jsonschema"] == failing, report.render_text()
    assert by_target["ibis"] == failing, report.render_text()


def _keys(node: object) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {k for v in node.values() for k in _keys(v)}
    if isinstance(node, list):
        return {k for v in node for k in _keys(v)}
    return set()


@pytest.mark.parametrize("name", ["fct_sensor_readings", "ohlcv_1m", "plant_sensor_reading"])
def test_a_strict_validator_accepts_the_schema(name: str) -> None:
    """No `x-` keyword (a strict validator refuses unknown keywords): tacit-gen's notes are
    `$comment`s; the meta-schema check runs with format checking on."""
    import jsonschema

    doc = json.loads((ROOT / "generated" / "jsonschema" / f"{name}.schema.json").read_text(encoding="utf-8"))
    assert not {k for k in _keys(doc) if k.startswith("x-")}
    meta = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA,
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    assert list(meta.iter_errors(doc)) == []
