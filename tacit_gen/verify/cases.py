"""The datasets `verify` runs: each one's artifacts rendered and data loaded (`prepare`), an
engine's input made from it, and the engines' runs compared clause by clause (`compare`)."""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tacit_gen import registry
from tacit_gen.contract.model import Contract
from tacit_gen.engines.base import EngineRun, PgLocation, Verdict, VerifyInput
from tacit_gen.plan import plan
from tacit_gen.plan_types import Clause
from tacit_gen.targets.base import EngineOptions, RenderOptions
from tacit_gen.verify.report import ClauseRow, VerifyReport, clause_disagreement


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


def parse_since(text: str | None, contract: Contract, now: datetime) -> datetime | None:
    """`--since`: an ISO-8601 instant with an offset, not after `now`, on a contract with a time
    column (docs/increments.md); None: no increment, the whole relation. ValueError says why."""
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"--since '{text}' is not an ISO-8601 instant such as 2024-01-02T03:04:05Z") from None
    if value.tzinfo is None:
        raise ValueError(f"--since '{text}' has no time zone; an instant needs an offset (add Z for UTC)")
    if contract.time is None or not contract.time.column:
        raise ValueError(f"--since: contract {contract.name} has no time column (time.column), "
                         "so it has no increment to select")
    value = value.astimezone(UTC)
    if value > now:
        raise ValueError(f"--since {value.isoformat()} is later than now ({now.isoformat()}): "
                         "the increment would be empty")
    return value


def since_targets(targets: tuple[str, ...], since: datetime | None,
                  target_spec: str | None = None) -> tuple[str, ...]:
    """The targets `verify --since` runs: those of `targets` whose engines check an increment
    (`Target.increments`); the others would check the whole relation. Naming one that cannot
    (`target_spec`) is a ValueError."""
    if since is None:
        return targets
    named = [t.strip() for t in (target_spec or "").split(",") if t.strip() and t.strip() != "all"]
    cannot = [t for t in named if t in registry.names() and not registry.get(t).increments]
    if cannot:
        able = [t for t in registry.names() if registry.get(t).increments]
        raise ValueError(f"--since: target(s) {', '.join(cannot)} do not check an increment yet "
                         f"(those that do: {', '.join(able)})")
    return tuple(t for t in targets if registry.get(t).increments)


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
    since: datetime | None = None  # check the increment from here and its boundary (default: all)


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


@contextlib.contextmanager
def work_root(workdir: Path | None) -> Iterator[Path]:
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


@dataclass
class Prepared:
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
    since: datetime | None = None  # every engine checks the increment from here


def case_dir(root: Path, index: int, count: int) -> Path:
    """The work folder of case `index` of `count`: the run's own for one case, else ``c<index>``."""
    return root if count == 1 else root / f"c{index}"


def prepare_case(case: VerifyCase, workdir: Path, artifacts: Path | None, options: RenderOptions,
                  postgres: PgLocation | None = None) -> Prepared:
    """One case's data loaded and artifacts rendered in `workdir` (its catalog, sessions and
    outages files with it)."""
    workdir.mkdir(parents=True, exist_ok=True)
    p = prepare(case.contract, case.data, case.catalog, case.targets, case.now, workdir,
                artifacts, options, postgres, sessions=case.calendar, outages=case.outages)
    if case.since is not None:
        p.since = case.since
        p.load_notes.append(f"every engine checks the increment from {case.since.isoformat()} "
                            "and its boundary; targets that cannot are left out")
    return p


def prepare(contract: Contract, data: Path, catalog: Path | None, targets: tuple[str, ...],
             now: datetime, workdir: Path, artifacts: Path | None,
             options: RenderOptions, postgres: PgLocation | None = None,
             sessions: Path | None = None, outages: Path | None = None) -> Prepared:
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
    return Prepared(contract, clauses, targets, now, artifacts, db, workdir, unsupported, broken,
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


def engine_input(p: Prepared, t: str) -> VerifyInput:
    wd = p.workdir / t
    wd.mkdir(parents=True, exist_ok=True)
    # Each engine gets its own copy of the database: a connection one engine leaves open
    # (DuckDB refuses a second one with another configuration) cannot touch another.
    own_db = wd / "data.duckdb"
    shutil.copyfile(p.database, own_db)
    return VerifyInput(contract=p.contract, clauses=p.clauses, artifact_dir=p.artifacts,
                       database=own_db, table=p.contract.name, now=p.now, workdir=wd,
                       engine="postgres" if p.postgres is not None else "duckdb",
                       postgres=p.postgres, since=p.since)


def compare(p: Prepared, runs: dict[str, EngineRun]) -> VerifyReport:
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
