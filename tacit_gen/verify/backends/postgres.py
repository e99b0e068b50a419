"""verify on PostgreSQL: the server at `dsn`, or a throwaway local one started and stopped here;
each case loaded into a fresh schema of its own (dropped afterwards, whatever happens), then each
engine in a process of its own for all the cases, `jobs` at a time, the costliest first (as on
DuckDB); sessions in UTC."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tacit_gen.verify.cases import case_dir, prepare_case
from tacit_gen.verify.pool import batched_runs

if TYPE_CHECKING:
    from pathlib import Path

    from tacit_gen.engines.base import EngineRun
    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.verify.cases import Prepared, VerifyCase


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


class PostgresBackend:
    name = "postgres"
    drivers = (("duckdb", "duckdb"), ("psycopg2", "postgres"))  # DuckDB types the data first

    def runs(self, cases: list[VerifyCase], root: Path, options: RenderOptions,
             artifacts: Path | None, jobs: int | None, dsn: str | None,
             stack: contextlib.ExitStack) -> tuple[list[Prepared], list[dict[str, EngineRun]]]:
        from tacit_gen.engines.base import PgLocation
        from tacit_gen.engines.postgres_server import throwaway_server, utc_dsn

        stack.enter_context(_utc_sessions())
        if dsn is None:
            dsn = stack.enter_context(throwaway_server()).dsn
        prepared = []
        for i, c in enumerate(cases):
            location = PgLocation(utc_dsn(dsn), "tacit_verify_" + uuid.uuid4().hex[:12])
            # dropped on the way out (before the throwaway server stops: the stack unwinds in
            # reverse), also when a later case fails to load or an engine crashes
            stack.callback(_drop_schema, location.dsn, location.schema)
            prepared.append(prepare_case(c, case_dir(root, i, len(cases)), artifacts, options,
                                         location))
        # the engines only read the data's schema (dbt builds in `<schema>_dbt`, Soda's aliases
        # are views of their own names), so they run side by side as on DuckDB
        return prepared, batched_runs(prepared, root, jobs)


BACKEND = PostgresBackend()
