"""The CLI as users run it: exit codes, formats, and start-up that imports no engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tests.conftest import BUNDLED, ROOT

HEAVY = ("pint", "dbt", "great_expectations", "soda", "pandera", "pandas", "ibis", "duckdb", "jinja2",
         "sqlglot", "jsonschema", "google.protobuf", "grpc_tools", "fastavro", "pyspark", "psycopg",
         "psycopg2", "importlib.metadata")  # each command's own imports: tests/cli/test_fast_start.py


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_startup_imports_no_engine() -> None:
    code = (
        "import sys, tacit_gen.cli; "
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_help_documents_exit_codes() -> None:
    code, out = run("--help")
    assert code == 0
    for line in ("0  success", "1  findings", "2  usage error", "3  verify"):
        assert line in out


def test_version() -> None:
    code, out = run("--version")
    assert code == 0 and "tacit-gen" in out


def test_lint_bundled_contracts_clean() -> None:
    code, out = run("lint", str(ROOT / "contracts"))
    assert code == 0, out
    assert "0 error(s)" in out


def test_lint_strict_fails_on_warnings() -> None:
    code, out = run("lint", "--strict", str(ROOT / "contracts" / "plant_sensor_reading.yaml"))
    assert code == 1
    assert "TG210" in out


def test_lint_bad_contract_reports_position(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "contract: x\nversion: 1.0\nkey: [a]\nfields:\n  a: {type: strng}\n  b: {type: int64}\n"
        "invariants:\n  - c > 1\n"
    )
    code, out = run("lint", str(bad))
    assert code == 1
    lines = out.splitlines()
    assert any(":2:10: error: version '1.0' is not semver" in ln for ln in lines), out
    assert any(":5:13: error: unknown type 'strng'" in ln for ln in lines), out
    assert any(":8:5: error: unknown column 'c'" in ln for ln in lines), out


def test_lint_json(tmp_path: Path) -> None:
    code, out = run("lint", "--format", "json", str(ROOT / "contracts"))
    data = json.loads(out)
    assert code == 0 and data["ok"] is True
    assert {d["code"] for d in data["diagnostics"]} >= {"TG208"}


def test_lint_syntax_error_is_a_diagnostic_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("contract: x\nfields: {a: [\n")
    code, out = run("lint", str(bad))
    assert code == 1
    assert "bad.yaml:3:1: error:" in out and "Traceback" not in out


def test_explain_lists_every_clause() -> None:
    code, out = run("explain", "--format", "json", str(ROOT / "contracts" / "ohlcv_1m.yaml"))
    assert code == 0
    data = json.loads(out)
    ids = [c["id"] for c in data["clauses"]]
    for cid in ("column:open", "not_null:close", "unique:symbol,bar_start,revision",
                "fixed_value:adjusted", "range:volume", "range:trade_count",
                "invariant:low <= open <= high", "invariant:low <= close <= high",
                "cadence:bar_start", "column:ingest_run_id", "not_null:transform_version",
                "range:revision"):
        assert cid in ids, cid
    open_ = next(c for c in data["clauses"] if c["id"] == "column:open")
    assert open_["params"]["type"] == "decimal(18,8)"
    text_code, text = run("explain", str(ROOT / "contracts" / "ohlcv_1m.yaml"))
    assert text_code == 0 and "invariant:low <= open <= high" in text


def test_contract_that_does_not_load_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("contract: x\nversion: 1.0.0\nfields: {a: {type: nope}}\n")
    code, _ = run("explain", str(bad))
    assert code == 2


@pytest.mark.parametrize("contract", BUNDLED, ids=lambda p: p.stem)
def test_every_bundled_contract_explains(contract: Path) -> None:
    code, out = run("explain", str(contract))
    assert code == 0, out


def test_compat_defaults_to_the_contracts_declared_mode(tmp_path: Path) -> None:
    v1 = (ROOT / "contracts" / "fct_sensor_readings.yaml").read_text()
    hist = tmp_path / "hist"
    hist.mkdir()
    (hist / "v1.yaml").write_text(v1)
    v2 = (v1.replace("version: 1.0.0", "version: 2.0.0")
          .replace("  revision:   {type: int64, nullable: false}\n",
                   "  revision:   {type: int64, nullable: false}\n  site: {type: string, nullable: false}\n")
          + "evolution: {compatibility: BACKWARD}\n")
    new = tmp_path / "fct_sensor_readings.yaml"
    new.write_text(v2)
    code, out = run("compat", str(new), "--history", str(hist))
    assert code == 1, out
    assert "BACKWARD" in out and "site" in out


@pytest.mark.parametrize("cmd", ["lint", "fmt", "render", "check", "docs"])
def test_no_argument_and_no_contracts_folder_says_the_default_is_missing(tmp_path: Path, cmd: str) -> None:
    """The default folder that does not exist is a usage error naming it, not a contract
    `contracts:1:1` that cannot be read; a settings path that does not exist is named as such."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # settings stop at the git top
    res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", cmd], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "the default folder contracts/ does not exist" in res.stderr, res.stderr
    assert "cannot read the file" not in res.stdout + res.stderr
    (tmp_path / "tacit-gen.toml").write_text('contracts = "defs"\n', encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", cmd], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "the settings' contracts path defs does not exist" in res.stderr, res.stderr


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for name, cmd in sorted(group.commands.items()):
        if isinstance(cmd, click.Group):
            out += _commands(cmd, (*prefix, name))
        else:
            out.append((*prefix, name))
    return out


def test_each_commands_help_lists_its_own_exit_codes() -> None:
    """verify's 3 is verify's, and 4 verify's and publish's (a check the engine could not
    evaluate): no other command's --help lists them; a command that never finds anything lists
    no 1."""
    never_one = {("init",), ("explain",), ("sample",), ("profile",), ("calendar",), ("docs",), ("export", "odcs"),
                 ("schema",)}
    seen = []
    for path in _commands(main):
        code, out = run(*path, "--help")
        assert code == 0, (path, out)
        if "Exit codes:" not in out:
            continue
        seen.append(path)
        codes = {ln.split()[0] for ln in out.split("Exit codes:")[1].splitlines() if ln.strip()}
        if path == ("verify",):
            assert codes == {"0", "1", "2", "3", "4", "130"}, out
        elif path == ("publish",):
            assert codes == {"0", "1", "2", "4", "130"}, out
        else:
            assert "3" not in codes and "4" not in codes, (path, out)
            assert ("1" in codes) == (path not in never_one), (path, out)
    assert {("lint",), ("render",), ("check",), ("verify",), ("fmt",), ("diff",)} <= set(seen)


@pytest.mark.parametrize("path", [*BUNDLED, ROOT / "tests" / "fixtures" / "series" / "completeness_venue_session.yaml"],
                         ids=lambda p: p.stem)
def test_explain_fits_80_columns_notes_wrapped_not_cut(path: Path) -> None:
    """At COLUMNS=80 no line of `explain` or `explain --targets` passes column 80: the table
    wraps its cells, the notes (not checked, not expressible, waivers) and the head wrap at word
    boundaries; every word is still there."""
    runner = CliRunner(env={"COLUMNS": "80"})
    for args in ((), ("--targets",)):
        res = runner.invoke(main, ["explain", str(path), *args], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        long = [ln for ln in res.output.splitlines() if len(ln) > 80]
        assert not long, long
        wide = CliRunner(env={"COLUMNS": "1000"}).invoke(main, ["explain", str(path), *args])
        notes = wide.output.split("\n\n", 1)[1] if "\n\n" in wide.output else ""
        folded = " ".join(res.output.split())
        for line in notes.splitlines():  # the wide notes, word for word, in the folded output
            if line.startswith("  ") and ": " in line:
                assert " ".join(line.split()) in folded, line


def test_explain_wraps_the_not_checked_note() -> None:
    res = CliRunner(env={"COLUMNS": "80"}).invoke(
        main, ["explain", str(ROOT / "contracts" / "fct_sensor_readings.yaml")])
    notes = res.output.split("stated but not checked by any clause:\n")[1].splitlines()
    assert notes[0].startswith("  line ") and notes[1].startswith("    "), notes
    assert "revision_reason column (lint TG214)" in " ".join(" ".join(notes).split())
