"""A range or invariant bound a double does not keep is compared exactly in every engine:
verify's verdicts on DuckDB and PostgreSQL (in the batch of
tests/hardening/test_verify_batch.py) and on Spark (tests/parity/test_parity_spark.py), the artifacts, and `check` reading them back.

Found by probing verify with new contracts and data (2026-12-03):

- dbt: a bound past int64 (``big <= 12345678901234567890123`` on a decimal(38,0) column) went
  into the test's arguments as a YAML integer, which dbt's msgpack manifest refuses
  ("OverflowError: Integer value out of range"): dbt wrote no run_results.json and every test of
  the project errored. A bound Python prints in exponent form (``0.00001`` -> ``1e-05``) reached
  the SQL as a double literal, and `check` reported drift on a fresh render.
- Soda 3 reads ``valid min``/``valid max`` and ``min(c) > x`` thresholds as floats: the bound
  2^53 + 1 became 2^53 (the row at the bound failed), ``10000000000000000`` became ``1e+16``, a
  double comparison (the row above it passed), a 23-digit bound passed a row above it.
- GX coerces the bounds of its native expectations to float: the same rows, and a
  decimal(38,20) value of 0.3 passed ``d > 0.3``.
- The ibis runtime built a bound past int64 as an int64 literal and errored.

Soda and GX now write such a range (and GX such an invariant) as SQL with the contract's number;
the runtime builds a decimal literal; dbt writes the bound as text, which Jinja prints as is.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.expr.bounds import compares_in_double, prints_in_double
from tests.conftest import value_targets
from tests.hardening import helpers
from tests.hardening.helpers import cli

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: double_bounds
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  big: {type: "decimal(38,0)", unit: lots}
  i64: {type: int64, unit: lots}
  d: {type: "decimal(38,20)", unit: m}
  e: {type: "decimal(18,8)", unit: m}
  g: {type: int64, unit: lots}
  f: {type: float64, unit: m}
  a: {type: int64, unit: lots}
  b: {type: int64, unit: lots}
invariants:
  - big <= 12345678901234567890123
  - i64 < 9007199254740993
  - d > 0.3
  - e >= 0.00001
  - g <= 10000000000000000
  - f >= 0.1
  - a <= 9007199254740993 or b > 5
"""

# row 1: every value at its bound: big, e, g, f and a pass; i64 < bound fails; d > 0.3 fails
# row 2: every value one step past its bound (or inside for the exclusive ones)
# row 3: small values, every clause holds
DATA = """\
id,big,i64,d,e,g,f,a,b
1,12345678901234567890123,9007199254740993,0.3,0.00001,10000000000000000,0.1,9007199254740993,1
2,12345678901234567890124,9007199254740992,0.30000000000000000001,0.00000999,10000000000000001,0.09999999999999999,9007199254740994,1
3,1,1,1,1,1,1,1,1
"""

# the failing rows of each clause, computed by hand
FAILING = {
    "range:big": 1,  # row 2
    "range:i64": 1,  # row 1 (at the exclusive bound)
    "range:d": 1,  # row 1 (0.3 is not > 0.3)
    "range:e": 1,  # row 2
    "range:g": 1,  # row 2
    "range:f": 1,  # row 2
    "invariant:a <= 9007199254740993 or b > 5": 1,  # row 2
}
SQL_AND_FRAMES = value_targets()
NOW = datetime(2024, 1, 2, tzinfo=UTC)


CASE = helpers.FailingCase("double_bounds", CONTRACT, DATA, FAILING, SQL_AND_FRAMES)
write_case = CASE.write  # the DuckDB, PostgreSQL and Spark batches write and check the case
check_report = CASE.check


@pytest.mark.parametrize(("bound", "column_type", "in_double", "printed"), [
    ("9007199254740992", "int64", True, True),  # 2^53: a double
    ("9007199254740993", "int64", False, False),  # 2^53 + 1 rounds to 2^53
    ("10000000000000000", "int64", False, False),  # a double, printed 1e+16, past 2^53
    ("0.1", "int64", True, True),  # no integer between 0.1 and its double
    ("0.3", "decimal(38,20)", False, True),  # 0.3 and 0.30000000000000000001 are one double
    ("0.3", "decimal(15,2)", True, True),  # 15 digits survive a double
    ("0.00001", "decimal(18,8)", False, False),  # printed 1e-05: a double literal
    ("0.00001", "decimal(12,8)", True, True),
    ("0", "decimal(38,0)", True, True),  # no value rounds to zero
    ("12345678901234567890123", "decimal(38,0)", False, False),
    ("0.1", "float64", True, True),  # every engine compares a double column in double
])
def test_which_bounds_survive_a_double(bound: str, column_type: str, in_double: bool, printed: bool) -> None:
    assert compares_in_double(bound, column_type) is in_double
    assert prints_in_double(bound, column_type) is printed


def test_the_artifacts_carry_the_exact_bounds_and_check_reads_them_back(tmp_path: Path) -> None:
    """Soda and GX write the bounds a double would move as SQL, the others as natives; dbt's
    past-int64 bound is text; `check` of the fresh render is clean, and an edited bound in the
    SQL is drift."""
    contract, _ = write_case(tmp_path)
    out = tmp_path / "gen"
    res = cli("render", str(contract), "--out", str(out), "--no-cache")
    assert res.returncode == 0, res.stderr
    soda = (out / "soda" / "double_bounds.yml").read_text()
    assert "-- tacit_clause: range:i64" in soda and "i64 < 9007199254740993" in soda
    assert "g <= 10000000000000000" in soda and "1e+16" not in soda
    assert "valid min: 0.1" in soda  # the float column keeps Soda's own check
    suite = json.loads((out / "gx" / "double_bounds.json").read_text())
    kinds = {e["meta"]["tacit_clause"]: e["type"] for e in suite["expectations"]}
    assert kinds["range:big"] == kinds["range:d"] == "unexpected_rows_expectation"
    assert kinds["invariant:a <= 9007199254740993 or b > 5"] == "unexpected_rows_expectation"
    assert kinds["range:f"] == "expect_column_values_to_be_between"
    dbt = (out / "dbt" / "double_bounds.yml").read_text()
    assert "max_value: '12345678901234567890123'" in dbt and "min_value: '0.00001'" in dbt
    for target, name in (("soda", "double_bounds.yml"), ("gx", "double_bounds.json"),
                         ("dbt", "double_bounds.yml")):
        res = cli("check", str(contract), "--artifact", str(out / target / name), "--target", target,
                  "--no-bump-gate", "--no-cache")
        assert res.returncode == 0 and "clean" in res.stdout, (target, res.stdout, res.stderr)
    gx_path = out / "gx" / "double_bounds.json"
    gx_path.write_text(gx_path.read_text().replace("big <= 12345678901234567890123",
                                                   "big <= 12345678901234567890124"))
    res = cli("check", str(contract), "--artifact", str(gx_path), "--target", "gx", "--no-bump-gate", "--no-cache")
    assert res.returncode != 0 and "range:big" in res.stdout, res.stdout
    soda_path = out / "soda" / "double_bounds.yml"
    soda_path.write_text(soda.replace("i64 < 9007199254740993", "i64 < 9007199254740994"))
    res = cli("check", str(contract), "--artifact", str(soda_path), "--target", "soda", "--no-bump-gate", "--no-cache")
    assert res.returncode != 0 and "range:i64" in res.stdout, res.stdout


def test_the_plan_gives_ranges_and_invariants_their_column_types(tmp_path: Path) -> None:
    contract, _ = write_case(tmp_path)
    from tacit_gen.plan import plan

    clauses = {c.id: c for c in plan(load(str(contract)))}
    assert clauses["range:big"].column_type("big") == "decimal(38,0)"
    assert dict(clauses["invariant:a <= 9007199254740993 or b > 5"].types) == {"a": "int64", "b": "int64"}
