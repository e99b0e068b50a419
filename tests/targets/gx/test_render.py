"""GX target: golden suites, byte-stable output, escaping, unsupported clauses, the type registry."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tacit_gen import jsontext
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.gx import TARGET

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = sorted((ROOT / "contracts").glob("*.yaml"))
GOLDEN = ROOT / "generated" / "gx"  # the committed render is the golden file

HOSTILE = """\
contract: hostile_ds
version: 1.0.0
owner: "o'brien: #1"
description: "ends the string \\" and tries a newline\\n}]"
key: [id]
fields:
  id: {type: int64, nullable: false}
  label: {type: string, value: "it's: \\"#ok\\""}
  note: {type: string}
invariants:
  - note != 'x''; DROP TABLE hostile_ds; --'
"""


def _render(path: Path) -> str:
    contract = load(path)
    result = TARGET.render(contract, plan(contract), RenderOptions())
    assert [a.path for a in result.artifacts] == [f"gx/{contract.name}.json"]
    assert TARGET.artifact_paths(contract) == (f"gx/{contract.name}.json",)
    return result.artifacts[0].content


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_golden(path: Path) -> None:
    text = _render(path)
    golden = GOLDEN / f"{path.stem}.json"
    if os.environ.get("TACIT_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_second_render_is_byte_identical(path: Path) -> None:
    assert _render(path) == _render(path)


def test_render_is_stable_across_hash_seeds() -> None:
    code = (
        "from tacit_gen.contract.loader import load; from tacit_gen.plan import plan;"
        "from tacit_gen.targets.base import RenderOptions; from tacit_gen.targets.gx import TARGET;"
        f"c = load({str(BUNDLED[0])!r}); print(TARGET.render(c, plan(c), RenderOptions()).artifacts[0].content, end='')"
    )
    outs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}, cwd=ROOT).stdout
        for seed in ("1", "2")
    }
    assert len(outs) == 1


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_suite_shape_and_clause_tags(path: Path) -> None:
    contract = load(path)
    clauses = plan(contract)
    doc = json.loads(_render(path))
    assert list(doc) == ["name", "expectations", "meta"]
    assert doc["name"] == contract.name
    assert doc["meta"]["tacit_gen"]["contract"] == contract.name
    assert doc["meta"]["tacit_gen"]["version"] == contract.version
    texts = {c.id: c.text for c in clauses}
    tagged = set()
    for e in doc["expectations"]:
        # severity only for a warning (GX's default is critical); the text once, in the suite's meta
        assert list(e) == ["type", "kwargs", "meta"]
        cid = e["meta"]["tacit_clause"]
        assert set(e["meta"]) <= {"tacit_clause", "tacit_type", "tacit_types", "tacit_now"}
        tagged.add(cid)
        if e["type"] == "unexpected_rows_expectation":
            assert cid in doc["meta"]["tacit_custom_sql"]
            assert cid in doc["meta"]["tacit_params"]
    assert doc["meta"]["tacit_clauses"] == {cid: texts[cid] for cid in texts if cid in tagged}
    assert list(doc["meta"]["tacit_clauses"]) == [c.id for c in clauses if c.id in tagged]
    unsupported = {u["clause"] for u in doc["meta"]["tacit_unsupported"]}
    assert tagged | unsupported == set(texts)


def test_short_objects_and_arrays_stay_on_one_line() -> None:
    text = _render(ROOT / "contracts" / "ohlcv_1m.yaml")
    assert ('    {\n      "type": "expect_column_to_exist",\n      "kwargs": {"column": "symbol"},\n'
            '      "meta": {"tacit_clause": "column:symbol"}\n    },\n') in text
    assert json.loads(text) == json.loads(jsontext.dumps(json.loads(text)))
    string = r'"(?:[^"\\]|\\.)*"'
    long = [line for line in text.splitlines() if len(line) > 100]
    assert long and all(re.fullmatch(rf"\s*({string}: )?{string},?", line) for line in long)


def test_chain_becomes_two_pair_expectations_with_one_clause_id() -> None:
    doc = json.loads(_render(ROOT / "contracts" / "ohlcv_1m.yaml"))
    chain = [e for e in doc["expectations"] if e["meta"]["tacit_clause"] == "invariant:low <= open <= high"]
    assert [(e["type"], e["kwargs"]["column_A"], e["kwargs"]["column_B"], e["kwargs"]["or_equal"])
            for e in chain] == [
        ("expect_column_pair_values_a_to_be_greater_than_b", "open", "low", True),
        ("expect_column_pair_values_a_to_be_greater_than_b", "high", "open", True),
    ]
    assert all(e["kwargs"]["ignore_row_if"] == "either_value_is_missing" for e in chain)


def test_only_when_is_not_null_under_a_condition_object() -> None:
    doc = json.loads(_render(ROOT / "contracts" / "fct_sensor_readings.yaml"))
    (e,) = [e for e in doc["expectations"]
            if e["meta"]["tacit_clause"] == "invariant:value_degc is null only when quality = bad"]
    assert e["type"] == "expect_column_values_to_not_be_null"
    assert e["kwargs"]["row_condition"] == {"type": "and", "conditions": [
        {"type": "nullity", "column": {"name": "quality"}, "is_null": False},
        {"type": "comparison", "column": {"name": "quality"}, "operator": "!=", "parameter": "bad"},
    ]}


def test_hostile_strings_stay_inside_json_and_sql(tmp_path: Path) -> None:
    p = tmp_path / "hostile_ds.yaml"
    p.write_text(HOSTILE, encoding="utf-8")
    doc = json.loads(_render(p))
    fixed = [e for e in doc["expectations"] if e["meta"]["tacit_clause"] == "fixed_value:label"]
    assert fixed[0]["kwargs"]["value_set"] == ["it's: \"#ok\""]
    inv = [e for e in doc["expectations"] if e["meta"]["tacit_clause"].startswith("invariant:")]
    assert inv[0]["type"] == "expect_column_values_to_not_be_in_set"
    assert inv[0]["kwargs"]["value_set"] == ["x'; DROP TABLE hostile_ds; --"]


def test_suite_name_option(tmp_path: Path) -> None:
    p = tmp_path / "named.yaml"
    p.write_text(HOSTILE.replace("hostile_ds", "named") + "targets:\n  gx: {suite: named_v1}\n",
                 encoding="utf-8")
    contract = load(p)
    doc = json.loads(TARGET.render(contract, plan(contract), RenderOptions()).artifacts[0].content)
    assert doc["name"] == "named_v1"


def test_unsupported_is_reported_and_listed() -> None:
    from tacit_gen.plan_types import Clause, make_params
    from tacit_gen.targets.gx.suite import suite_document

    contract = load(ROOT / "contracts" / "fct_sensor_readings.yaml")
    odd = Clause("revision_window", "revision_window", ("revision",),
                 make_params(column="revision", time_column="event_ts", ingest_column=None,
                             allowed=True, window_seconds=None, business_days=None), "revision_policy")
    doc, unsupported = suite_document(contract, (*plan(contract), odd))
    assert [u.clause_id for u in unsupported] == ["revision_window"]
    assert doc["meta"]["tacit_unsupported"][0]["clause"] == "revision_window"
    assert not [e for e in doc["expectations"] if e["meta"]["tacit_clause"] == "revision_window"]


def test_renderer_and_reader_do_not_import_gx() -> None:
    code = (
        "import sys; import tacit_gen.targets.gx.render, tacit_gen.targets.gx.read;"
        "print(any(m.split('.')[0] in ('great_expectations', 'pandas') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"
