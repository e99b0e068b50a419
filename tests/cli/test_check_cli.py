"""`tacit-gen check` on hand edits that keep the header intact: each is reported with its code,
the artifact path, the clause id and the contract line."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tests.conftest import ROOT


def setup(tmp: Path) -> Path:
    shutil.copytree(ROOT / "contracts", tmp / "contracts")
    res = CliRunner().invoke(main, ["render", str(tmp / "contracts"), "--out", str(tmp / "gen")])
    assert res.exit_code == 0, res.output
    return tmp / "gen"


def check(tmp: Path) -> tuple[int, dict]:  # type: ignore[type-arg]
    res = CliRunner().invoke(main, ["check", str(tmp / "contracts"), "--out", str(tmp / "gen"),
                                    "--no-bump-gate", "--format", "json"])
    return res.exit_code, json.loads(res.output)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


CASES: list[tuple[str, str, Callable[[Path], None], str, str, int]] = [
    ("deleted test", "dbt/ohlcv_1m.yml",
     lambda g: _drop_dbt_test(g / "dbt" / "ohlcv_1m.yml", "ohlcv_1m__range_trade_count"),
     "D200", "range:trade_count", 25),
    ("changed bound", "dbt/ohlcv_1m.yml",
     lambda g: edit(g / "dbt" / "ohlcv_1m.yml", "min_value: 0", "min_value: 1"),
     "D202", "range:volume", 24),
    ("changed type", "soda/ohlcv_1m.yml",
     lambda g: edit(g / "soda" / "ohlcv_1m.yml", "volume: decimal(24,4)", "volume: decimal(18,4)"),
     "D202", "column:volume", 18),
    ("loosened nullable", "dbt/ohlcv_1m.yml",
     lambda g: (edit(g / "dbt" / "ohlcv_1m.yml",
                     "  - name: close\n    data_type: decimal(18,8)\n    constraints:\n    - type: not_null\n",
                     "  - name: close\n    data_type: decimal(18,8)\n"),
                edit(g / "dbt" / "ohlcv_1m.yml",
                     "    data_tests:\n    - not_null:\n        name: ohlcv_1m__not_null_close\n        config:\n"
                     "          meta:\n            tacit_clause: not_null:close\n"
                     "            tacit_text: 'close:    {type: decimal(18,8), unit: quote_currency, nullable: false}'\n",
                     "")),
     "D200", "not_null:close", 17),
    ("added severity warn", "dbt/fct_sensor_readings.yml",
     lambda g: edit(g / "dbt" / "fct_sensor_readings.yml",
                    "        config:\n          meta:\n            tacit_clause: range:value_degc",
                    "        config:\n          severity: warn\n          meta:\n            tacit_clause: range:value_degc"),
     "D203", "range:value_degc", 21),
    ("deleted expectation", "gx/fct_sensor_readings.json",
     lambda g: _drop_gx(g / "gx" / "fct_sensor_readings.json", "accepted_values:quality"),
     "D200", "accepted_values:quality", 17),
    ("removed column", "pandera/fct_sensor_readings.py",
     lambda g: _drop_pandera_column(g / "pandera" / "fct_sensor_readings.py", "source_id"),
     "D200", "column:source_id", 18),
]


def _drop_dbt_test(path: Path, name: str) -> None:
    import yaml

    doc = yaml.safe_load(path.read_text())
    header = "".join(ln for ln in path.read_text().splitlines(keepends=True) if ln.startswith("#"))
    for col in doc["models"][0]["columns"]:
        col["data_tests"] = [t for t in col.get("data_tests", [])
                             if next(iter(t.values())).get("name") != name]
    path.write_text(header + yaml.safe_dump(doc, sort_keys=False))


def _drop_gx(path: Path, clause: str) -> None:
    doc = json.loads(path.read_text())
    doc["expectations"] = [e for e in doc["expectations"] if e["meta"].get("tacit_clause") != clause]
    path.write_text(json.dumps(doc, indent=2) + "\n")


def _drop_pandera_column(path: Path, column: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if ln.strip().startswith(f"{column!r}: pa.Column("))
    depth, end = 0, start
    for end in range(start, len(lines)):
        depth += lines[end].count("(") - lines[end].count(")")
        if depth == 0:
            break
    del lines[start:end + 1]
    path.write_text("".join(lines))


def test_clean_copy_is_clean(tmp_path: Path) -> None:
    setup(tmp_path)
    code, doc = check(tmp_path)
    assert code == 0, doc
    assert doc["findings"] == []


@pytest.mark.parametrize(("label", "artifact", "mutate", "code", "clause", "line"), CASES,
                         ids=[c[0] for c in CASES])
def test_hand_edit_is_reported(label: str, artifact: str, mutate: Callable[[Path], None], code: str,
                               clause: str, line: int, tmp_path: Path) -> None:
    gen = setup(tmp_path)
    mutate(gen)
    exit_code, doc = check(tmp_path)
    assert exit_code == 1
    path = (gen / artifact).as_posix()
    semantic = [f for f in doc["findings"] if f["code"] == code and f["clause"] == clause]
    assert semantic, doc["findings"]
    f = semantic[0]
    assert f["path"] == path
    assert f["contract_line"] == line
    assert f["contract"].endswith(".yaml")
    # byte drift is reported too, as its own finding
    assert any(x["code"] == "D100" and x["path"] == path for x in doc["findings"])
