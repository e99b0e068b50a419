"""The protovalidate rules of the protobuf target on the wire-rules fixture: which clauses get a
rule and which are declared unsupported (with why), and the protobuf engine's verdicts (protoc,
then protovalidate on each message) equal to the runtime's (ibis) on edge values: bounds, NaN,
decimal spellings, and SQL's three values in a null-only-when invariant."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.render import render_contract
from tacit_gen.targets.base import RenderOptions
from tacit_gen.verify import run_verify

ROOT = Path(__file__).resolve().parents[3]
CONTRACT = ROOT / "tests" / "fixtures" / "wire" / "rules.yaml"


def test_rules_and_what_is_left_unsupported() -> None:
    artifacts, unsupported = render_contract(load(CONTRACT), ("protobuf",), RenderOptions())
    proto = next(a.content for a in artifacts if a.path.endswith(".proto"))
    assert "(buf.validate.field).double = {gt: -1.5, lt: 2.5}" in proto
    assert "(buf.validate.field).int32 = {gt: 0}" in proto
    assert 'expression: "!this.matches(\\"^-|^[0.]*$\\")"' in proto
    assert 'expression: "double(this) >= -40.0 && double(this) < 150.5"' in proto
    assert 'id: "invariant.reading_is_null_only_when_quality_bad"' in proto
    reasons = {u.clause_id: u.reason for u in unsupported}
    assert set(reasons) == {"unique:id", "range:ratio"}
    assert "float32" in reasons["range:ratio"]


HEADER = "id,ratio,gain,count,price,reading,quality"
CLEAN = ["1,0.0625,0,1,0.01,1.50,good", "2,,,,,,", "3,-5,-1.25,7,3.00,,bad", "4,0.09375,2.25,2,1,2,"]


@pytest.mark.engine
@pytest.mark.parametrize(("rows", "failing"), [
    ([], {}),
    (["5,0,-1.5,1,1,1,good", "6,0,2.5,1,1,1,good"], {"range:gain": 2}),
    (["5,0,0,0,1,1,good", "6,0,0,-3,1,1,good"], {"range:count": 2}),
    # NaN is above every number (SQL's order): not `< 2.5`; protovalidate fails NaN too
    (["6,0,nan,1,1,1,good"], {"range:gain": 1}),
    (["5,0,0,1,0.00,1,good", "6,0,0,1,-0.01,1,good", "7,0,0,1,-12,1,good"], {"range:price": 3}),
    (["5,0,0,1,1,-40.00,good", "6,0,0,1,1,150.49,good", "7,0,0,1,1,-0.00,good"], {}),
    (["5,0,0,1,1,-40.01,good", "6,0,0,1,1,150.50,good", "8,0,0,1,1,1000,good"], {"range:reading": 3}),
    # a null quality makes `quality = bad` unknown: the row passes, as a SQL CHECK does
    (["5,0,0,1,1,,good", "6,0,0,1,1,,suspect", "7,0,0,1,1,,"],
     {"invariant:reading is null only when quality = bad": 2}),
])
def test_verdicts_equal_the_runtime(rows: list[str], failing: dict[str, int], tmp_path: Path) -> None:
    data = tmp_path / "wire_rules.csv"
    data.write_text("\n".join([HEADER, *CLEAN, *rows]) + "\n", encoding="utf-8")
    report = run_verify(load(CONTRACT), data, None, ("protobuf", "ibis"), datetime(2026, 12, 4, tzinfo=UTC))
    by_target: dict[str, dict[str, int | None]] = {"protobuf": {}, "ibis": {}}
    for row in report.rows:
        for t, v in row.verdicts.items():
            if v.status == "fail":
                by_target[t][row.clause.id] = v.failures
            if row.clause.kind in ("range", "invariant") and row.clause.id != "range:ratio":
                assert v.status in ("pass", "fail"), (t, row.clause.id, v)
    assert by_target["ibis"] == failing, report.render_text()
    assert by_target["protobuf"] == failing, report.render_text()
