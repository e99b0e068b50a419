"""Per-field lint waivers (`lint: {allow: [TG201], reason: ...}`) and money declared dimensionless."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tacit_gen.cli import main
from tacit_gen.contract.loader import load_report
from tacit_gen.targets.header import header_lines

BASE = """\
contract: orders
version: 1.0.0
owner: analytics@example
key: [order_id]
fields:
  order_id: {type: int64}
  amount:   {type: float64, unit: AUD%s}
"""
WAIVER = ', lint: {allow: [TG201], reason: "the warehouse stores DOUBLE until the cast lands"}'


def _diags(tmp_path: Path, text: str) -> list[tuple[str, str, int, int, str]]:
    path = tmp_path / "orders.yaml"
    path.write_text(text, encoding="utf-8")
    _, diags = load_report(path)
    return [(d.severity, d.code, d.line, d.col, d.message) for d in diags]


def test_money_as_float_is_an_error_without_a_waiver(tmp_path: Path) -> None:
    diags = _diags(tmp_path, BASE % "")
    assert [(s, c) for s, c, *_ in diags] == [("error", "TG201")]


def test_a_waiver_turns_the_rule_into_a_note_that_keeps_the_reason(tmp_path: Path) -> None:
    diags = _diags(tmp_path, BASE % WAIVER)
    assert [(s, c) for s, c, *_ in diags] == [("note", "TG201")]
    assert "waived: the warehouse stores DOUBLE until the cast lands" in diags[0][4]
    res = CliRunner().invoke(main, ["lint", str(tmp_path / "orders.yaml")])
    assert res.exit_code == 0 and "note:" in res.output and "[TG201]" in res.output


def test_the_waiver_is_shown_by_explain_and_in_headers(tmp_path: Path) -> None:
    _diags(tmp_path, BASE % WAIVER)
    res = CliRunner().invoke(main, ["explain", str(tmp_path / "orders.yaml")])
    assert res.exit_code == 0
    assert "lint waivers:" in res.output and "amount: TG201: the warehouse stores DOUBLE" in res.output
    res = CliRunner().invoke(main, ["explain", str(tmp_path / "orders.yaml"), "--format", "json"])
    assert json.loads(res.output)["lint_waivers"] == [
        {"field": "amount", "allow": ["TG201"], "reason": "the warehouse stores DOUBLE until the cast lands"}]
    from tacit_gen.contract.loader import load

    lines = header_lines(load(tmp_path / "orders.yaml"))
    assert "lint waiver: amount allows TG201: the warehouse stores DOUBLE until the cast lands" in lines


def test_a_waiver_needs_a_reason_and_known_codes(tmp_path: Path) -> None:
    diags = _diags(tmp_path, BASE % ", lint: {allow: [TG201]}")
    assert any(c == "TG104" and "has no 'reason'" in m for _, c, _, _, m in diags), diags
    assert any(c == "TG201" and s == "error" for s, c, *_ in diags)  # nothing waived
    diags = _diags(tmp_path, BASE % ', lint: {allow: [TG2011], reason: "x"}')
    assert any(c == "TG114" and "'TG2011' is not a lint rule" in m and "did you mean" in m
               for _, c, _, _, m in diags), diags
    diags = _diags(tmp_path, BASE % ', lint: {allow: [TG201], reason: "x", because: "y"}')
    assert any(c == "TG102" and "'because'" in m for _, c, _, _, m in diags), diags


def test_money_declared_dimensionless_is_flagged(tmp_path: Path) -> None:
    text = BASE.replace("unit: AUD%s", "unit: dimensionless")
    diags = _diags(tmp_path, text)
    assert [(s, c) for s, c, *_ in diags] == [("warning", "TG218")]
    assert (diags[0][2], diags[0][3]) == (7, 3)
    # a count is dimensionless for real
    diags = _diags(tmp_path, text.replace("amount:  ", "n_items:").replace("float64", "int64"))
    assert diags == []
