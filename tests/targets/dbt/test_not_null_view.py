"""A `nullable: false` column is checked by `dbt build` whatever the model's materialization:
dbt ignores constraints on a view (with a warning), so the default renders the constraint and a
`not_null` test. A NULL fails a real `dbt build` on DuckDB with the model as a view and a table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.dbt import TARGET
from tacit_gen.targets.dbt.engine import invoke

pytestmark = [pytest.mark.engine, pytest.mark.slow]

CONTRACT = """contract: orders
version: 1.0.0
owner: shop@example
description: Orders.
key: [order_id]
fields:
  order_id: {type: int64, nullable: false}
  status:   {type: string, nullable: false}
"""


def _build(tmp: Path, materialized: str) -> dict[str, str]:
    (tmp / "orders.yaml").write_text(CONTRACT, encoding="utf-8")
    c = load(tmp / "orders.yaml")
    project = tmp / "project"
    (project / "models").mkdir(parents=True)
    for art in TARGET.render(c, plan(c), RenderOptions()).artifacts:
        if art.path.endswith(".yml") and "/" in art.path and "macros" not in art.path:
            (project / "models" / Path(art.path).name).write_text(art.content, encoding="utf-8")
        elif art.path.endswith(".sql"):
            dest = project / "macros" / Path(art.path).name
            dest.parent.mkdir(exist_ok=True)
            dest.write_text(art.content, encoding="utf-8")
    (project / "dbt_project.yml").write_text(
        "name: shop\nversion: '1.0'\nprofile: shop\nmacro-paths: [macros]\n"
        f"models:\n  shop:\n    +materialized: {materialized}\n", encoding="utf-8")
    (project / "profiles.yml").write_text(
        "shop:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: {project / 'w.duckdb'}\n      threads: 1\n", encoding="utf-8")
    (project / "models" / "orders.sql").write_text(
        "select cast(1 as bigint) as order_id, cast('open' as varchar) as status\n"
        "union all select cast(2 as bigint), cast(null as varchar)\n", encoding="utf-8")
    shutil.rmtree(project / "target", ignore_errors=True)
    invoke(project, "build")
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    return {r["unique_id"]: r["status"] for r in results}


@pytest.mark.parametrize("materialized", ["view", "table"])
def test_a_null_fails_dbt_build(tmp_path: Path, materialized: str) -> None:
    statuses = _build(tmp_path, materialized)
    failed = {k for k, v in statuses.items() if v in ("fail", "error")}
    assert failed, statuses
    if materialized == "view":  # the model builds; the not_null test on status fails
        assert statuses["model.shop.orders"] == "success", statuses
        assert any(k.startswith("test.shop.") and "status" in k for k in failed), statuses
