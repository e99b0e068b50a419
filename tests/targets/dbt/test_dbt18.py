"""The dbt 1.7-1.9 form, built by dbt-core 1.8 + dbt-duckdb 1.8 in an environment of its own.

dbt 1.8 does not know the ``arguments:`` property (1.10), so ``[dbt] version = "1.8"`` writes the
arguments inline. The environment is built on first use from the lock beside this file
(``dbt18.requirements.txt``, every package pinned) into ``~/.cache/tacit-gen/envs/dbt18-<hash>``
(``TACIT_DBT18_VENV`` moves it); every bundled contract is rendered in the 1.8 form
and built in one project, on sample data with one planted violation.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from tacit_gen import sample as s
from tacit_gen.contract.loader import load
from tacit_gen.engines.envs import LockedEnv
from tacit_gen.engines.load import load_data
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.dbt import TARGET
from tacit_gen.targets.dbt.engine import SOURCE_ALIAS, write_project
from tacit_gen.targets.dbt.render import DbtOptions, ident, model_name
from tests.calendar.data import add_sessions
from tests.conftest import BUNDLED

pytestmark = [pytest.mark.engine, pytest.mark.slow]

NOW = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
BROKEN = ("fct_sensor_readings", "range:value_degc")


# every package pinned; the environment is built from this lock once and cached by its hash
DBT18 = LockedEnv("dbt18", "dbt 1.8", "TACIT_DBT18_VENV",
                  Path(__file__).resolve().parent / "dbt18.requirements.txt")


def dbt18() -> Path:
    """The dbt executable of the 1.8 environment, built from the lock when absent."""
    dbt = DBT18.ensure().path / "bin" / "dbt"
    assert dbt.is_file()
    return dbt


def dbt(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DO_NOT_TRACK": "1", "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    return subprocess.run([str(dbt18()), *args, "--project-dir", str(project), "--profiles-dir",
                           str(project), "--no-use-colors"], capture_output=True, text=True,
                          env=env, check=False, cwd=project)


def test_the_environment_is_pinned() -> None:
    """Every package of the dbt 1.8 environment at one version: a run builds what the last did."""
    pins = [ln.strip() for ln in DBT18.requirements.read_text().splitlines()
            if ln.strip() and not ln.lstrip().startswith("#")]
    assert pins and all(re.fullmatch(r"[A-Za-z0-9._-]+==[0-9][^ ;]*", p) for p in pins), pins
    names = {p.split("==")[0].lower() for p in pins}
    assert {"dbt-core", "dbt-duckdb", "duckdb"} <= names
    assert next(p for p in pins if p.startswith("dbt-core==")).startswith("dbt-core==1.8.")


def test_bundled_contracts_build_with_dbt_18(tmp_path: Path) -> None:
    exe = dbt18()
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True).stdout
    assert "1.8." in version, version
    project, db = tmp_path / "project", tmp_path / "data.duckdb"
    write_project(project, db)
    expected: dict[str, str] = {}  # test name -> clause id
    options = RenderOptions(targets=(DbtOptions(version="1.8"),))
    for path in BUNDLED:
        c = load(path)
        clauses = plan(c)
        violate = BROKEN[1] if c.name == BROKEN[0] else None
        data = s.sample(c, clauses, rows=40, seed=1, violate=violate, now=NOW)
        csv, catalog = s.write(data, tmp_path / "data" / f"{c.name}.csv")
        load_data(c, csv, db, table=c.name, catalog_path=catalog)
        add_sessions(db, clauses)  # the exchange sessions ohlcv_1m's cadence reads
        for art in TARGET.render(c, clauses, options).artifacts:
            dest = project / ("macros" if art.path.endswith(".sql") else "models") / Path(art.path).name
            dest.write_text(art.content, encoding="utf-8")
            if art.path.endswith(".yml"):
                assert "arguments:" not in art.content and "data_tests:" in art.content
                props = yaml.safe_load(art.content)["models"][0]
                for holder in [props, *props["columns"]]:
                    for t in holder.get("data_tests", []):
                        body = next(iter(t.values()))
                        expected[body["name"]] = body["config"]["meta"]["tacit_clause"]
        (project / "models" / f"{model_name(c)}.sql").write_text(
            f"select * from {SOURCE_ALIAS}.main.{ident(c.name)}\n", encoding="utf-8")
        for rel in sorted({str(cl.param(k)) for cl in clauses
                           for k in ("relation", "sessions_relation") if cl.param(k)}):
            (project / "models" / f"{rel}.sql").write_text(
                "{{ config(materialized='view') }}\n"
                f"select * from {SOURCE_ALIAS}.main.{ident(rel)}\n", encoding="utf-8")
    assert dbt(project, "deps").returncode == 0
    run = dbt(project, "build", "--vars", json.dumps({"tacit_now": NOW.isoformat()}))
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    manifest = json.loads((project / "target" / "manifest.json").read_text())
    by_name = {manifest["nodes"][r["unique_id"]]["name"]: r for r in results
               if r["unique_id"] in manifest["nodes"]}
    models = [r for r in results if r["unique_id"].startswith("model.")]
    assert {r["status"] for r in models} == {"success"}, run.stdout[-3000:]
    assert set(expected) <= set(by_name), sorted(set(expected) - set(by_name))
    broken = f"{BROKEN[0]}__range_value_degc"
    assert by_name[broken]["status"] == "fail" and by_name[broken]["failures"] >= 1
    others = {n: by_name[n]["status"] for n in expected if n != broken}
    assert set(others.values()) == {"pass"}, {n: st for n, st in others.items() if st != "pass"}
    # dbt 1.8 read the inline arguments: the range test's kwargs carry its bounds
    node = next(n for n in manifest["nodes"].values() if n.get("name") == broken)
    kwargs = node["test_metadata"]["kwargs"]
    assert (kwargs["min_value"], kwargs["max_value"]) == (-40, 150), kwargs
