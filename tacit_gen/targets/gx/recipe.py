"""Great Expectations helpers for users of the generated suites (re-exported as `tacit_gen.gx`).

GX 1.x does not know DuckDB as a dialect: through ``duckdb:///file`` (duckdb_engine) about half
the expectations fail on correct data, because GX closes the connection before it fetches and
closing rolls back DuckDB's pending result. `duckdb_datasource` registers a dialect without
transactions (``duckdb+tacitgx``, read-only use) and adds a SQL datasource over a DuckDB file.
See docs/engines/gx.md, "Validate a DuckDB file".
"""

from __future__ import annotations

import json
import os
from typing import Any


def duckdb_datasource(context: Any, path: str | os.PathLike[str], name: str = "duckdb",
                      read_only: bool = True) -> Any:
    """A GX SQL datasource over a DuckDB database file that GX can run every expectation on.

    Args:
        context: a GX data context (``gx.get_context(...)``).
        path: the DuckDB file.
        name: the datasource name.
        read_only: open the file read-only (the dialect has no transactions: keep it so).

    Returns:
        The datasource (add table assets to it: ``.add_table_asset(name, table_name=...)``).
    """
    from tacit_gen.targets.gx.engine import register_duckdb_dialect

    scheme = register_duckdb_dialect()
    return context.data_sources.add_sql(
        name,
        connection_string=f"{scheme}:///{os.fspath(path)}",
        kwargs={"connect_args": {"read_only": read_only}},
    )


def load_suite(path: str | os.PathLike[str]) -> Any:
    """A generated suite file (``generated/gx/<contract>.json``) as a ``gx.ExpectationSuite``."""
    import great_expectations as gx

    with open(path, encoding="utf-8") as fh:
        return gx.ExpectationSuite(**json.load(fh))
