"""The Spark worker: ``python -m tacit_gen.engines.spark.worker REQUEST.json``, run in the Spark env.

One process, ONE Spark session (local[2], UTC, no UI) for every case and every target of a run.
The request (written by :mod:`tacit_gen.engines.spark.client`) names each target's engine module
(its declared ``spark`` engine, ``run_cases(spark, cases) -> dict[str, EngineRun]``) and lists cases; each names its
contract, artifact folder, pinned now, targets and the Parquet files of its relations. Each case
gets a Spark database ``tacit_<id>`` holding one table per relation; dbt builds every case in ONE
project and ONE ``dbt build`` per pinned now (a model per case, :mod:`tacit_gen.targets.dbt.batch`;
a case whose model does not build there gets a build of its own); Soda, GX, pandera and the ibis
runtime run case by case on the same session. Verdicts are written as JSON to ``results`` (the
request names the file); ``results.partial`` holds those of the targets done so far.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from tacit_gen.engines.base import EngineRun, VerifyInput


@dataclass(frozen=True)
class SparkCase:
    """One dataset to verify: the engine input plus the Spark database holding its relations."""

    id: str
    inp: VerifyInput
    database: str
    targets: tuple[str, ...]
    relations: dict[str, str]


def _error_run(target: str, inp: VerifyInput, exc: BaseException) -> EngineRun:
    """An engine that could not run on a case: named, no verdict (as verify's forked engines)."""
    detail = (f"{type(exc).__name__}: {exc}".splitlines() or [type(exc).__name__])[0][:500]
    return EngineRun(target, (), (traceback.format_exc(limit=4),), failure=detail)


def _case(raw: dict[str, Any], root: Path) -> SparkCase:
    from tacit_gen.contract.loader import load
    from tacit_gen.plan import plan

    contract = load(raw["contract"], raw["text"])
    workdir = root / raw["id"]
    workdir.mkdir(parents=True, exist_ok=True)
    database = f"tacit_{raw['id']}"
    inp = VerifyInput(contract=contract, clauses=plan(contract), artifact_dir=Path(raw["artifacts"]),
                      database=Path(database), table=raw["table"],
                      now=datetime.fromisoformat(raw["now"]), workdir=workdir,
                      since=datetime.fromisoformat(raw["since"]) if raw.get("since") else None)
    return SparkCase(raw["id"], inp, database, tuple(raw["targets"]), dict(raw["relations"]))


def run_as_json(run: EngineRun) -> dict[str, Any]:
    # a verdict's offending rows travel too: each a list of [column, value] pairs
    return {"verdicts": [[v.clause_id, v.status, v.failures, v.detail, [list(map(list, r)) for r in v.rows]]
                         for v in run.verdicts],
            "notes": list(run.notes), "failure": run.failure}


def serve(request: dict[str, Any]) -> dict[str, Any]:
    """Run every case of the request on one Spark session; verdicts per case per target."""
    import importlib
    import shutil

    from tacit_gen.engines.spark.session import SESSION_SQL_CONF, conf, create_relations, session

    root = Path(request["workdir"])
    shutil.rmtree(root, ignore_errors=True)  # a kept folder of an earlier run: fresh warehouse
    root.mkdir(parents=True)
    started = time.monotonic()
    spark = session(root)
    settings = conf()
    timings: dict[str, float] = {"session": time.monotonic() - started}
    cases = [_case(raw, root) for raw in request["cases"]]
    for case in cases:
        create_relations(spark, case.database, case.relations)
    out: dict[str, dict[str, Any]] = {c.id: {} for c in cases}
    modules: dict[str, str] = request["modules"]
    targets = [t for t in modules if any(t in c.targets for c in cases)]
    for target in targets:
        t0 = time.monotonic()
        # each target starts from the session's own settings: dbt-spark 1.11 turns ANSI mode off
        # in the session it shares (its credentials force spark.sql.ansi.enabled=false), which
        # the engines after it would otherwise inherit
        for key in SESSION_SQL_CONF:
            spark.conf.set(key, settings[key])
        mine = [c for c in cases if target in c.targets]
        module = importlib.import_module(modules[target])
        try:
            runs: dict[str, EngineRun] = module.run_cases(spark, mine)
        except Exception as exc:  # the whole target failed: every clause of every case errors
            runs = {c.id: _error_run(target, c.inp, exc) for c in mine}
        for c in mine:
            out[c.id][target] = run_as_json(runs.get(c.id) or _error_run(
                target, c.inp, RuntimeError("the engine returned no verdicts")))
        timings[target] = time.monotonic() - t0
        print(f"{target}: {len(mine)} cases in {timings[target]:.1f} s", flush=True)
        if request.get("results"):  # what is settled so far, should the run be stopped
            Path(request["results"] + ".partial").write_text(
                json.dumps({"cases": out, "timings": timings}), encoding="utf-8")
    spark.stop()
    return {"cases": out, "timings": timings}


def run_each(cases: list[SparkCase], target: str, one: Any) -> dict[str, EngineRun]:
    """Run `one(case)` for every case; a crash becomes error verdicts for that case only."""
    runs: dict[str, EngineRun] = {}
    for case in cases:
        try:
            runs[case.id] = one(case)
        except Exception as exc:
            runs[case.id] = _error_run(target, case.inp, exc)
    return runs


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    request = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    result = serve(request)
    Path(request["results"]).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
