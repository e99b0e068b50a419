"""docs/engines/gx.md's recipe, run as written: a generated suite on a DuckDB file through
`tacit_gen.gx.duckdb_datasource` passes on correct data and fails exactly the planted clause."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tacit_gen import sample as s
from tacit_gen.contract.loader import load
from tacit_gen.engines.load import load_data
from tacit_gen.plan import plan
from tacit_gen.render import render_all, write
from tacit_gen.targets.base import RenderOptions
from tests.conftest import ROOT

pytestmark = [pytest.mark.engine, pytest.mark.slow]


def recipe() -> str:
    text = (ROOT / "docs" / "engines" / "gx.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- gx-recipe:start -->\n```python\n(.*?)```\n<!-- gx-recipe:end -->", text, re.S)
    assert m, "docs/engines/gx.md has no gx-recipe block"
    return m.group(1)


def test_recipe_works_on_the_first_try(tmp_path: Path) -> None:
    path = ROOT / "contracts" / "fct_sensor_readings.yaml"
    c = load(path)
    # fresh data (the suite's freshness SQL reads current_timestamp) with one planted violation
    data = s.sample(c, plan(c), rows=50, seed=1, violate="range:value_degc", now=datetime.now(UTC))
    csv, _ = s.write(data, tmp_path / "data.csv")
    load_data(c, csv, tmp_path / "warehouse.duckdb", table="fct_sensor_readings")
    write(tmp_path / "generated", render_all([path], ("gx",), RenderOptions()))
    (tmp_path / "recipe.py").write_text(recipe(), encoding="utf-8")
    env = {**os.environ, "GX_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}
    proc = subprocess.run([sys.executable, "recipe.py"], cwd=tmp_path, capture_output=True,
                          text=True, env=env, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == ["failed: range:value_degc", "success: False"], proc.stdout
