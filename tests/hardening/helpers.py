"""Shared helpers of the hardening tests: run the real CLI in a subprocess (a hang or a crash
is then a failed assertion, never a stuck test run)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import ROOT

BASE = """\
contract: hostile
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  note: {type: string}
"""


def cli(*args: str, cwd: Path | None = None, timeout: float = 120,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`tacit-gen ARGS` in a fresh interpreter; stdout and stderr decoded with replacement."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "tacit_gen.cli", *args], cwd=cwd or ROOT,
                          env=full_env, capture_output=True, timeout=timeout, text=True,
                          encoding="utf-8", errors="replace")


def assert_usage_error(res: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2, no traceback, and every word in the message."""
    out = res.stdout + res.stderr
    assert res.returncode == 2, out
    assert "Traceback" not in out, out
    for w in words:
        assert w in out, (w, out)


def write_case(folder: Path, name: str, contract: str, data: str) -> tuple[Path, Path]:
    """`name`.yaml and `name`.csv written into `folder` (a hand-made verify case)."""
    folder.mkdir(parents=True, exist_ok=True)
    contract_path, data_path = folder / f"{name}.yaml", folder / f"{name}.csv"
    contract_path.write_text(contract, encoding="utf-8")
    data_path.write_text(data, encoding="utf-8")
    return contract_path, data_path


def verify_json(contract: Path, data: Path, *args: str) -> tuple[dict[str, Any], str]:
    """`tacit-gen verify CONTRACT --data DATA --format json ARGS`: the report, and the tail of
    stdout to show when an assertion fails; a traceback is a failure."""
    res = cli("verify", str(contract), "--data", str(data), "--format", "json", *args, timeout=900)
    assert "Traceback" not in res.stderr, res.stderr[-3000:]
    return json.loads(res.stdout), res.stdout[-3000:]


def check_failing(report: dict[str, Any], failing: dict[str, int], checking: tuple[str, ...],
                  shown: str = "") -> None:
    """A verify report (its JSON form) where every engine of `checking` fails each clause of
    `failing` on its hand-counted rows (every engine that gives a count, and at least one must),
    and nothing else fails, errs or disagrees."""
    rows = {r["id"]: r for r in report["clauses"]}
    assert {cid: r["disagreement"] for cid, r in rows.items() if r["disagreement"]} == {}, shown
    assert report["exit_code"] == 1, shown
    for cid, count in failing.items():
        verdicts = rows[cid]["verdicts"]
        assert {t: verdicts[t]["status"] for t in checking} == dict.fromkeys(checking, "fail"), \
            (cid, {t: verdicts[t]["detail"] for t in checking}, shown)
        counted = {t: verdicts[t]["failures"] for t in checking if verdicts[t]["failures"] is not None}
        # pandera and Soda's fail queries give no count; the others must, so the count is checked
        assert counted, (cid, "no engine counted the failing rows", {t: verdicts[t] for t in checking})
        assert counted == dict.fromkeys(counted, count), (cid, counted)
    others = {cid: {t: v["status"] for t, v in r["verdicts"].items() if v["status"] not in ("pass", "n/a")}
              for cid, r in rows.items() if cid not in failing}
    assert {cid: bad for cid, bad in others.items() if bad} == {}, shown


@dataclass(frozen=True)
class FailingCase:
    """A hand-made verify case: a contract, its data (and a catalog beside it), and the clauses
    it fails with their hand-counted rows in the engines of `checking` (`check_failing`). The
    case modules keep `write_case` and `check_report` as its `write` and `check`, which the Spark
    parity batch calls."""

    name: str
    contract: str
    data: str
    failing: dict[str, int]
    checking: tuple[str, ...]
    catalog: tuple[str, str] | None = None  # (file name, text)
    now: str = "2024-01-02T00:00:00Z"

    def write(self, folder: Path) -> tuple[Path, ...]:
        """The contract, its data file and the catalog when there is one, written into `folder`."""
        contract, data = write_case(folder, self.name, self.contract, self.data)
        if self.catalog is None:
            return contract, data
        catalog = folder / self.catalog[0]
        catalog.write_text(self.catalog[1], encoding="utf-8")
        return contract, data, catalog

    def check(self, report: dict[str, Any], shown: str = "", checking: tuple[str, ...] | None = None) -> None:
        """Each clause of `failing` fails its hand-counted rows in every engine of `checking`;
        nothing else fails, errs or disagrees."""
        check_failing(report, self.failing, self.checking if checking is None else checking, shown)

    def verify(self, folder: Path, *args: str) -> None:
        """`verify` of the case written into `folder` (ARGS: the engine), checked."""
        contract, data, *catalog = self.write(folder)
        with_catalog = ("--catalog", str(catalog[0])) if catalog else ()
        self.check(*verify_json(contract, data, *with_catalog, "--now", self.now, *args))
