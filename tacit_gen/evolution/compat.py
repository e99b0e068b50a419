"""Compatibility modes over a contract's history: BACKWARD, FORWARD, FULL and their _TRANSITIVE forms.

A table contract is read the way Avro resolves a record (docs/evolution.md has the full text):

- The **writer** is the contract the stored data was produced and validated under: the data
  satisfies every clause of the writer.
- The **reader** is the contract a consumer reads the data with. Reading projects the writer's
  rows onto the reader's columns: a reader column is found by name, then through the reader's
  `aliases`; a reader column the writer does not have reads as NULL; writer columns the reader does
  not declare are dropped.
- The reader **can read** the writer's data when every row the writer allows, so projected,
  satisfies every clause of the reader: types no narrower, ranges no tighter, enums no smaller,
  nullability no stricter, units identical, fixed values equal, the reader's invariants, catalog
  checks, uniqueness, cadence, timezone and revision policy all guaranteed by the writer.

BACKWARD: the new contract reads data written under the old one. FORWARD: the old contract reads
data written under the new one. FULL: both. Non-transitive modes compare the newest version with
the one before it; _TRANSITIVE modes with every earlier version.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tacit_gen.contract.model import Contract, Field
from tacit_gen.evolution.diff import (
    Side,
    canonical_expr,
    duration_seconds,
    field_line,
    range_cmp,
    range_interval,
    revision_policy_or_default,
    same_unit,
    timezone_of,
    type_change,
    unit_text,
)

MODES = (
    "NONE",
    "BACKWARD",
    "FORWARD",
    "FULL",
    "BACKWARD_TRANSITIVE",
    "FORWARD_TRANSITIVE",
    "FULL_TRANSITIVE",
)

# Every incompatibility code, with what it means (the docs table is generated from this).
CODES = {
    "compat.column_missing": "the reader requires a column the writer does not produce",
    "compat.type": "the writer's type is not readable as the reader's type (narrower or different)",
    "compat.enum": "the writer allows enum values the reader does not accept",
    "compat.nullability": "the writer allows NULL where the reader does not",
    "compat.unit": "the units differ (a unit change is never compatible)",
    "compat.fixed_value": "the reader requires a fixed value the writer does not guarantee",
    "compat.range": "the reader's range is tighter than the writer's",
    "compat.invariant": "the reader's invariant is not guaranteed by the writer",
    "compat.catalog_check": "the reader's catalog check is not guaranteed by the writer",
    "compat.key": "the writer does not guarantee the reader's uniqueness",
    "compat.time_column": "the time column differs",
    "compat.timezone": "the timezone convention differs",
    "compat.cadence": "the writer's spacing is not the reader's cadence (or looser)",
    "compat.revision": "the writer restates points the reader's revision policy rejects",
}

_BENIGN_TYPE_CODES = ("field.type_promoted", "field.type_relaxed", "field.enum_reordered",
                      "field.enum_values_added")


@dataclass(frozen=True)
class Incompatibility:
    """One reason a reader version cannot read data written under a writer version."""

    code: str
    direction: str  # backward (the newest reads an older version's data) or forward
    reader_version: str
    writer_version: str
    path: str  # in the reader contract
    message: str
    reader_line: int | None
    writer_line: int | None

    def as_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "direction": self.direction,
            "reader_version": self.reader_version,
            "writer_version": self.writer_version,
            "path": self.path,
            "message": self.message,
            "reader_line": self.reader_line,
            "writer_line": self.writer_line,
        }


@dataclass(frozen=True)
class CompatReport:
    """The verdict of one compatibility mode for the newest version of a history."""

    contract: str
    mode: str
    version: str  # the newest version, the one being checked
    checked: tuple[tuple[str, str], ...]  # (direction, other version) pairs, in check order
    findings: tuple[Incompatibility, ...]

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def versions(self) -> tuple[str, ...]:
        """The earlier versions compared against, oldest first, each once."""
        seen: list[str] = []
        for _, v in self.checked:
            if v not in seen:
                seen.append(v)
        return tuple(seen)

    def as_json(self) -> dict[str, Any]:
        return {
            "contract": self.contract,
            "mode": self.mode,
            "version": self.version,
            "compared_with": list(self.versions),
            "ok": self.ok,
            "incompatibilities": [f.as_json() for f in self.findings],
        }

    def _verdict(self) -> str:
        n = len(self.findings)
        return "ok" if not n else f"{n} incompatibilit{'y' if n == 1 else 'ies'}"

    def render_text(self) -> str:
        head = f"{self.contract} {self.version}: {self.mode}"
        if not self.checked:
            lines = [f"{head}: ok (no earlier version to compare with)"
                     if self.mode != "NONE" else f"{head}: ok (no checks)"]
            return "\n".join(lines)
        lines = [f"{head} against {', '.join(self.versions)}: "
                 f"{self._verdict()}"]
        for f in self.findings:
            who = (f"{f.reader_version} reading {f.writer_version} data")
            lines.append(f"  {f.direction:<8} {who}: {f.path}  [{f.code}]  "
                         f"reader line {_ln(f.reader_line)}, writer line {_ln(f.writer_line)}")
            lines.append(f"      {f.message}")
        return "\n".join(lines)


def _ln(line: int | None) -> str:
    return "-" if line is None else str(line)


# ------------------------------------------------------------------------------ the check
class _Check:
    def __init__(self, reader: Contract, writer: Contract, direction: str) -> None:
        self.r, self.w = Side.of(reader), Side.of(writer)
        self.direction = direction
        self.out: list[Incompatibility] = []
        self.r2w: dict[str, str] = {}
        for f in reader.fields:
            wf = self.resolve(f)
            if wf is not None:
                self.r2w[f.name] = wf.name

    @property
    def rc(self) -> Contract:
        return self.r.contract

    @property
    def wc(self) -> Contract:
        return self.w.contract

    def resolve(self, f: Field) -> Field | None:
        """The writer column a reader column reads: by name, then through the reader's aliases."""
        wf = self.wc.field(f.name)
        if wf is not None:
            return wf
        for alias in f.aliases:
            wf = self.wc.field(alias)
            if wf is not None:
                return wf
        return None

    def add(self, code: str, path: str, message: str, rline: int | None, wline: int | None) -> None:
        self.out.append(Incompatibility(code, self.direction, self.rc.version, self.wc.version, path,
                                        message, rline, wline))

    def run(self) -> list[Incompatibility]:
        for f in self.rc.fields:
            self.column(f)
        self.key()
        self.time()
        self.invariants()
        self.revision()
        return self.out

    def column(self, rf: Field) -> None:
        p = f"fields.{rf.name}"
        wf = self.resolve(rf)
        rl = field_line(self.rc, rf)
        if wf is None:
            if not rf.nullable:
                self.add("compat.column_missing", p, f"'{rf.name}' is required by {self.rc.version} but "
                         f"data written under {self.wc.version} has no such column", rl, None)
            return
        wl = field_line(self.wc, wf)
        via = f" (read from '{wf.name}')" if wf.name != rf.name else ""
        for code, why in type_change(wf.type, rf.type):
            if code == "field.enum_values_added":
                continue
            if code == "field.enum_values_removed":
                extra = [v for v in wf.type.values if v not in rf.type.values]
                self.add("compat.enum", f"{p}.type", f"'{rf.name}'{via}: the writer allows "
                         f"{', '.join(extra)}, which the reader's {rf.type} does not accept", rl, wl)
            elif code not in _BENIGN_TYPE_CODES:
                detail = why.split(": ", 1)[1] if ": " in why else ""
                self.add("compat.type", f"{p}.type", f"'{rf.name}'{via}: written as {wf.type}, read as "
                         f"{rf.type}" + (f": {detail}" if detail else ""), rl, wl)
        if wf.nullable and not rf.nullable:
            self.add("compat.nullability", f"{p}.nullable", f"'{rf.name}'{via} may be null in the writer's "
                     "data; the reader requires a value", rl, wl)
        ur, uw = unit_text(rf), unit_text(wf)
        if not same_unit(ur, uw):
            self.add("compat.unit", f"{p}.unit", f"'{rf.name}'{via} is written in {uw or 'no unit'} and "
                     f"read as {ur or 'no unit'}", rl, wl)
        if rf.has_value and (not wf.has_value or wf.value != rf.value):
            have = repr(wf.value) if wf.has_value else "any value"
            self.add("compat.fixed_value", f"{p}.value", f"the reader requires '{rf.name}' = "
                     f"{rf.value!r}; the writer holds {have}", rl, wl)
        rr, wr = self.r.ranges.get(rf.name), self.w.ranges.get(wf.name)
        if rr is not None:
            tighter, _ = range_cmp(wr, rr)
            if tighter:
                self.add("compat.range", self.r.invariant_path(rr.text),
                         f"the reader's range {range_interval(rr, rf.name)} is tighter than the writer's "
                         f"({range_interval(wr, wf.name)})", rr.line, wr.line if wr else None)

    def key(self) -> None:
        rkey = {self.r2w.get(k, k) for k in self.rc.key}
        if self.rc.key and not set(self.wc.key) <= rkey:
            self.add("compat.key", "key", f"the reader requires ({', '.join(self.rc.key)}) to be unique; the "
                     f"writer only guarantees ({', '.join(self.wc.key) or 'nothing'})",
                     self.rc.key_pos.line or None, self.wc.key_pos.line or None)

    def time(self) -> None:
        tr, tw = self.rc.time, self.wc.time
        if tr is None:
            return
        rl = dict(tr.lines)
        if tw is None or self.r2w.get(tr.column, tr.column) != tw.column:
            self.add("compat.time_column", "time.column", f"the reader's time column is '{tr.column}', the "
                     f"writer's {repr(tw.column) if tw else 'none'}", rl.get("column"),
                     dict(tw.lines).get("column") if tw else None)
            return
        wl = dict(tw.lines)
        if timezone_of(self.rc) != timezone_of(self.wc):
            self.add("compat.timezone", "time.timezone", f"timezone convention '{timezone_of(self.wc)}' is read as "
                     f"'{timezone_of(self.rc)}'", rl.get("timezone"), wl.get("timezone"))
        cr, cw = tr.cadence, tw.cadence
        if cr is None:
            return
        problem = None
        if cw is None:
            problem = "the writer promises no cadence"
        elif cr.from_catalog != cw.from_catalog or (cr.interval and cr.interval.seconds) != (
                cw.interval and cw.interval.seconds):
            problem = f"the writer's cadence is {cw.text}, the reader's {cr.text}"
        elif Decimal(cw.tolerance_pct) > Decimal(cr.tolerance_pct):
            problem = f"the writer's tolerance +/-{cw.tolerance_pct}% exceeds the reader's +/-{cr.tolerance_pct}%"
        elif cw.gaps_allowed and not cr.gaps_allowed:
            problem = "the writer allows gaps; the reader does not"
        if problem:
            self.add("compat.cadence", "time.cadence", problem, rl.get("cadence"), wl.get("cadence"))

    def invariants(self) -> None:
        w_exprs = {canonical_expr(cl) for cl in self.w.invariants}
        for cl in self.r.invariants:
            if canonical_expr(cl, self.r2w) not in w_exprs:
                self.add("compat.invariant", self.r.invariant_path(cl.text), f"the reader requires "
                         f"'{cl.text}', which the writer does not guarantee", cl.line, None)
        w_checks = {(cl.kind, cl.param("column")) for cl in self.w.catalog.values()}
        for cl in self.r.catalog.values():
            col = str(cl.param("column"))
            if (cl.kind, self.r2w.get(col, col)) not in w_checks:
                self.add("compat.catalog_check", self.r.invariant_path(cl.text), f"the reader requires "
                         f"'{cl.text}', which the writer does not guarantee", cl.line, None)

    def revision(self) -> None:
        rr, rw = revision_policy_or_default(self.rc), revision_policy_or_default(self.wc)
        rl = self.rc.revision_policy.pos.line if self.rc.revision_policy else None
        wl = self.wc.revision_policy.pos.line if self.wc.revision_policy else None
        if not rw.allowed or self.wc.field("revision") is None:
            return  # the writer never restates
        if not rr.allowed:
            self.add("compat.revision", "revision_policy.allowed", "the writer restates points; the reader "
                     "allows no revisions", rl, wl)
            return
        if rr.window is not None and (rw.window is None or
                                      duration_seconds(rw.window) > duration_seconds(rr.window)):
            self.add("compat.revision", "revision_policy.window", f"the writer restates within "
                     f"{rw.window.text if rw.window else 'any time'}; the reader's window is "
                     f"{rr.window.text}", rl, wl)
        if rr.reasons and self.rc.field("revision_reason") is not None:
            extra = [r for r in rw.reasons if r not in rr.reasons]
            if extra or not rw.reasons:
                self.add("compat.revision", "revision_policy.reasons", "the writer restates for reasons the "
                         f"reader does not accept: {', '.join(extra) or 'any'}", rl, wl)


def can_read(reader: Contract, writer: Contract, direction: str = "backward") -> list[Incompatibility]:
    """Every reason `reader` cannot read data written and validated under `writer` (empty: it can)."""
    return _Check(reader, writer, direction).run()


def dedupe(history: list[Contract]) -> list[Contract]:
    """One contract per version, the last occurrence winning, in order of last occurrence."""
    last: dict[str, int] = {}
    for i, c in enumerate(history):
        last[c.version] = i
    return [c for i, c in enumerate(history) if last[c.version] == i]


def compat(history: list[Contract], mode: str) -> CompatReport:
    """Check the newest contract of `history` (oldest first) in a compatibility mode.

    Versions that appear twice keep their last occurrence (a working-tree copy appended after the
    committed history replaces the commit of the same version).

    Raises:
        ValueError: an unknown mode or an empty history.
    """
    mode = mode.upper()
    if mode not in MODES:
        raise ValueError(f"unknown compatibility mode '{mode}'; one of {', '.join(MODES)}")
    if not history:
        raise ValueError("no contract to check")
    versions = dedupe(history)
    newest = versions[-1]
    earlier = versions[:-1]
    if mode == "NONE":
        earlier = []
    elif not mode.endswith("_TRANSITIVE"):
        earlier = earlier[-1:]
    base = mode.replace("_TRANSITIVE", "")
    checked: list[tuple[str, str]] = []
    findings: list[Incompatibility] = []
    for old in earlier:
        if base in ("BACKWARD", "FULL"):
            checked.append(("backward", old.version))
            findings += can_read(newest, old, "backward")
        if base in ("FORWARD", "FULL"):
            checked.append(("forward", old.version))
            findings += can_read(old, newest, "forward")
    return CompatReport(newest.name, mode, newest.version, tuple(checked), tuple(findings))


def codes_table() -> str:
    """The incompatibility codes as a Markdown table (embedded in docs/evolution.md)."""
    rows = ["| code | the reader cannot read the writer's data because |", "|---|---|"]
    rows += [f"| `{code}` | {text} |" for code, text in CODES.items()]
    return "\n".join(rows) + "\n"
