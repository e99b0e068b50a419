"""The Soda 4 worker: ``python worker.py``, run in the soda4 environment, answers requests until
its standard input ends: a line holding a request file's path in, the line ``done`` out once its
results are written (what the request's cases print goes to the ``log`` the request names). One
worker serves a process's every request, so a process that verifies many times imports
soda-core once (about 1 s of CPU each time).

Standard library and soda-core 4 only (run by its file path, it imports nothing of tacit-gen).
The request (written by :mod:`tacit_gen.targets.soda4.engine`) lists cases; each names a contract
file's text, where the data is (a DuckDB file, or a PostgreSQL URL and schema), the relation and
the pinned now. Every case is verified with ``verify_contract_locally`` in this ONE process;
each check's outcome, diagnostics and (for the schema check) column findings are written as JSON
to ``results``.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any


def _plain(value: Any) -> Any:
    """A diagnostic value as JSON (numbers stay numbers; the rest is text)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _check(result: Any) -> dict[str, Any]:
    check = result.check
    out: dict[str, Any] = {
        "type": check.type, "qualifier": check.qualifier, "column": check.column_name,
        "name": check.name, "outcome": getattr(result.outcome, "value", str(result.outcome)),
        "diagnostics": {k: _plain(v) for k, v in (result.diagnostic_metric_values or {}).items()},
    }
    if check.type == "schema":
        out["missing"] = list(getattr(result, "expected_column_names_not_actual", None) or [])
        out["extra"] = list(getattr(result, "actual_column_names_not_expected", None) or [])
        out["mismatched"] = [
            {"column": m.column, "expected": m.get_expected(), "actual": m.get_actual()}
            for m in getattr(result, "column_data_type_mismatches", None) or []]
    return out


def _source(case: dict[str, Any], name: str) -> tuple[Any, Any]:
    """The data source Soda verifies on, and what to close afterwards."""
    pg = case.get("postgres")
    if pg:
        from soda_core.common.data_source_impl import DataSourceImpl  # pyright: ignore[reportMissingImports]  (soda4 env)
        from soda_core.common.yaml import DataSourceYamlSource  # pyright: ignore[reportMissingImports]  (soda4 env)

        text = json.dumps({"type": "postgres", "name": name, "connection": {
            "host": pg["host"], "port": pg["port"], "user": pg["user"], "password": pg["password"],
            "database": pg["database"],
            # unqualified names in the fail queries resolve in the verify schema; sessions in UTC
            "options": f"-c TimeZone=UTC -c search_path={pg['schema']}"}})
        ds = DataSourceImpl.from_yaml_source(DataSourceYamlSource.from_str(text))
        return ds, None
    import duckdb
    from soda_duckdb.common.data_sources.duckdb_data_source import DuckDBDataSourceImpl  # pyright: ignore[reportMissingImports]  (soda4 env)

    con = duckdb.connect(case["database"], read_only=True)
    con.execute("SET TimeZone = 'UTC'")
    if case["dataset"] != case["table"]:
        quote = '"' + case["dataset"].replace('"', '""') + '"'
        table = '"' + case["table"].replace('"', '""') + '"'
        con.execute(f"CREATE TEMP VIEW {quote} AS SELECT * FROM {table}")
    return DuckDBDataSourceImpl.from_existing_cursor(con, name=name), con


def verify(case: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """One case: Soda's check results, or why it could not run."""
    from soda_core.contracts.api.verify_api import verify_contract_locally  # pyright: ignore[reportMissingImports]  (soda4 env)

    path = workdir / f"{case['id']}.yml"
    path.write_text(case["contract"], encoding="utf-8")
    ds, con = _source(case, case["data_source"])
    try:
        session = verify_contract_locally(data_sources=[ds], contract_file_path=str(path),
                                          data_timestamp=case["now"],
                                          variables=case.get("variables") or None)
    finally:
        if con is not None:
            con.close()
    checks: list[dict[str, Any]] = []
    errors: list[str] = []
    for result in session.contract_verification_results:
        checks.extend(_check(r) for r in result.check_results)
        if result.has_errors:
            errors.append(result.get_errors_str())
    return {"checks": checks, "errors": errors}


def answer(request: dict[str, Any]) -> None:
    """Verify every case of one request; its results file written."""
    workdir = Path(request["workdir"])
    workdir.mkdir(parents=True, exist_ok=True)
    os.chdir(workdir)
    out: dict[str, Any] = {}
    timings: dict[str, float] = {}
    for case in request["cases"]:
        t0 = time.monotonic()
        try:
            out[case["id"]] = verify(case, workdir)
        except Exception as exc:  # one case failing never loses the others
            out[case["id"]] = {"failure": f"{type(exc).__name__}: {exc}".splitlines()[0][:500],
                               "traceback": traceback.format_exc(limit=6)}
        timings[case["id"]] = time.monotonic() - t0
    Path(request["results"]).write_text(json.dumps({"cases": out, "timings": timings}),
                                        encoding="utf-8")


def main() -> int:
    """Answer the request paths of standard input, one a line, until it ends."""
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(Path(line.strip()).read_text(encoding="utf-8"))
        with open(request.get("log") or os.devnull, "w", encoding="utf-8") as log:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(log.fileno(), 1)
            os.dup2(log.fileno(), 2)
            try:
                answer(request)
            except Exception:  # a malformed request: no results file, the caller says so
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
        replies.write("done\n")
        replies.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
