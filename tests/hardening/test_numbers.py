"""Class 4 of issue 15: numeric literals are checked against the column type at lint (no inf,
nothing beyond int64 or DECIMAL(38)); `sample` never raises on a bound at the edge of a type."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load_report
from tests.hardening.helpers import assert_usage_error, cli

HEAD = """\
contract: nums
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  f: {type: float64, unit: m}
  i: {type: int32}
  d: {type: 'decimal(38,0)', unit: USD}
  s: {type: 'decimal(12,4)', unit: USD}
invariants:
"""


def _errors(tmp_path: Path, invariant: str) -> list[str]:
    p = tmp_path / "c.yaml"
    p.write_text(HEAD + f"  - {invariant}\n", encoding="utf-8")
    _, diags = load_report(p)
    return [f"{d.line}:{d.col} {d.code} {d.word}" for d in diags if d.severity == "error"]


@pytest.mark.parametrize(("inv", "expected"), [
    ("f <= 1e400", "11:10 TG117 1e400"),
    ("f >= -1e400", "11:10 TG117 -1e400"),
    ("f between 0 and 1e309", "11:21 TG117 1e309"),
    ("f * 1e400 > 0", "11:9 TG117 1e400"),
    ("i < 9223372036854775808", "11:9 TG117 9223372036854775808"),
    ("id in (1, 99999999999999999999)", "11:15 TG117 99999999999999999999"),
    ("d <= 1000000000000000000000000000000000000000", "11:10 TG117 1000000000000000000000000000000000000000"),
])
def test_literal_beyond_its_column_type(tmp_path: Path, inv: str, expected: str) -> None:
    assert _errors(tmp_path, inv) == [expected]


@pytest.mark.parametrize("inv", [
    "f <= 1e300", "i < 9223372036854775807", "id >= -9223372036854775808",
    "d <= 99999999999999999999999999999999999999", "s < 100000000", "s >= 0.00001",
])
def test_literal_within_its_column_type(tmp_path: Path, inv: str) -> None:
    assert _errors(tmp_path, inv) == []


def test_fixed_value_beyond_int64(tmp_path: Path) -> None:
    p = tmp_path / "c.yaml"
    p.write_text(HEAD.replace("  i: {type: int32}", "  i: {type: int64, value: 9223372036854775808}")
                 .replace("invariants:\n", ""), encoding="utf-8")
    _, diags = load_report(p)
    assert [(d.line, d.code) for d in diags if d.severity == "error"] == [(7, "TG117")]


@pytest.mark.parametrize("inv", [
    "d <= 99999999999999999999999999999999999999",
    "d >= -99999999999999999999999999999999999999",
    "d > 99999999999999999999999999999999999998",
    "s < 100000000",
])
def test_sample_at_the_edge_of_a_decimal(tmp_path: Path, inv: str) -> None:
    p = tmp_path / "c.yaml"
    p.write_text(HEAD + f"  - {inv}\n", encoding="utf-8")
    res = cli("sample", str(p), "--rows", "5")
    out = res.stdout + res.stderr
    assert "Traceback" not in out and "InvalidOperation" not in out, out
    assert res.returncode in (0, 2), out
    if res.returncode == 2:
        assert_usage_error(res, "d")
