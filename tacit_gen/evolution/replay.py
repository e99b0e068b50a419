"""Replay: stored data written under an older contract version, read through today's contract.

Seed 001: "Compatibility mode on the registry is set and tested by replaying old data through the
new reader." The reader here is the runtime a consumer parses records with: the engine of each
registered target that declares it replays (`Target.replays`: the native ibis runtime, `parse()`
of today's generated Schema), the same engine module `verify` uses, on the data loaded into an
embedded DuckDB.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from tacit_gen.contract.model import Contract


@dataclass
class ReplayReport:
    """Which clauses of today's contract the stored data violates (empty: it still reads)."""

    contract: str
    version: str
    data: str
    failures: list[tuple[str, str, int | None]]  # (clause id, status, rows)
    load_messages: list[str]

    @property
    def ok(self) -> bool:
        return not self.failures

    def as_json(self) -> dict[str, Any]:
        return {
            "contract": self.contract,
            "version": self.version,
            "data": self.data,
            "ok": self.ok,
            "load": self.load_messages,
            "failures": [{"clause": c, "status": s, "rows": n} for c, s, n in self.failures],
        }

    def render_text(self) -> str:
        head = f"replay {self.data} through {self.contract} {self.version}: "
        if self.ok:
            return head + "every clause holds; the old data still reads"
        lines = [head + f"{len(self.failures)} clause(s) fail"]
        lines += [f"  {c}: {s}" + (f" ({n} rows)" if n is not None else "") for c, s, n in self.failures]
        lines += [f"  data: {m}" for m in self.load_messages]
        return "\n".join(lines)


def replay(contract: Contract, data_path: str | Path, catalog_path: str | Path | None = None,
           now: datetime | None = None) -> ReplayReport:
    """Validate stored data of an older version through the current contract's runtime.

    Args:
        contract: today's contract.
        data_path: CSV or Parquet written under an older version.
        catalog_path: the catalog relation, when the contract reads one.
        now: the pinned "now" for freshness (stored history is usually stale: pin it to when the
            data was written, or expect freshness to fail).
    """
    from tacit_gen import registry
    from tacit_gen.verify import parse_now, run_verify

    readers = tuple(name for name in registry.names() if registry.get(name).replays)
    if not readers:
        raise ValueError("no registered target replays stored data (Target.replays)")
    report = run_verify(contract, Path(data_path), Path(catalog_path) if catalog_path else None,
                        readers, now or parse_now(None))
    failures: list[tuple[str, str, int | None]] = []
    for row in report.rows:
        for name in readers:
            v = row.verdicts[name]
            if v.status in ("fail", "error") or (v.status == "n/a" and row.clause.kind == "column"):
                failures.append((row.clause.id, v.status, v.failures))
                break  # one line per clause, the first reader's
    return ReplayReport(contract.name, contract.version, Path(data_path).as_posix(), failures,
                        report.load_notes)
