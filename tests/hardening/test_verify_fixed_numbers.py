"""A fixed numeric value (``value: 0.5`` on a float, decimal or integer field) holds in every
target: verify's verdicts on DuckDB and PostgreSQL (in the batch of
tests/hardening/test_verify_batch.py) and on Spark (tests/parity/test_parity_spark.py), the artifacts, and the loader.

Found by probing verify with new contracts and data (2026-12-04):

- The plan keeps a fixed number as its decimal text ("0.5"). GX's ``value_set`` and JSON Schema's
  ``const`` took that text as it was: GX compared a float column's values (on pandas) with the
  string and failed every row, and the JSON Schema's ``{"type": "number", "const": "0.5"}``
  matched no record. dbt, Soda, pandera and the runtime failed only the rows that differ: verify
  exited 3. A float column's fixed value is now a number in both (a decimal's stays text on the
  wire, which carries decimals as text).
- A float32 field fixed at a number float32 does not hold (``value: 0.1``) can hold no row:
  every target compares the value the column holds (0.100000001490116), which DuckDB alone
  rounded back. The loader refuses it (TG114, at the value), as it now refuses a decimal or int32
  fixed at a number the type cannot hold (``1.255`` on decimal(9,2)), which it let through.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load_report
from tests.conftest import value_targets
from tests.hardening import helpers
from tests.hardening.helpers import cli

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: fixed_numbers
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  f: {type: float64, unit: m, value: 0.5}
  g: {type: float32, unit: m, value: 0.25}
  d: {type: 'decimal(9,2)', unit: USD, value: 1.25}
  i: {type: int32, value: 3}
"""
# row 2 differs in every column; rows 1 and 3 hold the fixed values
DATA = "id,f,g,d,i\n1,0.5,0.25,1.25,3\n2,0.2,0.5,1.3,4\n3,0.5,0.25,1.25,3\n"
CHECKING = (*value_targets(), "jsonschema")  # JSON Schema checks this clause too
SQL_AND_FRAMES = value_targets()
FAILING = {"fixed_value:f": 1, "fixed_value:g": 1, "fixed_value:d": 1, "fixed_value:i": 1}
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def write_case(folder: Path) -> tuple[Path, Path]:
    """The contract and its data file, written into `folder` (the DuckDB, PostgreSQL and Spark batches verify them)."""
    return helpers.write_case(folder, "fixed_numbers", CONTRACT, DATA)


def check_report(report: dict[str, Any], shown: str = "",
                 checking: tuple[str, ...] = CHECKING) -> None:
    helpers.check_failing(report, FAILING, checking, shown)


def test_the_artifacts_carry_numbers(tmp_path: Path) -> None:
    contract, _ = write_case(tmp_path)
    out = tmp_path / "gen"
    assert cli("render", str(contract), "--out", str(out)).returncode == 0
    gx = json.loads((out / "gx" / "fixed_numbers.json").read_text())
    sets = {e["kwargs"]["column"]: e["kwargs"]["value_set"] for e in gx["expectations"]
            if e["type"] == "expect_column_values_to_be_in_set"}
    assert sets == {"f": [0.5], "g": [0.25], "d": ["1.25"], "i": [3]}, sets
    schema = json.loads((out / "jsonschema" / "fixed_numbers.schema.json").read_text())
    consts = {k: p["const"] for k, p in schema["properties"].items() if "const" in p}
    assert consts == {"f": 0.5, "g": 0.25, "d": "1.25", "i": 3}, consts
    res = cli("check", str(contract), "--out", str(out))
    assert res.returncode == 0, res.stdout + res.stderr


def test_a_float32_fixed_at_a_number_it_cannot_hold_is_refused() -> None:
    text = CONTRACT.replace("value: 0.25}", "value: 0.1}")
    _, diags = load_report("fixed_numbers.yaml", text)
    errors = [d for d in diags if d.severity == "error"]
    assert [(d.code, d.line, d.word) for d in errors] == [("TG114", 7, "0.1")], [d.render() for d in diags]
    assert errors[0].col == text.splitlines()[6].index("0.1") + 1
    assert "0.10000000149011612" in errors[0].message and "float64 or decimal" in errors[0].message
    # a number float32 holds (its exact decimal included) loads
    for held in ("0.5", "0.100000001490116119384765625", "-3"):
        _, ok = load_report("fixed_numbers.yaml", CONTRACT.replace("value: 0.25}", f"value: {held}}}"))
        assert not [d for d in ok if d.severity == "error"], [d.render() for d in ok]


def test_a_fixed_value_no_row_of_the_type_can_hold_is_refused() -> None:
    """A decimal(9,2) fixed at 1.255 (three decimals) or 12345678.9 (eight digits before the
    point), an int32 fixed past 2^31: no value of the type equals it, so every row would fail
    (the check of the value's type skipped decimals until 2026-12-04). What the type holds loads."""
    for old, new, word in (("value: 1.25}", "value: 1.255}", "1.255"),
                           ("value: 1.25}", "value: 12345678.9}", "12345678.9"),
                           ("value: 3}", "value: 2147483648}", "2147483648")):
        _, diags = load_report("fixed_numbers.yaml", CONTRACT.replace(old, new))
        errors = [(d.code, d.word) for d in diags if d.severity == "error"]
        assert errors == [("TG114", word)], [d.render() for d in diags]
    for old, new in (("value: 1.25}", "value: 1234567.89}"), ("value: 1.25}", "value: 1.250}"),
                     ("value: 3}", "value: -2147483648}")):
        _, diags = load_report("fixed_numbers.yaml", CONTRACT.replace(old, new))
        assert not [d for d in diags if d.severity == "error"], [d.render() for d in diags]
