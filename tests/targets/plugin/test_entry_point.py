"""A target added from outside through the `tacit_gen.targets` entry-point group alone: a tiny
distribution (a module and a dist-info with entry_points.txt) in a temporary folder on the path
of a fresh interpreter. It renders, reads back, `check`s and `verify`s (its own engine on DuckDB
and PostgreSQL, beside the built-in ones), and no file of the project changes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CONTRACT = "contracts/ohlcv_1m.yaml"


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    """A folder holding the plugin module and its dist-info (what `pip install` would leave)."""
    folder = tmp_path / "site"
    folder.mkdir()
    shutil.copy(Path(__file__).with_name("markdown_target.py"), folder / "tacit_markdown.py")
    info = folder / "tacit_markdown-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tacit-markdown\nVersion: 0.1\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[tacit_gen.targets]\nmarkdown = tacit_markdown:TARGET\n", encoding="utf-8")
    return folder


def _run(site: Path, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(site), str(ROOT)))}
    return subprocess.run([sys.executable, "-c", "from tacit_gen.cli import main; main()", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _project_state() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout


def test_an_entry_point_target_renders_reads_back_and_checks(site: Path, tmp_path: Path) -> None:
    before = _project_state()
    out = tmp_path / "out"
    listed = subprocess.run(
        [sys.executable, "-c", "from tacit_gen import registry; print(','.join(registry.names()))"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True, text=True,
        check=True)
    assert listed.stdout.strip().split(",")[-1] == "markdown"

    rendered = _run(site, "render", CONTRACT, "--target", "markdown", "--out", str(out))
    assert rendered.returncode == 0, rendered.stderr
    page = (out / "markdown" / "ohlcv_1m.md").read_text(encoding="utf-8")
    assert "| `column:close` | column | type=decimal(18,8) |" in page

    clean = _run(site, "check", CONTRACT, "--target", "markdown", "--out", str(out), "--no-bump-gate")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "1 artifact(s) checked: clean" in clean.stdout

    # a hand edit: a column's type changed and a clause removed is drift the reader sees
    edited = page.replace("type=decimal(18,8)", "type=float64", 1)
    edited = "\n".join(x for x in edited.splitlines() if "`not_null:volume`" not in x) + "\n"
    (out / "markdown" / "ohlcv_1m.md").write_text(edited, encoding="utf-8")
    drift = _run(site, "check", CONTRACT, "--target", "markdown", "--out", str(out), "--no-bump-gate")
    assert drift.returncode == 1
    assert "D202 column:" in drift.stdout and "type is float64" in drift.stdout
    assert "D200 not_null:volume is not in the artifact" in drift.stdout

    assert _project_state() == before


def test_the_loader_takes_the_plugin_keys(site: Path, tmp_path: Path) -> None:
    contract = tmp_path / "ohlcv_1m.yaml"
    text = (ROOT / CONTRACT).read_text(encoding="utf-8")
    contract.write_text(text + "targets:\n  markdown: {title: One-minute-bars}\n", encoding="utf-8")
    out = tmp_path / "out"
    rendered = _run(site, "render", str(contract), "--target", "markdown", "--out", str(out))
    assert rendered.returncode == 0, rendered.stderr
    assert "# One-minute-bars" in (out / "markdown" / "ohlcv_1m.md").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text + "targets:\n  markdown: {titel: x}\n", encoding="utf-8")
    typo = _run(site, "lint", str(bad))
    assert typo.returncode == 1 and "unknown key 'titel' in 'targets.markdown'; did you mean 'title'?" in typo.stdout
    alone = subprocess.run([sys.executable, "-c", "from tacit_gen.cli import main; main()", "lint",
                            str(contract)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert alone.returncode == 1 and "unknown target 'markdown'" in alone.stdout


def test_without_the_entry_point_the_target_is_unknown() -> None:
    bare = subprocess.run([sys.executable, "-c", "from tacit_gen.cli import main; main()", "render",
                           CONTRACT, "--target", "markdown", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert bare.returncode == 2 and "unknown target 'markdown'" in bare.stderr


def test_the_plugin_options_are_a_flag_and_a_settings_table(site: Path, tmp_path: Path) -> None:
    """The target's options class declares a flag (`--markdown-heading`); the `[markdown]` table
    of tacit-gen.toml takes the same key, checked like the built-in targets' tables."""
    repo = tmp_path / "repo"
    (repo / "contracts").mkdir(parents=True)
    shutil.copy(ROOT / CONTRACT, repo / "contracts")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "tacit-gen.toml").write_text('targets = ["markdown"]\n\n[markdown]\nheading = "section"\n',
                                         encoding="utf-8")
    rendered = _run(site, "render", cwd=repo)
    assert rendered.returncode == 0, rendered.stderr
    page = (repo / "generated" / "markdown" / "ohlcv_1m.md").read_text(encoding="utf-8")
    assert "\n## ohlcv_1m\n" in page
    # the target's render and check hooks are called like the dbt target's
    assert "warning: 1 markdown page(s) are linked from no index.md" in rendered.stderr
    checked = _run(site, "check", "--no-bump-gate", cwd=repo)
    assert checked.returncode == 0 and "note: 1 markdown page(s) under generated/" in checked.stdout
    flagged = _run(site, "render", "--markdown-heading", "title", "--check", cwd=repo)
    assert flagged.returncode == 1 and "+# ohlcv_1m" in flagged.stdout  # the flag wins
    (repo / "tacit-gen.toml").write_text('[markdown]\nheading = "sectoin"\n', encoding="utf-8")  # a typo
    bad = _run(site, "render", cwd=repo)
    assert bad.returncode == 2 and "tacit-gen.toml:2:1" in bad.stderr
    assert "expected one of title, section; did you mean 'section'?" in bad.stderr
    (repo / "tacit-gen.toml").write_text('[markdown]\nheadline = "title"\n', encoding="utf-8")
    typo = _run(site, "render", cwd=repo)
    assert typo.returncode == 2 and "unknown key 'headline' in markdown; did you mean 'heading'?" in typo.stderr


@pytest.mark.engine
@pytest.mark.parametrize("backend", ["duckdb", "postgres"])
def test_verify_runs_the_plugin_engine_beside_the_built_in_ones(site: Path, tmp_path: Path,
                                                                backend: str) -> None:
    """The plugin declares an engine per backend (`Target.engines`): verify renders its page, runs
    its engine on the data where it loaded it and shows its verdicts in the same table as the
    built-in engines', agreeing with them; what the page declares unsupported is n/a, no
    disagreement. On Spark, where it declares no engine, verify names it."""
    contract = str(ROOT / "contracts" / "fct_sensor_readings.yaml")
    now = "2024-01-02T15:00:00Z"
    runs = {}
    for violate in (None, "not_null:source_id", "column:revision"):
        data = tmp_path / f"{violate or 'clean'}.csv".replace(":", "_")
        made = _run(site, "sample", contract, "--rows", "24", "--now", now, "--out", str(data),
                    *(("--violate", violate) if violate else ()))
        assert made.returncode == 0, made.stderr
        runs[violate] = _run(site, "verify", contract, "--data", str(data), "--now", now,
                             "--target", "ibis,markdown", "--engine", backend, "--format", "json")
    clean = runs[None]
    assert clean.returncode == 0, clean.stdout + clean.stderr
    doc = json.loads(clean.stdout)
    assert doc["targets"] == ["ibis", "markdown"] and doc["engines_failed"] == {}
    states = {c["id"]: c["verdicts"]["markdown"]["status"] for c in doc["clauses"]}
    assert {i for i, s in states.items() if s == "pass"} == {
        *(f"column:{c}" for c in ("series_id", "event_ts", "value_degc", "unit", "quality",
                                  "source_id", "revision")),
        *(f"not_null:{c}" for c in ("series_id", "event_ts", "unit", "source_id", "revision"))}
    assert set(states.values()) == {"pass", "n/a"}
    assert all(c["agree"] for c in doc["clauses"])

    for violate, detail in (("not_null:source_id", ""), ("column:revision", "revision is ")):
        got = runs[violate]
        assert got.returncode == 1, got.stdout + got.stderr
        row = next(c for c in json.loads(got.stdout)["clauses"] if c["id"] == violate)
        assert row["agree"] is True
        assert {t: v["status"] for t, v in row["verdicts"].items()} == {"ibis": "fail", "markdown": "fail"}
        assert row["verdicts"]["markdown"]["detail"].startswith(detail)
    nulls = next(c for c in json.loads(runs["not_null:source_id"].stdout)["clauses"]
                 if c["id"] == "not_null:source_id")
    assert nulls["verdicts"]["markdown"]["failures"] == 1

    if backend == "duckdb":
        text = _run(site, "verify", contract, "--data", str(tmp_path / "clean.csv"), "--now", now,
                    "--target", "ibis,markdown")
        assert text.returncode == 0 and "ibis  markdown" in text.stdout
        assert "all 2 engine(s) pass all 21 clauses" in text.stdout
        spark = _run(site, "verify", contract, "--data", str(tmp_path / "clean.csv"), "--now", now,
                     "--target", "markdown", "--engine", "spark")
        assert spark.returncode == 2 and "markdown have no engine to verify with on spark" in spark.stderr


def test_init_writes_the_plugin_settings_table(site: Path, tmp_path: Path) -> None:
    """`init` writes the first settings table each target declares (`Target.init_settings`) and
    prints its line: the plugin's beside dbt's, and render then reads it."""
    import tomllib

    made = _run(site, "init", str(tmp_path / "p"))
    assert made.returncode == 0, made.stderr
    assert "markdown pages start at ## (a section)" in made.stdout.splitlines()
    assert any(line.startswith("dbt YAML form pinned to ") for line in made.stdout.splitlines())
    text = (tmp_path / "p" / "tacit-gen.toml").read_text(encoding="utf-8")
    assert text.endswith('\n[markdown]\nheading = "section"              # title or section\n')
    doc = tomllib.loads(text)
    assert doc["markdown"] == {"heading": "section"} and doc["targets"][-1] == "markdown"
    rendered = _run(site, "render", "--target", "markdown", cwd=tmp_path / "p")
    assert rendered.returncode == 0, rendered.stderr
    assert "\n## example\n" in (tmp_path / "p" / "generated" / "markdown" / "example.md").read_text(encoding="utf-8")
