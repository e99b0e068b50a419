"""Run the rendered GX suite for real: pandas for native expectations, DuckDB SQL for custom SQL.

How (details and traps in docs/engines/gx.md):
- One ephemeral context per process (``gx.get_context(mode="ephemeral")``, analytics off), reused
  across runs under fresh datasource/suite names: importing GX costs ~11 s, a context ~1 s.
- The suite JSON is loaded with ``gx.ExpectationSuite(**doc)``; GX drops expectation types it does
  not know without an error, so the expectations GX kept are counted and every dropped one makes
  its clause an ``error`` verdict.
- Native expectations run on a pandas frame read from the DuckDB file (DuckDB -> Arrow -> pandas,
  with the frame convention of :func:`to_pandas`).
- ``unexpected_rows_expectation`` (custom SQL) cannot run on pandas; when the suite holds any, they
  run on a SQL datasource over the same DuckDB file, opened read-only through the
  ``duckdb+tacitgx`` SQLAlchemy dialect registered here (duckdb_engine with a no-op
  BEGIN/COMMIT/ROLLBACK: GX closes the connection before it fetches, and closing rolls back, which
  discards DuckDB's pending result). ``current_timestamp`` in a freshness query is replaced by the
  pinned ``now``.
- Results come back in no particular order: they are mapped to clauses through
  ``expectation_config.meta.tacit_clause``. A clause with several expectations fails when any
  fails; its failure count is the largest ``unexpected_count`` (or unexpected row count) among
  them, a lower bound of the failing rows (the rows of two pair expectations may overlap).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import threading
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tacit_gen.engines.base import (
    SAMPLE_ROWS,
    EngineRun,
    SampleRows,
    Verdict,
    VerifyInput,
    query_rows,
    sample_text,
)
from tacit_gen.sql import ident

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd

TARGET = "gx"
DIALECT_URL = "duckdb+tacitgx"
CUSTOM_SQL = "unexpected_rows_expectation"

_Result = tuple[dict[str, Any], bool, int | None, str | None, bool]
_CTX: Any = None
_LOCK = threading.Lock()
_COUNTER = itertools.count(1)


def _register_dialect() -> None:
    """Register `duckdb+tacitgx`: duckdb_engine without transactions (read-only use)."""
    from sqlalchemy.dialects import registry

    registry.register("duckdb.tacitgx", "tacit_gen.targets.gx.engine", "TacitDuckDBDialect")


def _dialect_class() -> type:
    import duckdb_engine

    class _Dialect(duckdb_engine.Dialect):  # type: ignore[misc, name-defined]
        supports_statement_cache = False

        def do_begin(self, dbapi_connection: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
            return None

        def do_commit(self, dbapi_connection: Any) -> None:
            return None

        def do_rollback(self, dbapi_connection: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
            return None

        def get_pk_constraint(self, connection: Any, table_name: str, schema: str | None = None,
                              **kw: Any) -> Any:
            """From DuckDB's own catalog: the PostgreSQL dialect's query over the emulated
            pg_catalog took a tenth of GX's CPU on a batch (GX asks for every column metadata)."""
            from sqlalchemy import text

            row = connection.execute(text(
                "SELECT constraint_column_names FROM duckdb_constraints() WHERE constraint_type = "
                "'PRIMARY KEY' AND table_name = :t AND schema_name = :s"),
                {"t": table_name, "s": schema or "main"}).first()
            return {"constrained_columns": list(row[0]) if row else [], "name": None}

    return _Dialect


def __getattr__(name: str) -> Any:  # the SQLAlchemy registry loads the dialect class lazily
    if name == "TacitDuckDBDialect":
        cls = _dialect_class()
        globals()[name] = cls
        return cls
    raise AttributeError(name)


def warm() -> None:
    """verify's early start (`tacit_gen.verify.WarmEngine`): the GX context made (importing GX
    takes seconds) while verify loads the data."""
    context()


def context() -> Any:
    """The process-wide ephemeral GX context (created on first use)."""
    global _CTX
    with _LOCK:
        if _CTX is None:
            os.environ["GX_ANALYTICS_ENABLED"] = "false"
            os.environ.setdefault("DO_NOT_TRACK", "1")
            import logging

            import great_expectations as gx
            from great_expectations.data_context.types.base import ProgressBarsConfig

            with contextlib.suppress(ImportError):  # SQLAlchemy: only the SQL datasources need it
                _register_dialect()
            _CTX = gx.get_context(mode="ephemeral")
            # verify prints a table; GX's per-metric progress bars and INFO logs would bury it
            _CTX.variables.progress_bars = ProgressBarsConfig(globally=False)
            logging.getLogger("great_expectations").setLevel(logging.WARNING)
        return _CTX


def to_pandas(database: str, table: str, query: str | None = None) -> pd.DataFrame:
    """The data table (or the rows of `query`, a SELECT over it) as a pandas frame, typed the
    way the suite's type lists expect.

    Arrow -> pandas with: Int8..Int64 and boolean nullable dtypes (no float-cast integers);
    strings, decimals and dates as object columns of ``str`` / ``Decimal`` / ``date`` values;
    tz-aware timestamps as object columns of tz-aware ``pandas.Timestamp`` (GX can only check
    tz-awareness value by value); naive timestamps stay ``datetime64`` (and fail the type check).
    """
    import duckdb
    import pandas as pd
    import pyarrow as pa

    con = duckdb.connect(database, read_only=True)
    try:
        con.execute("SET TimeZone='UTC'")
        tbl = con.execute(query or f"SELECT * FROM {ident(table)}").arrow()
    finally:
        con.close()

    def mapper(t: Any) -> Any:
        if pa.types.is_int8(t):
            return pd.Int8Dtype()
        if pa.types.is_int16(t):
            return pd.Int16Dtype()
        if pa.types.is_int32(t):
            return pd.Int32Dtype()
        if pa.types.is_int64(t):
            return pd.Int64Dtype()
        if pa.types.is_boolean(t):
            return pd.BooleanDtype()
        return None

    cols: dict[str, Any] = {}
    for name in tbl.column_names:
        col = tbl.column(name)
        t = col.type
        if pa.types.is_dictionary(t):
            col = col.cast(t.value_type)
            t = col.type
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            cols[name] = pd.Series(col.to_pylist(), dtype=object)
        elif pa.types.is_timestamp(t) and t.tz is not None:
            cols[name] = col.to_pandas().dt.tz_convert("UTC").astype(object)
        else:
            cols[name] = col.to_pandas(types_mapper=mapper)
    return pd.DataFrame(cols, columns=list(tbl.column_names))


def column_facts(database: str, table: str) -> tuple[set[str], set[str], set[str]]:
    """(the data table's columns, its float columns holding at least one NaN, its DECIMAL
    columns), from the DuckDB file: the last two are the columns whose native expectations GX
    on pandas reads otherwise than SQL does."""
    import duckdb

    con = duckdb.connect(database, read_only=True)
    try:
        types = con.execute(
            # duckdb_columns(): information_schema.columns answers the same, 4x slower
            "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? "
            "ORDER BY column_index", [table]).fetchall()
        present = {str(c) for c, _ in types}
        floats = [str(c) for c, t in types if t in ("FLOAT", "DOUBLE", "REAL")]
        decimals = {str(c) for c, t in types if str(t).startswith("DECIMAL")}
        if not floats:
            return present, set(), decimals
        counts = con.execute("SELECT " + ", ".join(
            f"count(*) FILTER (WHERE isnan({ident(c)}))" for c in floats)
            + f" FROM {ident(table)}").fetchone() or ()
    finally:
        con.close()
    return present, {c for c, n in zip(floats, counts, strict=True) if n}, decimals


def _columns_of(expectation: dict[str, Any]) -> set[str]:
    """The columns an expectation reads (its column kwargs)."""
    kw = expectation.get("kwargs") or {}
    cols = {kw.get(k) for k in ("column", "column_A", "column_B")}
    cols |= set(kw.get("column_list") or ())
    return {c for c in cols if isinstance(c, str)}


def _raised(info: Any) -> str | None:
    """The exception message of a result's exception_info, or None when nothing was raised."""
    if not isinstance(info, dict):
        return None
    if "raised_exception" in info:
        if info.get("raised_exception"):
            return str(info.get("exception_message") or "exception")
        return None
    for v in info.values():
        msg = _raised(v)
        if msg:
            return msg
    return None


def _count(etype: str, result: dict[str, Any]) -> int | None:
    if etype == CUSTOM_SQL:
        v = result.get("observed_value")
        return v if isinstance(v, int) else None
    v = result.get("unexpected_count")
    return v if isinstance(v, int) else None


PANDAS_SOURCE = "tacit_pandas"


def _pandas_batches(ctx: Any) -> Any:
    """The context's one pandas datasource's batch definition (a whole frame, given as the
    batch's ``dataframe`` parameter), made on first use: every run on pandas shares it (adding a
    datasource, and deleting it, serialises the context's configuration each time)."""
    with contextlib.suppress(KeyError):
        return ctx.data_sources.get(PANDAS_SOURCE).get_asset("data").get_batch_definition("all")
    ds = ctx.data_sources.add_pandas(PANDAS_SOURCE)
    return ds.add_dataframe_asset("data").add_batch_definition_whole_dataframe("all")


def run_suite(ctx: Any, expectations: list[dict[str, Any]], batch: tuple[str, Any],
              index_columns: tuple[str, ...] = (), query: str | None = None) -> list[_Result]:
    """Run `expectations` on a pandas frame or a DuckDB table; (meta, success, count, error).
    `query`: on a SQL datasource, the batch is that SELECT's rows (a query asset), not the table.

    A failed expectation's first unexpected values (GX's ``partial_unexpected_list``, with the
    `index_columns` of each row when given: ``partial_unexpected_index_list``) are in its meta
    under `ROWS_KEY`, as `Verdict.rows`."""
    import great_expectations as gx

    run_id = next(_COUNTER)
    # validated as it is, not saved in the context's stores (saving serialised it, and the run's
    # results, each time: a seventh of a batch's GX CPU)
    suite = gx.ExpectationSuite(name=f"tacit_{run_id}", expectations=expectations)
    kept = len(suite.expectations)
    out: list[_Result] = []
    if kept != len(expectations):
        known = {e.expectation_type for e in suite.expectations}
        for e in expectations:
            if e["type"] not in known:
                out.append((e.get("meta") or {}, False, None,
                            f"GX dropped expectation type '{e['type']}' (unknown to GX)", True))
    kind, data = batch
    ds_name = f"tacit_ds_{run_id}"
    try:
        if kind == "pandas":
            bd = _pandas_batches(ctx)
            params: dict[str, Any] = {"dataframe": data}
        elif kind == "spark":
            ds = ctx.data_sources.add_spark(ds_name, persist=False)
            bd = ds.add_dataframe_asset("data").add_batch_definition_whole_dataframe("all")
            params = {"dataframe": data}
        elif kind == "postgres":
            pg, table = data
            ds = ctx.data_sources.add_postgres(ds_name, connection_string=pg.with_search_path())
            asset = (ds.add_query_asset("data", query=query) if query is not None
                     else ds.add_table_asset("data", table_name=table, schema_name=pg.schema))
            bd = asset.add_batch_definition_whole_table("all")
            params = {}
        else:
            database, table = data
            ds = ctx.data_sources.add_sql(
                ds_name,
                connection_string=f"{DIALECT_URL}:///{database}",
                kwargs={"connect_args": {"read_only": True}},
            )
            asset = (ds.add_query_asset("data", query=query) if query is not None
                     else ds.add_table_asset("data", table_name=table))
            bd = asset.add_batch_definition_whole_table("all")
            params = {}
        fmt: dict[str, Any] = {"result_format": "SUMMARY", "partial_unexpected_count": SAMPLE_ROWS}
        if index_columns:
            fmt["unexpected_index_column_names"] = list(index_columns)
        res = bd.get_batch(batch_parameters=params or None).validate(suite, result_format=fmt)
        for r in res.results:
            cfg = r.expectation_config
            err = _raised(r.exception_info)
            success = bool(r.success)
            if cfg.type == "expect_table_columns_to_match_set" and not success and not err:
                # An exact column-set match also fails on a *missing* column, which is
                # column:<c>'s verdict; no_unknown_columns fails only on GX's "unexpected" list.
                mismatched = ((r.result or {}).get("details") or {}).get("mismatched") or {}
                if isinstance(mismatched, dict) and not mismatched.get("unexpected"):
                    success = True
            detail = err or _detail(cfg.type, r.result or {}, success)
            meta = dict(cfg.meta or {})
            meta[SEVERITY_KEY] = str(getattr(cfg.severity, "value", cfg.severity))
            if not success and not err:
                meta[ROWS_KEY] = unexpected_rows(cfg.kwargs or {}, r.result or {})
                if cfg.type == CUSTOM_SQL:
                    meta[QUERY_KEY] = (cfg.kwargs or {}).get("unexpected_rows_query")
            out.append((meta, success and not err,
                        _count(cfg.type, r.result or {}), detail, err is not None))
    finally:
        if kind == "sql":
            with contextlib.suppress(Exception):  # the datasource may have no engine yet
                ctx.data_sources.get(ds_name).get_execution_engine().engine.dispose()
        if kind != "pandas":  # the shared one stays (`_pandas_batches`)
            with contextlib.suppress(Exception):
                ctx.data_sources.delete(ds_name)
    return out


def unexpected_rows(kwargs: dict[str, Any], result: dict[str, Any]) -> SampleRows:
    """The first unexpected rows of a failed expectation's result: the index list (the key
    columns and the value) when GX gives it, else the unexpected values (a row of the column
    list of a compound expectation, or the one column's value)."""
    index = result.get("partial_unexpected_index_list")
    if isinstance(index, list) and index and all(isinstance(x, dict) for x in index):
        return sample_text(index)
    values = result.get("partial_unexpected_list")
    if not isinstance(values, list) or not values:
        return ()
    if all(isinstance(x, dict) for x in values):
        return sample_text(values)
    column = kwargs.get("column")
    return sample_text({str(column): x} for x in values) if isinstance(column, str) else ()


def custom_rows(query: str, run: Callable[[str], list[dict[str, Any]]], table: str) -> SampleRows:
    """The first rows a failed custom-SQL expectation's query returns (`{batch}` read as the
    data `table`), through `run`; empty when the query cannot run again (the verdict stands)."""
    try:
        return sample_text(run(f"SELECT * FROM ({query.replace('{batch}', table)}) AS t "
                               f"LIMIT {SAMPLE_ROWS}"))
    except Exception:
        return ()


def _detail(etype: str, result: dict[str, Any], success: bool) -> str | None:
    if success:
        return None
    bits = [etype]
    if "unexpected_count" in result:
        bits.append(f"{result['unexpected_count']} unexpected")
    if "observed_value" in result:
        bits.append(f"observed {result['observed_value']!s:.200}")
    if "partial_unexpected_list" in result:
        bits.append(f"e.g. {result['partial_unexpected_list'][:3]!s:.200}")
    details = result.get("details")
    if isinstance(details, dict) and "mismatched" in details:
        bits.append(f"mismatched {details['mismatched']!s:.200}")
    return ": ".join([bits[0], ", ".join(bits[1:])]) if len(bits) > 1 else bits[0]


def pin_now(query: str, now_sql: str) -> str:
    """The query with its "now" (``current_timestamp``, any case, ``()`` or not) pinned."""
    import re

    from tacit_gen.targets.gx.compile import NOW_TOKEN

    return re.sub(rf"(?i)\b{NOW_TOKEN}\b(\(\))?", lambda _m: now_sql, query)


class DuckDBBatches:
    """Where the suite runs on DuckDB: native expectations on pandas, custom SQL on DuckDB."""

    dialect = "duckdb"

    def __init__(self, inp: VerifyInput) -> None:
        self.inp = inp

    def now_sql(self, now: datetime) -> str:
        return "TIMESTAMPTZ '" + now.strftime("%Y-%m-%d %H:%M:%S.%f") + "+00:00'"

    def run(self, ctx: Any, native: list[dict[str, Any]], custom: list[dict[str, Any]],
            notes: list[str], query: str | None = None) -> list[_Result]:
        """`query`: the batch is that SELECT's rows over the table (an increment's batch)."""
        results: list[_Result] = []
        # GX on pandas reads a float NaN as missing (pandas has one float NaN for both), where
        # the contract's SQL semantics, and GX's own SQL expectations, hold NaN a value above
        # every number: an expectation that reads a column holding NaN runs on the DuckDB SQL
        # datasource instead (type lists stay on pandas: they name pandas dtypes too)
        # A DECIMAL column is a column of Decimal objects on pandas, which GX compares with the
        # suite's bounds as JSON gave them, floats: Decimal('0.1') >= 0.1 is False in Python (the
        # float is 0.1000000000000000055...), so `price >= 0.1` failed a price of 0.1. Its
        # expectations run in SQL too, where DuckDB compares the two as numbers.
        present, nan, dec = column_facts(str(self.inp.database), self.inp.table)
        on_pandas: list[dict[str, Any]] = []
        on_sql: list[dict[str, Any]] = []
        moved_for: set[str] = set()
        for e in native:
            reads = (nan | dec) & _columns_of(e)
            moved = bool(reads) and e["type"] != "expect_column_values_to_be_in_type_list"
            (on_sql if moved else on_pandas).append(e)
            if moved:
                moved_for |= reads
        if on_sql:
            why = "; ".join(w for w, cols in (
                ("GX on pandas reads NaN as missing", nan & moved_for),
                ("GX on pandas compares Decimal values with float bounds exactly", dec & moved_for)) if cols)
            notes.append(f"{len(on_sql)} native expectation(s) on column(s) "
                         f"{', '.join(sorted(moved_for))} ran on the DuckDB SQL datasource: {why}")
        if custom:
            notes.append(f"{len(custom)} custom-SQL expectation(s) ran on the DuckDB SQL datasource")
        key = tuple(k for k in self.inp.contract.key if k in present)
        if on_pandas:
            df = to_pandas(str(self.inp.database), self.inp.table, query)
            results += run_suite(ctx, on_pandas, ("pandas", df), key)
        if on_sql or custom:
            results += run_suite(ctx, on_sql + custom,
                                 ("sql", (str(self.inp.database), self.inp.table)), key, query)
        return [self._custom_rows(r, query) for r in results]

    def _custom_rows(self, result: _Result, batch: str | None = None) -> _Result:
        """A failed custom-SQL expectation's first rows: GX's SUMMARY result has only their
        count, so its own query runs again, on the failure path only."""
        meta, ok, _count, _detail, errored = result
        query = meta.pop(QUERY_KEY, None)
        if ok or errored or not isinstance(query, str):
            return result

        def run(sql: str) -> list[dict[str, Any]]:
            return query_rows(sql, database=self.inp.database)

        meta[ROWS_KEY] = custom_rows(query, run, f"({batch})" if batch else ident(self.inp.table))
        return result


class PostgresBatches:
    """Where the suite runs on PostgreSQL: all of it (native expectations included) on a SQL
    datasource over the verify schema; "now" pinned as a ``timestamptz``."""

    dialect = "postgres"

    def __init__(self, inp: VerifyInput) -> None:
        self.inp = inp

    def now_sql(self, now: datetime) -> str:
        from tacit_gen.sql import generate, instant

        return generate(instant(now.strftime("%Y-%m-%d %H:%M:%S.%f+00:00"), "postgres"),
                        "postgres")

    def run(self, ctx: Any, native: list[dict[str, Any]], custom: list[dict[str, Any]],
            notes: list[str], query: str | None = None) -> list[_Result]:
        notes.append("the suite ran on the PostgreSQL SQL datasource")
        present = set(self._query("SELECT column_name FROM information_schema.columns WHERE "
                                  "table_schema = current_schema() AND table_name = "
                                  + "'" + self.inp.table.replace("'", "''") + "'"))
        key = tuple(k for k in self.inp.contract.key if k in present)
        results = run_suite(ctx, native + custom, ("postgres", (self.inp.postgres, self.inp.table)),
                            key, query=query)
        return [self._custom_rows(r, query) for r in results]

    def _query(self, sql: str) -> list[Any]:
        """The first column of each row `sql` returns, on the verify schema."""
        return [next(iter(row.values())) for row in self._rows(sql)]

    def _rows(self, sql: str) -> list[dict[str, Any]]:
        assert self.inp.postgres is not None  # the PostgreSQL batches run only with a server
        return query_rows(sql, pg=self.inp.postgres, in_schema=True)

    def _custom_rows(self, result: _Result, batch: str | None = None) -> _Result:
        """A failed custom-SQL expectation's first rows, as on DuckDB (its query run again)."""
        meta, ok, _count, _detail, errored = result
        query = meta.pop(QUERY_KEY, None)
        if ok or errored or not isinstance(query, str):
            return result
        meta[ROWS_KEY] = custom_rows(query, self._rows, f"({batch})" if batch else ident(self.inp.table))
        return result


def run(inp: VerifyInput) -> EngineRun:
    """Verdict per clause from GX's own validation results."""
    if inp.postgres is not None:
        return suite_verdicts(inp, PostgresBatches(inp))
    return suite_verdicts(inp, DuckDBBatches(inp))


def suite_verdicts(inp: VerifyInput, batches: Any) -> EngineRun:
    """Run the suite where `batches` says (:class:`DuckDBBatches` or another engine's object with
    a ``dialect``, ``now_sql(now)`` and ``run(ctx, native, custom, notes, query=None)``); a
    verdict per clause. With `inp.since`, each expectation runs on its increment's batch
    (`tacit_gen.targets.gx.increment`)."""
    path = inp.artifact_dir / "gx" / f"{inp.contract.name}.json"
    notes: list[str] = []
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        raw = list(doc.get("expectations") or [])
    except (OSError, ValueError) as e:
        return EngineRun(TARGET, tuple(Verdict(c.id, "error", None, f"cannot read {path.name}: {e}")
                                      for c in inp.clauses), (f"unreadable suite: {e}",))

    now = inp.now.astimezone(UTC)
    now_sql = batches.now_sql(now)
    native: list[dict[str, Any]] = []
    custom: list[dict[str, Any]] = []
    for original in raw:
        exp = json.loads(json.dumps(original))  # private copy
        if exp.get("type") == CUSTOM_SQL:
            q = exp.get("kwargs", {}).get("unexpected_rows_query")
            if isinstance(q, str) and (exp.get("meta") or {}).get("tacit_now"):
                exp["kwargs"]["unexpected_rows_query"] = pin_now(q, now_sql)
            custom.append(exp)
        else:
            native.append(exp)

    if inp.since is None:
        results = batches.run(context(), native, custom, notes)
    else:
        results = _run_increment(inp, batches, native + custom, notes)

    by_clause: dict[str, list[tuple[bool, int | None, str | None, bool]]] = {}
    warning: set[str] = set()
    sampled: dict[str, SampleRows] = {}
    for meta, ok, count, detail, errored in results:
        cid = meta.get("tacit_clause")
        if not isinstance(cid, str):
            notes.append(f"an expectation without meta.tacit_clause: {detail or ''}".strip())
            continue
        by_clause.setdefault(cid, []).append((ok, count, detail, errored))
        sampled[cid] = (sampled.get(cid, ()) + tuple(meta.get(ROWS_KEY) or ()))[:SAMPLE_ROWS]
        if meta.get(SEVERITY_KEY) == "warning":
            warning.add(cid)

    verdicts: list[Verdict] = []
    for clause in inp.clauses:
        rs = by_clause.pop(clause.id, None)
        if not rs:
            verdicts.append(Verdict(clause.id, "n/a", None, "no expectation for this clause in the suite"))
            continue
        v = _verdict(clause.id, rs)
        if v.status == "fail" and clause.id in warning:  # GX's own severity: `warning`
            v = Verdict(v.clause_id, "warn", v.failures, v.detail)
        if v.status in ("fail", "warn"):
            v = Verdict(v.clause_id, v.status, v.failures, v.detail, sampled.get(clause.id, ()))
        verdicts.append(v)
    for cid in sorted(by_clause):
        notes.append(f"suite has expectations for {cid}, which is not in the contract")
    return EngineRun(TARGET, tuple(verdicts), tuple(notes))


def _run_increment(inp: VerifyInput, batches: Any, expectations: list[dict[str, Any]],
                   notes: list[str]) -> list[_Result]:
    """The suite under `inp.since`: one validation per batch of `increment.SLICES` (the
    increment and the boundary rows its clauses need)."""
    from tacit_gen.targets.gx import increment as inc

    assert inp.since is not None
    since = inp.since.astimezone(UTC)
    since_sql = batches.now_sql(since)
    table = ident(inp.table, batches.dialect)
    results: list[_Result] = []
    for name, group in inc.expectations_by_slice(expectations, inp.clauses).items():
        group = inc.restrict(group, inp.clauses, since, since_sql, batches.dialect, CUSTOM_SQL)
        query = inc.slice_query(name, inp.contract, inp.clauses, table, since_sql, batches.dialect)
        results += batches.run(context(), [e for e in group if e["type"] != CUSTOM_SQL],
                               [e for e in group if e["type"] == CUSTOM_SQL], notes, query)
    notes[:] = list(dict.fromkeys(notes))
    notes.append(f"the increment from {since.isoformat()}: each expectation ran on the increment "
                 "and the boundary rows its clause needs (tacit_gen.targets.gx.increment)")
    return results


SEVERITY_KEY = "_tacit_gx_severity"  # the expectation's severity, beside its meta in a result
ROWS_KEY = "_tacit_gx_rows"  # a failed expectation's first unexpected rows (Verdict.rows)
QUERY_KEY = "_tacit_gx_query"  # a failed custom-SQL expectation's query, to fetch its rows


def _verdict(cid: str, rs: list[tuple[bool, int | None, str | None, bool]]) -> Verdict:
    """Fail when any expectation failed on the data; error when only exceptions; else pass."""
    failed = [r for r in rs if not r[0] and not r[3]]
    if failed:
        counts = [r[1] for r in failed if r[1] is not None]
        detail = "; ".join(r[2] or "" for r in failed if r[2])
        return Verdict(cid, "fail", max(counts) if counts else None, detail)
    errors = [r for r in rs if r[3]]
    if errors:
        return Verdict(cid, "error", None, "; ".join(r[2] or "error" for r in errors))
    return Verdict(cid, "pass", 0, "")


def register_duckdb_dialect() -> str:
    """Register the ``duckdb+tacitgx`` SQLAlchemy dialect (idempotent); returns its URL scheme.

    The public face of this engine's DuckDB workaround: `tacit_gen.gx.duckdb_datasource`."""
    _register_dialect()
    return DIALECT_URL
