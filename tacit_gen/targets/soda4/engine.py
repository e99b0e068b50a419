"""Run the generated Soda 4 contract with soda-core 4 on the verify data, in Soda 4's own environment.

soda-core 4 cannot be imported here (the main environment holds soda-core 3.5), so this side
prepares each case and ONE worker process in the soda4 environment
(:mod:`tacit_gen.targets.soda4.worker`, built and cached by :mod:`tacit_gen.targets.soda4.env`)
verifies every case of a run. Per case: the artifact's `dataset:` is pointed at the verify relation;
the checks of clauses that read a column the data lacks are left out (verdict n/a: the column
clause carries it; Soda 4 would otherwise fail the shared query); the rest runs as rendered.
Verdicts are Soda's outcomes: the schema check gives each `column:` clause (missing, or a type
mismatch) and `no_unknown_columns` (extra columns); every other check names its clause in its
`qualifier`. docs/engines/soda4.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tacit_gen.engines.base import EngineRun, Status, Verdict, VerifyInput
from tacit_gen.targets.soda.writer import dump, load_yaml
from tacit_gen.targets.soda4.read import read
from tacit_gen.targets.soda4.render import (
    COUNT_METRIC,
    DATA_SOURCE,
    NAME,
    SINCE_VARIABLE,
    artifact_path,
)

if TYPE_CHECKING:
    from pathlib import Path

    from tacit_gen.plan_types import Clause

# WARN is Soda's outcome of a threshold of level warn: a `severity: warn` clause's check.
_OUTCOME: dict[str, Status] = {"PASSED": "pass", "FAILED": "fail", "WARN": "warn"}


@dataclass
class _Case:
    """One dataset prepared for the worker, and what this side already knows about it."""

    id: str
    inp: VerifyInput
    request: dict[str, Any]
    doc: dict[str, Any]  # the contract as the worker runs it (the checks rerun one by one use it)
    present: set[str]  # clause ids whose check the artifact carries
    lacking: dict[str, str]  # clause id -> the data's missing column it reads (left out: n/a)


def _columns(inp: VerifyInput, table: str) -> set[str]:
    """The columns the data relation actually has."""
    if inp.postgres is not None:
        import psycopg2

        con = psycopg2.connect(inp.postgres.dsn)
        try:
            with con.cursor() as cur:
                cur.execute("SELECT column_name FROM information_schema.columns "
                            "WHERE table_schema = %s AND table_name = %s", (inp.postgres.schema, table))
                return {str(r[0]) for r in cur.fetchall()}
        finally:
            con.close()
    import duckdb

    from tacit_gen import sql

    con = duckdb.connect(str(inp.database), read_only=True)
    try:
        return {str(r[0]) for r in con.execute(f"DESCRIBE SELECT * FROM {sql.ident(table)}").fetchall()}
    finally:
        con.close()


def _prepare(i: int, inp: VerifyInput) -> _Case:
    path = inp.artifact_dir / artifact_path(inp.contract)
    text = path.read_text(encoding="utf-8")
    doc = load_yaml(text, fast=True)
    dataset = str(doc["dataset"]).rsplit("/", 1)[-1]
    have = _columns(inp, inp.table)
    by_id: dict[str, Clause] = {c.id: c for c in inp.clauses}
    lacking: dict[str, str] = {}
    for c in inp.clauses:
        gone = [x for x in c.columns if x not in have]
        if gone and c.kind not in ("column", "no_unknown_columns"):
            lacking[c.id] = gone[0]

    def keep(item: Any) -> bool:
        body = next(iter(item.values())) if isinstance(item, dict) and len(item) == 1 else None
        q = body.get("qualifier") if isinstance(body, dict) else None
        return not (isinstance(q, str) and q in lacking)

    for col in doc.get("columns") or ():
        if isinstance(col, dict) and col.get("checks"):
            col["checks"] = [x for x in col["checks"] if keep(x)] or None
            if col["checks"] is None:
                del col["checks"]
    if doc.get("checks"):
        doc["checks"] = [x for x in doc["checks"] if keep(x)]
    request: dict[str, Any] = {"id": f"c{i}", "dataset": dataset, "table": inp.table,
                               "now": inp.now.isoformat(), "data_source": DATA_SOURCE}
    if inp.since is not None:  # the contract's variable: its checks read the increment
        request["variables"] = {SINCE_VARIABLE: inp.since.isoformat()}
    if inp.postgres is not None:
        p = inp.postgres.params
        doc["dataset"] = f"{DATA_SOURCE}/{p['database']}/{inp.postgres.schema}/{dataset}"
        request["postgres"] = {**p, "schema": inp.postgres.schema}
    else:
        doc["dataset"] = f"{DATA_SOURCE}/main/{dataset}"
        request["database"] = str(inp.database.resolve())
    _point_references(doc, str(doc["dataset"]).rsplit("/", 1)[0])
    request["contract"] = dump(doc)
    present = {c.id for c in read(path, text).clauses if c.id in by_id}
    return _Case(f"c{i}", inp, request, doc, present, lacking)


def _point_references(doc: dict[str, Any], prefix: str) -> None:
    """Each `valid_reference_data` dataset (a `references:` clause) at the verify location, where
    the loader put the referenced relation beside the data."""
    for col in doc.get("columns") or ():
        for item in (col.get("checks") or ()) if isinstance(col, dict) else ():
            body = next(iter(item.values())) if isinstance(item, dict) and len(item) == 1 else None
            ref = body.get("valid_reference_data") if isinstance(body, dict) else None
            if isinstance(ref, dict) and ref.get("dataset"):
                ref["dataset"] = prefix + "/" + str(ref["dataset"]).rsplit("/", 1)[-1]


def _schema_verdicts(case: _Case, check: dict[str, Any]) -> list[Verdict]:
    out = []
    status = _OUTCOME.get(str(check.get("outcome")))
    missing = set(check.get("missing") or ())
    mismatched = {m["column"]: m for m in check.get("mismatched") or ()}
    for c in case.inp.clauses:
        if c.id not in case.present:
            continue
        if c.kind == "column":
            col = c.param("column")
            if col in missing:
                out.append(Verdict(c.id, "fail", None, "schema check: column missing"))
            elif col in mismatched:
                m = mismatched[col]
                out.append(Verdict(c.id, "fail", None,
                                   f"schema check: data type {m['actual']}, expected {m['expected']}"))
            elif status is None:
                out.append(Verdict(c.id, "error", None, f"schema check outcome {check.get('outcome')}"))
            else:
                out.append(Verdict(c.id, "pass"))
        elif c.kind == "no_unknown_columns":
            extra = list(check.get("extra") or ())
            if extra:
                out.append(Verdict(c.id, "fail", len(extra), "schema check: extra column(s) "
                                   + ", ".join(extra)))
            elif status is None:
                out.append(Verdict(c.id, "error", None, f"schema check outcome {check.get('outcome')}"))
            else:
                out.append(Verdict(c.id, "pass"))
    return out


def _verdicts(case: _Case, raw: dict[str, Any]) -> EngineRun:
    if "failure" in raw:
        return EngineRun(NAME, (), (str(raw.get("traceback", "")),), failure=str(raw["failure"]))
    got: dict[str, Verdict] = {}
    notes = [e for e in raw.get("errors") or () if e]
    for check in raw.get("checks") or ():
        if check.get("type") == "schema":
            got.update((v.clause_id, v) for v in _schema_verdicts(case, check))
            continue
        cid = check.get("qualifier")
        if not cid:
            continue
        status = _OUTCOME.get(str(check.get("outcome")))
        diag = check.get("diagnostics") or {}
        count = diag.get(COUNT_METRIC.get(str(check.get("type")), ""))
        failures = int(count) if isinstance(count, int | float) else None
        if status is None:
            own = (raw.get("check_errors") or {}).get(cid)  # its own query's error, run alone
            got[cid] = Verdict(cid, "error", None, f"Soda 4 outcome {check.get('outcome')}: "
                               + ((own or " ".join(notes))[:300] or "no detail"))
        else:
            detail = "Soda 4 level warn" if check.get("outcome") == "WARN" else ""
            if check.get("type") == "freshness":
                detail = f"freshness {diag.get('freshness_in_minutes', diag)} min"
            got[cid] = Verdict(cid, status, failures if status in ("fail", "warn") else None, detail)
    out = []
    for c in case.inp.clauses:
        if c.id in got:
            out.append(got[c.id])
        elif c.id in case.lacking:
            out.append(Verdict(c.id, "n/a", None, f"the data lacks column {case.lacking[c.id]} "
                               "(its column clause carries the verdict)"))
        elif c.id not in case.present:
            out.append(Verdict(c.id, "n/a", None, "not in the Soda 4 contract (unsupported there)"))
        else:
            out.append(Verdict(c.id, "error", None, "Soda 4 returned no result for this check: "
                               + (" ".join(notes)[:300] or "no detail")))
    return EngineRun(NAME, tuple(out), tuple(notes))


def _environ() -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    environ.update({"TZ": "UTC", "DO_NOT_TRACK": "1", "SODA_CORE_TELEMETRY_ENABLED": "false"})
    return environ


def run_cases(inputs: list[VerifyInput]) -> list[EngineRun]:
    """Every case in ONE worker process of the soda4 environment (built on first use), and one
    more for the checks rerun one by one after a failed query (`_rerun_unevaluated`)."""
    cases: list[_Case | EngineRun] = []
    for i, inp in enumerate(inputs):
        try:
            cases.append(_prepare(i, inp))
        except Exception as e:  # an unreadable artifact fails this case only
            cases.append(EngineRun(NAME, (), failure=f"{type(e).__name__}: {e}"))
    ready = [c for c in cases if isinstance(c, _Case)]
    results: dict[str, Any] = {}
    if ready:
        workdir = ready[0].inp.workdir / "soda4-worker"
        workdir.mkdir(parents=True, exist_ok=True)
        try:
            results = _run_worker(workdir, [c.request for c in ready])
            _rerun_unevaluated(workdir, ready, results)
        except Exception as e:
            why = f"Soda 4 could not run: {' '.join(str(e).split())[:600]}"
            results = {c.id: {"failure": why} for c in ready}
    return [c if isinstance(c, EngineRun) else _verdicts(c, results.get(c.id, {"failure": "no result"}))
            for c in cases]


class Server:
    """This process's Soda 4 worker (`tacit_gen.targets.soda4.worker`): started
    on the first request, kept for the next ones (a verify's rerun, the next verify of a process
    that verifies many times), ended when this process exits (its standard input closes)."""

    _current: Server | None = None
    _lock = threading.Lock()

    def __init__(self, python: str) -> None:
        from tacit_gen.targets.soda4.env import WORKER

        self.python, self.pid = python, os.getpid()
        # -P: the worker's folder (this package's modules) is not put on the worker's path;
        # its own output goes to each request's log, none of this process's pipes are held
        self.proc = subprocess.Popen([python, "-P", str(WORKER)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=_environ(), text=True, encoding="utf-8")

    @classmethod
    def ask(cls, python: str, request: Path) -> bool:
        """Send `request`; True once answered, False if the worker ended (it is started anew on
        the next request)."""
        with cls._lock:
            s = cls._current
            # a forked process never shares its parent's worker (their requests would interleave)
            if s is None or s.python != python or s.pid != os.getpid() or s.proc.poll() is not None:
                s = cls._current = cls(python)
            assert s.proc.stdin is not None and s.proc.stdout is not None
            try:
                s.proc.stdin.write(f"{request}\n")
                s.proc.stdin.flush()
                answered = s.proc.stdout.readline().strip() == "done"
            except (BrokenPipeError, OSError):
                answered = False
            if not answered:
                s.proc.kill()
                s.proc.wait()
                cls._current = None
            return answered


def _run_worker(workdir: Path, requests: list[dict[str, Any]], name: str = "") -> dict[str, Any]:
    """The worker's raw result of each request, by id: the soda4 environment's one worker process
    (`Server`)."""
    from tacit_gen.targets.soda4.env import ensure_env

    env = ensure_env()
    request = workdir / f"request{name}.json"
    result_file = workdir / f"results{name}.json"
    log = workdir / f"worker{name}.log"
    request.write_text(json.dumps({"workdir": str(workdir), "results": str(result_file),
                                   "log": str(log), "cases": requests}), encoding="utf-8")
    answered = Server.ask(str(env.python), request)
    if not answered or not result_file.is_file():
        tail = log.read_text(encoding="utf-8", errors="replace")[-2000:] if log.is_file() else ""
        raise RuntimeError(f"the Soda 4 worker {'wrote no results' if answered else 'ended'}: {tail}")
    return dict(json.loads(result_file.read_text(encoding="utf-8"))["cases"])


def _qualifier(item: Any) -> str | None:
    body = next(iter(item.values())) if isinstance(item, dict) and len(item) == 1 else None
    q = body.get("qualifier") if isinstance(body, dict) else None
    return q if isinstance(q, str) else None


def _only(doc: dict[str, Any], qualifier: str) -> dict[str, Any]:
    """`doc` with no check but the one of `qualifier` (the columns stay declared)."""
    import copy

    out = copy.deepcopy(doc)
    for col in out.get("columns") or ():
        if isinstance(col, dict) and col.get("checks"):
            col["checks"] = [x for x in col["checks"] if _qualifier(x) == qualifier]
            if not col["checks"]:
                del col["checks"]
    if out.get("checks"):
        out["checks"] = [x for x in out["checks"] if _qualifier(x) == qualifier]
        if not out["checks"]:
            del out["checks"]
    return out


def _rerun_unevaluated(workdir: Path, ready: list[_Case], results: dict[str, Any]) -> None:
    """Soda 4 computes a dataset's metrics in one aggregation query: when a query of the data
    fails (an integer overflow in one invariant's expression), every check of that query is
    NOT_EVALUATED, the checks of clauses that have nothing to do with it included (and a
    freshness check FAILED). As Soda 3's engine does, the checks that did not pass run again one
    by one (one more worker process for all of them), so only the check whose own query fails is
    an error; the first error is kept as a note."""
    reruns: list[dict[str, Any]] = []
    owner: dict[str, tuple[str, str]] = {}  # rerun id -> (case id, qualifier)
    for c in ready:
        raw = results.get(c.id) or {}
        if "failure" in raw or not raw.get("errors"):
            continue
        for check in raw.get("checks") or ():
            q = check.get("qualifier")
            # not only NOT_EVALUATED: Soda 4 reports a freshness check whose max() was in the
            # failed query as FAILED, without a freshness measured; a check that passed stands
            if not q or check.get("type") == "schema" or str(check.get("outcome")) == "PASSED":
                continue
            rid = f"{c.id}-r{len(reruns)}"
            reruns.append({**c.request, "id": rid, "contract": dump(_only(c.doc, str(q)))})
            owner[rid] = (c.id, str(q))
    if not reruns:
        return
    again = _run_worker(workdir, reruns, "-rerun")
    for rid, (cid, q) in owner.items():
        raw = results[cid]
        got = next((x for x in (again.get(rid) or {}).get("checks") or ()
                    if x.get("qualifier") == q), None)
        if got is None:
            continue
        raw["checks"] = [got if x.get("qualifier") == q else x for x in raw["checks"]]
        if str(got.get("outcome")) not in _OUTCOME:  # its own query fails: its error, kept
            raw.setdefault("check_errors", {})[q] = " ".join((again.get(rid) or {}).get("errors") or ())
    first = [str(e) for c in ready for e in (results.get(c.id) or {}).get("errors") or ()][:1]
    for c in ready:
        raw = results.get(c.id) or {}
        if raw.get("errors") and any(o[0] == c.id for o in owner.values()):
            raw["errors"] = [f"scan errors, checks rerun one by one: {first[0][:300] if first else ''}"]


def run(inp: VerifyInput) -> EngineRun:
    """verify's entry point for one dataset."""
    return run_cases([inp])[0]
