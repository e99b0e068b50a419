"""`docs` and `schema`: the HTML catalog and the JSON Schema of the contract format."""

from __future__ import annotations

from pathlib import Path

import click

from tacit_gen.cli.base import (
    contract_paths_or_exit,
    echo_json,
    exit_codes,
    fail_usage,
    load_or_exit,
    main,
)
from tacit_gen.cli.project import Project


@main.command(epilog=exit_codes())
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--out", default="site", show_default=True, type=click.Path(file_okay=False),
              help="Folder to write the site into (index.html, contracts/<name>.html).")
def docs(paths: tuple[str, ...], out: str) -> None:
    """A static HTML catalog (default: the settings' contracts, else contracts/): one page per
    contract (fields, units, clauses and the targets that enforce them, what is not checked, the
    version history from git with diff's classification) and an index. No external assets."""
    from tacit_gen.render import find_contracts
    from tacit_gen.site.catalog import contract_doc
    from tacit_gen.site.pages import SiteError, write_site

    proj = Project(paths)
    files = find_contracts(contract_paths_or_exit(paths, proj))
    if not files:
        fail_usage(f"no contract files (*.yaml, *.yml) under {', '.join(proj.paths)}")
    pages = [contract_doc(load_or_exit(str(f)), f, proj.options) for f in files]
    try:
        written = write_site(Path(out), pages)
    except (SiteError, OSError) as e:
        fail_usage(str(e))
    click.echo(f"wrote {len(written)} page(s) to {Path(out).as_posix()}/ "
               f"({len(pages)} contract(s)); open {(Path(out) / 'index.html').as_posix()}")


@main.command("schema", epilog=exit_codes(usage="usage error"))
def schema_cmd() -> None:
    """Print the JSON Schema of the contract format (for editors)."""
    from tacit_gen.contract.jsonschema import contract_schema

    echo_json(contract_schema())
