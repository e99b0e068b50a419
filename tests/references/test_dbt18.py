"""The foreign key in the dbt 1.7-1.9 form (arguments inline in the `relationships` test), built by
dbt-core 1.8 + dbt-duckdb 1.8 in the environment of tests/targets/dbt/test_dbt18.py: the order of a
customer the `customers` model lacks fails `orders__references_customer_id` with one failure; the
clean data passes it; dbt 1.8 read `to` and `field` from the inline arguments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tacit_gen import sample as s
from tacit_gen.contract.loader import load
from tacit_gen.engines.load import load_data
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.dbt import TARGET
from tacit_gen.targets.dbt.engine import SOURCE_ALIAS, write_project
from tacit_gen.targets.dbt.render import DbtOptions
from tests.targets.dbt.test_dbt18 import dbt

pytestmark = [pytest.mark.engine, pytest.mark.slow]

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "references" / "orders.yaml"
TEST = "orders__references_customer_id"


@pytest.mark.parametrize("violate", [None, "references:customer_id"])
def test_the_inline_relationships_test_runs_in_dbt_18(tmp_path: Path, violate: str | None) -> None:
    contract = load(FIXTURE)
    clauses = plan(contract)
    data = s.sample(contract, clauses, rows=20, seed=2, violate=violate)
    csv, _ = s.write(data, tmp_path / "data" / "orders.csv")
    project, db = tmp_path / "project", tmp_path / "data.duckdb"
    load_data(contract, csv, db)
    write_project(project, db)
    for art in TARGET.render(contract, clauses, RenderOptions(targets=(DbtOptions(version="1.8"),))).artifacts:
        dest = project / ("macros" if art.path.endswith(".sql") else "models") / Path(art.path).name
        dest.write_text(art.content, encoding="utf-8")
        if art.path.endswith(".yml"):
            col = next(c for c in yaml.safe_load(art.content)["models"][0]["columns"]
                       if c["name"] == "customer_id")
            body = next(t["relationships"] for t in col["data_tests"] if "relationships" in t)
            assert "arguments" not in body and (body["to"], body["field"]) == ("ref('customers')", "customer_id")
    for rel in ("orders", "customers"):
        (project / "models" / f"{rel}.sql").write_text(
            f"select * from {SOURCE_ALIAS}.main.{rel}\n", encoding="utf-8")
    assert dbt(project, "deps").returncode == 0
    run = dbt(project, "build")
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    manifest = json.loads((project / "target" / "manifest.json").read_text())
    by_name = {manifest["nodes"][r["unique_id"]]["name"]: r for r in results if r["unique_id"] in manifest["nodes"]}
    assert TEST in by_name, run.stdout[-3000:]
    want = ("pass", 0) if violate is None else ("fail", 1)
    assert (by_name[TEST]["status"], by_name[TEST]["failures"]) == want, run.stdout[-3000:]
    node = next(n for n in manifest["nodes"].values() if n.get("name") == TEST)
    assert node["test_metadata"]["kwargs"]["field"] == "customer_id"
