"""ONE Spark worker for the cases of every Spark module a run selects (the `spark_batch` fixture
of tests/conftest.py): a worker is a JVM and a Spark session, about 20 s of CPU to start and warm
before its first case, so the parity, `since` and calendar modules share one instead of starting
one each (docs/ci.md).

A module takes part by defining ``spark_cases(folder) -> list[(case id, VerifyCase, extra)]``
(`folder`: an empty folder of its own for the cases' files; `extra`: whatever its tests read
beside the report); its tests read ``spark_batch[module][id]``,
a ``(report, extra)`` pair. Only the modules with a selected test build their cases, so running
one module alone verifies that module's cases only."""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType
from typing import Any

from tacit_gen.verify import VerifyCase, VerifyReport, verify_cases

SparkCases = list[tuple[str, VerifyCase, Any]]


def modules_of(items: list[Any]) -> list[ModuleType]:
    """The modules of `items` (the run's selected tests) that define ``spark_cases``, in order."""
    seen: dict[str, ModuleType] = {}
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and hasattr(module, "spark_cases"):
            seen.setdefault(module.__name__, module)
    return list(seen.values())


def run(modules: list[ModuleType], root: Path) -> dict[str, dict[str, tuple[VerifyReport, Any]]]:
    """Every case of `modules` verified in ONE `verify_cases` on Spark: module name -> case id ->
    (report, extra). ``TACIT_SPARK_KEEP``: the worker's folder to keep."""
    keys: list[tuple[str, str, Any]] = []
    cases: list[VerifyCase] = []
    for module in modules:
        folder = root / module.__name__.rsplit(".", 1)[-1]
        folder.mkdir(parents=True)
        for cid, case, extra in module.spark_cases(folder):
            keys.append((module.__name__, cid, extra))
            cases.append(case)
    keep = os.environ.get("TACIT_SPARK_KEEP")
    reports = verify_cases(cases, engine="spark", workdir=Path(keep) if keep else root / "work")
    out: dict[str, dict[str, tuple[VerifyReport, Any]]] = {m.__name__: {} for m in modules}
    for (module, cid, extra), report in zip(keys, reports, strict=True):
        assert cid not in out[module], f"{module}: case id {cid} twice"
        out[module][cid] = (report, extra)
    return out
