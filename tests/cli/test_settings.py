"""Project settings (tacit-gen.toml / [tool.tacit-gen]): found, read by every command, overridden
by flags, checked like contracts; and what `render` / `check` say about the user's dbt project."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from tacit_gen.cli import main
from tests.conftest import ROOT

CONTRACT = ROOT / "contracts" / "fct_sensor_readings.yaml"


def run(cwd: Path, *args: str) -> Result:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args))
    finally:
        os.chdir(old)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "analytics"
    (repo / "data" / "contracts").mkdir(parents=True)
    shutil.copy(CONTRACT, repo / "data" / "contracts")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


SETTINGS = """\
contracts = "data/contracts"
out = "build/gen"
targets = ["dbt", "soda"]

[dbt]
tests = "native"
macros = "macros/tacit"
not_null = "test"
version = "1.8"
"""


def test_render_reads_the_settings_from_a_subfolder(repo: Path) -> None:
    (repo / "tacit-gen.toml").write_text(SETTINGS, encoding="utf-8")
    sub = repo / "data"
    res = run(sub, "render")
    assert res.exit_code == 0, res.output
    props = (repo / "build" / "gen" / "dbt" / "fct_sensor_readings.yml").read_text(encoding="utf-8")
    assert (repo / "macros" / "tacit" / "tacit_tests.sql").is_file()
    assert not (repo / "build" / "gen" / "dbt" / "macros").exists()
    assert sorted(p.name for p in (repo / "build" / "gen").iterdir()) == ["dbt", "soda"]
    doc = yaml.safe_load(props)
    model = doc["models"][0]
    cols = {c["name"]: c for c in model["columns"]}
    # 1.8: data_tests with the arguments inline; not_null as a test named after the model
    nn = [t["not_null"] for t in cols["series_id"]["data_tests"] if "not_null" in t]
    assert nn and nn[0]["name"] == "fct_sensor_readings__not_null_series_id"
    assert "constraints" not in cols["series_id"]
    rng = [t for c in cols.values() for t in c.get("data_tests", []) if "tacit_accepted_range" in t]
    assert rng and "arguments" not in rng[0]["tacit_accepted_range"]
    assert "min_value" in rng[0]["tacit_accepted_range"]
    assert "dbt_utils" not in props
    # render --check and check agree with the settings alone; the flags override them
    assert run(sub, "render", "--check").exit_code == 0
    res = run(repo, "check", "--no-bump-gate")
    assert res.exit_code == 0, res.output
    res = run(repo, "render", "--check", "--dbt-version", "1.11")
    assert res.exit_code == 1 and "arguments:" in res.output


def test_version_17_writes_tests_and_110_writes_arguments(repo: Path) -> None:
    (repo / "tacit-gen.toml").write_text('[dbt]\nversion = "1.7"\n', encoding="utf-8")
    (repo / "contracts").mkdir()
    shutil.copy(CONTRACT, repo / "contracts")
    assert run(repo, "render", "--target", "dbt").exit_code == 0
    doc = yaml.safe_load((repo / "generated" / "dbt" / "fct_sensor_readings.yml").read_text())
    model = doc["models"][0]
    assert "tests" in model and "data_tests" not in model
    assert run(repo, "check", "--no-bump-gate", "--target", "dbt").exit_code == 0
    assert run(repo, "render", "--target", "dbt", "--dbt-version", "1.10").exit_code == 0
    doc = yaml.safe_load((repo / "generated" / "dbt" / "fct_sensor_readings.yml").read_text())
    tests = doc["models"][0]["data_tests"]
    assert all("arguments" in next(iter(t.values())) for t in tests)


def test_pyproject_table(repo: Path) -> None:
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.tacit-gen]\ncontracts = "data/contracts"\nout = "gen"\n'
        'targets = ["dbt"]\n\n[tool.tacit-gen.dbt]\nnot_null = "both"\n', encoding="utf-8")
    res = run(repo, "render")
    assert res.exit_code == 0, res.output
    doc = yaml.safe_load((repo / "gen" / "dbt" / "fct_sensor_readings.yml").read_text())
    col = next(c for c in doc["models"][0]["columns"] if c["name"] == "series_id")
    assert col["constraints"] == [{"type": "not_null"}]
    assert any("not_null" in t for t in col["data_tests"])
    assert (repo / "gen" / "dbt_macros" / "tacit_tests.sql").is_file()


def test_settings_above_the_git_top_do_not_apply(tmp_path: Path, repo: Path) -> None:
    (tmp_path / "tacit-gen.toml").write_text('out = "elsewhere"\n', encoding="utf-8")
    (repo / "contracts").mkdir()
    shutil.copy(CONTRACT, repo / "contracts")
    assert run(repo, "render", "--target", "dbt").exit_code == 0
    assert (repo / "generated" / "dbt").is_dir() and not (repo / "elsewhere").exists()


@pytest.mark.parametrize(("text", "where", "message"), [
    ('out = "g"\n\n[dbt]\nadaptor = "duckdb"\n', "tacit-gen.toml:4:1",
     "unknown key 'adaptor' in dbt; did you mean 'adapter'? [TG151]"),
    ('contract = "c"\n', "tacit-gen.toml:1:1", "unknown key 'contract' in the top level; did you mean 'contracts'?"),
    ('[dbt]\n  tests = "nativ"\n', "tacit-gen.toml:2:3", "expected one of dbt_utils, native; did you mean 'native'?"),
    ('[dbt]\nnot_null = "tests"\n', "tacit-gen.toml:2:1", "did you mean 'test'?"),
    ('targets = ["dbt", "sodaa"]\n', "tacit-gen.toml:1:1", "unknown target 'sodaa'; did you mean 'soda'?"),
    ('[dbt]\nversion = "latest"\n', "tacit-gen.toml:2:1", "write a dbt-core version"),
    ('out = \n', "tacit-gen.toml:1:7", "not valid TOML"),
])
def test_bad_settings_are_exit_2_with_a_position(repo: Path, text: str, where: str, message: str) -> None:
    (repo / "tacit-gen.toml").write_text(text, encoding="utf-8")
    for cmd in (["render"], ["check"], ["lint"]):
        res = run(repo, *cmd)
        assert res.exit_code == 2, (cmd, res.output)
        assert where in res.output and message in res.output, res.output


def test_the_dbt_table_takes_what_the_dbt_options_take(repo: Path) -> None:
    """The `[dbt]` table is built from the dbt target's options: every adapter `--dbt-adapter`
    takes is a value of `adapter` (spark too), and a settings-only key (`project`) is declared
    there as well."""
    (repo / "contracts").mkdir()
    shutil.copy(CONTRACT, repo / "contracts")
    assert run(repo, "render", "--target", "dbt", "--dbt-adapter", "spark", "--out", "flag").exit_code == 0
    (repo / "tacit-gen.toml").write_text('[dbt]\nadapter = "spark"\n', encoding="utf-8")
    res = run(repo, "render", "--target", "dbt", "--out", "settings")
    assert res.exit_code == 0, res.output
    by_flag = (repo / "flag" / "dbt" / "fct_sensor_readings.yml").read_text(encoding="utf-8")
    assert (repo / "settings" / "dbt" / "fct_sensor_readings.yml").read_text(encoding="utf-8") == by_flag
    assert "data_type: string" in by_flag  # spark's type names, not duckdb's varchar
    (repo / "tacit-gen.toml").write_text('[dbt]\nprojekt = "."\n', encoding="utf-8")
    res = run(repo, "render", "--target", "dbt")
    assert res.exit_code == 2 and "tacit-gen.toml:2:1" in res.output and "did you mean 'project'?" in res.output


def test_pyproject_unknown_key_is_located(repo: Path) -> None:
    (repo / "pyproject.toml").write_text('[tool.tacit-gen]\nout = "g"\n\n[tool.tacit-gen.dbt]\nmacro = "m"\n',
                                         encoding="utf-8")
    res = run(repo, "render")
    assert res.exit_code == 2 and "pyproject.toml:5:1" in res.output and "did you mean 'macros'" in res.output


DBT_PROJECT = """\
name: analytics
version: "1.0"
config-version: 2
profile: analytics
model-paths: ["models", "generated/dbt"]
macro-paths: ["macros", "generated/dbt_macros"]
"""


def dbt_repo(repo: Path, extra: str = "", packages: str | None = None) -> None:
    (repo / "contracts").mkdir()
    shutil.copy(CONTRACT, repo / "contracts")
    (repo / "dbt_project.yml").write_text(DBT_PROJECT + extra, encoding="utf-8")
    if packages is not None:
        (repo / "packages.yml").write_text(packages, encoding="utf-8")
    (repo / "tacit-gen.toml").write_text('targets = ["dbt"]\n', encoding="utf-8")


def test_the_dbt_project_folder_comes_from_the_settings(repo: Path) -> None:
    """`[dbt] project` (a settings-only key, relative to the settings file) is where `render`
    looks for packages.yml and `check` for the project's model-paths."""
    dbt_repo(repo)
    (repo / "dbt_project.yml").unlink()
    (repo / "warehouse").mkdir()
    (repo / "warehouse" / "dbt_project.yml").write_text(DBT_PROJECT, encoding="utf-8")
    res = run(repo, "render")
    assert res.exit_code == 0 and "dbt_utils" not in res.output, res.output  # no project at the root
    (repo / "tacit-gen.toml").write_text('targets = ["dbt"]\n[dbt]\nproject = "warehouse"\n')
    res = run(repo, "render")
    assert res.exit_code == 0 and "but warehouse/packages.yml does not list dbt_utils" in res.output, res.output
    res = run(repo, "check", "--no-bump-gate")
    assert "warehouse/dbt_project.yml: model-paths does not include generated/dbt" in res.output, res.output


def test_render_warns_when_dbt_utils_is_not_a_package(repo: Path) -> None:
    dbt_repo(repo)
    res = run(repo, "render")
    assert res.exit_code == 0
    assert "does not list dbt_utils" in res.output and 'tests = "native"' in res.output
    (repo / "packages.yml").write_text("packages:\n  - package: dbt-labs/dbt_utils\n    version: 1.3.0\n")
    res = run(repo, "render")
    assert res.exit_code == 0 and "dbt_utils" not in res.output
    (repo / "tacit-gen.toml").write_text('targets = ["dbt"]\n[dbt]\ntests = "native"\n')
    (repo / "packages.yml").unlink()
    res = run(repo, "render")
    assert res.exit_code == 0 and "dbt_utils" not in res.output


def test_check_finds_a_model_described_twice(repo: Path) -> None:
    dbt_repo(repo, packages="packages:\n  - package: dbt-labs/dbt_utils\n")
    assert run(repo, "render").exit_code == 0
    (repo / "models").mkdir()
    (repo / "models" / "schema.yml").write_text(
        "version: 2\nmodels:\n  - name: fct_sensor_readings\n    description: old\n  - name: other\n")
    res = run(repo, "check", "--no-bump-gate")
    assert res.exit_code == 1
    assert "models/schema.yml: D400 model fct_sensor_readings is described here and in generated/dbt/fct_sensor_readings.yml" in res.output


@pytest.mark.parametrize(("config", "flagged"), [
    ("data_tests:\n  analytics:\n    +severity: warn\n", True),
    ("data_tests:\n  +severity: warn\n", True),
    ("tests:\n  analytics:\n    +enabled: false\n", True),
    ("data_tests:\n  analytics:\n    +where: \"amount > 0\"\n", True),
    ("data_tests:\n  analytics:\n    fct_sensor_readings__range_value_degc:\n      +severity: warn\n", True),
    ("data_tests:\n  analytics:\n    +error_if: \">10\"\n", True),
    ("data_tests:\n  analytics:\n    staging:\n      +severity: warn\n", False),
    ("data_tests:\n  dbt_utils:\n    +severity: warn\n", False),
    ("data_tests:\n  analytics:\n    +severity: error\n    +store_failures: true\n", False),
])
def test_check_finds_project_configs_that_weaken_generated_tests(repo: Path, config: str, flagged: bool) -> None:
    dbt_repo(repo, extra=config, packages="packages:\n  - package: dbt-labs/dbt_utils\n")
    assert run(repo, "render").exit_code == 0
    res = run(repo, "check", "--no-bump-gate")
    assert (res.exit_code == 1) == flagged, res.output
    assert ("D401" in res.output) == flagged, res.output


def test_check_notes_generated_dbt_outside_model_paths(repo: Path) -> None:
    dbt_repo(repo, packages="packages:\n  - package: dbt-labs/dbt_utils\n")
    (repo / "dbt_project.yml").write_text(DBT_PROJECT.replace(', "generated/dbt"', ""))
    assert run(repo, "render").exit_code == 0
    res = run(repo, "check", "--no-bump-gate")
    assert res.exit_code == 0 and "model-paths does not include generated/dbt" in res.output


def test_fmt_lint_and_explain_read_the_settings(repo: Path) -> None:
    (repo / "tacit-gen.toml").write_text('contracts = "data/contracts"\n[dbt]\ntests = "native"\n',
                                         encoding="utf-8")
    assert run(repo, "lint").exit_code == 0
    res = run(repo, "fmt", "--check")  # the bundled contract is not in canonical form
    assert res.exit_code == 1 and "data/contracts/fct_sensor_readings.yaml" in res.output, res.output
    res = run(repo, "explain", "data/contracts/fct_sensor_readings.yaml", "--targets")
    assert res.exit_code == 0 and "unique:series_id,event_ts,revision" in res.output
    (repo / "tacit-gen.toml").write_text('contracts = "data/contracts"\nbogus = 1\n', encoding="utf-8")
    for cmd in (["fmt", "--check"], ["explain", "data/contracts/fct_sensor_readings.yaml", "--targets"]):
        assert run(repo, *cmd).exit_code == 2


@pytest.mark.engine
def test_verify_reads_the_targets_and_a_flag_overrides_them(repo: Path) -> None:
    (repo / "tacit-gen.toml").write_text('targets = ["ibis"]\n', encoding="utf-8")
    contract = repo / "data" / "contracts" / "fct_sensor_readings.yaml"
    assert run(repo, "sample", str(contract), "--rows", "12", "--out", "data/rows.csv").exit_code == 0
    now = "2024-01-02T15:00:00Z"
    res = run(repo, "verify", str(contract), "--data", "data/rows.csv", "--now", now, "--format", "json")
    assert res.exit_code == 0, res.output
    import json

    assert json.loads(res.output)["targets"] == ["ibis"], res.output
    res = run(repo, "verify", str(contract), "--data", "data/rows.csv", "--now", now,
              "--target", "pandera", "--format", "json")
    assert res.exit_code == 0 and json.loads(res.output)["targets"] == ["pandera"], res.output


@pytest.mark.parametrize("installed", ["1.8.7", "1.11.2", None])
def test_the_default_dbt_form_is_the_newest_whatever_dbt_core_is_installed(
        repo: Path, monkeypatch: pytest.MonkeyPatch, installed: str | None) -> None:
    from tacit_gen.targets.dbt import options

    # which dbt-core is installed is package metadata: stand in for an environment on 1.8, 1.11, none
    monkeypatch.setattr(options, "installed_dbt_version", lambda: installed)
    (repo / "tacit-gen.toml").write_text('contracts = "data/contracts"\ntargets = ["dbt"]\n',
                                         encoding="utf-8")
    assert run(repo, "render").exit_code == 0
    doc = yaml.safe_load((repo / "generated" / "dbt" / "fct_sensor_readings.yml").read_text())
    bodies = [next(iter(t.values())) for c in doc["models"][0]["columns"] for t in c.get("data_tests", [])]
    with_args = [b for b in bodies if isinstance(b, dict) and set(b) - {"name", "config"}]
    assert with_args and all("arguments" in b for b in with_args), with_args  # the 1.10 form


def test_in_project_ignores_the_installed_dbt_core(monkeypatch: pytest.MonkeyPatch) -> None:
    from tacit_gen.targets.dbt import options
    from tacit_gen.targets.dbt.render import NEWEST_FORM, version_form

    monkeypatch.setattr(options, "installed_dbt_version", lambda: "1.8.7")
    settled = options.DbtOptions().in_project("generated", frozenset())
    assert settled.version is None and version_form(settled.version) == NEWEST_FORM
    pinned = options.DbtOptions(version="1.7").in_project("generated", frozenset({"version"}))
    assert pinned.version == "1.7"


@pytest.mark.parametrize(("pinned", "installed", "warned"), [
    (None, "1.8.7", "1.10"), ("1.8", "1.7.19", "1.8"), ("1.8", "1.8.7", None), (None, "1.11.2", None),
    (None, None, None), ("1.7", "1.7.19", None)])
def test_check_warns_when_the_installed_dbt_core_cannot_read_the_committed_form(
        repo: Path, monkeypatch: pytest.MonkeyPatch, pinned: str | None, installed: str | None,
        warned: str | None) -> None:
    from tacit_gen.targets.dbt import options

    pin = f'\n[dbt]\nversion = "{pinned}"\n' if pinned else "\n"
    (repo / "tacit-gen.toml").write_text(f'contracts = "data/contracts"\ntargets = ["dbt"]{pin}',
                                         encoding="utf-8")
    assert run(repo, "render").exit_code == 0
    # the dbt-core installed here, as its package metadata reads (installed_dbt_version's seam)
    monkeypatch.setattr(options, "installed_dbt_version", lambda: installed)
    res = run(repo, "check")
    assert res.exit_code == 0, res.output  # a warning, not a finding
    notes = [line for line in res.output.splitlines() if "installed here does not read" in line]
    if warned is None:
        assert notes == [], res.output
    else:
        assert len(notes) == 1, res.output
        assert notes[0].startswith("note: generated/dbt/fct_sensor_readings.yml: written in the "
                                   f"dbt {warned} form"), notes
        assert f"dbt-core {installed} installed here" in notes[0], notes
