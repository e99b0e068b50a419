"""dbt's offending rows: the failed tests of a build run again with ``--store-failures``, and
their audit tables read back (docs/how-to/offending-rows.md).

The build itself runs without ``--store-failures``: that would write a table per test, passing
ones included (on Spark a Parquet table in the warehouse each), and a test whose table cannot
be written (PostgreSQL refuses a relation name over 63 characters, and the many-dataset path
prefixes every test with its dataset's name) would error there, its verdict lost. Run
afterwards, such a test keeps its verdict and only gives no rows.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tacit_gen.engines.base import SAMPLE_ROWS, PgLocation, query_rows, sample_text

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tacit_gen.targets.dbt.engine import ModelBuild


def audit_reader(project: Path, pg: PgLocation | None) -> Callable[[str], list[dict[str, Any]]]:
    """The rows of a query where dbt stored the failures: the project's DuckDB file
    (``verify.duckdb``), or the PostgreSQL server; a connection per query."""

    def read(sql: str) -> list[dict[str, Any]]:
        return query_rows(sql, database=project / "verify.duckdb", pg=pg, read_only=False)

    return read


def store_failed_tests(builds: list[ModelBuild], project: Path, vars_arg: str,
                       read: Callable[[str], list[dict[str, Any]]],
                       invoke: Callable[..., Any]) -> None:
    """Run the builds' failed tests again with ``--store-failures`` (``dbt test --select`` them)
    and read each one's first rows (``LIMIT 5``) through `read` into its build's `stored`
    (`invoke(project, *args)`: runs a dbt command, `tacit_gen.targets.dbt.engine.invoke`). A test
    whose table cannot be written only gives no rows (a note says why; the module docstring);
    nothing runs again when every test passed."""
    failed: dict[str, str] = {}  # unique id -> test name
    for b in builds:
        nodes = b.manifest.get("nodes", {})
        for uid, r in b.results.items():
            node = nodes.get(uid) or {}
            if node.get("resource_type") == "test" and r.get("status") in ("fail", "warn") \
                    and b.owns(node):
                failed[uid] = str(node.get("name"))
    if not failed:
        return
    invoke(project, "test", "--vars", vars_arg, "--threads", "1", "--store-failures",
           "--select", *sorted(set(failed.values())))
    target = project / "target"
    try:
        manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
        rerun = {r["unique_id"]: r for r in
                 json.loads((target / "run_results.json").read_text(encoding="utf-8"))["results"]}
    except (OSError, ValueError, KeyError) as e:
        for b in builds:
            b.notes.append(f"stored failures not read: {type(e).__name__}: {e}")
        return
    nodes = manifest.get("nodes", {})
    for b in builds:
        for uid in (u for u in b.results if u in failed):
            rel = (nodes.get(uid) or {}).get("relation_name")
            again = rerun.get(uid) or {}
            if not rel or again.get("status") not in ("fail", "warn"):
                why = str(again.get("message") or again.get("status") or "not run").strip()
                b.notes.append(f"no rows stored for {failed[uid]}: {(why.splitlines() or [''])[-1]}")
                continue
            try:
                b.stored[uid] = sample_text(read(f"select * from {rel} limit {SAMPLE_ROWS}"))
            except Exception as e:
                b.notes.append(f"stored failures of {rel} not read: {type(e).__name__}: {e}")
