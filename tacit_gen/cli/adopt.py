"""`import` and `export`: contracts from dbt projects and ODCS, and back to ODCS."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from tacit_gen.cli.base import echo_json, echo_text, exit_codes, fail_usage, load_or_exit, main

_NOT_MAPPED = "something was not mapped (listed, kept as x-*)"


@main.group("import")
def import_group() -> None:
    """Adopt what a team has: dbt properties or an ODCS v3 document, as contracts
    (docs/import-export.md). Exit 0 all mapped, 1 something not mapped (listed, kept as x-*)."""


def _finish_import(report: Any, force: bool, fmt: str) -> NoReturn:
    from tacit_gen.adopt.report import write
    from tacit_gen.render import WriteError

    try:
        write(report, force)
    except WriteError as e:
        fail_usage(str(e))
    if fmt == "json":
        echo_json(report.as_json())
    else:
        echo_text(report.text())
    sys.exit(report.exit_code)


@import_group.command("dbt", epilog=exit_codes(_NOT_MAPPED))
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--model", "names", multiple=True, help="Only this model (repeatable).")
@click.option("--manifest", default=None, type=click.Path(exists=True, dir_okay=False),
              help="dbt's target/manifest.json: models and tests as dbt resolved them.")
@click.option("--catalog", default=None, type=click.Path(exists=True, dir_okay=False),
              help="dbt's target/catalog.json: column types the properties do not declare.")
@click.option("--adapter", default=None, type=click.Choice(
    ["duckdb", "postgres", "snowflake", "bigquery", "databricks", "spark"]),
              help="Read types as this warehouse names them [default: the manifest's, else duckdb].")
@click.option("--out", default="contracts", show_default=True, type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Overwrite a contract file that exists and differs.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def import_dbt(paths: tuple[str, ...], names: tuple[str, ...], manifest: str | None,
               catalog: str | None, adapter: str | None, out: str, force: bool, fmt: str) -> None:
    """dbt properties files (or folders, or a manifest) to one contract per model."""
    from tacit_gen.adopt.dbt import DbtInputError, import_dbt

    if not paths and not manifest:
        fail_usage("give properties files or folders, or --manifest")
    try:
        report = import_dbt(paths, names, manifest, catalog, adapter, Path(out))
    except DbtInputError as e:
        fail_usage(str(e))
    _finish_import(report, force, fmt)


@import_group.command("odcs", epilog=exit_codes(_NOT_MAPPED))
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", default="contracts", show_default=True, type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Overwrite a contract file that exists and differs.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def import_odcs(file: str, out: str, force: bool, fmt: str) -> None:
    """An ODCS v3.x document to one contract per schema object."""
    from tacit_gen.adopt.odcs import OdcsInputError, import_odcs

    try:
        report = import_odcs(file, Path(out))
    except OdcsInputError as e:
        fail_usage(str(e))
    _finish_import(report, force, fmt)


@main.group("export")
def export_group() -> None:
    """Write a contract in another standard's form (docs/import-export.md)."""


@export_group.command("odcs", epilog=exit_codes())
@click.argument("contract", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "out_path", default=None, type=click.Path(dir_okay=False),
              help="Write the document here (atomically) instead of to stdout.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              help="json: the contract, its version and the file written (without --out, the "
                   "document's text as `document`).")
def export_odcs(contract: str, out_path: str | None, fmt: str) -> None:
    """A contract as an ODCS v3.1.0 document (validates against the ODCS JSON Schema)."""
    from tacit_gen.adopt.odcs_export import export_odcs as to_text
    from tacit_gen.render import WriteError, write_atomic

    c = load_or_exit(contract)
    text = to_text(c)
    if out_path is not None:
        try:
            write_atomic(Path(out_path), text)
        except WriteError as e:
            fail_usage(str(e))
    if fmt == "json":
        echo_json({"contract": c.name, "version": c.version,
                   "written": Path(out_path).as_posix() if out_path is not None else None,
                   **({"document": text} if out_path is None else {})})
    elif out_path is None:
        click.echo(text, nl=False)
