"""What `verify` runs: each engine executes its target's artifact for real and returns verdicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause

# `warn`: a violation of a `severity: warn` clause, as the engine itself reported it (dbt's
# `warn` status, Soda's warn outcome, a GX expectation of severity `warning`, a pandera or
# runtime warning); it fails nothing.
Status = Literal["pass", "fail", "warn", "n/a", "error"]


@dataclass(frozen=True)
class Verdict:
    """One engine's verdict on one clause, taken from the engine's own result object."""

    clause_id: str
    status: Status
    failures: int | None = None  # failing rows where the engine reports them
    detail: str = ""
    # a few failing rows, column -> value as text (None for null), where the engine returns them
    rows: tuple[tuple[tuple[str, str | None], ...], ...] = field(default=(), compare=False)


SAMPLE_ROWS = 5  # offending rows kept per failed clause and engine
SampleRows = tuple[tuple[tuple[str, str | None], ...], ...]


def sample_text(rows: Any) -> SampleRows:
    """Up to `SAMPLE_ROWS` rows (mappings of column -> value) as `Verdict.rows`: values as text,
    None for a null (None, NaN, NaT, pandas.NA); picklable and printable by `verify`."""
    out = []
    for row in list(rows)[:SAMPLE_ROWS]:
        out.append(tuple((str(k), _value_text(v)) for k, v in dict(row).items()))
    return tuple(out)


def _value_text(value: Any) -> str | None:
    if value is None:
        return None
    try:
        if value != value:  # NaN, NaT
            return None
    except (TypeError, ValueError):  # pandas.NA has no truth value
        return None
    return str(value)


@dataclass(frozen=True)
class EngineRun:
    """Verdicts of one engine on one dataset."""

    target: str
    verdicts: tuple[Verdict, ...]
    notes: tuple[str, ...] = ()
    failure: str | None = None  # the engine could not run at all (import error, crash): no verdict


@dataclass(frozen=True)
class VerifyInput:
    """Everything an engine needs.

    Attributes:
        contract, clauses: the contract and its plan.
        artifact_dir: the root holding ``<target>/`` folders of generated artifacts.
        database: a DuckDB file holding the data table, typed per the contract, and the catalog
            relation (named as in the contract) when given. Open it, use it, close it.
        table: the data relation's name in that database.
        now: the pinned "now" (timezone-aware UTC) for freshness.
        since: when set, the engine checks the increment (rows at or after it) and the boundary
            rows it needs (keys, cadence, completeness windows), as docs/increments.md says.
        workdir: a scratch folder for this engine (dbt project, Soda config...).
        Columns of the contract that the data lacks are simply absent from the table, and extra
        columns are present: each engine sees them and gives its own verdict.
    """

    contract: Contract
    clauses: tuple[Clause, ...]
    artifact_dir: Path
    database: Path
    table: str
    now: datetime
    workdir: Path
    engine: str = "duckdb"  # where the engines run: duckdb (the file above) or postgres
    postgres: PgLocation | None = None  # engine == "postgres": where the data was loaded
    since: datetime | None = None  # check the increment T >= since and its boundary (docs/increments.md)


@dataclass(frozen=True)
class PgLocation:
    """The data's place on PostgreSQL: a server (a ``postgresql://`` URL whose sessions run in
    UTC) and the schema holding the data table and the catalog relation."""

    dsn: str
    schema: str

    @property
    def params(self) -> dict[str, Any]:
        """host, port, user, password, database of the URL (for clients that take them apart)."""
        from urllib.parse import unquote, urlsplit

        u = urlsplit(self.dsn)
        return {"host": u.hostname or "127.0.0.1", "port": u.port or 5432,
                "user": unquote(u.username or "postgres"), "password": unquote(u.password or ""),
                "database": unquote(u.path.lstrip("/") or "postgres")}

    def with_search_path(self) -> str:
        """The URL with ``options=-c search_path=<schema> -c TimeZone=UTC`` (unqualified names in
        artifacts, such as the catalog relation, resolve in the schema)."""
        from urllib.parse import quote, urlsplit, urlunsplit

        u = urlsplit(self.dsn)
        keep = [q for q in u.query.split("&") if q and not q.startswith("options=")]
        opts = quote(f"-c search_path={self.schema} -c TimeZone=UTC", safe="")
        return urlunsplit(u._replace(query="&".join([*keep, f"options={opts}"])))


def query_rows(sql: str, *, database: Path | None = None, pg: PgLocation | None = None,
               in_schema: bool = False, read_only: bool = True) -> list[dict[str, Any]]:
    """The rows of one query (column -> value), on a connection of its own: the DuckDB file
    `database` (`read_only`: False for a file this process holds open read-write, as dbt's
    in-process runner does its project's), or the PostgreSQL server `pg` (`in_schema`: with
    its schema first on the search path). For the offending rows an engine reads again after
    its run."""
    if pg is not None:
        import psycopg2

        opts = f"-c search_path={pg.schema}" if in_schema else None
        con = psycopg2.connect(pg.dsn, options=opts) if opts else psycopg2.connect(pg.dsn)
        try:
            with con.cursor() as cur:
                cur.execute(sql)
                names = [d[0] for d in cur.description or ()]
                return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
        finally:
            con.close()
    import duckdb

    dcon = duckdb.connect(str(database), read_only=read_only)
    try:
        cur = dcon.execute(sql)
        names = [d[0] for d in cur.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    finally:
        dcon.close()


def load_module(path: Path, prefix: str) -> ModuleType:
    """Import a generated Python module from its file under a private name (`prefix` plus a hash
    of the path), registered in sys.modules only while it executes (its postponed annotations
    resolve through sys.modules) and never left there."""
    import hashlib
    import importlib.util
    import sys

    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    mod_name = f"{prefix}_{digest}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(mod_name, None)
    return module
