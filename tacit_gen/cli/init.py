"""`init`: a new project's settings, first contract and CI lines."""

from __future__ import annotations

from pathlib import Path

import click

from tacit_gen.cli.base import fail_usage, main


@main.command("init", epilog="""\b
Exit codes:
  0  written
  2  a file exists (named; nothing written), or a file cannot be written""")
@click.argument("directory", default=".", type=click.Path(file_okay=False))
def init_cmd(directory: str) -> None:
    """Start a project in DIRECTORY (default: here): tacit-gen.toml (the dbt YAML form pinned), a
    first contract, a GitHub Actions workflow and a pre-commit configuration running lint,
    render --check and check. Overwrites nothing."""
    from tacit_gen.atomic import WriteError
    from tacit_gen.scaffold import NEXT_COMMANDS, Exists, init

    try:
        done = init(Path(directory))
    except Exists as e:
        named = ", ".join((Path(directory) / p).as_posix() for p in e.paths)
        fail_usage(f"{named}: already there; init overwrites nothing, and wrote nothing")
    except WriteError as e:
        fail_usage(str(e))
    for path in done.paths:
        click.echo(f"wrote {(Path(directory) / path).as_posix()}")
    where = "" if Path(directory).resolve() == Path.cwd().resolve() else f" (in {directory})"
    for note in done.notes:  # what the targets say about their settings (dbt: its form)
        click.echo(note)
    click.echo(f"next{where}:")
    for command in NEXT_COMMANDS:
        click.echo(f"  {command}")
