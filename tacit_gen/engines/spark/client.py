"""The main process's side of the Spark engine: hand cases to one worker in the Spark env.

Each case's relations are exported to Parquet from verify's DuckDB load (the loader decides
the types once); the worker (:mod:`tacit_gen.engines.spark.worker`) reads them into Spark, runs
every target of every case on one Spark session and writes verdicts back as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen.engines.base import EngineRun, SampleRows, Verdict

if TYPE_CHECKING:
    from tacit_gen.engines.spark.env import SparkEnv

__all__ = ["SparkCaseRequest", "SparkWorkerError", "export_parquet", "run_worker", "worker_environ"]

_PACKAGE = Path(__file__).resolve().parents[2]  # the tacit_gen package folder


class SparkWorkerError(RuntimeError):
    """The worker process failed before writing verdicts (its output is in the message)."""


@dataclass(frozen=True)
class SparkCaseRequest:
    """One case for the worker: ids and paths only (the worker loads the contract itself)."""

    id: str
    contract: str  # the contract's path as its artifacts' headers name it
    text: str  # the contract's YAML
    artifacts: Path
    table: str
    now: str
    targets: tuple[str, ...]
    relations: dict[str, str]
    since: str | None = None  # the increment's start (VerifyInput.since)

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "contract": self.contract, "text": self.text, "artifacts": str(self.artifacts),
                "table": self.table, "now": self.now, "targets": list(self.targets),
                "relations": self.relations, "since": self.since}


def export_parquet(database: Path, folder: Path) -> dict[str, str]:
    """Every relation of a verify DuckDB file as a Parquet file; name -> path."""
    import duckdb

    from tacit_gen.sql import ident, literal

    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, str] = {}
    con = duckdb.connect(str(database), read_only=True)
    try:
        con.execute("SET TimeZone = 'UTC'")
        names = [str(r[0]) for r in con.execute(
            "SELECT table_name FROM information_schema.tables ORDER BY table_name").fetchall()]
        for i, name in enumerate(names):
            path = folder / f"{i}.parquet"
            con.execute(f"COPY (SELECT * FROM {ident(name)}) TO {literal(str(path))} (FORMAT PARQUET)")
            out[name] = str(path)
    finally:
        con.close()
    return out


def _package_path(folder: Path) -> Path:
    """A folder holding only a link to this tacit_gen package: the worker's PYTHONPATH (so it
    never sees the main environment's other packages)."""
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / "tacit_gen"
    if not link.exists():
        link.symlink_to(_PACKAGE, target_is_directory=True)
    return folder


def _rows(raw: list[list[list[Any]]]) -> SampleRows:
    """A verdict's offending rows as the worker wrote them (lists of [column, value])."""
    return tuple(tuple((str(k), None if v is None else str(v)) for k, v in row) for row in raw)


def runs_from_json(raw: dict[str, Any]) -> dict[str, EngineRun]:
    return {t: EngineRun(t, tuple(Verdict(v[0], v[1], v[2], v[3], _rows(v[4]))
                                  for v in run["verdicts"]),
                         tuple(run["notes"]), failure=run.get("failure"))
            for t, run in raw.items()}


def worker_environ(env: SparkEnv, workdir: Path) -> dict[str, str]:
    """The environment variables of a process in the Spark env: this package on its path (and
    nothing else of the main env), UTC, every engine's telemetry off."""
    path = _package_path(Path(tempfile.mkdtemp(prefix="tacit-spark-path-", dir=workdir)))
    environ = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    environ.update({"PYTHONPATH": str(path), "TZ": "UTC", "DO_NOT_TRACK": "1",
                    "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "GX_ANALYTICS_ENABLED": "false",
                    "SCARF_NO_ANALYTICS": "true", "PYSPARK_PYTHON": str(env.python),
                    "PYSPARK_DRIVER_PYTHON": str(env.python)})
    return environ


def run_worker(cases: list[SparkCaseRequest], workdir: Path, timeout: float | None = None, *,
               modules: dict[str, str]) -> tuple[dict[str, dict[str, EngineRun]], dict[str, float]]:
    """Run every case in ONE worker process (one Spark session) in the Spark environment.

    `modules` names each target's engine module in the worker (`Engine.module` of its ``spark``
    engine), run in that order.

    Returns:
        Per case id, per target, the engine's run; and the worker's timings in seconds.

    Raises:
        SparkEnvError: the environment could not be created.
        SparkWorkerError: the worker crashed (its stderr tail is in the message).
    """
    from tacit_gen.engines.spark.env import ensure_env

    env = ensure_env()
    workdir.mkdir(parents=True, exist_ok=True)
    request = workdir / "request.json"
    results = workdir / "results.json"
    request.write_text(json.dumps({"workdir": str(workdir / "spark"), "results": str(results),
                                   "modules": modules, "cases": [c.as_json() for c in cases]}),
                       encoding="utf-8")
    environ = worker_environ(env, workdir)
    log = workdir / "worker.log"
    with open(log, "w", encoding="utf-8") as out:
        proc = subprocess.run([str(env.python), "-m", "tacit_gen.engines.spark.worker", str(request)],
                              stdout=out, stderr=subprocess.STDOUT, env=environ, cwd=str(workdir),
                              timeout=timeout, check=False)
    if proc.returncode != 0 or not results.is_file():
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise SparkWorkerError(f"the Spark worker exited with {proc.returncode}:\n{tail}")
    data = json.loads(results.read_text(encoding="utf-8"))
    return {cid: runs_from_json(raw) for cid, raw in data["cases"].items()}, dict(data.get("timings") or {})
