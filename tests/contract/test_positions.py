"""The loaded Contract carries an index from YAML path to position; lint and diff read it."""

from __future__ import annotations

import ast
from pathlib import Path

from tacit_gen.contract.lint import check
from tacit_gen.contract.loader import load
from tacit_gen.contract.model import Pos
from tacit_gen.diagnostics import Diagnostics

ROOT = Path(__file__).resolve().parents[2]


def test_positions_point_at_keys_and_values_even_in_unquoted_flow_mappings() -> None:
    c = load("contracts/plant_sensor_reading.yaml")
    p = c.positions
    assert p.key("contract") == Pos(1, 1)
    assert p.value("version") == Pos(2, 10)
    assert p.key("time", "cadence") == Pos(10, 3)
    # `decimal(12,4)` unquoted inside a flow mapping: plain YAML would split it at the comma
    assert p.key("time", "completeness") == Pos(11, 3)
    assert p.key("fields", "value", "unit") == Pos(15, 37)
    assert p.value("fields", "value", "dimension") == Pos(15, 79)
    assert p.value("invariants", "2") == Pos(22, 5)
    assert p.line("revision_policy", "reasons") == 25
    assert p.key("fields", "nope") is None and p.line("catalog") is None


def test_lint_points_at_the_indexed_position(tmp_path: Path) -> None:
    text = (ROOT / "contracts" / "ohlcv_1m.yaml").read_text(encoding="utf-8")
    text += "targets:\n  soda:\n    enabled:   false\n"
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    c = load(path)
    found = Diagnostics("c.yaml")
    check(c, found)
    tg216 = [d for d in found.diags if d.code == "TG216"]
    line = text.count("\n")
    assert [(d.line, d.col) for d in tg216] == [(line, 16)]


def test_lint_and_diff_never_parse_the_source_again() -> None:
    paths = [ROOT / "tacit_gen/contract/lint.py", *sorted((ROOT / "tacit_gen/evolution/diff").glob("*.py"))]
    assert len(paths) > 2
    for path in paths:
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        assert not names & {"compose", "splitlines", "yamlpos"}, rel
