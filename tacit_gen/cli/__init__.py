"""The `tacit-gen` command line: parse flags, call the library, print a report, exit with its code.

One module per command group, each registering its commands on `main` (`base.py`); heavy engines
are imported inside commands only, so `tacit-gen --help` stays fast.
"""

from __future__ import annotations

from tacit_gen.cli import (
    adopt,
    calendar,
    docs,
    engines,
    evolution,
    init,
    lint,
    publish,
    render,
    sample,
    verify,
)
from tacit_gen.cli.base import EXIT_CODES, main

__all__ = ["EXIT_CODES", "main"]

# the command modules register their commands on `main` when imported
_COMMANDS = (adopt, calendar, docs, engines, evolution, init, lint, publish, render, sample,
             verify)
