"""Compatibility as the schema registries and wire runtimes see it (`compat`, `compat --replay`).

Each registered target that declares a wire compatibility (`Target.compat`, a
`tacit_gen.targets.compat.WireCompat`: today Avro, Protobuf and JSON Schema) gives its schema of
every version compared and judges each pair the mode compares (see `compat`), reader = the version
that reads, writer = the one that wrote. This module gives them what only the history knows: the
files committed with a version read from git (protobuf's field-number lock) and the rows a
producer of a version writes (`tacit-gen sample`).

`replay_wire` (for `compat --replay DATA`): the stored rows, typed by each earlier version that
wrote them, go through each target's replay (written with that version's schema, read with
today's); the rows the first target decodes are then parsed by today's runtime (`replay`).
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen.targets.compat import WireFinding

if TYPE_CHECKING:
    from datetime import datetime

    from tacit_gen.contract.model import Contract
    from tacit_gen.targets.compat import History, Row, Schemas, WireCompat

__all__ = ["WireFinding", "WireReplay", "history_for", "registry_compat", "replay_wire"]


def _wire_targets() -> list[tuple[str, WireCompat[Any]]]:
    """(name, wire compatibility) of each registered target that declares one, in registry order."""
    from tacit_gen import registry

    found = [(name, registry.get(name).wire_compat()) for name in registry.names()]
    return [(name, compat) for name, compat in found if compat is not None]


def history_for(out_dir: str | None) -> History:
    """What the wire compatibility of a target is given: the files committed with a version under
    `out_dir`, and a version's sample rows."""
    from tacit_gen.targets.compat import History

    def committed(contract: Contract, rel: str) -> str | None:
        """``<out_dir>/<rel>`` as committed with a version read from git (its path ends in
        ``@<commit>``), or None (a --history folder, no such file in that commit, no git)."""
        from tacit_gen.evolution.history import HistoryError, read_at_revision

        m = re.search(r"@([0-9a-f]{7,40})$", contract.path)
        if m is None or not out_dir:
            return None
        root = Path(out_dir)
        spec = f"{m.group(1)}:{'./' if not root.is_absolute() else ''}{root.as_posix()}/{rel}"
        try:
            return read_at_revision(spec)
        except (HistoryError, OSError):
            return None

    sampled: dict[str, list[Row]] = {}

    def rows(contract: Contract) -> list[Row]:
        """24 rows of `tacit-gen sample` (seed 7), once per version."""
        from tacit_gen.plan import plan
        from tacit_gen.sample import sample

        if contract.version not in sampled:
            data = sample(contract, plan(contract), rows=24, seed=7)
            names = list(data.columns)
            count = len(data.columns[names[0]]) if names else 0
            sampled[contract.version] = [{k: data.columns[k][i] for k in names} for i in range(count)]
        return list(sampled[contract.version])

    return History(out_dir, committed, rows)


def _schemas(versions: list[Contract], history: History) -> list[tuple[str, WireCompat[Any], Schemas[Any]]]:
    return [(name, compat, compat.schemas(versions, history)) for name, compat in _wire_targets()]


def registry_compat(history: list[Contract], mode: str, out_dir: str | None = "generated") -> tuple[list[WireFinding], list[str]]:
    """What the wire targets' registries say about the pairs `mode` compares.

    Returns:
        (findings, notes).
    """
    from tacit_gen.evolution.compat import dedupe

    versions = dedupe(history)
    mode = mode.upper()
    if len(versions) < 2 or mode == "NONE":
        return [], []
    newest, earlier = versions[-1], versions[:-1]
    if not mode.endswith("_TRANSITIVE"):
        earlier = earlier[-1:]
    base = mode.replace("_TRANSITIVE", "")
    context = history_for(out_dir)
    wires = _schemas([*earlier, newest], context)
    notes = [n for _, _, s in wires for n in s.notes]
    out: list[WireFinding] = []
    for old in earlier:
        pairs = []
        if base in ("BACKWARD", "FULL"):
            pairs.append((newest.version, old.version, "backward"))
        if base in ("FORWARD", "FULL"):
            pairs.append((old.version, newest.version, "forward"))
        for reader, writer, direction in pairs:
            for _, compat, s in wires:
                out += compat.compare(s.by_version[reader], s.by_version[writer], direction, context)
    return out, notes


# ---------------------------------------------------------------------------------- replay
@dataclass
class WireReplay:
    """Stored rows of one earlier version through today's wire readers and runtime."""

    version: str
    rows: int
    findings: list[WireFinding]
    runtime_failures: list[tuple[str, str, int | None]]
    skipped: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"version": self.version, "rows": self.rows, "skipped": self.skipped,
                "findings": [f.as_json() for f in self.findings],
                "runtime_failures": [{"clause": c, "status": s, "rows": n} for c, s, n in self.runtime_failures]}


def _rows_as(contract: Contract, data: str, tmp: Path) -> tuple[list[dict[str, Any]] | None, str | None]:
    """The data's rows typed by `contract` (None, why: the data was not written under it)."""
    from tacit_gen.engines.load import load_data
    from tacit_gen.engines.wire import read_table

    db = tmp / f"{contract.version}.duckdb"
    rep = load_data(contract, data, str(db), table="data")
    if rep.missing or rep.failures:
        why = ", ".join([f"{c} missing" for c in rep.missing] + [f"{f.column} not {f.expected}" for f in rep.failures])
        return None, f"not written under {contract.version} ({why})"
    table = read_table(db, "data")
    extra = [c for c in table.columns if contract.field(c) is None]
    if extra:
        return None, f"not written under {contract.version} (columns it does not have: {', '.join(extra)})"
    return table.rows, None


def replay_wire(history: list[Contract], data: str, out_dir: str | None = "generated",
                catalog: str | None = None, now: datetime | None = None) -> list[WireReplay]:
    """Replay stored data of each earlier version that wrote it through today's wire readers, then
    today's runtime."""
    from tacit_gen.evolution.compat import dedupe
    from tacit_gen.evolution.replay import replay

    versions = dedupe(history)
    if len(versions) < 2:
        return []
    today = versions[-1].version
    wires = _schemas(versions, history_for(out_dir))
    out: list[WireReplay] = []
    with tempfile.TemporaryDirectory(prefix="tacit-replay-") as tmp_name:
        tmp = Path(tmp_name)
        for old in versions[:-1]:
            rows, why = _rows_as(old, data, tmp)
            if rows is None:
                out.append(WireReplay(old.version, 0, [], [], skipped=why))
                continue
            findings: list[WireFinding] = []
            decoded: list[Row] | None = None
            for _, compat, s in wires:
                got = compat.replay(s.by_version[old.version], s.by_version[today], rows)
                if got is None:
                    continue
                findings += got.findings
                if decoded is None:
                    decoded = got.decoded
            failures: list[tuple[str, str, int | None]] = []
            if not findings:
                csv = tmp / f"decoded-{old.version}.csv"
                _write_csv(versions[-1], rows if decoded is None else decoded, csv)
                rep = replay(versions[-1], csv, catalog_path=catalog, now=now)
                failures = rep.failures
            out.append(WireReplay(old.version, len(rows), findings, failures))
    return out


def _write_csv(contract: Contract, records: list[dict[str, Any]], path: Path) -> None:
    import csv

    from tacit_gen.engines.wire import json_value

    names = [f.name for f in contract.fields]
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        for rec in records:
            w.writerow(["" if rec.get(n) is None else _text(json_value(rec.get(n))) for n in names])


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
