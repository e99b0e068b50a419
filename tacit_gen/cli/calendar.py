"""`calendar`: exchange sessions as the `calendar:` relation."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tacit_gen.cli.base import exit_codes, fail_usage, main


@main.command(epilog=exit_codes(missing=True))
@click.argument("codes", nargs=-1, required=True)
@click.option("--start", required=True, help="First date (YYYY-MM-DD).")
@click.option("--end", required=True, help="Last date (YYYY-MM-DD), inclusive.")
@click.option("--out", "out_path", default=None, type=click.Path(dir_okay=False),
              help="The CSV file to write (default: stdout).")
def calendar(codes: tuple[str, ...], start: str, end: str, out_path: str | None) -> None:
    """The sessions of exchange calendars CODES (XNYS, XLON, ...) as a table: calendar, session
    date, open and close as UTC instants (early closes and DST included), from exchange_calendars.

    Load it as a dbt seed or a table named as the contract's `calendar:` section says (default
    `trading_sessions`); `verify --calendar FILE` reads it. Refresh it each year
    (docs/contract-language.md, "Calendar").
    """
    from datetime import date

    from tacit_gen.semantics.sessions import CalendarError, exchange_sessions, sessions_csv

    try:
        first, last = date.fromisoformat(start), date.fromisoformat(end)
    except ValueError as e:
        fail_usage(f"--start/--end: {e} (write YYYY-MM-DD)")
    rows = []
    try:
        for code in codes:
            rows += exchange_sessions(code, first, last)
    except CalendarError as e:
        fail_usage(str(e))
    text = sessions_csv(rows)
    if out_path is None:
        sys.stdout.write(text)
        return
    from tacit_gen.render import write_atomic

    write_atomic(Path(out_path), text)
    click.echo(f"wrote {Path(out_path).as_posix()} ({len(rows)} sessions)", err=True)
