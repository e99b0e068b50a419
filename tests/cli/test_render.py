"""Render mechanics over every registered target: determinism, atomic writes, --check, orphans,
and escaping of hostile contract text in every artifact."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tacit_gen import render as r
from tacit_gen.cli import main
from tests.conftest import ROOT


def invoke(*args: str, cwd: Path | None = None) -> tuple[int, str]:
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
    return res.exit_code, res.output


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_committed_generated_is_up_to_date() -> None:
    code, out = invoke("render", "--check", cwd=ROOT)
    assert code == 0, out


def test_render_twice_is_byte_identical(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert invoke("render", str(ROOT / "contracts"), "--out", str(a))[0] == 0
    assert invoke("render", str(ROOT / "contracts"), "--out", str(b))[0] == 0
    assert tree(a) == tree(b)
    assert len(tree(a)) >= 15


def test_render_is_identical_across_hash_seeds(tmp_path: Path) -> None:
    outs = []
    for seed in ("0", "4242"):
        out = tmp_path / seed
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-m", "tacit_gen.cli", "render", "contracts", "--out", str(out)],
                       cwd=ROOT, env=env, check=True, capture_output=True)
        outs.append(tree(out))
    assert outs[0] == outs[1]


def test_check_mode_never_writes_and_reports_stale(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    code, text = invoke("render", str(ROOT / "contracts"), "--out", str(out), "--check")
    assert code == 1
    assert not out.exists()
    assert "+++ " in text
    assert invoke("render", str(ROOT / "contracts"), "--out", str(out))[0] == 0
    assert invoke("render", str(ROOT / "contracts"), "--out", str(out), "--check")[0] == 0
    victim = sorted(p for p in out.rglob("*.yml"))[0]
    victim.write_text(victim.read_text() + "# hand edit\n")
    before = tree(out)
    code, text = invoke("render", str(ROOT / "contracts"), "--out", str(out), "--check")
    assert code == 1 and "-# hand edit" in text
    assert tree(out) == before


def test_orphans_are_listed(tmp_path: Path) -> None:
    contracts = tmp_path / "contracts"
    contracts.mkdir()
    for p in (ROOT / "contracts").glob("*.yaml"):
        (contracts / p.name).write_text(p.read_text())
    out = tmp_path / "gen"
    assert invoke("render", str(contracts), "--out", str(out))[0] == 0
    (contracts / "ohlcv_1m.yaml").unlink()
    code, text = invoke("render", str(contracts), "--out", str(out), "--check")
    assert code == 1
    assert "orphaned:" in text and "ohlcv_1m" in text


def test_atomic_write_leaves_old_file_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "x.yml"
    target.write_text("old\n")

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(r.WriteError):
        r.write_atomic(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["x.yml"]


HOSTILE_DESC = 'He said "hi"; it\'s {{ config }} {% raw %} \'; drop table x; --\nline two """ \'\'\' \\ end'
HOSTILE = f"""contract: hostile
version: 1.0.0
owner: "o'wner \\"q\\""
description: {json.dumps(HOSTILE_DESC)}
key: [id]
fields:
  id: {{type: string, nullable: false, description: {json.dumps(HOSTILE_DESC)}}}
  label: {{type: string, note: "{{{{ x }}}} '; drop table y; -- \\"\\"\\" end"}}
  amount: {{type: decimal(10,2), unit: USD}}
invariants:
  - label != 'it''s {{{{ x }}}}; drop table z; --' or amount > 0
  - label in ('a"b', 'c''d', '\"\"\"')
"""


def test_hostile_strings_are_escaped_in_every_artifact(tmp_path: Path) -> None:
    from tacit_gen.contract.loader import load

    src = tmp_path / "hostile.yaml"
    src.write_text(HOSTILE)
    contract = load(src)
    inv_texts = [i.text for i in contract.invariants]
    assert "label != 'it''s {{ x }}; drop table z; --' or amount > 0" in inv_texts
    out = tmp_path / "gen"
    code, text = invoke("render", str(src), "--out", str(out))
    assert code == 0, text
    files = tree(out)
    assert files
    for rel, blob in files.items():
        body = blob.decode()
        if rel.endswith((".yml", ".yaml")):
            data = yaml.safe_load(body)
            dumped = json.dumps(data)
        elif rel.endswith(".lock.json"):
            json.loads(body)  # protobuf field numbers only: no contract text
            continue
        elif rel.endswith((".avsc", ".schema.json")):
            # a registered schema carries the clauses it states, not a list of the others: the
            # hostile description survives its escaping
            assert json.dumps(HOSTILE_DESC)[1:-1] in json.dumps(json.loads(body)), rel
            continue
        elif rel.endswith((".json", ".avsc")):
            data = json.loads(body)
            dumped = json.dumps(data)
        elif rel.endswith(".proto"):
            from tacit_gen.targets.protobuf.compile import compile_proto

            compile_proto(body, Path(rel).name)  # protoc accepts it: nothing broke out of a comment
            dumped = body
            assert inv_texts[0] in body, rel
            continue
        elif rel.endswith(".py"):
            ast.parse(body)
            dumped = body
        else:
            continue
        # the verbatim invariant text survives, whatever the escaping
        if rel.endswith(".py"):
            assert repr(inv_texts[0]) in body or json.dumps(inv_texts[0]) in body, rel
        else:
            assert json.dumps(inv_texts[0])[1:-1] in dumped, rel


def test_one_bad_contract_writes_nothing(tmp_path: Path) -> None:
    contracts = tmp_path / "contracts"
    contracts.mkdir()
    (contracts / "good.yaml").write_text((ROOT / "contracts" / "fct_sensor_readings.yaml").read_text())
    (contracts / "bad.yaml").write_text("contract: bad\nversion: 1.0.0\nfields: {a: {type: strng}}\n")
    out = tmp_path / "gen"
    res = CliRunner().invoke(main, ["render", str(contracts), "--out", str(out)])
    assert res.exit_code == 2
    assert "bad.yaml:3:20: error: unknown type 'strng'" in res.output
    assert not out.exists()


def test_headers_never_carry_a_machine_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # render the repo's contract from outside the checkout
    out = tmp_path / "gen"
    code, text = invoke("render", str((ROOT / "contracts" / "ohlcv_1m.yaml").resolve()), "--out", str(out))
    assert code == 0, text
    for p in out.rglob("*"):
        if p.is_file():
            body = p.read_text()
            assert str(ROOT) not in body and str(tmp_path) not in body, p
    assert "from contracts/ohlcv_1m.yaml." in (out / "soda" / "ohlcv_1m.yml").read_text()


X_META = """contract: xmeta
version: 1.0.0
x-team: {name: "market data", oncall: "#md-oncall", tier: 1.5}
key: [id]
fields:
  id: {type: string, x-pii: false, x-owner: "{{ evil }}"}
  amount: {type: decimal(10,2), unit: USD}
"""


def test_x_metadata_lands_in_every_artifact(tmp_path: Path) -> None:
    src = tmp_path / "xmeta.yaml"
    src.write_text(X_META)
    out = tmp_path / "gen"
    assert invoke("render", str(src), "--out", str(out))[0] == 0
    for rel in ("dbt/xmeta.yml", "soda/xmeta.yml", "pandera/xmeta.py", "ibis/xmeta.py"):
        body = (out / rel).read_text()
        assert '# x-team: {"name": "market data", "oncall": "#md-oncall", "tier": "1.5"}' in body, rel
        assert '# fields.id.x-owner: "{{ evil }}"' in body, rel
    suite = json.loads((out / "gx" / "xmeta.json").read_text())
    assert suite["meta"]["tacit_gen"]["x_metadata"]["fields.id.x-pii"] is False
    dbt = yaml.safe_load((out / "dbt" / "xmeta.yml").read_text())
    model = dbt["models"][0]
    assert model["config"]["meta"]["x-team"]["oncall"] == "#md-oncall"
    column = next(c for c in model["columns"] if c["name"] == "id")
    assert column["meta"]["x-owner"] == '{{ "{{ evil }}" }}'  # dbt renders it back to the text


def test_render_is_quiet_about_what_a_target_cannot_express(tmp_path: Path) -> None:
    """Without --verbose, render (and render --check) says what it wrote and a summary: not a
    warning per target that cannot express a clause (explain --targets and --verbose say it)."""
    out = str(tmp_path / "out")
    for args in ((), ("--check",)):
        res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", "render", "--out", out,
                              "--no-cache", *args], cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
        assert res.returncode == 0, res.stderr
        assert "cannot express" not in res.stderr + res.stdout, res.stderr
        assert res.stdout.splitlines()[-1].endswith(("written", "up to date")), res.stdout
    res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", "render", "--out", out,
                          "--no-cache", "--check", "--verbose"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert len([ln for ln in res.stderr.splitlines() if " cannot express " in ln]) >= 10, res.stderr


def test_unsupported_warnings_name_the_contract(tmp_path: Path) -> None:
    """With --verbose, what a target cannot express is warned per contract, one whole line each
    (the file first, as a compiler's diagnostic): a repository renders many, and the same clause
    id in two contracts is two warnings."""
    res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", "render", "--out",
                          str(tmp_path / "out"), "--no-cache", "--verbose", "contracts/ohlcv_1m.yaml",
                          "contracts/fct_sensor_readings.yaml"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    lines = res.stderr.splitlines()
    # only ohlcv_1m has decimals too wide for CEL to compare: one line, its file first
    [wide] = [ln for ln in lines if "invariant:low <= open <= high" in ln and " protobuf " in ln]
    assert wide.startswith("contracts/ohlcv_1m.yaml: warning: protobuf cannot express "), wide
    # both contracts have a range:revision avro cannot check: a line each, its file first
    reason = ("Avro describes the structure of one record; clauses on values, rows or other data "
              "are checked by the SQL and dataframe targets")
    avro = [ln for ln in lines if ln.endswith(f": {reason}") and " avro cannot express " in ln]
    assert [ln.split(": warning: ")[0] for ln in avro] == ["contracts/ohlcv_1m.yaml",
                                                           "contracts/fct_sensor_readings.yaml"]
    assert avro[0].startswith("contracts/ohlcv_1m.yaml: warning: avro cannot express "
                              "unique:symbol,bar_start,revision, "), avro
    assert all("range:revision" in ln for ln in avro), avro
    # every warning line stands alone: the file, then `warning:`
    assert all(": warning: " in ln for ln in lines if "warning" in ln), lines
    # --format json: each entry names its contract
    res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", "render", "--out",
                          str(tmp_path / "out"), "--format", "json", "--no-cache",
                          "contracts/ohlcv_1m.yaml", "contracts/fct_sensor_readings.yaml"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    entries = json.loads(res.stdout)["unsupported"]
    assert {(u["contract"], u["target"]) for u in entries if u["clause_id"] == "range:revision"} == {
        (c, t) for c in ("contracts/ohlcv_1m.yaml", "contracts/fct_sensor_readings.yaml")
        for t in ("avro",)}  # JSON Schema states it (`minimum`), protobuf too (`int64.gte`)


def test_header_lines_are_each_contracts_own_in_any_order() -> None:
    """The header keeps the last contract's lines and notes (every target of a render asks for
    the same contract's): asked in turn for other contracts, and for a contract equal to one
    before but another object, each gets its own, as built anew."""
    from tacit_gen.contract.loader import load
    from tacit_gen.plan import unenforced
    from tacit_gen.targets import header

    paths = sorted((ROOT / "contracts").glob("*.yaml"))
    contracts = [load(p) for p in paths] + [load(paths[0])]
    # built anew: for another object loaded from the same file, which no header has seen
    fresh = [(header.header_lines(load(p)), [header.one_line(f"not checked: {t} ({w}; contract line {n})")
                                             for n, t, w in unenforced(load(p))])
             for p in [*paths, paths[0]]]
    assert len({tuple(lines) for lines, _ in fresh}) == len(paths)  # the contracts differ
    assert len({tuple(notes) for _, notes in fresh}) > 1  # and their notes too
    for c, (lines, notes) in [*zip(contracts, fresh, strict=True), *zip(contracts[::-1], fresh[::-1], strict=True)]:
        assert header.header_lines(c) == header.header_lines(c) == lines
        assert header.notes(c) == notes and header.header_meta(c)["not_checked"] == notes
        header.header_lines(c).append("changed by a caller")  # a copy: the next caller's is whole
        assert header.header_lines(c) == lines
