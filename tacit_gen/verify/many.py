"""`tacit-gen verify DIR --data-dir DATA`: many contracts in one run, each engine paid once.

Every contract is matched with its data by contract name (``DATA/<name>.csv`` or ``.parquet``;
``<name>.catalog.*``, ``<name>.sessions.*`` and ``<name>.outages.*`` beside it when present). The data of every
contract is loaded and its artifacts rendered in this process (:func:`tacit_gen.verify.cases.prepare_case`,
as for one contract); then each engine runs ONCE for all the contracts, in a process of its own
forked from this one, so it is imported once: an engine module with ``run_cases(inputs)`` takes
them all in one call (dbt: one project with a model per contract, one ``dbt build``; soda4: one
worker), any other runs ``run(inp)`` contract after contract in that process (GX reuses its one
context, pandera and the runtime their imports). Up to ``jobs`` engine processes run at once, the
costliest first (:func:`tacit_gen.verify.pool.run_engines`, which one contract's verify runs too).
Results are put back in contract order and target order, whatever order the engines end in, and
compared clause by clause exactly as for one contract (:func:`tacit_gen.verify.cases.compare`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.verify.cases import VerifyCase
    from tacit_gen.verify.report import VerifyReport

DATA_SUFFIXES = (".csv", ".parquet", ".pq")


class ManyError(ValueError):
    """A usage error of a many-contract verify (a contract without data...): exit 2."""


def _one_file(data_dir: Path, stem: str) -> Path | None:
    found = [data_dir / f"{stem}{s}" for s in DATA_SUFFIXES if (data_dir / f"{stem}{s}").is_file()]
    if len(found) > 1:
        raise ManyError(f"{' and '.join(p.as_posix() for p in found)}: two files for the same "
                        "relation; keep one")
    return found[0] if found else None


def match_data(contracts: list[tuple[Path, Contract]],
               data_dir: Path) -> list[tuple[Path, Path | None, Path | None, Path | None]]:
    """Each contract's data file, catalog, sessions and outages file in `data_dir`, matched by
    contract name: ``<name>.csv|.parquet|.pq``, ``<name>.catalog.<ext>``,
    ``<name>.sessions.<ext>`` and ``<name>.outages.<ext>`` (all optional but the data, as
    `tacit-gen sample` and `tacit-gen calendar` write them; the outages relation is what
    `verify --outages` reads for one contract).

    Raises:
        ManyError: naming every contract whose data file is missing, two contracts of the same
            name, or two files for the same relation.
    """
    if not data_dir.is_dir():
        raise ManyError(f"--data-dir {data_dir.as_posix()}: not a folder")
    seen: dict[str, Path] = {}
    missing: list[str] = []
    out: list[tuple[Path, Path | None, Path | None, Path | None]] = []
    for path, c in contracts:
        if c.name in seen:
            raise ManyError(f"{path.as_posix()} and {seen[c.name].as_posix()} are both contract "
                            f"'{c.name}': their data would be the same file")
        seen[c.name] = path
        data = _one_file(data_dir, c.name)
        if data is None:
            missing.append(f"no data for contract '{c.name}' ({path.as_posix()}): expected "
                           + " or ".join((data_dir / f"{c.name}{s}").as_posix() for s in DATA_SUFFIXES[:2]))
            continue
        out.append((data, _one_file(data_dir, f"{c.name}.catalog"),
                    _one_file(data_dir, f"{c.name}.sessions"),
                    _one_file(data_dir, f"{c.name}.outages")))
    if missing:
        raise ManyError("; ".join(missing))
    return out


@dataclass
class ManyReport:
    """One report per contract, in the order given; one exit code for the run."""

    reports: list[VerifyReport]
    jobs: int = 1

    @property
    def exit_code(self) -> int:
        """The worst of the contracts' codes, in verify's own order: 3 (disagreement) over 4 (an
        engine could not run) over 1 (violations) over 0."""
        codes = {r.exit_code for r in self.reports}
        return next((c for c in (3, 4, 1) if c in codes), 0)

    def as_json(self) -> dict[str, Any]:
        verdict = {0: "pass", 1: "violations", 3: "disagreement", 4: "incomplete"}[self.exit_code]
        return {"verdict": verdict, "exit_code": self.exit_code,
                "contracts": [r.as_json() for r in self.reports]}

    def render_text(self, width: int | None = None) -> str:
        """Each contract's report as `verify` prints it, then one summary table."""
        from tacit_gen.console import fit_table

        words = {0: "pass", 1: "violations", 3: "DISAGREEMENT", 4: "incomplete"}
        parts = [r.render_text(width) for r in self.reports]
        rows = []
        for r in self.reports:
            fails = sum(row.failed for row in r.rows)
            warns = sum(row.warned and not row.failed for row in r.rows)
            rows.append([r.contract.name, r.contract.version, words[r.exit_code], str(r.exit_code),
                         str(fails), str(warns), str(len(r.rows))])
        n = len(self.reports)
        code = self.exit_code
        summary = (f"all {n} contract(s) pass" if code == 0 else
                   f"{sum(r.exit_code != 0 for r in self.reports)} of {n} contract(s) did not "
                   f"pass: exit {code}")
        table = fit_table(["contract", "version", "verdict", "exit", "violated", "warned", "clauses"],
                          rows, width)
        return "\n\n".join([*parts, "\n".join([f"verify: {n} contract(s)", *table, "", summary])])


# ------------------------------------------------------------------------------------- the run


def verify_many(cases: list[VerifyCase], jobs: int | None = None, workdir: Path | None = None,
                options: RenderOptions | None = None, artifacts: Path | None = None,
                engine: str = "duckdb", dsn: str | None = None) -> ManyReport:
    """Verify many contracts on their data in one run: each engine once for all of them.

    Args:
        cases: one per contract (see :class:`tacit_gen.verify.VerifyCase`).
        jobs: engine processes at once (default: :func:`default_jobs`).
        workdir: where to keep the work (default: a temporary folder, removed afterwards); the
            contract at position i works in ``c<i>/``.
        options: render options.
        artifacts: run these artifacts instead of rendering them fresh.
        engine: ``duckdb``; on ``postgres`` and ``spark`` the cases go to
            :func:`tacit_gen.verify.verify_cases` (Spark: one worker for all; PostgreSQL: one
            server, a schema per contract, each engine once for all of them, `jobs` at a time).

    Returns:
        One report per case, in order, and the run's exit code.
    """
    from tacit_gen.engines.load import LoadError
    from tacit_gen.verify.cases import compare, engine_options, prepare_case, work_root
    from tacit_gen.verify.pool import WarmEngine, batched_runs, default_jobs
    from tacit_gen.verify.run import verify_cases

    parallel = jobs or default_jobs()
    if engine != "duckdb" or not cases:
        return ManyReport(verify_cases(cases, engine, workdir, options, artifacts, dsn, jobs),
                         parallel)
    if dsn is not None:
        raise ValueError("--dsn is for --engine postgres")
    options = engine_options(engine, options)
    with work_root(workdir) as root, contextlib.ExitStack() as stack:
        # the costliest engine imports while the data of every contract loads
        warm = WarmEngine.start(list(dict.fromkeys(t for c in cases for t in c.targets)),
                                parallel, root, engine)
        if warm is not None:
            stack.callback(warm.close)
        prepared = []
        for i, c in enumerate(cases):
            try:
                prepared.append(prepare_case(c, root / f"c{i}", artifacts, options))
            except LoadError as e:  # which contract's data could not be read
                raise ManyError(f"contract '{c.contract.name}': {e}") from None
        runs = batched_runs(prepared, root, parallel, warm)
        return ManyReport([compare(pr, r) for pr, r in zip(prepared, runs, strict=True)], parallel)
