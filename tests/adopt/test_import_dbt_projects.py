"""`tacit-gen import dbt` on real dbt projects.

jaffle_shop_duckdb (the mirror fetched for development, else the small project of the same shape
that tests/cli/test_dbt_project.py writes) is built by dbt for real, `dbt docs generate` writes its
catalog, and the import reads the manifest and the catalog: every contract lints, every `unique`
and `not_null` test dbt knows is a clause, and every documented column the warehouse lacks is
named. Read without the catalog (public projects rarely declare `data_type`), every column is
named as untyped and the import exits 1. Other public projects' model files (dbt-labs/jaffle-shop,
fivetran/dbt_stripe) are read the same way: files of their shape under tests/fixtures/public
always, and the projects' own when their mirrors are on this machine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tacit_gen.cli import main
from tacit_gen.contract.loader import load_report
from tacit_gen.plan import plan
from tests.cli.test_dbt_project import copy_project

pytestmark = pytest.mark.engine

MIRRORS = Path(os.environ.get("TACIT_MIRRORS", "/work/.mirror"))
PUBLIC = Path(__file__).resolve().parent.parent / "fixtures" / "public"
# model files in the shape of dbt-labs/jaffle-shop and fivetran/dbt_stripe, written for this
# project (always run), and the projects' own when their mirrors are here (a case only then: never
# a skip, never the small ones passed off as them)
OTHERS = ("fixture:jaffle-shop", "fixture:dbt_stripe",
          *(name for name in ("dbt-labs+jaffle-shop", "fivetran+dbt_stripe")
            if (MIRRORS / name / "repo" / "HEAD").is_file()))


def run(cwd: Path, *args: str) -> dict:  # type: ignore[type-arg]
    old = os.getcwd()
    os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, [*args, "--format", "json"])
    finally:
        os.chdir(old)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    assert res.exit_code in (0, 1), res.output
    report = json.loads(res.output)
    report["exit_code"] = res.exit_code
    return report


def clean(path: Path) -> object:
    contract, diags = load_report(path)
    assert [d.render() for d in diags if d.severity != "note"] == []
    return contract


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tacit_gen.targets.dbt.engine import invoke

    repo = tmp_path_factory.mktemp("jaffle") / "p"
    copy_project(repo)
    (repo / "profiles.yml").write_text(yaml.safe_dump({"jaffle_shop": {"target": "dev", "outputs": {
        "dev": {"type": "duckdb", "path": str(repo / "j.duckdb"), "threads": 1}}}}))
    assert invoke(repo, "build").success
    assert invoke(repo, "docs", "generate").success
    return repo


def test_jaffle_shop_with_manifest_and_catalog(built: Path) -> None:
    report = run(built, "import", "dbt", "models", "--manifest", "target/manifest.json",
                 "--catalog", "target/catalog.json", "--out", "contracts")
    manifest = json.loads((built / "target" / "manifest.json").read_text())
    catalog = json.loads((built / "target" / "catalog.json").read_text())
    by_name = {c["name"]: c for c in report["contracts"]}
    expected_untyped = {}
    for uid, node in manifest["nodes"].items():
        if node["resource_type"] == "model":
            warehouse = {c.lower() for c in catalog["nodes"][uid]["columns"]}
            expected_untyped[node["name"]] = sorted(
                c for c in node["columns"] if c.lower() not in warehouse)
    assert {n: c["untyped"] for n, c in by_name.items()} == expected_untyped
    plans = {}
    for c in report["contracts"]:
        contract = clean(built / c["path"])
        plans[c["name"]] = {cl.id for cl in plan(contract)}  # type: ignore[arg-type]
    checked = 0
    for node in manifest["nodes"].values():
        meta = node.get("test_metadata") or {}
        if node["resource_type"] != "test" or meta.get("name") not in ("unique", "not_null"):
            continue
        model = manifest["nodes"][node["attached_node"]]["name"]
        column = meta["kwargs"]["column_name"]
        if column in by_name[model]["untyped"]:
            continue
        assert f"{meta['name']}:{column}" in plans[model], (model, column)
        checked += 1
    assert checked >= 4
    # every undocumented warehouse column is in its contract too (the contract is strict)
    assert "column:customer_lifetime_value" in plans["customers"]
    # jaffle_shop's relationships test (orders.customer_id to ref('customers')) is a foreign key
    assert "references:customer_id" in plans["orders"]
    orders = load_report(built / by_name["orders"]["path"])[0]
    assert orders.field("customer_id").references == ("customers", "customer_id")  # type: ignore[union-attr]
    assert report["exit_code"] == (1 if any(expected_untyped.values()) else 0)


def test_jaffle_shop_without_types_names_every_column(built: Path) -> None:
    report = run(built, "import", "dbt", "models", "--out", "untyped")
    assert report["exit_code"] == 1
    for c in report["contracts"]:
        assert c["status"] == "not written"
    documented = {}
    for f in sorted((built / "models").rglob("*.yml")):
        for m in (yaml.safe_load(f.read_text()) or {}).get("models", []):
            documented[m["name"]] = [c["name"] for c in m.get("columns", [])]
    assert {c["name"]: c["untyped"] for c in report["contracts"]} == documented


def _models(name: str, dest: Path) -> Path:
    """`dest` holding the `models/` folder of the case: a fixture's, or a mirror's HEAD."""
    if name.startswith("fixture:"):
        shutil.copytree(PUBLIC / name.removeprefix("fixture:") / "models", dest / "models")
        return dest
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "--git-dir", str(MIRRORS / name / "repo"), "archive", "HEAD",
                              "models"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


@pytest.mark.parametrize("name", OTHERS)
def test_public_model_files_import_or_name_what_they_lack(tmp_path: Path, name: str) -> None:
    root = _models(name, tmp_path / "p")
    report = run(root, "import", "dbt", "models", "--out", "contracts")
    declared: dict[str, dict[str, str | None]] = {}
    for f in sorted((root / "models").rglob("*.yml")):
        for m in (yaml.safe_load(f.read_text()) or {}).get("models", []) or []:
            declared[m["name"]] = {c["name"]: c.get("data_type") for c in m.get("columns") or []}
    by_name = {c["name"]: c for c in report["contracts"]}
    assert set(by_name) == set(declared)
    for model, cols in declared.items():
        untyped = by_name[model]["untyped"]
        assert set(untyped) >= {c for c, t in cols.items() if t is None}, model
        if by_name[model]["status"] == "written":
            contract = clean(root / by_name[model]["path"])
            ids = {cl.id for cl in plan(contract)}  # type: ignore[arg-type]
            for item in by_name[model]["items"]:
                if item["status"] == "mapped" and item["to"].startswith(("not_null:", "key: ")):
                    assert item["to"].removeprefix("key: ") in ids
    not_mapped = any(i["status"] == "not_mapped" for c in report["contracts"] for i in c["items"])
    assert report["exit_code"] == (1 if not_mapped else 0)
    assert not_mapped  # these projects declare no data_type: their columns are named
