"""What `verify` reports: a verdict per clause per engine, the disagreement rule, the exit code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import datetime

    from tacit_gen.contract.model import Contract
    from tacit_gen.engines.base import Verdict
    from tacit_gen.plan_types import Clause

@dataclass
class ClauseRow:
    clause: Clause
    verdicts: dict[str, Verdict]
    disagreement: str | None = None  # why the engines disagree, if they do

    @property
    def failed(self) -> bool:
        return any(v.status == "fail" for v in self.verdicts.values())

    @property
    def warned(self) -> bool:
        """A `severity: warn` clause the engines report violated: shown apart, exit 0."""
        return any(v.status == "warn" for v in self.verdicts.values())

    @property
    def errored(self) -> bool:
        """Every engine that ran this clause errored: no verdict (the data makes the check's own
        expression fail, as an int64 sum past 2^63 does in every SQL engine), not a
        disagreement. Exit 4, as for an engine that could not run."""
        return not self.disagreement and any(v.status == "error" for v in self.verdicts.values())


@dataclass
class VerifyReport:
    """Verdict per clause per target; exit 0 all pass, 1 violations (agreed), 3 disagreement."""

    contract: Contract
    targets: tuple[str, ...]
    rows: list[ClauseRow]
    load_notes: list[str] = field(default_factory=list)
    engine_notes: dict[str, list[str]] = field(default_factory=dict)
    load: dict[str, Any] = field(default_factory=dict)
    now: datetime | None = None

    failed: dict[str, str] = field(default_factory=dict)  # engines that could not run, and why

    @property
    def exit_code(self) -> int:
        if any(r.disagreement for r in self.rows):
            return 3
        if self.failed or any(r.errored for r in self.rows):
            return 4
        if any(r.failed for r in self.rows):
            return 1
        return 0

    def as_json(self) -> dict[str, Any]:
        verdict = {0: "pass", 1: "violations", 3: "disagreement", 4: "incomplete"}[self.exit_code]
        return {
            "contract": self.contract.name,
            "version": self.contract.version,
            "now": self.now.isoformat() if self.now else None,
            "verdict": verdict,
            "exit_code": self.exit_code,
            "targets": list(self.targets),
            "engines_failed": dict(self.failed),
            "errored": [r.clause.id for r in self.rows if r.errored],
            "warnings": [r.clause.id for r in self.rows if r.warned and not r.failed],
            "load": self.load,
            "notes": {"load": self.load_notes, **self.engine_notes},
            "clauses": [
                {
                    "id": r.clause.id,
                    "kind": r.clause.kind,
                    "severity": r.clause.severity,
                    "text": r.clause.text,
                    "line": r.clause.line,
                    "agree": r.disagreement is None,
                    "disagreement": r.disagreement,
                    "verdicts": {
                        t: {"status": v.status, "failures": v.failures, "detail": v.detail,
                            "rows": [dict(row) for row in v.rows]}
                        for t, v in r.verdicts.items()
                    },
                }
                for r in self.rows
            ],
            "rows_unavailable": self.rows_unavailable(),
        }

    def rows_unavailable(self) -> list[str]:
        """The engines that violate a clause another engine gave offending rows for, and gave
        none for any clause: they cannot return them (said once, not per clause)."""
        sampled = [r for r in self.rows if any(v.rows for v in r.verdicts.values())]
        out = []
        for t in self.targets:
            failed = [r.verdicts[t] for r in sampled
                      if t in r.verdicts and r.verdicts[t].status in ("fail", "warn")]
            if failed and not any(v.rows for r in self.rows for v in (r.verdicts.get(t),) if v):
                out.append(t)
        return out

    def offending_rows(self, width: int | None = None) -> list[str]:
        """Up to five offending rows per violated clause, under the verdict table: the rows of
        the engine that shows most of the key and clause columns (the first such engine in
        target order), cut to those columns; which other engines gave rows too."""
        from tacit_gen.console import fit_table, wrap
        from tacit_gen.textsafe import printable

        def fit(text: str) -> list[str]:
            return [text] if width is None else wrap(text, width)

        key = list(getattr(self.contract, "key", ()) or ())
        lines: list[str] = []
        for r in self.rows:
            given = [(t, v) for t in self.targets if (v := r.verdicts.get(t)) is not None
                     and v.status in ("fail", "warn") and v.rows]
            if not given:
                continue
            wanted = list(dict.fromkeys([*key, *r.clause.columns]))

            def shown(rows: tuple[tuple[tuple[str, str | None], ...], ...],
                      wanted: list[str] = wanted) -> list[str]:
                names = list(dict.fromkeys(k for row in rows for k, _ in row))
                keep = [c for c in wanted if c in names]
                return keep or names

            best, v = max(given, key=lambda tv: len([c for c in shown(tv[1].rows) if c in wanted]))
            cols = shown(v.rows)
            others = [t for t, _ in given if t != best]
            cid = printable(" ".join(r.clause.id.split()), None)
            head = f"{cid}: {len(v.rows)} row(s) from {best}"
            if others:
                head += f" (also from {', '.join(others)})"
            lines.extend(fit(head))
            cells = [[printable("null" if (x := dict(row).get(c)) is None else x, None) for c in cols]
                     for row in v.rows]
            table = fit_table([printable(c, None) for c in cols], cells,
                              None if width is None else width - 2,
                              wrap_cols=tuple((i, 6) for i in range(len(cols))))
            lines.extend("  " + ln for ln in table)
        if lines:
            lines[:0] = fit("offending rows (at most 5 per clause; --format json has every "
                            "engine's):")
        missing = self.rows_unavailable()
        if missing:
            lines.extend(fit(f"no offending rows from {', '.join(missing)}: the engine does not "
                             "return them"))
        return lines

    def render_text(self, width: int | None = None) -> str:
        """The report as text; within `width` columns (None: no limit) the clause column wraps."""
        from tacit_gen.console import fit_table
        from tacit_gen.textsafe import printable

        def cell(v: Verdict) -> str:
            if v.status == "pass":
                return "pass"
            if v.status in ("fail", "warn"):  # a warn clause's violation is never a FAIL
                word = v.status.upper()
                return f"{word} {v.failures}" if v.failures is not None else word
            return v.status.upper() if v.status == "error" else "n/a"

        headers = ["clause", *self.targets]
        rows: list[list[str]] = []
        marks: list[str] = []
        for r in self.rows:
            cid = printable(" ".join(r.clause.id.split()), None)
            mark = " <- disagree" if r.disagreement else " <- no verdict" if r.errored else ""
            rows.append([cid, *(cell(r.verdicts[t]) if t in r.verdicts else "-" for t in self.targets)])
            marks.append(mark)
        lines = [
            f"verify {self.contract.name} {self.contract.version}"
            + (f" (now {self.now.isoformat()})" if self.now else ""),
            *fit_table(headers, rows, width, wrap_cols=((0, 20),), suffixes=marks),
        ]
        for note in self.load_notes:
            lines.append(f"data: {note}")
        details = []
        folded = False
        for r in self.rows:
            if r.disagreement:
                details.append(f"DISAGREE {r.clause.id}: {r.disagreement}")
            elif r.errored:
                details.append(f"NO VERDICT {r.clause.id}: every engine that runs it errored on "
                               "this data (below); the data, not the engines, stops it")
            for t, v in r.verdicts.items():
                # an agreed n/a (a clause the target cannot express, or one reading a column the
                # data lacks: the data note says which) is the legend's one line, not one per
                # clause; `--format json` keeps each engine's detail
                if v.status == "n/a" and not r.disagreement:
                    folded = True
                elif v.status in ("fail", "warn", "error", "n/a") and v.detail:
                    details.append(f"  {t} {r.clause.id}: {v.status}: {v.detail}")
        for t, notes in self.engine_notes.items():
            for note in notes:
                details.append(f"  {t}: {note}")
        for t, why in self.failed.items():
            details.append(f"ENGINE {t} could not run: {why}; it gives no verdict (shown as -)")
        if folded:
            details.append("n/a: not expressible there (explain --targets says why) or a "
                           "column is missing")
        if details:
            lines.append("")
            lines.extend(ln for d in details for ln in _fit_note(d, width))
        sampled = self.offending_rows(width)
        if sampled:
            lines.append("")
            lines.extend(sampled)
        code = self.exit_code
        fails = sum(r.failed for r in self.rows)
        warns = sum(r.warned and not r.failed for r in self.rows)
        ran = len(self.targets) - len(self.failed)
        errored = [r.clause.id for r in self.rows if r.errored]
        incomplete = (f"{len(self.failed)} engine(s) could not run ({', '.join(self.failed)}): no verdict from "
                      f"them; the other {ran} " if self.failed else "")
        if errored:
            incomplete += (("; " if incomplete else "")
                           + f"{len(errored)} clause(s) errored in every engine, no verdict "
                           f"({', '.join(errored)}); the engines ")
        summary = {
            0: f"all {len(self.targets)} engine(s) pass all {len(self.rows)} clauses",
            4: incomplete + (f"agree: {fails} clause(s) violated" if fails else "agree: all pass"),
            1: f"{fails} clause(s) violated; all engines agree",
            3: f"engines DISAGREE on {sum(bool(r.disagreement) for r in self.rows)} clause(s): "
               "this is a tacit-gen bug, please report it with this output",
        }[code]
        if warns:  # apart from failures: they never change the exit code
            summary += (f"; {warns} warn clause(s) violated (severity: warn, not failures)"
                        if code != 0 else "")
            if code == 0:
                summary = (f"no clause failed in {len(self.targets)} engine(s); {warns} warn "
                           "clause(s) violated (severity: warn), all engines agree")
        lines.append("")
        lines.append(summary)
        return "\n".join(lines)


def _fit_note(text: str, width: int | None) -> list[str]:
    """A note within `width` columns (None: one line), its continuation lines indented under
    its text; nothing cut."""
    from tacit_gen.console import wrap

    if width is None or len(text) <= width:
        return [text]
    indent = " " * min(len(text) - len(text.lstrip()) + 4, max(0, width // 4))
    first, *rest = wrap(text, width)
    return [first, *(indent + ln for ln in wrap(" ".join(rest), width - len(indent)))]


# Clause kinds whose count is the rows a one-row test fails, the same rows in every engine that
# counts them (measured over every clause of the bundled contracts: `column:` counts records or
# the first bad value, `unique:` duplicate keys or duplicate rows, so those two are left out), and
# the time-series kinds, whose count is the same unit everywhere: short windows (completeness),
# points off cadence, restated rows out of the window, the one stale table (freshness). Counting
# windows found the SQL engines' pre-1970 windows one hour off (2026-12-03), which "FAIL" in every
# engine had hidden; the parity suites on DuckDB, PostgreSQL and Spark agree on every count.
ROW_COUNTED = frozenset(("invariant", "range", "accepted_values", "pattern", "not_null", "fixed_value",
                         "catalog_unit", "catalog_bounds", "plausible", "references", "revision_by",
                         "precision", "completeness", "cadence", "revision_window", "freshness"))


def clause_disagreement(verdicts: dict[str, Verdict], unsupported: dict[str, set[str]], cid: str,
                        kind: str = "") -> str | None:
    """Why the engines' `verdicts` on clause `cid` (of `kind`) disagree, or None: an error, no
    verdict from a target that renders the clause (not in its `unsupported` ids), a pass beside a
    fail, or, for the kinds of `ROW_COUNTED`, FAILs on different numbers of rows."""
    problems = []
    for t, v in verdicts.items():
        if v.status == "error":
            problems.append(f"{t} errored ({v.detail or 'no detail'})")
        elif v.status == "n/a" and cid not in unsupported.get(t, set()):
            problems.append(f"{t} gave no verdict although it renders this clause ({v.detail or 'missing'})")
    statuses = {t: v.status for t, v in verdicts.items() if v.status in ("pass", "fail", "warn")}
    errors = [t for t, v in verdicts.items() if v.status == "error"]
    if len(errors) > 1 and not statuses and len(problems) == len(errors):
        # every engine that runs the clause (two or more) errored and none gave a verdict: nothing disagrees
        # (ClauseRow.errored: no verdict, exit 4); one that passed or failed beside them does
        return None
    if len(set(statuses.values())) > 1:
        problems.append(", ".join(f"{t} {s}" for t, s in sorted(statuses.items())))
    elif kind in ROW_COUNTED and set(statuses.values()) <= {"fail", "warn"}:
        # the same verdict on different rows is no agreement: on a PostgreSQL database collating
        # by en_US, `code < 'b'` failed 3 rows in its SQL engines and 1 in pandera, all "FAIL"
        counts = {t: verdicts[t].failures for t in statuses if verdicts[t].failures is not None}
        if len(set(counts.values())) > 1:
            problems.append("failing rows differ: " + ", ".join(f"{t} {n}" for t, n in sorted(counts.items())))
    return "; ".join(problems) or None
