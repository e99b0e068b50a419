"""Many datasets of the SAME contract in ONE dbt project and ONE ``dbt build`` (the Spark parity batch).

A ``dbt build`` parses the whole project before any SQL runs (most of the 15 s a case took on
Spark), so verifying many datasets one project at a time pays that parse once per case. `verify
--data-dir` already shares a project between contracts whose model names differ
(:func:`tacit_gen.targets.dbt.engine.run_cases`); datasets of one contract share a model name, so
here each case's names get a prefix of their own
(:func:`tacit_gen.targets.dbt.names.case_properties`):

- the model ``<model>`` becomes ``<case>__<model>`` (its SQL selects the case's data), each
  relation its tests read (catalog, sessions) a view model ``<case>__<relation>``, and every
  ``ref('x')`` in the case's test arguments names the case's own ``<case>__x``;
- every explicit test name gets the prefix ``<case>__`` (test names are unique in a project);
- ``tacit_now`` and ``tacit_since`` are project variables, so cases are grouped by their pinned now
  and increment start (and by the text
  of their macros file): one project per group, usually one per run.

Each test result goes back to its case by the model it depends on, and to its clause through the
test's ``tacit_clause`` meta, as in a single-case build; the rounds of a single-case build (an
enforced-contract mismatch or a not_null constraint at insert aborts a model: fit it, build it
again) run for every case at once, a second build selecting only the cases that need one
(:class:`tacit_gen.targets.dbt.engine.ModelBuild`, :func:`~tacit_gen.targets.dbt.engine.build_together`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from tacit_gen.engines.base import EngineRun, VerifyInput


@dataclass(frozen=True)
class BatchCase:
    """One case of a shared build: its id (a valid identifier: it prefixes dbt names), the engine
    input, and `source_sql(relation, view=False)`, the model SQL selecting one of its relations."""

    id: str
    inp: VerifyInput
    source_sql: Callable[..., str]


def build_cases(cases: list[BatchCase], root: Path, write_project: Callable[[Path], None],
                log: Callable[[str], None] = lambda _m: None,
                read_failures: Callable[[str], list[dict[str, Any]]] | None = None,
                ) -> dict[str, EngineRun]:
    """Every case's model and tests in one project per pinned now (and macros file).

    Args:
        cases: the cases (ids unique, usable in dbt names).
        root: a folder for the shared projects (``dbt-batch-<n>``).
        write_project: writes dbt_project.yml, profiles.yml and the dbt_utils stand-in into a
            project folder (:func:`tacit_gen.targets.dbt.engine.write_project` with the engine's
            profile output).
        log: progress lines (the Spark worker's log).
        read_failures: the rows of a query on the adapter's connection: the failed tests run
            again with ``--store-failures`` and their rows are read through it
            (:func:`tacit_gen.targets.dbt.engine.store_failed_tests`).

    Returns:
        Per case id, its run.
    """
    import time

    from tacit_gen.targets.dbt.engine import ModelBuild, build_together, macros_text

    groups: dict[tuple[str, str, str], list[BatchCase]] = {}
    for case in cases:
        since = case.inp.since.isoformat() if case.inp.since else ""
        groups.setdefault((case.inp.now.isoformat(), since, macros_text(case.inp)), []).append(case)
    runs: dict[str, EngineRun] = {}
    for g, ((now, since, _macros), members) in enumerate(sorted(groups.items())):
        project = root / f"dbt-batch-{g}"
        write_project(project)
        started = time.monotonic()
        builds = [ModelBuild(c.inp, project, c.source_sql, only_own_tests=True,
                             prefix=f"{c.id}__") for c in members]
        done = build_together(builds, project, now, since or None, read_failures=read_failures)
        runs.update(zip((c.id for c in members), done, strict=True))
        log(f"dbt: {len(members)} cases in one project, {time.monotonic() - started:.1f} s")
    return runs
