"""Classes 1 and 2 of issue 15, through real engines: hostile string literals in invariants (GX's
`{batch}` and other braces, `%`, `:name` bind syntax, quotes, backslashes, Jinja delimiters) mean
the same in every engine. One contract, one verify run, every engine: each literal's invariant
fails on exactly the one row that holds it. The CLI runs in this process (click's `CliRunner`),
so the engines are imported once, not again in a `tacit-gen` subprocess."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tacit_gen.cli import main
from tests.conftest import ROOT, engine_targets, record_targets

LITERALS = [
    "{batch}", "a{b", "}{", "{0}", "{{ x }}", "{% raw %}", "50%", "%s", "%(x)s", "a:b", ":id",
    "it''s", 'say "hi"', "back\\slash", "\\n", "--", "/* c */", "$1", "?", "üñí €",
]


def cli(*args: str) -> Result:
    """`tacit-gen ARGS` in this process; an exception that escapes it fails the test."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _quote(lit: str) -> str:
    return "'" + lit.replace("'", "''") if "''" not in lit else "'" + lit


def _value(lit: str) -> str:
    return lit.replace("''", "'")


@pytest.mark.engine
def test_hostile_literals_same_verdict_in_every_engine(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # where the subprocess ran
    # `or id < 0` keeps GX from a native expectation: the invariant becomes custom SQL
    invariants = "".join(f"  - {json.dumps('note != ' + _quote(lit) + chr(39) + ' or id < 0')}\n"
                         for lit in LITERALS)
    contract = tmp_path / "lits.yaml"
    contract.write_text(
        "contract: lits\nversion: 1.0.0\nkey: [id]\n"
        f"description: {json.dumps(' '.join(LITERALS))}\n"
        f"x-owner-note: {json.dumps(' '.join(LITERALS))}\n"
        "fields:\n  id: {type: int64}\n"
        f"  note: {{type: string, description: {json.dumps(' '.join(LITERALS))}}}\n"
        f"invariants:\n{invariants}", encoding="utf-8")
    linted = cli("lint", str(contract))
    assert linted.exit_code == 0, linted.stdout
    data = tmp_path / "d.csv"
    with data.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "note"])
        w.writerow([0, "harmless"])
        for i, lit in enumerate(LITERALS, 1):
            w.writerow([i, _value(lit)])
    res = cli("verify", str(contract), "--data", str(data), "--now", "2024-01-02T00:00:00Z",
              "--format", "json")
    assert res.exit_code == 1, res.stdout[-4000:] + res.stderr[-2000:]
    report = json.loads(res.stdout)
    wire = set(record_targets())  # Avro states no value rule; JSON Schema and protobuf some
    assert report["targets"] == list(engine_targets())
    for row in report["clauses"]:
        assert row["disagreement"] is None, row
        structural = row["kind"] in ("column", "no_unknown_columns", "not_null")
        if not structural:
            assert row["verdicts"]["avro"]["status"] == "n/a", row["id"]
        if row["kind"] == "invariant":  # a message-level CEL rule: protobuf must enforce it
            assert row["verdicts"]["protobuf"]["status"] == "fail", row["id"]
        statuses = {t: v["status"] for t, v in row["verdicts"].items()
                    if t not in wire or structural or v["status"] != "n/a"}
        if row["kind"] == "invariant":
            assert set(statuses.values()) == {"fail"}, (row["id"], statuses)
            counts = {v["failures"] for t, v in row["verdicts"].items() if t in statuses} - {None}
            assert counts <= {1}, (row["id"], row["verdicts"])
        else:
            assert set(statuses.values()) == {"pass"}, (row["id"], statuses)
