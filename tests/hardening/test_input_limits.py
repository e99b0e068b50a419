"""Class 7 of issue 15: unbounded or undecodable input is refused at once, with a
`path:line:col` diagnostic and exit 2, in every command that reads a contract."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tacit_gen.contract import yamlpos
from tacit_gen.contract.loader import load_report
from tests.hardening.helpers import BASE, assert_usage_error, cli

READERS = ("lint", "render", "explain", "diff", "fmt")


def _args(cmd: str, path: Path, tmp: Path) -> list[str]:
    if cmd == "render":
        return ["render", str(path), "--out", str(tmp / "out")]
    if cmd == "diff":
        return ["diff", str(path), str(path)]
    return [cmd, str(path)]


@pytest.mark.parametrize("cmd", ["lint", "render", "explain", "fmt"])
def test_dev_zero_is_refused_at_once(cmd: str, tmp_path: Path) -> None:
    # refused by what the file is, not after reading it: the message says why, and a read of
    # /dev/zero would end in a MemoryError or the subprocess timeout instead
    res = cli(*_args(cmd, Path("/dev/zero"), tmp_path), timeout=120)
    assert res.returncode in (1, 2), res.stderr  # lint reports it as a finding, others exit 2
    assert "Traceback" not in res.stderr and "MemoryError" not in res.stderr
    assert "not a regular file" in res.stdout + res.stderr


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)
    res = cli("explain", str(fifo), timeout=60)
    assert_usage_error(res, "not a regular file", "c.yaml")
    res = cli("lint", str(tmp_path), timeout=60)  # a folder holding a FIFO: listed, not opened
    assert "Traceback" not in res.stderr
    assert "not a regular file" in res.stdout


def test_size_cap_and_flag_to_raise_it(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text(BASE + "description: '" + "x" * 300_000 + "'\n", encoding="utf-8")
    res = cli("--max-contract-bytes", "100000", "explain", str(big))
    assert_usage_error(res, "big.yaml:1:1", "100000 bytes", "--max-contract-bytes")
    assert cli("--max-contract-bytes", "1000000", "explain", str(big)).returncode == 0
    env = {"TACIT_GEN_MAX_CONTRACT_BYTES": "100000"}
    assert_usage_error(cli("explain", str(big), env=env), "100000 bytes")


def test_node_budget_fires_while_composing() -> None:
    # 400k list items: the budget stops composition long before the document is built
    text = "contract: x\nversion: 1.0.0\nfields: {}\nx-list:\n" + "- 1\n" * 400_000
    with pytest.raises(yamlpos.YamlSyntaxError) as e:
        yamlpos.compose(text)
    assert "nodes" in str(e.value)
    # stopped at the node that crossed the 300,000-node budget (line ~300,005), not at the end:
    # what is asserted is where composition stopped, never how long it took
    assert 299_000 < e.value.line < 301_000, e.value.line


def test_alias_bomb_is_refused() -> None:
    text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 9):
        text += f"l{i}: &l{i} [" + ", ".join([f"*{'a' if i == 1 else 'l' + str(i - 1)}"] * 10) + "]\n"
    with pytest.raises(yamlpos.YamlSyntaxError, match="aliases"):
        yamlpos.compose(text)


def test_depth_budget() -> None:
    with pytest.raises(yamlpos.YamlSyntaxError, match="deeper"):
        yamlpos.compose("a: " + "[" * 5000 + "]" * 5000 + "\n")


def test_twenty_thousand_fields_load(tmp_path: Path) -> None:
    lines = [BASE.rstrip("\n")]
    lines += [f"  f{i}: {{type: string, nullable: false, note: 'field {i}'}}" for i in range(20_000)]
    p = tmp_path / "wide.yaml"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    contract, diags = load_report(p)
    assert contract is not None, [d.render() for d in diags[:3]]
    assert len(contract.fields) == 20_002


@pytest.mark.parametrize("cmd", READERS)
def test_non_utf8_is_a_positioned_diagnostic(cmd: str, tmp_path: Path) -> None:
    p = tmp_path / "latin.yaml"
    p.write_bytes(BASE.encode() + b"description: caf\xe9\n")
    res = cli(*_args(cmd, p, tmp_path))
    out = res.stdout + res.stderr
    assert "Traceback" not in out, out
    assert res.returncode == (1 if cmd == "lint" else 2), out
    assert "latin.yaml:7:17" in out and "UTF-8" in out, out


@pytest.mark.parametrize("cmd", READERS)
def test_lone_surrogate_is_a_positioned_diagnostic(cmd: str, tmp_path: Path) -> None:
    p = tmp_path / "sur.yaml"
    p.write_text(BASE + 'description: "a\\ud800b"\n', encoding="utf-8")
    res = cli(*_args(cmd, p, tmp_path))
    out = res.stdout + res.stderr
    assert "Traceback" not in out, out
    assert res.returncode == (1 if cmd == "lint" else 2), out
    assert "sur.yaml:7:14" in out and "surrogate" in out, out


def test_json_escaped_astral_character_is_one_character(tmp_path: Path) -> None:
    p = tmp_path / "astral.yaml"
    p.write_text(BASE + 'description: "smile \\ud83d\\ude00"\n', encoding="utf-8")
    contract, diags = load_report(p)
    assert contract is not None, [d.render() for d in diags]
    assert contract.description == "smile \U0001f600"
