"""pandera engine: import the generated module, validate the data frame, verdict per clause.

The module is run on both kinds of frame pandas users have, and both must give one verdict:

- Arrow-backed: ``con.execute(...).arrow().to_pandas(types_mapper=pd.ArrowDtype)`` with the
  session time zone UTC; ``DECIMAL(p,s)`` stays ``decimal128(p, s)``, ``BIGINT`` with nulls
  stays ``int64``, ``TIMESTAMPTZ`` is ``timestamp[us, tz=UTC]``.
- numpy-backed, pandas' default dtypes: DuckDB's ``.df()`` (a decimal as ``float64``, an
  integer with nulls as ``float64``, text as ``str``/``object``, ``datetime64[us, UTC]``); on
  PostgreSQL, Arrow's ``to_pandas()`` (a decimal as ``object`` holding ``Decimal``, a date as
  ``object`` holding ``date``).

A clause whose verdicts differ between the two is an ``error`` that names both. Where the data
holds what a numpy frame cannot (`numpy_cannot_hold`: a NaN beside NULLs, a decimal or integer
past a double's digits) the numpy-backed frame is not validated, and a note says why.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen.engines import base
from tacit_gen.engines.base import EngineRun, PgLocation, Verdict, VerifyInput

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd

    from tacit_gen.plan_types import Clause

NAME = "pandera"
# Columns a clause kind is evaluated on, beyond what pandera itself reports as missing.
_STRUCTURAL = ("column", "no_unknown_columns")


def quote_ident(name: str) -> str:
    """A DuckDB quoted identifier."""
    return '"' + name.replace('"', '""') + '"'


def read_frame(database: str | Path, table: str) -> pd.DataFrame:
    """Read one relation of a DuckDB file as an Arrow-backed pandas frame (the pandera convention).

    Args:
        database: path of the DuckDB file.
        table: relation name (quoted here, any characters allowed).

    Returns:
        A frame whose columns are all ``pd.ArrowDtype``; timestamps with a time zone are in UTC.
    """
    import duckdb
    import pandas as pd

    con = duckdb.connect(str(database))
    try:
        con.execute("SET TimeZone = 'UTC'")
        table_data = con.execute(f"SELECT * FROM {quote_ident(table)}").arrow()
    finally:
        con.close()
    return table_data.to_pandas(types_mapper=pd.ArrowDtype)


def read_frame_numpy(database: str | Path, table: str) -> pd.DataFrame:
    """One relation of a DuckDB file as DuckDB's ``.df()`` gives it (numpy-backed, pandas'
    default dtypes), with the session time zone UTC."""
    import duckdb

    con = duckdb.connect(str(database))
    try:
        con.execute("SET TimeZone = 'UTC'")
        return con.execute(f"SELECT * FROM {quote_ident(table)}").df()
    finally:
        con.close()


def numpy_cannot_hold(arrow: pd.DataFrame, numpy: pd.DataFrame,
                      types: dict[str, str] | None = None) -> str | None:
    """Why the numpy-backed frame does not hold the values of the Arrow-backed one, or None:
    a float column with a NaN (NaN is NULL in a numpy float column), a decimal whose double
    does not write it back, an integer past 2**53 held in a double, a double column where the
    contract (`types`: column -> contract type) has an integer or a decimal (a nullable integer
    column and a decimal are float64 in a numpy frame: they look alike)."""
    import math
    from decimal import Decimal

    import pyarrow

    for name in arrow.columns:
        dtype = arrow[name].dtype
        t = getattr(dtype, "pyarrow_dtype", None)
        if t is None or name not in numpy.columns:
            continue
        held = numpy[name]
        declared = (types or {}).get(name) or ""
        if pyarrow.types.is_floating(t) and (declared in ("int32", "int64")
                                              or declared.startswith("decimal")):
            # a nullable integer and a decimal are float64 in a numpy frame (what read_csv
            # gives): a double there is indistinguishable from them
            kind = "an integer" if declared in ("int32", "int64") else "a decimal"
            return (f"column {name} is a double where the contract has {kind}, which a numpy "
                    "frame cannot tell apart")
        values = pyarrow.array(arrow[name]).to_pylist()
        if pyarrow.types.is_floating(t) and any(isinstance(v, float) and math.isnan(v) for v in values):
            return f"column {name} holds NaN, which a numpy float column cannot tell from NULL"
        if str(held.dtype).startswith("float") and (pyarrow.types.is_decimal(t) or pyarrow.types.is_integer(t)):
            for v, d in zip(values, held.tolist(), strict=True):
                if v is not None and (math.isnan(d) or Decimal(repr(d)) != Decimal(v)):
                    return f"column {name}: {v} is {d!r} in a double"
    return None


def relation_exists(database: str | Path, relation: str) -> bool:
    """Whether the DuckDB file holds a table or view of that name (DuckDB's own catalog
    functions: ``information_schema.tables`` answers the same, several times slower)."""
    import duckdb

    con = duckdb.connect(str(database))
    try:
        rows = con.execute(
            "SELECT (SELECT count(*) FROM duckdb_tables() WHERE table_name = $1)"
            " + (SELECT count(*) FROM duckdb_views() WHERE NOT internal AND view_name = $1)",
            [relation]).fetchone()
    finally:
        con.close()
    return bool(rows and rows[0])


def load_module(path: Path) -> Any:
    """Import the generated module from its file (see `tacit_gen.engines.base.load_module`)."""
    return base.load_module(path, "tacit_pandera")

def schema_clause_ids(schema: Any) -> set[str]:
    """Every clause id the built schema checks (dtype, nullability, strict, unique, named checks)."""
    ids: set[str] = set()
    for name, column in schema.columns.items():
        if column.dtype is not None:
            ids.add(f"column:{name}")
        if not column.nullable:
            ids.add(f"not_null:{name}")
        ids.update(c.name for c in column.checks if c.name)
    if schema.strict is True:
        ids.add("no_unknown_columns")
    if schema.unique:
        ids.add("unique:" + ",".join(schema.unique))
    ids.update(c.name for c in schema.checks if c.name)
    return ids


def map_failure(row: dict[str, Any], schema: Any) -> str | None:
    """The clause id of one row of ``SchemaErrors.failure_cases``, or None if unknown."""
    check = str(row.get("check"))
    column = row.get("column")
    number = row.get("check_number")
    if check == "column_in_schema":
        return "no_unknown_columns"
    if check == "column_in_dataframe":
        return f"column:{row.get('failure_case')}"
    if check == "not_nullable":
        return f"not_null:{column}"
    if check.startswith("dtype("):
        return f"column:{column}"
    if check == "multiple_fields_uniqueness":
        return "unique:" + ",".join(schema.unique or ())
    if number is not None and _present(number):
        k = int(number)
        if row.get("schema_context") == "Column" and column in schema.columns:
            checks = schema.columns[column].checks
        else:
            checks = schema.checks
        if 0 <= k < len(checks):
            return str(checks[k].name)
    return None


def _present(value: Any) -> bool:
    if value is None:
        return False
    try:
        return value == value  # NaN != NaN
    except (TypeError, ValueError):
        return True


def failures_by_clause(errors: Any, schema: Any) -> tuple[dict[str, set[Any]], set[str], list[str]]:
    """(failing row labels per clause id, ids that failed without row labels, notes)."""
    rows: dict[str, set[Any]] = {}
    scalar: set[str] = set()
    notes: list[str] = []
    for row in errors.failure_cases.to_dict("records"):
        cid = map_failure(row, schema)
        if cid is None:
            notes.append(f"unmapped pandera failure: check={row.get('check')!r} column={row.get('column')!r}")
            continue
        rows.setdefault(cid, set())
        if _present(row.get("index")) and not str(row.get("check")).startswith("dtype("):
            rows[cid].add(row["index"])
        else:
            scalar.add(cid)
    return rows, scalar, notes


def check_errors(errors: Any) -> dict[str, str]:
    """Checks that raised instead of returning a verdict: clause id -> the exception text."""
    out: dict[str, str] = {}
    for err in errors.schema_errors:
        reason = getattr(err.reason_code, "name", str(err.reason_code))
        name = getattr(err.check, "name", None)
        if reason == "CHECK_ERROR" and name:
            out[str(name)] = str(err.failure_cases)
    return out


def read_frame_postgres(pg: PgLocation, relation: str) -> pd.DataFrame | None:
    """One relation of the verify schema on PostgreSQL as an Arrow-backed pandas frame (the same
    convention: ``numeric(p,s)`` stays ``decimal128(p, s)``, ``timestamptz`` is
    ``timestamp[us, tz=UTC]``); None when the schema has no such relation."""
    import ibis
    import pandas as pd

    p = pg.params
    con = ibis.postgres.connect(host=p["host"], port=p["port"], user=p["user"],
                                password=p["password"] or None, database=p["database"])
    try:
        if relation not in con.list_tables(database=pg.schema):
            return None
        table = con.table(relation, database=pg.schema).to_pyarrow()
    finally:
        con.disconnect()
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def run(inp: VerifyInput) -> EngineRun:
    """Validate the data table with the generated module's schema, on an Arrow-backed and on a
    numpy-backed frame; one verdict per clause."""
    pg = inp.postgres
    if pg is not None:  # frames read from PostgreSQL through Arrow
        def pg_numpy(name: str) -> pd.DataFrame | None:
            got = read_frame_postgres(pg, name)
            return None if got is None else to_numpy_frame(got)

        return validate_frames(inp, lambda name: read_frame_postgres(pg, name), pg_numpy)

    def frame(name: str, reader: Callable[[str | Path, str], pd.DataFrame] = read_frame) -> pd.DataFrame | None:
        if name != inp.table and not relation_exists(inp.database, name):
            return None
        return reader(inp.database, name)

    return validate_frames(inp, frame, lambda name: frame(name, read_frame_numpy))


def to_numpy_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """An Arrow-backed frame with pandas' default dtypes, as ``pyarrow.Table.to_pandas()`` (and
    so ``pd.read_parquet``) gives them: a decimal as ``object`` holding ``Decimal``."""
    import pyarrow

    return pyarrow.table({name: pyarrow.array(frame[name]) for name in frame.columns}).to_pandas()


def validate_frames(inp: VerifyInput, frame: Callable[[str], pd.DataFrame | None],
                    numpy_frame: Callable[[str], pd.DataFrame | None] | None = None) -> EngineRun:
    """Validate the relation `frame(inp.table)` (an Arrow-backed pandas frame, read from any
    engine) with the generated module's schema; `frame(name)` is None for an absent relation.
    With `numpy_frame`, the same relations numpy-backed are validated too: a clause whose two
    verdicts differ is an error."""
    read: dict[str, pd.DataFrame | None] = {}

    def once(name: str) -> pd.DataFrame | None:
        if name not in read:
            read[name] = frame(name)
        return read[name]

    arrow_run = _validate(inp, once)
    if numpy_frame is None or any(v.status == "error" for v in arrow_run.verdicts):
        return arrow_run
    try:
        arrow_df, numpy_df = once(inp.table), numpy_frame(inp.table)
        types = {str(c.param("column")): str(c.param("type")) for c in inp.clauses if c.kind == "column"}
        reason = None if arrow_df is None or numpy_df is None else numpy_cannot_hold(arrow_df, numpy_df, types)
    except Exception as e:  # the numpy-backed frame could not be read: say so, keep the verdicts
        reason = f"{type(e).__name__}: {e}"
    if reason is not None:
        note = f"numpy-backed frame not validated: {reason}"
        return EngineRun(NAME, arrow_run.verdicts, (*arrow_run.notes, note))
    numpy_run = _validate(inp, numpy_frame)
    other = {v.clause_id: v for v in numpy_run.verdicts}
    verdicts = []
    for v in arrow_run.verdicts:
        w = other.get(v.clause_id)
        if w is not None and w.status != v.status:
            v = Verdict(v.clause_id, "error", None, f"Arrow-backed frame: {v.status}, numpy-backed "
                        f"frame: {w.status} ({w.detail})")
        verdicts.append(v)
    return EngineRun(NAME, tuple(verdicts), (*arrow_run.notes, "numpy-backed frame: validated too"))


def _validate(inp: VerifyInput, frame: Callable[[str], pd.DataFrame | None]) -> EngineRun:
    """One validation of the relations `frame` reads (either kind of frame)."""
    import pandera
    import pandera.errors

    notes = [f"pandera {pandera.__version__}"]
    path = inp.artifact_dir / NAME / f"{inp.contract.name}.py"
    try:
        df = frame(inp.table)
        if df is None:
            raise LookupError(f"relation {inp.table} not found")
        relations = [c.param(k) for k in ("relation", "calendar_catalog") for c in inp.clauses
                     if c.param(k)]  # the catalog: of a catalog clause, or of a per-series calendar
        catalog = frame(str(relations[0])) if relations else None
        module = load_module(path)
        named = [c.param("sessions_relation") for c in inp.clauses if c.param("sessions_relation")]
        extra: dict[str, Any] = {}
        if named:
            extra["sessions"] = frame(str(named[0]))
        wanted = sorted({str(c.param("to_relation")) for c in inp.clauses if c.kind == "references"})
        if wanted:  # the relations `references:` clauses read (a missing one: its check fails)
            extra["refs"] = {r: f for r in wanted if (f := frame(r)) is not None}
        outages = [c.param("outages_relation") for c in inp.clauses if c.param("outages_relation")]
        if outages:
            extra["outages"] = frame(str(outages[0]))
        schema = module.schema(catalog=catalog, now=inp.now, **extra)
        boundary: set[Any] = set()
        if inp.since is not None:  # the increment and its boundary rows (targets/pandera/increment.py)
            from tacit_gen.targets.pandera.increment import split_increment

            df, boundary = split_increment(df, inp.contract, inp.since)
    except Exception as e:  # the artifact or the data could not be loaded: every clause errors
        detail = f"{type(e).__name__}: {e}"
        return EngineRun(NAME, tuple(Verdict(c.id, "error", None, detail) for c in inp.clauses), (*notes, detail))

    unsupported = {cid: reason for cid, reason in getattr(module, "UNSUPPORTED", ())}
    warning = warning_checks(schema)
    rows: dict[str, set[Any]] = {}
    scalar: set[str] = set()
    raised: dict[str, str] = {}
    try:
        schema.validate(df, lazy=True)
    except pandera.errors.SchemaErrors as errors:
        rows, scalar, more = failures_by_clause(errors, schema)
        if boundary:
            from tacit_gen.targets.pandera.increment import increment_failures

            rows = increment_failures(rows, boundary)
        raised = check_errors(errors)
        notes.extend(more)
    except pandera.errors.SchemaError as error:  # non-lazy failures (should not happen)
        notes.append(f"SchemaError: {error}")
    present = set(df.columns)
    checked = schema_clause_ids(schema)
    verdicts = [_verdict(c, present, checked, unsupported, rows, scalar, raised) for c in inp.clauses]
    verdicts = [Verdict(v.clause_id, "warn", v.failures, "pandera SchemaWarning (raise_warning=True)")
                if v.status == "fail" and v.clause_id in warning else v for v in verdicts]
    verdicts = [replace(v, rows=failure_rows(df, rows[v.clause_id]))
                if v.status in ("fail", "warn") and rows.get(v.clause_id) else v for v in verdicts]
    return EngineRun(NAME, tuple(verdicts), tuple(notes))


def failure_rows(df: pd.DataFrame, labels: set[Any]) -> base.SampleRows:
    """The first rows (in frame order) of the index `labels` pandera's failure cases name: the
    offending rows, every column."""
    try:
        hit = df.loc[df.index.isin(list(labels))].head(base.SAMPLE_ROWS)
        return base.sample_text(hit.to_dict(orient="records"))
    except Exception:  # a sample is never worth a verdict
        return ()


def warning_checks(schema: Any) -> set[str]:
    """The names of the schema's checks that only warn (``raise_warning=True``: `severity: warn`).

    pandera reports such a check as a `SchemaWarning` with its message only, no failure cases
    (and not in every version), so this wrapper counts them itself: the flag is switched off
    here, the lazy validation collects their failure cases with every other check's, and the
    verdict of these clauses is `warn`, never `fail`."""
    out: set[str] = set()
    checks = [*schema.checks, *(c for col in schema.columns.values() for c in col.checks)]
    for check in checks:
        if getattr(check, "raise_warning", False) and check.name:
            out.add(str(check.name))
            check.raise_warning = False
    return out


def _verdict(
    clause: Clause,
    present: set[str],
    checked: set[str],
    unsupported: dict[str, str],
    rows: dict[str, set[Any]],
    scalar: set[str],
    raised: dict[str, str],
) -> Verdict:
    cid = clause.id
    if cid in unsupported:
        return Verdict(cid, "n/a", None, f"not expressible in pandera: {unsupported[cid]}")
    missing = [c for c in clause.columns if c not in present]
    if clause.kind not in _STRUCTURAL and missing:
        return Verdict(cid, "n/a", None, "column(s) missing from the data: " + ", ".join(missing))
    if cid in raised:
        return Verdict(cid, "error", None, raised[cid])
    if cid in rows or cid in scalar:
        count = len(rows.get(cid, ())) or None
        return Verdict(cid, "fail", count, "pandera reported failure cases")
    if cid not in checked:
        return Verdict(cid, "n/a", None, "the pandera artifact has no check for this clause")
    return Verdict(cid, "pass", 0)
