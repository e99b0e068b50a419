"""`tacit-gen verify`: every target's artifact, run in its real engine on the same data.

Each engine returns verdicts taken from its own result objects; this module only loads the data,
runs the engines one after the other, and compares their verdicts clause by clause.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import os
import shutil
import sys
import tempfile
import traceback
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tacit_gen import registry
from tacit_gen.contract.model import Contract
from tacit_gen.engines.base import EngineRun, PgLocation, Verdict, VerifyInput
from tacit_gen.plan import plan
from tacit_gen.plan_types import Clause
from tacit_gen.targets.base import Engine, EngineOptions, RenderOptions


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
                        t: {"status": v.status, "failures": v.failures, "detail": v.detail}
                        for t, v in r.verdicts.items()
                    },
                }
                for r in self.rows
            ],
        }

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
        for r in self.rows:
            if r.disagreement:
                details.append(f"DISAGREE {r.clause.id}: {r.disagreement}")
            elif r.errored:
                details.append(f"NO VERDICT {r.clause.id}: every engine that runs it errored on "
                               "this data (below); the data, not the engines, stops it")
            for t, v in r.verdicts.items():
                if v.status in ("fail", "warn", "error", "n/a") and v.detail:
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


# Clause kinds whose count is the rows a one-row test fails, the same rows in every engine that
# counts them (measured over every clause of the bundled contracts: `column:` counts records or
# the first bad value, `unique:` duplicate keys or duplicate rows, so those two are left out), and
# the time-series kinds, whose count is the same unit everywhere: short windows (completeness),
# points off cadence, restated rows out of the window, the one stale table (freshness). Counting
# windows found the SQL engines' pre-1970 windows one hour off (2026-12-03), which "FAIL" in every
# engine had hidden; the parity suites on DuckDB, PostgreSQL and Spark agree on every count.
ROW_COUNTED = frozenset(("invariant", "range", "accepted_values", "pattern", "not_null", "fixed_value",
                         "catalog_unit", "catalog_bounds", "plausible", "references", "revision_by",
                         "completeness", "cadence", "revision_window", "freshness"))


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


def declared(target: str, backend: str) -> Engine:
    """How `target` runs on `backend` (its `Target.engines` entry).

    Raises:
        ValueError: the target has no engine on that backend.
    """
    engine = registry.get(target).engines.get(backend)
    if engine is None:
        raise ValueError(f"target '{target}' has no engine on {backend}")
    return engine


def _engine(target: str, backend: str) -> tuple[Engine, Any]:
    """The engine `target` declares on `backend`, and its module imported."""
    engine = declared(target, backend)
    return engine, importlib.import_module(engine.module)


def _answer(conn: Any, compute: Callable[[], Any]) -> None:
    """In an engine's own process: send back what `compute` returns, or why it failed."""
    try:
        result: Any = compute()
    except BaseException as e:
        result = _failure(e)
    try:
        conn.send(result)
    except Exception as e:  # a result that does not pickle
        conn.send(_failure(e))
    conn.close()
    # Done: leave now. A normal exit joins every thread the engine left running (multiprocessing
    # runs threading._shutdown), and one that never ends (a pool, a telemetry flusher) would keep
    # this process, and the parent's join, waiting for ever; its atexit work is not ours either.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def _reap(proc: Any) -> None:
    """Wait for an engine's process that has answered, died or been told to end; one that has
    not ended 30 s later is killed, so no engine can keep verify waiting."""
    proc.join(timeout=30)
    if proc.is_alive():
        proc.kill()
        proc.join()


def _engine_child(target: str, inp: VerifyInput, conn: Any) -> None:
    """In the engine's own process: import it, run it, send back its run or why it failed."""
    from tacit_gen.console import engine_output

    def run() -> Any:
        with engine_output(inp.workdir / "engine.log"):  # its logging is not the user's business
            return _engine(target, inp.engine)[1].run(inp)

    _answer(conn, run)


def _failure(e: BaseException) -> str:
    return (f"{type(e).__name__}: {e}".splitlines() or [type(e).__name__])[0][:500]


def _single_threaded() -> bool:
    """Whether this process runs one Python thread: forking a process with other threads can
    leave locks held in the child (a library that ran in this process earlier, as in a test
    session), so the engine then runs in-process, without crash isolation. (DuckDB's native
    worker threads, idle after the data is loaded, are not counted: measured safe.)"""
    import threading

    return threading.active_count() == 1


# The drivers verify itself loads the data with (DuckDB; psycopg2 for PostgreSQL): it closes
# their connections before it forks, and each engine opens its own, so loading them never stops
# the forks (`engine_libraries` leaves them out).
LOADER_DRIVERS = frozenset(("duckdb", "psycopg2"))


@functools.cache
def engine_libraries() -> frozenset[str]:
    """The engines' own libraries: every `Engine.libraries` the registered targets declare, but
    the loader's drivers (`LOADER_DRIVERS`). A process that has imported one has run it (or can):
    its state (a pooled connection, a cached engine, a data context, a thread pool it started) is
    copied into every forked child, where it belongs to no one. A GX child forked from a test
    worker that had run GX in process died of that state (a native crash in GX's metric graph,
    then the run stalled)."""
    return frozenset(lib for t in registry.names() for e in registry.get(t).engines.values()
                     for lib in e.libraries) - LOADER_DRIVERS


def _fork_safe() -> bool:
    """Whether engines may run in processes forked from this one: fork exists, this process runs
    one Python thread (`_single_threaded`), and it has not loaded an engine's library itself
    (`engine_libraries`), which the CLI never does; else they run here, one after another."""
    import multiprocessing

    return ("fork" in multiprocessing.get_all_start_methods() and _single_threaded()
            and not any(name in sys.modules for name in engine_libraries()))


def run_engine(target: str, inp: VerifyInput) -> EngineRun:
    """Run one engine in a process of its own (forked, so nothing is imported twice here).

    An engine that cannot run (its import fails, it raises, it crashes the interpreter, as a
    native library does under a memory limit) returns `EngineRun.failure` and no verdict; the
    other engines and this process go on. Where fork is unavailable or unsafe (other threads),
    the engine runs in-process: an exception is still a failure, a native crash is not isolated.
    """
    import multiprocessing

    if not _fork_safe():
        from tacit_gen.console import engine_output

        try:
            with engine_output(inp.workdir / "engine.log"):
                result: EngineRun = _engine(target, inp.engine)[1].run(inp)
            return result
        except Exception as e:
            return EngineRun(target, (), (traceback.format_exc(limit=3),), failure=_failure(e))
    ctx = multiprocessing.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_engine_child, args=(target, inp, sender), name=f"tacit-{target}")
    proc.start()
    sender.close()
    got: Any = None
    from tacit_gen.console import progress

    try:
        while not receiver.poll(0.25):  # also true at EOF: the process died without answering
            progress().tick()
        got = receiver.recv()
    except (EOFError, OSError):
        pass  # the process died before it could answer
    finally:
        receiver.close()
    _reap(proc)
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


@dataclass
class _Prepared:
    """One dataset ready for the engines: artifacts rendered, data loaded into a DuckDB file."""

    contract: Contract
    clauses: tuple[Clause, ...]
    targets: tuple[str, ...]
    now: datetime
    artifacts: Path
    database: Path
    workdir: Path
    unsupported: dict[str, set[str]]
    broken: dict[str, str]
    load_notes: list[str]
    load_json: dict[str, Any]
    postgres: PgLocation | None = None  # engine postgres: where the data was loaded


def _prepare(contract: Contract, data: Path, catalog: Path | None, targets: tuple[str, ...],
             now: datetime, workdir: Path, artifacts: Path | None,
             options: RenderOptions, postgres: PgLocation | None = None,
             sessions: Path | None = None, outages: Path | None = None) -> _Prepared:
    from tacit_gen import render as r
    from tacit_gen.engines.load import load_data, load_postgres

    clauses = plan(contract)
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
    if postgres is not None:  # typed by the DuckDB loader, then copied into the schema
        loaded = load_postgres(contract, data, postgres.dsn, postgres.schema, workdir / "load",
                               table=contract.name, catalog_path=catalog, sessions_path=sessions,
                               outages_path=outages)
        shutil.copyfile(workdir / "load" / "load.duckdb", db)
    else:
        loaded = load_data(contract, str(data), str(db), table=contract.name,
                           catalog_path=str(catalog) if catalog else None,
                           sessions_path=sessions, outages_path=outages)
    load_notes = loaded.messages()
    load_notes.extend(_dialect_overrides(contract, targets, options))
    broken = {c: "missing" for c in loaded.missing}
    for f in loaded.failures:
        broken.setdefault(f.column, f"loaded as {loaded.column_type(f.column) or 'text'}")
    if broken:
        load_notes.append(
            "columns missing or not of the contract's type: "
            + ", ".join(f"{c} ({why})" for c, why in sorted(broken.items()))
            + "; clauses reading them are n/a (their column clause carries the verdict)")
    return _Prepared(contract, clauses, targets, now, artifacts, db, workdir, unsupported, broken,
                     load_notes, loaded.to_dict(), postgres)


def _dialect_overrides(contract: Contract, targets: tuple[str, ...],
                       options: RenderOptions) -> list[str]:
    """A note per target whose contract pins a SQL dialect other than the engine's: verify runs
    the artifacts in the engine's dialect (the pinned one would not run there)."""
    if not options.engine_dialect:
        return []
    notes = []
    for t in targets:
        own = contract.target_option(t, "dialect")
        if own and str(own) != options.engine_dialect:
            notes.append(f"{t}: the contract pins targets.{t}.dialect: {own}; verify renders it "
                         f"for the {options.engine_dialect} engine it runs on")
    return notes


def _engine_input(p: _Prepared, t: str) -> VerifyInput:
    wd = p.workdir / t
    wd.mkdir(parents=True, exist_ok=True)
    # Each engine gets its own copy of the database: a connection one engine leaves open
    # (DuckDB refuses a second one with another configuration) cannot touch another.
    own_db = wd / "data.duckdb"
    shutil.copyfile(p.database, own_db)
    return VerifyInput(contract=p.contract, clauses=p.clauses, artifact_dir=p.artifacts,
                       database=own_db, table=p.contract.name, now=p.now, workdir=wd,
                       engine="postgres" if p.postgres is not None else "duckdb",
                       postgres=p.postgres)


def _duckdb_runs(p: _Prepared, targets: tuple[str, ...] | None = None) -> dict[str, EngineRun]:
    runs: dict[str, EngineRun] = {}
    for t in p.targets if targets is None else targets:
        runs[t] = run_reported(t, _engine_input(p, t))
    return runs


def run_reported(target: str, inp: VerifyInput) -> EngineRun:
    """`run_engine`, reported on the terminal's progress line (tacit_gen.console): the engine,
    its elapsed time, done or failed."""
    from tacit_gen.console import progress

    progress().start(target)
    result = run_engine(target, inp)
    _report_done(result)
    return result


def _report_done(result: EngineRun) -> None:
    from tacit_gen.console import progress

    counts = [(sum(v.status == s for v in result.verdicts), word)
              for s, word in (("fail", "violated"), ("error", "errored"))]
    progress().finish(result.failure is None, result.failure or ", ".join(
        f"{n} clause(s) {word}" for n, word in counts if n))


def default_jobs() -> int:
    """Engine processes at once: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _batch(target: str, inputs: list[VerifyInput], log: Path) -> list[EngineRun]:
    """One engine on every input, in this process: `run_cases` when the engine declares it
    (`Engine.batch`) and there are several, else `run` input after input (an exception is that
    input's failure; the others go on; one input's engine log is ``engine.log`` in its work
    folder, as for one contract)."""
    from tacit_gen.console import engine_output
    engine, module = _engine(target, inputs[0].engine if inputs else "duckdb")
    if engine.batch and len(inputs) > 1:
        with engine_output(log):
            runs: list[EngineRun] = list(module.run_cases(inputs))
        return runs
    out = []
    for inp in inputs:
        try:
            with engine_output(inp.workdir / "engine.log"):
                out.append(module.run(inp))
        except Exception as e:
            out.append(EngineRun(target, (), failure=_failure(e)))
    return out


def _child(target: str, inputs: list[VerifyInput], log: Path, conn: Any) -> None:
    _answer(conn, lambda: _batch(target, inputs, log))


def _died(target: str, code: int | None) -> str:
    if code is not None and code < 0:
        import signal

        try:
            return f"the {target} engine's process died of {signal.Signals(-code).name}"
        except ValueError:
            return f"the {target} engine's process died of signal {-code}"
    return f"the {target} engine's process exited with code {code} without a result"


def _warm_child(target: str, backend: str, log: Path, inputs_r: Any, inputs_w: Any,
                result_w: Any) -> None:
    """A started engine's process: import the engine (and what its `warm()` names; what that
    prints goes to `log`) while the parent loads the data, then run the inputs it is sent, or
    end when told to (None, EOF)."""
    from tacit_gen.console import engine_output

    inputs_w.close()  # the parent's end: only the parent may write, so its exit is an EOF here
    # an import that fails fails again, named, in `_batch`
    with contextlib.suppress(Exception), engine_output(log):
        engine, module = _engine(target, backend)
        if engine.warm:
            module.warm()
    try:
        msg = inputs_r.recv()
    except (EOFError, OSError):
        return
    if msg is not None:
        inputs, log = msg
        _child(target, inputs, log, result_w)


class WarmEngine:
    """The costliest engine's process, forked before the data is loaded and the artifacts are
    rendered, so that its import (dbt: about 2.5 s) runs on the CPU this process leaves idle
    meanwhile; `run_engines` then sends it its inputs instead of forking it anew. `close()` ends
    it if it was never sent anything (the load failed, an interrupt)."""

    def __init__(self, target: str, log: Path, backend: str = "duckdb") -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self.target = target
        inputs_r, self._inputs_w = ctx.Pipe(duplex=False)
        self.results, result_w = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_warm_child, name=f"tacit-{target}",
                                args=(target, backend, log, inputs_r, self._inputs_w, result_w))
        self.proc.start()
        inputs_r.close()
        result_w.close()
        self.sent = False

    @classmethod
    def start(cls, targets: list[str], parallel: int, root: Path,
              backend: str = "duckdb") -> WarmEngine | None:
        """The costliest of `targets` on `backend` started (what its import prints goes to
        ``root/<target>.engine.log``), when engines run in forked processes, more than one at a
        time (this process's own work takes the other CPU); else None."""
        if parallel < 2 or not targets or not _fork_safe():
            return None
        target = engine_order(targets, backend)[0]
        return cls(target, root / f"{target}.engine.log", backend)

    def send(self, inputs: list[VerifyInput], log: Path) -> None:
        self._inputs_w.send((inputs, log))
        self._inputs_w.close()
        self.sent = True

    def close(self) -> None:
        """End the process: at once if it was never sent its inputs (it has only imported)."""
        if not self.sent:
            self.proc.terminate()
            with contextlib.suppress(OSError):
                self._inputs_w.close()
            self.sent = True
        _reap(self.proc)
        with contextlib.suppress(OSError):
            self.results.close()


def run_engines(jobs: list[tuple[str, list[VerifyInput]]], root: Path,
                parallel: int, warm: WarmEngine | None = None) -> dict[str, list[EngineRun]]:
    """Each (target, inputs) job in a forked process of its own, `parallel` at a time (`warm`: an
    engine's process already started, used for its job); a job that fails as a whole (its
    import, a crash) gives every one of its inputs that failure. Where fork is unavailable or
    unsafe (other threads in this process), the jobs run here one by one."""
    import multiprocessing
    from multiprocessing.connection import Connection, wait

    from tacit_gen.console import progress

    def whole(target: str, n: int, why: str) -> list[EngineRun]:
        return [EngineRun(target, (), failure=why) for _ in range(n)]

    def checked(target: str, n: int, got: Any) -> list[EngineRun]:
        if isinstance(got, list) and len(got) == n and all(isinstance(r, EngineRun) for r in got):
            return got
        return whole(target, n, got if isinstance(got, str) else f"the {target} engine returned "
                     f"{type(got).__name__} for {n} dataset(s)")

    results: dict[str, list[EngineRun]] = {}
    p = progress()

    def done(target: str) -> None:  # the engine's line: done, or failed with why
        runs = results[target]
        why = next((r.failure for r in runs if r.failure), None)
        counts = [(sum(v.status == s for r in runs for v in r.verdicts), word)
                  for s, word in (("fail", "violated"), ("error", "errored"))]
        p.end(target, why is None, why or ", ".join(f"{n} clause(s) {word}"
                                                     for n, word in counts if n))

    if not _fork_safe():
        for target, inputs in jobs:
            p.begin(target)
            try:
                results[target] = checked(target, len(inputs),
                                          _batch(target, inputs, root / f"{target}.engine.log"))
            except Exception as e:
                results[target] = whole(target, len(inputs), _failure(e))
            done(target)
        return results
    ctx = multiprocessing.get_context("fork")
    pending = list(jobs)
    running: dict[Any, tuple[str, int, Any]] = {}
    try:
        while pending or running:
            while pending and len(running) < parallel:
                target, inputs = pending.pop(0)
                if warm is not None and warm.target == target and not warm.sent:
                    warm.send(inputs, root / f"{target}.engine.log")
                    running[warm.results] = (target, len(inputs), warm.proc)
                    p.begin(target)
                    continue
                receiver, sender = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, name=f"tacit-{target}",
                                   args=(target, inputs, root / f"{target}.engine.log", sender))
                proc.start()
                sender.close()
                running[receiver] = (target, len(inputs), proc)
                p.begin(target)
            for ready in wait(list(running), timeout=0.25):  # an answer, or EOF (it died)
                conn = ready if isinstance(ready, Connection) else None
                if conn is None:
                    continue
                target, n, proc = running.pop(conn)
                got: Any = None
                try:
                    got = conn.recv()
                except (EOFError, OSError):
                    pass
                finally:
                    conn.close()
                _reap(proc)
                results[target] = (checked(target, n, got) if got is not None
                                   else whole(target, n, _died(target, proc.exitcode)))
                done(target)
            p.tick()
    finally:
        for conn, (_t, _n, proc) in running.items():  # interrupted: stop what was started
            proc.terminate()
            proc.join()
            conn.close()
    return results


def engine_order(targets: list[str], backend: str = "duckdb") -> list[str]:
    """`targets` in the order verify starts their engines on `backend`: the costliest first
    (`Engine.cost`), then in the targets' order. verify runs them side by side, as many at once
    as the CPUs allow, so the longest starts first (dbt builds a project; GX imports for seconds)
    and the quick ones fill the other processes."""
    cost = {t: declared(t, backend).cost for t in targets}
    return sorted(targets, key=lambda t: (-cost[t], targets.index(t)))


def _batched_runs(prepared: list[_Prepared], root: Path, parallel: int | None = None,
                  warm: WarmEngine | None = None) -> list[dict[str, EngineRun]]:
    """Every case on DuckDB: each engine in a process of its own, once for all the cases
    (`run_engines`), `parallel` at a time (default: the CPUs), the costliest
    first; results back in case order and target order."""
    order: list[str] = []
    for p in prepared:
        order.extend(t for t in p.targets if t not in order)
    backend = "postgres" if prepared and prepared[0].postgres is not None else "duckdb"
    work = [(t, [i for i, p in enumerate(prepared) if t in p.targets])
            for t in engine_order(order, backend)]
    results = run_engines([(t, [_engine_input(prepared[i], t) for i in idx]) for t, idx in work],
                          root, parallel or default_jobs(), warm)
    out: list[dict[str, EngineRun]] = [{} for _ in prepared]
    for t, idx in work:
        for i, run in zip(idx, results[t], strict=True):
            out[i][t] = run
    return [{t: o[t] for t in p.targets} for p, o in zip(prepared, out, strict=True)]


def _compare(p: _Prepared, runs: dict[str, EngineRun]) -> VerifyReport:
    rows = []
    for c in p.clauses:
        verdicts = {}
        reads_broken = c.kind not in ("column", "no_unknown_columns") and any(
            col in p.broken for col in c.columns)
        for t in p.targets:
            if runs[t].failure is not None:
                continue  # no verdict: never a pass, never a disagreement
            got = {v.clause_id: v for v in runs[t].verdicts}
            v = got.get(c.id, Verdict(c.id, "n/a", None, "the engine returned no verdict"))
            if reads_broken:  # documented: n/a everywhere; its column clause carries the verdict
                cols = ", ".join(col for col in c.columns if col in p.broken)
                said = f" (the engine said {v.status})" if v.status not in ("n/a",) else ""
                v = Verdict(c.id, "n/a", None, f"reads {cols}, which the data lacks or mistypes{said}")
            verdicts[t] = v
        legit = p.unsupported if not reads_broken else {t: {c.id} for t in p.targets}
        rows.append(ClauseRow(c, verdicts, clause_disagreement(verdicts, legit, c.id, c.kind)))
    return VerifyReport(p.contract, p.targets, rows, p.load_notes,
                        {t: list(run.notes) for t, run in runs.items() if run.notes},
                        p.load_json, p.now,
                        {t: run.failure for t, run in runs.items() if run.failure is not None})


ENGINES = ("duckdb", "postgres", "spark")


@contextlib.contextmanager
def _utc_sessions() -> Iterator[None]:
    """PGTZ=UTC while the engines run: libpq sends it at connect, so every PostgreSQL session a
    tool opens itself (dbt-postgres and Soda take no session options) runs in UTC."""
    old = os.environ.get("PGTZ")
    os.environ["PGTZ"] = "UTC"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PGTZ", None)
        else:
            os.environ["PGTZ"] = old


def _drop_schema(dsn: str, schema: str) -> None:
    """Drop verify's schemas (the data's, and the one dbt built its models in). A session an
    engine left open in a transaction would block the drop: wait 10 s at most, then leave it."""
    import psycopg2

    from tacit_gen.sql import ident

    with contextlib.suppress(Exception):
        con = psycopg2.connect(dsn)
        try:
            with con, con.cursor() as cur:
                cur.execute("SET lock_timeout = '10s'")
                for name in (schema + "_dbt", schema):
                    cur.execute(f"DROP SCHEMA IF EXISTS {ident(name, 'postgres')} CASCADE")
        finally:
            con.close()


# The SQL dialect verify renders the artifacts in on each backend, whatever the user set (None:
# the user's own, as `render` would).
BACKEND_DIALECT: dict[str, str | None] = {"duckdb": None, "postgres": "postgres", "spark": "spark"}


def engine_options(engine: str, options: RenderOptions | None) -> RenderOptions:
    """The render options verify uses on backend `engine`: on PostgreSQL and Spark the backend's
    SQL dialect (`BACKEND_DIALECT`), and every registered target's options as its engine reads
    the artifacts there (`EngineOptions.for_engine`: dbt's adapter is the backend's, its macros
    at their default place), given or not."""
    options = options or RenderOptions()
    dialect = BACKEND_DIALECT[engine]
    if dialect is not None:
        options = dataclasses.replace(options, dialect=dialect, engine_dialect=dialect)
    given = {type(o) for o in options.targets}
    adapted = [o.for_engine(engine) if isinstance(o, EngineOptions) else o for o in options.targets]
    for cls in dict.fromkeys(registry.get(t).options for t in registry.names()):
        if cls in given:
            continue
        default = cls()
        if isinstance(default, EngineOptions) and (own := default.for_engine(engine)) != default:
            adapted.append(own)
    return dataclasses.replace(options, targets=tuple(adapted))


@dataclass(frozen=True)
class VerifyCase:
    """One dataset of a batched verify: a contract, its data (and catalog) and the pinned now."""

    contract: Contract
    data: Path
    catalog: Path | None
    now: datetime
    targets: tuple[str, ...]
    source: Path | None = None  # the contract's file (default: contract.path, from the cwd)
    calendar: Path | None = None  # the sessions file (default: generated for the data's dates)
    outages: Path | None = None  # the outages file a completeness clause reads (default: none)


@contextlib.contextmanager
def _work_root(workdir: Path | None) -> Iterator[Path]:
    """The run's work folder: `workdir` (kept), or a temporary one removed afterwards. Absolute:
    engines change their working directory (dbt runs in its project folder), so a relative
    --keep would otherwise nest the project inside itself."""
    root = Path(tempfile.mkdtemp(prefix="tacit-verify-")) if workdir is None else workdir.resolve()
    root.mkdir(parents=True, exist_ok=True)
    try:
        yield root
    finally:
        if workdir is None:
            shutil.rmtree(root, ignore_errors=True)


def _prepare_case(case: VerifyCase, workdir: Path, artifacts: Path | None, options: RenderOptions,
                  postgres: PgLocation | None = None) -> _Prepared:
    """One case's data loaded and artifacts rendered in `workdir` (its catalog, sessions and
    outages files with it)."""
    workdir.mkdir(parents=True, exist_ok=True)
    return _prepare(case.contract, case.data, case.catalog, case.targets, case.now, workdir,
                    artifacts, options, postgres, sessions=case.calendar, outages=case.outages)


def _spark_runs(prepared: list[_Prepared], cases: list[VerifyCase],
                root: Path) -> list[dict[str, EngineRun]]:
    """Every target of every case in ONE Spark worker (one session); if the worker cannot run
    (no environment, a crash), every engine of every case has that failure and no verdict."""
    from tacit_gen.engines.spark.client import SparkCaseRequest, export_parquet, run_worker

    # An engine declared to run in the Spark worker's session (`Engine.session`) runs there on
    # every case; the others (the wire schemas: records, not a table) run as on DuckDB, on the
    # same loaded data.
    modules = {t: e.module for t in dict.fromkeys(t for p in prepared for t in p.targets)
               if (e := declared(t, "spark")).session}
    local = [tuple(t for t in p.targets if t not in modules) for p in prepared]
    out = [_duckdb_runs(p, loc) if loc else {} for p, loc in zip(prepared, local, strict=True)]
    requests = [
        SparkCaseRequest(f"c{i}", p.contract.path,
                         (c.source or Path(p.contract.path)).read_text(encoding="utf-8"),
                         p.artifacts.resolve(), p.contract.name, p.now.isoformat(),
                         tuple(t for t in p.targets if t in modules),
                         export_parquet(p.database, p.workdir / "parquet"))
        for i, (p, c) in enumerate(zip(prepared, cases, strict=True))
    ]
    if not any(r.targets for r in requests):
        return out
    from tacit_gen.console import ticking

    try:
        with ticking("spark (" + ", ".join(sorted({t for r in requests for t in r.targets})) + ")"):
            runs, _timings = run_worker(requests, root / "worker", modules=modules)
    except Exception as e:
        why = f"the Spark engine could not run: {_failure(e)}"
        runs = {r.id: {t: EngineRun(t, (), failure=why) for t in r.targets} for r in requests}
    for i, r in enumerate(requests):
        out[i].update(runs.get(r.id, {}))
    return out


def verify_cases(cases: list[VerifyCase], engine: str = "spark", workdir: Path | None = None,
                 options: RenderOptions | None = None,
                 artifacts: Path | None = None, dsn: str | None = None,
                 jobs: int | None = None) -> list[VerifyReport]:
    """Verify many datasets in one go; on Spark, ONE worker process and ONE Spark session run
    every target of every case (docs/engines/spark.md).

    Args:
        cases: the datasets.
        engine: ``duckdb`` or ``postgres`` (each engine in a process of its own, once for all
            the cases, `jobs` at a time: default the CPUs), or ``spark``.
        workdir: where to keep the work (default: a temporary folder, removed afterwards).
        options: render options (see :func:`engine_options`).
        artifacts: run these artifacts instead of rendering them fresh.

    Returns:
        One report per case, in order.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: expected one of {', '.join(ENGINES)}")
    if dsn is not None and engine != "postgres":
        raise ValueError("--dsn is for --engine postgres")
    if engine == "postgres":
        return _postgres_cases(cases, workdir, options, artifacts, dsn, jobs)
    options = engine_options(engine, options)
    with _work_root(workdir) as root, contextlib.ExitStack() as stack:
        warm = None
        if engine == "duckdb":  # the costliest engine imports while the data loads
            warm = WarmEngine.start(list(dict.fromkeys(t for c in cases for t in c.targets)),
                                    jobs or default_jobs(), root)
            if warm is not None:
                stack.callback(warm.close)
        nested = len(cases) != 1
        prepared = [_prepare_case(c, root / f"c{i}" if nested else root, artifacts, options)
                    for i, c in enumerate(cases)]
        if engine == "duckdb":
            runs = _batched_runs(prepared, root, jobs, warm)
            return [_compare(p, r) for p, r in zip(prepared, runs, strict=True)]
        runs = _spark_runs(prepared, cases, root)
        return [_compare(p, r) for p, r in zip(prepared, runs, strict=True)]


def _postgres_cases(cases: list[VerifyCase], workdir: Path | None, options: RenderOptions | None,
                    artifacts: Path | None, dsn: str | None,
                    jobs: int | None = None) -> list[VerifyReport]:
    """Every case on PostgreSQL: the server at `dsn`, or a throwaway local one started and
    stopped here; each case loaded into a fresh schema of its own (dropped afterwards, whatever
    happens), then each engine in a process of its own for all the cases, `jobs` at a time, the
    costliest first (`_batched_runs`, as on DuckDB); sessions in UTC."""
    from tacit_gen.engines.base import PgLocation
    from tacit_gen.engines.postgres_server import throwaway_server, utc_dsn

    options = engine_options("postgres", options)
    with _work_root(workdir) as root, contextlib.ExitStack() as stack:
        stack.enter_context(_utc_sessions())
        if dsn is None:
            dsn = stack.enter_context(throwaway_server()).dsn
        prepared = []
        for i, c in enumerate(cases):
            location = PgLocation(utc_dsn(dsn), "tacit_verify_" + uuid.uuid4().hex[:12])
            # dropped on the way out (before the throwaway server stops: the stack unwinds in
            # reverse), also when a later case fails to load or an engine crashes
            stack.callback(_drop_schema, location.dsn, location.schema)
            prepared.append(_prepare_case(c, root if len(cases) == 1 else root / f"c{i}",
                                          artifacts, options, location))
        # the engines only read the data's schema (dbt builds in `<schema>_dbt`, Soda's aliases
        # are views of their own names), so they run side by side as on DuckDB
        runs = _batched_runs(prepared, root, jobs)
        return [_compare(p, r) for p, r in zip(prepared, runs, strict=True)]


def run_verify(contract: Contract, data: Path, catalog: Path | None, targets: tuple[str, ...],
               now: datetime, artifacts: Path | None = None, keep: Path | None = None,
               options: RenderOptions | None = None, engine: str = "duckdb",
               source: Path | None = None, dsn: str | None = None,
               calendar: Path | None = None, outages: Path | None = None,
               jobs: int | None = None) -> VerifyReport:
    """Load the data, run each target's artifact in its engine (DuckDB, each engine in a process
    of its own; or one Spark worker), and compare verdicts clause by clause. `source` is the
    contract's file (the Spark worker reads it)."""
    case = VerifyCase(contract, data, catalog, now, targets, source, calendar, outages)
    return verify_cases([case], engine, keep, options, artifacts, dsn, jobs)[0]


# The steps of one contract's verify, public to `tacit_gen.verify_many` (many contracts in one
# run, each engine once for all of them): load and render, an engine's input, compare verdicts.
prepare_case = _prepare_case
work_root = _work_root
engine_input = _engine_input
compare = _compare
batched_runs = _batched_runs
engine = _engine
failure_text = _failure
single_threaded = _single_threaded
fork_safe = _fork_safe
