"""`time.completeness` in every target that states it is read back by drift: the rendered files
of the fixture read back clean, and a hand edit of the rule (a lower share, another allowed gap
type, another expected count) is drift naming `completeness:event_ts` in dbt, Soda v3, Soda 4,
GX, pandera and the ibis runtime. The wire schemas declare it unsupported in their header, which
`check` reads back as well (tests/targets/test_completeness_engines.py checks the declaration)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.targets.cli_drift import check_json, render_to

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "tests" / "fixtures" / "series" / "completeness.yaml"
CID = "completeness:event_ts"
# 24 readings per 1d at least 90%: the SQL compares readings * 864000000000 with
# 216000 (24 * 90 * 100) * (window - covered); 194400 is at least 81%
SHARE = ("216000", "194400")
GAPS = ("'maintenance', 'market_halt'", "'maintenance', 'market_halt', 'sensor_fault'")
EDITS = {
    "dbt-share": ("dbt/completeness_demo.yml", *SHARE),
    "dbt-gaps": ("dbt/completeness_demo.yml", *GAPS),
    "soda-share": ("soda/completeness_demo.yml", *SHARE),
    "soda-gaps": ("soda/completeness_demo.yml", *GAPS),
    "soda4-share": ("soda4/completeness_demo.yml", *SHARE),
    "soda4-gaps": ("soda4/completeness_demo.yml", *GAPS),
    "gx-share": ("gx/completeness_demo.json", *SHARE),
    "gx-gaps": ("gx/completeness_demo.json", "IN ('maintenance', 'market_halt')",
                "IN ('maintenance', 'market_halt', 'sensor_fault')"),
    "pandera-expected": ("pandera/completeness_demo.py", "expected=24,", "expected=20,"),
    "pandera-gaps": ("pandera/completeness_demo.py", "allowed_gaps=('maintenance', 'market_halt')",
                     "allowed_gaps=('maintenance',)"),
    "ibis-expected": ("ibis/completeness_demo.py", "expected=24,", "expected=20,"),
    "ibis-share": ("ibis/completeness_demo.py", "min_pct='90',", "min_pct='80',"),
}


def test_every_artifact_reads_back_clean(tmp_path: Path) -> None:
    code, output = check_json(CONTRACT, render_to(CONTRACT, tmp_path))
    assert code == 0, output


@pytest.mark.parametrize("case", sorted(EDITS))
def test_a_hand_edit_of_the_rule_is_drift(case: str, tmp_path: Path) -> None:
    out = render_to(CONTRACT, tmp_path)
    rel, old, new = EDITS[case]
    path = out / rel
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} in {rel}: {text.count(old)} times"
    path.write_text(text.replace(old, new))
    code, output = check_json(CONTRACT, out)
    assert code == 1, output
    findings = json.loads(output)["findings"]
    assert any(f.get("clause") == CID and f["code"] != "D100" for f in findings), output
