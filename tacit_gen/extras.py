"""What a command needs that an optional extra installs, and what to say when it is missing.

The core install (``pip install tacit-gen``) lints, renders and checks; an engine, a loader or a
driver comes with an extra (``pip install 'tacit-gen[postgres]'``). A command asks here before it
uses one (`require`, `missing`: nothing is imported to find out) and reports what is absent as a
`MissingExtra`: what cannot run, which module it lacks and the install line, never a traceback.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable

__all__ = ["EXTRA_OF", "MissingExtra", "extra_of", "install_line", "missing", "require"]

# The extra that installs each optional top-level package a command may import (the first extra
# in pyproject.toml that brings it).
EXTRA_OF = {
    "duckdb": "duckdb", "pyarrow": "duckdb", "pytz": "duckdb",
    "ibis": "ibis",
    "dbt": "dbt",
    "soda": "soda",
    "great_expectations": "gx", "sqlalchemy": "gx", "duckdb_engine": "gx",
    "pandera": "pandera", "pandas": "pandera", "numpy": "pandera",
    "psycopg2": "postgres",
    "fastavro": "wire", "avro": "wire", "google": "wire", "grpc_tools": "wire", "grpc": "wire",
    "protovalidate": "wire",
    "jsonschema": "wire", "rfc3339_validator": "wire",
    "exchange_calendars": "calendar",
    "mkdocs": "docs",
}


def extra_of(module: str) -> str | None:
    """The extra that installs `module` (``google.protobuf`` -> ``wire``), None when none does."""
    return EXTRA_OF.get(module.split(".")[0])


def install_line(extra: str | None) -> str:
    """The command that installs `extra` (``pip install 'tacit-gen[postgres]'``)."""
    return f"pip install 'tacit-gen[{extra}]'" if extra else "pip install tacit-gen"


class MissingExtra(Exception):
    """`what` cannot run here: `module` is not installed (`extra` installs it), or `why`."""

    def __init__(self, what: str, module: str, extra: str | None, why: str | None = None,
                 install: str | None = None) -> None:
        self.what = what
        self.module = module
        self.extra = extra
        self.why = why or f"{module} is not installed"
        self.install = install or install_line(extra)  # what installs it, when no extra does
        super().__init__(f"{what} cannot run: {self.why} ({self.hint})")

    @property
    def hint(self) -> str:
        """How to get it: the install line of its extra."""
        return f"install it with: {self.install}"


def missing(modules: Iterable[str]) -> str | None:
    """The first of `modules` (``duckdb``, ``google.protobuf``) that is not installed here, found
    without importing it (only a dotted name's parent packages are imported), else None."""
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a parent package that is absent, or broken
            found = False
        if not found:
            return name
    return None


def require(what: str, modules: Iterable[str], extra: str | None) -> None:
    """Raise `MissingExtra` for `what` when one of `modules` is not installed.

    Raises:
        MissingExtra: naming the first missing module and the install line of `extra`.
    """
    absent = missing(modules)
    if absent is not None:
        raise MissingExtra(what, absent, extra)
