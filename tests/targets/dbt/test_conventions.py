"""dbt conventions: doc blocks pass through (that exact form only), test names carry the model,
not_null follows the setting, the YAML form follows the dbt version; drift reads every form."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tacit_gen.compare import compare
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.dbt import TARGET
from tacit_gen.targets.dbt.read import read
from tacit_gen.targets.dbt.render import DbtOptions, description_safe, version_form

CONTRACT = """\
contract: orders
version: 1.0.0
owner: a@example
description: %s
key: [order_id]
fields:
  order_id: {type: int64}
  status:   {type: "enum[placed, shipped]", description: '{{ doc("orders_status") }}'}
  amount:   {type: decimal(18,2), unit: USD}
invariants:
  - amount >= 0
"""


@pytest.mark.parametrize(("text", "passes"), [
    ('{{ doc("orders_status") }}', True),
    ('{{ doc(\'orders_status\') }}', False),
    ('{{doc("orders_status")}}', False),
    ('{{ doc("orders_status") }} and more', False),
    ('{{ doc("a") }}{{ doc("b") }}', False),
    ('{{ doc("x") | upper }}', False),
    ('{{ var("secret") }}', False),
    ('{% docs x %}', False),
])
def test_only_the_exact_doc_form_passes_through(text: str, passes: bool) -> None:
    out = description_safe(text)
    assert (out == text) is passes
    if not passes:  # neutralised: dbt renders it back to the literal text
        assert out.startswith('{{ "') and out.endswith('" }}')


def _render(tmp_path: Path, options: RenderOptions, description: str = "Orders.") -> tuple[str, object]:
    path = tmp_path / "orders.yaml"
    path.write_text(CONTRACT % description, encoding="utf-8")
    c = load(path)
    return TARGET.render(c, plan(c), options).artifacts[0].content, c


def test_doc_block_in_a_description_and_test_names(tmp_path: Path) -> None:
    text, _ = _render(tmp_path, RenderOptions())
    model = yaml.safe_load(text)["models"][0]
    cols = {c["name"]: c for c in model["columns"]}
    assert cols["status"]["description"] == '{{ doc("orders_status") }}'
    names = [next(iter(t.values()))["name"] for c in model["columns"] for t in c.get("data_tests", [])]
    assert names and all(n.startswith("orders__") for n in names)
    assert "orders__range_amount" in names


@pytest.mark.parametrize("version", ["1.7", "1.8", "1.9", "1.10", "1.11", None])
@pytest.mark.parametrize("not_null", ["constraint", "test", "both"])
def test_every_form_reads_back_without_drift(tmp_path: Path, version: str | None, not_null: str) -> None:
    options = RenderOptions(targets=(DbtOptions(version=version, not_null=not_null),))
    text, c = _render(tmp_path, options)
    model = yaml.safe_load(text)["models"][0]
    key = "tests" if version_form(version) < (1, 8) else "data_tests"
    cols = {col["name"]: col for col in model["columns"]}
    assert key in cols["amount"]
    body = next(iter(cols["amount"][key][0].values()))
    assert ("arguments" in body) is (version_form(version) >= (1, 10))
    assert ("constraints" in cols["order_id"]) is (not_null != "test")
    assert any("not_null" in t for t in cols["order_id"].get(key, [])) is (not_null != "constraint")
    p = tmp_path / "orders.yml"
    p.write_text(text, encoding="utf-8")
    findings = compare(c, plan(c), read(p, text), p.as_posix(), "dbt")  # type: ignore[arg-type]
    assert findings == []
