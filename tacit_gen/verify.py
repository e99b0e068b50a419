"""`tacit-gen verify`: every target's artifact, run in its real engine on the same data.

Each engine returns verdicts taken from its own result objects; this module only loads the data,
runs the engines one after the other, and compares their verdicts clause by clause.
"""

from __future__ import annotations

import dataclasses
import importlib
import shutil
import tempfile
import traceback
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tacit_gen import registry
from tacit_gen.contract.model import Contract
from tacit_gen.engines.base import EngineRun, Verdict, VerifyInput
from tacit_gen.plan import plan
from tacit_gen.plan_types import Clause
from tacit_gen.targets.base import RenderOptions
from tacit_gen.textsafe import text_table


def parse_now(text: str | None) -> datetime:
    """An ISO-8601 instant with an offset (or Z); None means the current time."""
    if text is None:
        return datetime.now(UTC).replace(microsecond=0)
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"--now '{text}' is not an ISO-8601 instant such as 2024-01-02T03:04:05Z") from None
    if value.tzinfo is None:
        raise ValueError(f"--now '{text}' has no offset; an instant needs one (add Z for UTC)")
    return value.astimezone(UTC)


@dataclass
class ClauseRow:
    clause: Clause
    verdicts: dict[str, Verdict]
    disagreement: str | None = None  # why the engines disagree, if they do

    @property
    def failed(self) -> bool:
        return any(v.status == "fail" for v in self.verdicts.values())


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
        if self.failed:
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
            "load": self.load,
            "notes": {"load": self.load_notes, **self.engine_notes},
            "clauses": [
                {
                    "id": r.clause.id,
                    "kind": r.clause.kind,
                    "text": r.clause.text,
                    "line": r.clause.line,
                    "agree": r.disagreement is None,
                    "disagreement": r.disagreement,
                    "verdicts": {
                        t: {"status": v.status, "failures": v.failures, "detail": v.detail}
                        for t, v in r.verdicts.items()
                    },
                }
                for r in self.rows
            ],
        }

    def render_text(self) -> str:
        def cell(v: Verdict) -> str:
            if v.status == "pass":
                return "pass"
            if v.status == "fail":
                return f"FAIL {v.failures}" if v.failures is not None else "FAIL"
            return v.status.upper() if v.status == "error" else "n/a"

        headers = ["clause", *self.targets]
        rows: list[list[str]] = []
        marks: list[str] = []
        for r in self.rows:
            cid = r.clause.id if len(r.clause.id) <= 46 else r.clause.id[:45] + "…"
            mark = " <- disagree" if r.disagreement else ""
            rows.append([cid, *(cell(r.verdicts[t]) if t in r.verdicts else "-" for t in self.targets)])
            marks.append(mark)
        lines = [
            f"verify {self.contract.name} {self.contract.version}"
            + (f" (now {self.now.isoformat()})" if self.now else ""),
            *text_table(headers, rows, suffixes=marks),
        ]
        for note in self.load_notes:
            lines.append(f"data: {note}")
        details = []
        for r in self.rows:
            if r.disagreement:
                details.append(f"DISAGREE {r.clause.id}: {r.disagreement}")
            for t, v in r.verdicts.items():
                if v.status in ("fail", "error", "n/a") and v.detail:
                    details.append(f"  {t} {r.clause.id}: {v.status}: {v.detail}")
        for t, notes in self.engine_notes.items():
            for note in notes:
                details.append(f"  {t}: {note}")
        for t, why in self.failed.items():
            details.append(f"ENGINE {t} could not run: {why}; it gives no verdict (shown as -)")
        if details:
            lines.append("")
            lines.extend(details)
        code = self.exit_code
        fails = sum(r.failed for r in self.rows)
        ran = len(self.targets) - len(self.failed)
        summary = {
            0: f"all {len(self.targets)} engine(s) pass all {len(self.rows)} clauses",
            4: f"{len(self.failed)} engine(s) could not run ({', '.join(self.failed)}): no verdict from "
               f"them; the other {ran} " + (f"agree: {fails} clause(s) violated" if fails else "agree: all pass"),
            1: f"{fails} clause(s) violated; all engines agree",
            3: f"engines DISAGREE on {sum(bool(r.disagreement) for r in self.rows)} clause(s): "
               "this is a tacit-gen bug, please report it with this output",
        }[code]
        lines.append("")
        lines.append(summary)
        return "\n".join(lines)


def _disagreement(verdicts: dict[str, Verdict], unsupported: dict[str, set[str]], cid: str) -> str | None:
    problems = []
    for t, v in verdicts.items():
        if v.status == "error":
            problems.append(f"{t} errored ({v.detail or 'no detail'})")
        elif v.status == "n/a" and cid not in unsupported.get(t, set()):
            problems.append(f"{t} gave no verdict although it renders this clause ({v.detail or 'missing'})")
    statuses = {t: v.status for t, v in verdicts.items() if v.status in ("pass", "fail")}
    if len(set(statuses.values())) > 1:
        problems.append(", ".join(f"{t} {s}" for t, s in sorted(statuses.items())))
    return "; ".join(problems) or None


def _engine_module(target: str) -> Any:
    engine = registry.get(target).engine
    if engine is None:
        raise ValueError(f"target '{target}' has no engine")
    return importlib.import_module(engine)


def _engine_child(target: str, inp: VerifyInput, conn: Any) -> None:
    """In the engine's own process: import it, run it, send back its run or why it failed."""
    try:
        result: Any = _engine_module(target).run(inp)
    except BaseException as e:
        result = _failure(e)
    try:
        conn.send(result)
    except Exception as e:  # a result that does not pickle
        conn.send(_failure(e))
    conn.close()


def _failure(e: BaseException) -> str:
    return (f"{type(e).__name__}: {e}".splitlines() or [type(e).__name__])[0][:500]


def run_engine(target: str, inp: VerifyInput) -> EngineRun:
    """Run one engine in a process of its own (forked, so nothing is imported twice here).

    An engine that cannot run (its import fails, it raises, it crashes the interpreter, as a
    native library does under a memory limit) returns `EngineRun.failure` and no verdict; the
    other engines and this process go on. Where fork is unavailable, the engine runs in-process.
    """
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        try:
            result: EngineRun = _engine_module(target).run(inp)
            return result
        except Exception as e:
            return EngineRun(target, (), (traceback.format_exc(limit=3),), failure=_failure(e))
    ctx = multiprocessing.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_engine_child, args=(target, inp, sender), name=f"tacit-{target}")
    proc.start()
    sender.close()
    got: Any = None
    try:
        got = receiver.recv()
    except (EOFError, OSError):
        pass  # the process died before it could answer
    finally:
        receiver.close()
    proc.join()
    if isinstance(got, EngineRun):
        return got
    if isinstance(got, str):
        return EngineRun(target, (), failure=got)
    code = proc.exitcode
    if code is not None and code < 0:
        import signal

        try:
            why = f"the engine's process died of {signal.Signals(-code).name}"
        except ValueError:
            why = f"the engine's process died of signal {-code}"
    else:
        why = f"the engine's process exited with code {code} without a result"
    return EngineRun(target, (), failure=why)


def run_verify(contract: Contract, data: Path, catalog: Path | None, targets: tuple[str, ...],
               now: datetime, artifacts: Path | None = None, keep: Path | None = None,
               options: RenderOptions | None = None) -> VerifyReport:
    """Load the data into DuckDB, run each engine, and compare verdicts clause by clause."""
    from tacit_gen import render as r
    from tacit_gen.engines.load import load_data

    clauses = plan(contract)
    # each target's options as its engine reads the artifacts (`for_engine`: dbt's macros at
    # their default place under the artifacts root)
    options = options or RenderOptions()
    options = dataclasses.replace(options, targets=tuple(
        o.for_engine() if hasattr(o, "for_engine") else o for o in options.targets))
    owned = keep is None
    # Absolute: engines change their working directory (dbt runs in its project folder), so a
    # relative --keep would otherwise nest the project inside itself.
    workdir = Path(tempfile.mkdtemp(prefix="tacit-verify-")) if keep is None else keep.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        # What each target declares it cannot express (n/a is legitimate only there).
        arts, unsupported_list = r.render_contract(contract, targets, options)
        unsupported: dict[str, set[str]] = {}
        for u in unsupported_list:
            unsupported.setdefault(u.target, set()).add(u.clause_id)
        if artifacts is None:
            artifacts = workdir / "artifacts"
            for a in arts:
                r.write_atomic(artifacts / a.path, a.content)
        db = workdir / "data.duckdb"
        if db.exists():
            db.unlink()
        loaded = load_data(contract, str(data), str(db), table=contract.name,
                           catalog_path=str(catalog) if catalog else None)
        load_json = loaded.to_dict()
        load_notes = loaded.messages()
        broken = {c: "missing" for c in loaded.missing}
        for f in loaded.failures:
            broken.setdefault(f.column, f"loaded as {loaded.column_type(f.column) or 'text'}")
        if broken:
            load_notes.append(
                "columns missing or not of the contract's type: "
                + ", ".join(f"{c} ({why})" for c, why in sorted(broken.items()))
                + "; clauses reading them are n/a (their column clause carries the verdict)")
        runs: dict[str, EngineRun] = {}
        for t in targets:
            wd = workdir / t
            wd.mkdir(parents=True, exist_ok=True)
            # Each engine gets its own copy of the database: a connection one engine leaves open
            # (DuckDB refuses a second one with another configuration) cannot touch another.
            own_db = wd / "data.duckdb"
            shutil.copyfile(db, own_db)
            inp = VerifyInput(contract=contract, clauses=clauses, artifact_dir=artifacts,
                              database=own_db, table=contract.name, now=now, workdir=wd)
            runs[t] = run_engine(t, inp)
        rows = []
        for c in clauses:
            verdicts = {}
            reads_broken = c.kind not in ("column", "no_unknown_columns") and any(
                col in broken for col in c.columns)
            for t in targets:
                if runs[t].failure is not None:
                    continue  # no verdict: never a pass, never a disagreement
                got = {v.clause_id: v for v in runs[t].verdicts}
                v = got.get(c.id, Verdict(c.id, "n/a", None, "the engine returned no verdict"))
                if reads_broken:  # documented: n/a everywhere; its column clause carries the verdict
                    cols = ", ".join(col for col in c.columns if col in broken)
                    said = f" (the engine said {v.status})" if v.status not in ("n/a",) else ""
                    v = Verdict(c.id, "n/a", None, f"reads {cols}, which the data lacks or mistypes{said}")
                verdicts[t] = v
            legit = unsupported if not reads_broken else {t: {c.id} for t in targets}
            rows.append(ClauseRow(c, verdicts, _disagreement(verdicts, legit, c.id)))
        return VerifyReport(contract, targets, rows, load_notes,
                            {t: list(run.notes) for t, run in runs.items() if run.notes},
                            load_json, now,
                            {t: run.failure for t, run in runs.items() if run.failure is not None})
    finally:
        if owned:
            shutil.rmtree(workdir, ignore_errors=True)
