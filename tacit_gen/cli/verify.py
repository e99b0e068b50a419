"""`verify`: every engine's verdict on the same data, compared."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from tacit_gen.cli.base import (
    echo_json,
    echo_text,
    exit_codes,
    fail_missing,
    fail_usage,
    load_or_exit,
    main,
    report_progress,
)
from tacit_gen.cli.project import Project


@main.command(epilog=exit_codes("violations (the engines agree)", verify=True))
@click.argument("contracts", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--data", default=None, type=click.Path(exists=True, dir_okay=False),
              help="CSV or Parquet file of the dataset (one contract).")
@click.option("--data-dir", default=None, type=click.Path(exists=True, file_okay=False),
              help="Many contracts (files or folders) in one run: each one's data is "
                   "DIR/<contract name>.csv or .parquet (catalog <name>.catalog.*, sessions "
                   "<name>.sessions.*, outages <name>.outages.* when present); each engine runs once for all of them.")
@click.option("--jobs", default=None, type=click.IntRange(1),
              help="Engine processes at once, on DuckDB and PostgreSQL, the costliest engine first (default: "
                   "the CPU count; 1 runs them one after another).")
@click.option("--catalog", default=None, type=click.Path(exists=True, dir_okay=False),
              help="CSV or Parquet file of the catalog relation.")
@click.option("--calendar", "calendar_path", default=None, type=click.Path(exists=True, dir_okay=False),
              help="The exchange sessions (tacit-gen calendar writes them) for a contract with "
                   "time.calendar; default: generated from exchange_calendars for the data's dates.")
@click.option("--outages", "outages_path", default=None, type=click.Path(exists=True, dir_okay=False),
              help="The outages (series key columns, start, end, type) a completeness clause with "
                   "allowed gap types reads; default: none (no gap is excused).")
@click.option("--target", "target_spec", default=None, help="Comma-separated engines (default: all).")
@click.option("--now", default=None, help="Pin 'now' (ISO-8601 with offset) for freshness.")
@click.option("--since", default=None, metavar="INSTANT",
              help="Check the increment: the rows whose time column is at or after INSTANT "
                   "(ISO-8601 with offset), with the boundary rows keys, cadence and completeness "
                   "need (docs/increments.md); every engine that takes it, compared with the runtime.")
@click.option("--artifacts", default=None, type=click.Path(file_okay=False, exists=True),
              help="Run these artifacts (e.g. generated/) instead of a fresh render.")
@click.option("--keep", default=None, type=click.Path(file_okay=False),
              help="Keep the engines' work folder here (dbt project, database) for inspection.")
@click.option("--engine", default="duckdb", show_default=True,
              type=click.Choice(["duckdb", "postgres", "spark"]),
              help="Where the data is loaded and every target runs: an embedded DuckDB; "
                   "PostgreSQL (a throwaway local server unless --dsn); or Spark local (pyspark 4 "
                   "on Java 17, in its own cached environment: see `tacit-gen engines setup "
                   "spark`). The artifacts are rendered for that engine.")
@click.option("--dsn", default=None, metavar="URL",
              help="postgresql://user:password@host:port/database of an existing server "
                   "(--engine postgres); the data goes into a fresh schema, dropped afterwards.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text",
              help="html: write a verdict page to --out (and print the text report).")
@click.option("--out", "out_file", default=None, type=click.Path(dir_okay=False),
              help="The file --format html writes (one page, no external assets).")
@click.option("--verbose", is_flag=True,
              help="Let the engines' own logging through to the terminal (by default it goes to "
                   "engine.log in each engine's work folder; see --keep).")
def verify(contracts: tuple[str, ...], data: str | None, data_dir: str | None, jobs: int | None,
           catalog: str | None, calendar_path: str | None, outages_path: str | None,
           target_spec: str | None, now: str | None, since: str | None, artifacts: str | None,
           keep: str | None, engine: str, dsn: str | None, fmt: str, out_file: str | None,
           verbose: bool) -> None:
    """Run every target's artifact in its real engine on the same data; a verdict per clause.

    Exit 0 when every engine passes every clause, 1 when violations are found and all engines
    agree, 3 when engines disagree on a clause, 4 when an engine could not run at all (an import
    that fails, a crash): it is named with the reason and gives no verdict; the others' stand;
    also 4 when a clause errors in every engine that runs it (the data stops its expression).
    """
    from tacit_gen.verify import parse_now, run_verify
    from tacit_gen.verify.cases import parse_since, since_targets

    if (fmt == "html") != (out_file is not None):
        fail_usage("--format html and --out FILE go together (the verdict page is a file)")
    report_progress("verify ", verbose)
    if data_dir is not None or len(contracts) != 1 or Path(contracts[0]).is_dir():
        _verify_many(contracts, data, data_dir, jobs, catalog, calendar_path, outages_path,
                     target_spec, now, since, artifacts, keep, engine, dsn, fmt, out_file)
    if data is None:
        fail_usage("--data FILE is required for one contract (or --data-dir DIR for many)")
    contract = contracts[0]
    c = load_or_exit(contract)
    proj, targets = _verified_targets(target_spec, engine)
    try:
        pinned = parse_now(now)
        start = parse_since(since, c, pinned)
        targets = since_targets(targets, start, target_spec)
    except ValueError as e:
        fail_usage(str(e))
    from tacit_gen.engines.load import LoadError
    from tacit_gen.engines.postgres_server import ServerError
    from tacit_gen.extras import MissingExtra

    try:
        report = run_verify(c, Path(data), Path(catalog) if catalog else None, targets, pinned,
                            Path(artifacts) if artifacts else None, Path(keep) if keep else None,
                            options=proj.options, engine=engine, source=Path(contract),
                            dsn=dsn, calendar=Path(calendar_path) if calendar_path else None,
                            outages=Path(outages_path) if outages_path else None, jobs=jobs,
                            since=start)
    except LoadError as e:  # the data file itself cannot be read: a usage error, not a verdict
        fail_usage(str(e))
    except ValueError as e:  # --dsn without --engine postgres, a DSN that is not a URL
        fail_usage(str(e))
    except ServerError as e:  # no PostgreSQL programs here, or the server did not start
        fail_usage(f"cannot start a PostgreSQL server: {e}")
    except MissingExtra as e:  # the backend's driver (duckdb, psycopg2) is not installed
        fail_missing(e)
    if out_file is not None:
        from tacit_gen.render import write_atomic
        from tacit_gen.site.pages import verdict_page

        try:
            write_atomic(Path(out_file), verdict_page(report))
        except OSError as e:
            fail_usage(f"cannot write {out_file}: {e}")
    if fmt == "json":
        echo_json(report.as_json())
    else:
        from tacit_gen.console import terminal_width

        echo_text(report.render_text(terminal_width()))
    if out_file is not None:
        click.echo(f"verdict page: {Path(out_file).as_posix()}")
    sys.exit(report.exit_code)


def _verify_many(paths: tuple[str, ...], data: str | None, data_dir: str | None, jobs: int | None,
                 catalog: str | None, calendar_path: str | None, outages_path: str | None,
                 target_spec: str | None, now: str | None, since: str | None, artifacts: str | None,
                 keep: str | None, engine: str, dsn: str | None, fmt: str, out_file: str | None) -> NoReturn:
    """`verify CONTRACTS... --data-dir DIR` (tacit_gen/verify/many.py): every contract's data
    matched by name, each engine run once for all of them; one exit code."""
    from tacit_gen.render import find_contracts
    from tacit_gen.verify import VerifyCase, parse_now
    from tacit_gen.verify.cases import parse_since, since_targets
    from tacit_gen.verify.many import ManyError, match_data, verify_many

    if data_dir is None:
        fail_usage("several contracts (or a folder) need --data-dir DIR (their data by name)")
    given = [f for f, v in (("--data", data), ("--catalog", catalog), ("--calendar", calendar_path),
                            ("--outages", outages_path), ("--format html", out_file))
             if v is not None]
    if given:
        fail_usage(f"{', '.join(given)}: one contract's options; with --data-dir each contract's "
                    "files are found by name in the folder")
    files = find_contracts(paths)
    if not files:
        fail_usage(f"no contract (*.yaml, *.yml) in {', '.join(paths)}")
    loaded = [(f, load_or_exit(str(f))) for f in files]
    proj, targets = _verified_targets(target_spec, engine)
    try:
        pinned = parse_now(now)
        starts = [parse_since(since, c, pinned) for _, c in loaded]
        targets = since_targets(targets, starts[0], target_spec)
        found = match_data(loaded, Path(str(data_dir)))
    except ValueError as e:  # ManyError too: a contract without data is named, never skipped
        fail_usage(str(e))
    cases = [VerifyCase(c, d, cat, pinned, targets, f, cal, out, start)
             for (f, c), (d, cat, cal, out), start in zip(loaded, found, starts, strict=True)]
    from tacit_gen.engines.load import LoadError
    from tacit_gen.engines.postgres_server import ServerError
    from tacit_gen.extras import MissingExtra

    try:
        report = verify_many(cases, jobs, Path(keep) if keep else None, proj.options,
                             Path(artifacts) if artifacts else None, engine, dsn)
    except (LoadError, ManyError, ValueError) as e:
        fail_usage(str(e))
    except ServerError as e:
        fail_usage(f"cannot start a PostgreSQL server: {e}")
    except MissingExtra as e:
        fail_missing(e)
    if fmt == "json":
        echo_json(report.as_json())
    else:
        from tacit_gen.console import terminal_width

        echo_text(report.render_text(terminal_width()))
    sys.exit(report.exit_code)


def _verified_targets(target_spec: str | None, engine: str) -> tuple[Project, tuple[str, ...]]:
    """The project's settings and the targets to verify on `engine`: those asked for (settings,
    `--target`) that declare an engine on that backend (`Target.engines`); naming one that does
    not is a usage error."""
    from tacit_gen import registry

    proj = Project(target_spec=target_spec)
    without = registry.without_engine(proj.targets, engine)
    if without and target_spec not in (None, "all"):
        fail_usage(f"target(s) {', '.join(without)} have no engine to verify with on {engine}")
    return proj, tuple(t for t in proj.targets if t not in without)
