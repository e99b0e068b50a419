"""One CLI grammar: did-you-mean for types, `--out` names what is written, each command's own
exit codes in its help."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tests.conftest import CONTRACTS


@pytest.mark.parametrize(("written", "meant"), [
    ("integer", "int64"), ("boolean", "bool"), ("strng", "string"), ("varchar", "string"),
    ("double", "float64"), ("Int64", "int64"),
])
def test_an_unknown_type_gets_a_did_you_mean(tmp_path: Path, written: str, meant: str) -> None:
    bad = tmp_path / "c.yaml"
    bad.write_text(f"contract: c\nversion: 1.0.0\nkey: [a]\nfields:\n  a: {{type: {written}}}\n",
                   encoding="utf-8")
    res = CliRunner().invoke(main, ["lint", str(bad)])
    assert res.exit_code == 1, res.output
    assert f":5:13: error: unknown type '{written}'; did you mean '{meant}'? [TG105]" in res.output


def test_a_type_like_nothing_gets_no_guess(tmp_path: Path) -> None:
    bad = tmp_path / "c.yaml"
    bad.write_text("contract: c\nversion: 1.0.0\nkey: [a]\nfields:\n  a: {type: zzzq}\n",
                   encoding="utf-8")
    res = CliRunner().invoke(main, ["lint", str(bad)])
    assert "unknown type 'zzzq' [TG105]" in res.output


def test_compat_reads_its_folder_from_artifacts_and_out_is_deprecated(tmp_path: Path) -> None:
    contract = str(CONTRACTS / "fct_sensor_readings.yaml")
    history = tmp_path / "history"
    history.mkdir()
    (history / "v1.yaml").write_text((CONTRACTS / "fct_sensor_readings.yaml").read_text())
    new = CliRunner().invoke(main, ["compat", contract, "--history", str(history),
                                    "--artifacts", str(tmp_path / "gen")])
    old = CliRunner().invoke(main, ["compat", contract, "--history", str(history),
                                    "--out", str(tmp_path / "gen")])
    assert new.exit_code == old.exit_code == 0, (new.output, old.output)
    assert "deprecated" not in new.output
    assert "`compat --out` is deprecated" in old.stderr and "--artifacts" in old.stderr
    both = CliRunner().invoke(main, ["compat", contract, "--history", str(history),
                                     "--out", "a", "--artifacts", "b"])
    assert both.exit_code == 2
    helptext = CliRunner().invoke(main, ["compat", "--help"]).output
    assert "--artifacts" in helptext and "--out" not in helptext


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    out = []
    for name, cmd in sorted(group.commands.items()):
        if isinstance(cmd, click.Group):
            out += _commands(cmd, (*prefix, name))
        else:
            out.append(((*prefix, name), cmd))
    return out


@pytest.mark.parametrize(("path", "cmd"), _commands(main), ids=lambda x: " ".join(x) if isinstance(x, tuple) else "")
def test_each_command_lists_its_own_exit_codes(path: tuple[str, ...], cmd: click.Command) -> None:
    res = CliRunner().invoke(main, [*path, "--help"], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert "Exit codes:" in res.output, path
    if path != ("verify",):  # 3 and 4 are verify's
        assert "engines disagree" not in res.output, path
    assert max(len(ln) for ln in res.output.splitlines()) <= 80, path
