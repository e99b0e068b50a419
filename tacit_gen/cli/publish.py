"""`publish`: a data file checked against a published table, appended only when it passes."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tacit_gen.cli.base import echo_json, echo_text, exit_codes, fail_usage, load_or_exit, main

_CODES = exit_codes("not published: a clause failed; the table is unchanged",
                    usage="usage error, or a contract, file or table that cannot be read")
_EPILOG = _CODES.replace("  130", "  4  a check the engine could not evaluate (named)\n  130")


@main.command(epilog=_EPILOG)
@click.argument("contract", type=click.Path(exists=True, dir_okay=False))
@click.option("--data", required=True, type=click.Path(exists=True, dir_okay=False),
              help="CSV or Parquet file of the batch, read as verify --data reads it.")
@click.option("--into", "into", required=True, metavar="TABLE",
              help="The published table (SCHEMA.TABLE on PostgreSQL).")
@click.option("--database", default=None, type=click.Path(exists=True, dir_okay=False),
              metavar="FILE", help="The DuckDB database file that holds TABLE.")
@click.option("--dsn", default=None, metavar="URL",
              help="postgresql://user:password@host:port/database that holds TABLE.")
@click.option("--catalog", default=None, type=click.Path(exists=True, dir_okay=False),
              help="CSV or Parquet file of the catalog relation.")
@click.option("--calendar", "calendar_path", default=None,
              type=click.Path(exists=True, dir_okay=False),
              help="The exchange sessions (tacit-gen calendar writes them) for a contract "
                   "with time.calendar; default: generated for the batch's dates.")
@click.option("--outages", "outages_path", default=None,
              type=click.Path(exists=True, dir_okay=False),
              help="The outages a completeness clause with allowed gap types reads.")
@click.option("--now", default=None, help="Pin 'now' (ISO-8601 with offset) for freshness.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              help="json: the outcome, the failed clauses and their rows.")
def publish(contract: str, data: str, into: str, database: str | None, dsn: str | None,
            catalog: str | None, calendar_path: str | None, outages_path: str | None,
            now: str | None, fmt: str) -> None:
    """Check a batch against what TABLE holds and append it in one transaction.

    The batch is checked as `verify --since` checks an increment, from its earliest time:
    keys not repeated, cadence continued from each series' last published point, the
    revision window, every row clause. Only when every clause passes is it appended;
    readers never see a part of it (docs/how-to/publish.md).
    """
    if (database is None) == (dsn is None):
        fail_usage("give one of --database FILE (DuckDB) or --dsn URL (PostgreSQL)")
    c = load_or_exit(contract)
    from tacit_gen.verify import parse_now

    try:
        pinned = parse_now(now)
    except ValueError as e:
        fail_usage(str(e))
    from tacit_gen.cli.project import Project
    from tacit_gen.engines.load import LoadError
    from tacit_gen.publish import connect, publish_file, runtime_schema
    from tacit_gen.runtime.errors import UsageError

    try:
        con = connect(database, dsn)
    except Exception as e:  # a URL that is not PostgreSQL's, a server that does not answer
        fail_usage(f"cannot connect: {_shown(str(e), dsn)}")
    try:
        schema_name, _, table_name = into.rpartition(".")
        try:
            table = con.table(table_name, database=schema_name or None)
        except Exception:
            where = database if database is not None else _shown(str(dsn), dsn)
            fail_usage(f"no table {into} in {where}")
        import tempfile

        with tempfile.TemporaryDirectory(prefix="tacit-schema-") as tmp:
            schema = runtime_schema(c, Project().options, Path(tmp))
        try:
            outcome = publish_file(c, Path(data), table, schema, into,
                                   catalog=Path(catalog) if catalog else None,
                                   calendar=Path(calendar_path) if calendar_path else None,
                                   outages=Path(outages_path) if outages_path else None,
                                   now=pinned)
        except (LoadError, UsageError) as e:
            fail_usage(str(e))
    finally:
        con.disconnect()
    if fmt == "json":
        echo_json(outcome.as_json())
    else:
        echo_text(outcome.render_text())
    sys.exit(outcome.exit_code)


def _shown(text: str, dsn: str | None) -> str:
    """`text` without the DSN's password."""
    import re

    return re.sub(r"//([^:@/]*):[^@/]*@", r"//\1:***@", text)
