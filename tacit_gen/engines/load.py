"""Load CSV or Parquet data (and the catalog) into an embedded DuckDB file, typed per the contract.

Nothing is papered over: a CSV is read as text (DuckDB's reader would turn ``+02:00`` strings into
naive timestamps and accept strings without an offset), then each column is converted to its
contract type with ``TRY_CAST`` plus exactness checks. A value that does not convert is reported
(column, row numbers, sample values) and never nulled: its column is loaded with a type that
keeps every value (naive ``TIMESTAMP``, ``DOUBLE`` or ``VARCHAR``), so every engine sees the wrong
type and gives its own verdict on ``column:<c>``. Columns missing from the data are absent from
the table; columns not in the contract are loaded too. See docs/sample.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen.contract.types import DataType, parse_type
from tacit_gen.sql import ident, literal

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract

__all__ = ["ConversionFailure", "LoadError", "LoadReport", "duckdb_type", "load_data",
           "load_postgres", "postgres_type"]

MAX_ROWS_REPORTED = 10
MAX_SAMPLES = 5
_US = {"s": 1_000_000, "ms": 1_000, "us": 1, "ns": 1}
_INT_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
              "UINTEGER", "UBIGINT")
_NAIVE_TS = ("TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS")
_TZ = "TIMESTAMP WITH TIME ZONE"
# An explicit UTC offset (or Z) at the end of a timestamp text.
_OFFSET_RE = r"(Z|z|[+-][0-9]{2}(:?[0-9]{2})?)$"
# Non-zero digits beyond microseconds: DuckDB would truncate them.
_SUB_US_RE = r"\.[0-9]{6}[0-9]*[1-9]"


class LoadError(RuntimeError):
    """The data or catalog file cannot be read at all (not found, unreadable, bad format)."""


@dataclass(frozen=True)
class ConversionFailure:
    """Values of one column that do not convert to the contract type (a ``column:<c>`` failure).

    Attributes:
        column: the column; ``clause_id`` is ``column:<column>``.
        expected: the contract type text (``decimal(9,3)``).
        loaded_as: the DuckDB type the column was loaded with instead (keeps every value).
        count: how many non-null values fail.
        rows: 1-based data row numbers (header excluded) of the first failures.
        samples: the first distinct failing values, as text.
        reason: why they fail.
    """

    column: str
    expected: str
    loaded_as: str
    count: int
    rows: tuple[int, ...]
    samples: tuple[str, ...]
    reason: str

    @property
    def clause_id(self) -> str:
        return f"column:{self.column}"

    def message(self) -> str:
        rows = ", ".join(str(r) for r in self.rows)
        more = ", ..." if self.count > len(self.rows) else ""
        eg = ", ".join(repr(s) for s in self.samples)
        return (f"{self.clause_id}: {self.count} value(s) are not {self.expected} ({self.reason}; "
                f"rows {rows}{more}; e.g. {eg}); loaded as {self.loaded_as}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "clause": self.clause_id, "column": self.column, "expected": self.expected,
            "loaded_as": self.loaded_as, "count": self.count, "rows": list(self.rows),
            "samples": list(self.samples), "reason": self.reason,
        }


@dataclass(frozen=True)
class LoadReport:
    """What was loaded into one relation, and what did not fit the contract.

    Attributes:
        table: the relation name in the DuckDB file.
        rows: rows loaded (every row of the file: no row is dropped).
        columns: (name, DuckDB type) as loaded, in file order.
        missing: contract columns absent from the file (absent from the table too).
        extra: file columns not in the contract (loaded too).
        failures: per column, the values that do not convert.
        source_format: ``csv`` or ``parquet``.
        catalog: the catalog relation's report, when a catalog was loaded.
        sessions: the exchange sessions relation's report, when the contract reads sessions.
        refs: the reports of the relations `references:` clauses read (files beside the data;
            their other columns are loaded as they come, not counted as extra).
    """

    table: str
    rows: int
    columns: tuple[tuple[str, str], ...]
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    failures: tuple[ConversionFailure, ...] = ()
    source_format: str = "csv"
    catalog: LoadReport | None = None
    sessions: LoadReport | None = None
    sessions_note: str | None = None  # where the sessions came from
    refs: tuple[LoadReport, ...] = ()
    outages: LoadReport | None = None  # the outages relation (completeness with allowed gaps)

    @property
    def ok(self) -> bool:
        own = not (self.missing or self.extra or self.failures)
        return (own and (self.catalog is None or self.catalog.ok)
                and (self.sessions is None or self.sessions.ok)
                and not any(r.missing or r.failures for r in self.refs)
                and (self.outages is None or self.outages.ok))

    def failure(self, column: str) -> ConversionFailure | None:
        return next((f for f in self.failures if f.column == column), None)

    def column_type(self, column: str) -> str | None:
        return dict(self.columns).get(column)

    @property
    def clause_ids(self) -> tuple[str, ...]:
        """Data clauses the load itself saw failing (``column:<c>``, ``no_unknown_columns``)."""
        ids = [f"column:{c}" for c in self.missing]
        ids += [f.clause_id for f in self.failures if f.clause_id not in ids]
        if self.extra:
            ids.append("no_unknown_columns")
        return tuple(ids)

    def messages(self) -> list[str]:
        out = [f"column:{c}: missing from the data" for c in self.missing]
        out += [f.message() for f in self.failures]
        if self.extra:
            out.append("no_unknown_columns: not in the contract: " + ", ".join(self.extra))
        if self.catalog is not None:
            out += [f"catalog {self.catalog.table}: {m}" for m in self.catalog.messages()]
        if self.sessions is not None:
            out += [f"sessions {self.sessions.table}: {m}" for m in self.sessions.messages()]
        for r in self.refs:
            out += [f"referenced {r.table}: {m}" for m in r.messages()
                    if not m.startswith("no_unknown_columns")]
        if self.outages is not None:
            out += [f"outages {self.outages.table}: {m}" for m in self.outages.messages()]
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "rows": self.rows,
            "format": self.source_format,
            "columns": [{"name": c, "type": t} for c, t in self.columns],
            "missing": list(self.missing),
            "extra": list(self.extra),
            "failures": [f.to_dict() for f in self.failures],
            "catalog": self.catalog.to_dict() if self.catalog is not None else None,
            "sessions": self.sessions.to_dict() if self.sessions is not None else None,
            "sessions_source": self.sessions_note,
            "refs": [r.to_dict() for r in self.refs],
            "outages": self.outages.to_dict() if self.outages is not None else None,
        }


def duckdb_type(t: DataType) -> str:
    """The DuckDB type of a contract type (enum -> VARCHAR; timestamps -> TIMESTAMPTZ)."""
    k = t.kind
    if k == "decimal":
        return f"DECIMAL({t.precision},{t.scale})"
    if k == "timestamp":
        return _TZ
    return {
        "string": "VARCHAR", "enum": "VARCHAR", "bool": "BOOLEAN", "int32": "INTEGER",
        "int64": "BIGINT", "float32": "FLOAT", "float64": "DOUBLE", "date": "DATE",
    }[k]


def _family_of(t: DataType) -> str:
    if t.is_integer:
        return "int"
    if t.is_float:
        return "float"
    return {"string": "string", "enum": "string", "bool": "bool", "date": "date",
            "decimal": "decimal", "timestamp": "tstz"}[t.kind]


def _family_of_duck(s: str) -> str:
    s = s.upper()
    if s in _INT_TYPES:
        return "int"
    if s in ("FLOAT", "DOUBLE", "REAL"):
        return "float"
    if s.startswith("DECIMAL"):
        return "decimal"
    if s == "VARCHAR":
        return "string"
    if s == "BOOLEAN":
        return "bool"
    if s == "DATE":
        return "date"
    if s in (_TZ, "TIMESTAMPTZ"):
        return "tstz"
    if s in _NAIVE_TS:
        return "naive"
    return "other"


def _decimal_re(scale: int) -> str:
    frac = f"[0-9]{{0,{scale}}}0*" if scale else "0*"
    short = f"[0-9]{{1,{scale}}}0*" if scale else "0+"
    return rf"[+-]?([0-9]+(\.{frac})?|\.{short})"


@dataclass
class _Plan:
    """How one contract column is selected, what fails, and the fallback when something does."""

    select: str  # converted expression
    fail: str  # predicate: this row's value does not convert
    reason: str
    fallbacks: list[tuple[str, str, str]] = field(default_factory=list)  # (usable-if, expr, type)
    fallback_default: tuple[str, str] = ("", "")  # (expr, type) when no fallback applies


def _text_plan(v: str, t: DataType) -> _Plan:
    """Converting a text column (CSV, or a Parquet string column) to the contract type."""
    x = f"NULLIF(TRIM({v}), '')"
    target = duckdb_type(t)
    k = t.kind
    if k in ("string", "enum"):
        return _Plan(v, "FALSE", "")
    conv = f"TRY_CAST({x} AS {target})"
    if t.is_integer:
        ok = f"regexp_full_match({x}, '[+-]?[0-9]+') AND {conv} IS NOT NULL"
        reason = f"not an integer in the {t.kind} range"
    elif k == "decimal":
        ok = f"{conv} IS NOT NULL AND regexp_full_match({x}, {literal(_decimal_re(t.scale or 0))})"
        reason = f"not plain decimal text with at most {t.scale} decimals and {t.precision} digits"
    elif k == "date":
        ok = f"regexp_full_match({x}, '[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}') AND {conv} IS NOT NULL"
        reason = "not a date YYYY-MM-DD"
    elif k == "timestamp":
        unit = _US[t.ts_unit or "us"]
        ok = (f"{conv} IS NOT NULL AND regexp_matches({x}, {literal(_OFFSET_RE)}) "
              f"AND NOT regexp_matches({x}, {literal(_SUB_US_RE)})")
        if unit > 1:
            ok += f" AND epoch_us({conv}) % {unit} = 0"
        reason = (f"not a UTC instant with an explicit offset at {t.ts_unit} precision "
                  "(a timestamp without offset is naive)")
    else:
        ok = f"{conv} IS NOT NULL"
        reason = f"not a {t.kind}"
    p = _Plan(conv, f"{x} IS NOT NULL AND NOT coalesce({ok}, FALSE)", reason,
              fallback_default=(v, "VARCHAR"))
    if k == "timestamp":
        naive_ok = (f"{x} IS NULL OR (NOT regexp_matches({x}, {literal(_OFFSET_RE)}) "
                    f"AND TRY_CAST({x} AS TIMESTAMP) IS NOT NULL)")
        p.fallbacks.append((naive_ok, f"TRY_CAST({x} AS TIMESTAMP)", "TIMESTAMP"))
    elif t.is_numeric:
        p.fallbacks.append((f"{x} IS NULL OR TRY_CAST({x} AS DOUBLE) IS NOT NULL",
                            f"TRY_CAST({x} AS DOUBLE)", "DOUBLE"))
    return p


def _nested(duck_type: str) -> bool:
    """A STRUCT, LIST, ARRAY, MAP or UNION type (DuckDB's spelling)."""
    t = duck_type.upper()
    return t.startswith(("STRUCT", "MAP", "UNION")) or t.endswith("]")


def _typed_plan(v: str, src: str, t: DataType) -> _Plan:
    """Converting a typed (Parquet) column: same family converts when exact, else it fails.

    A column that fails is kept with its file type, so every engine sees the wrong type; a
    nested one (struct, list, map) is kept as its text: engines and dbt's contract check flatten
    or refuse nested types, and would report something else than the column's wrong type."""
    target = duckdb_type(t)
    fam, sfam = _family_of(t), _family_of_duck(src)
    keep = ((f"CAST({v} AS TIMESTAMP)", "TIMESTAMP") if sfam == "naive"
            else (f"CAST({v} AS VARCHAR)", "VARCHAR") if _nested(src) else (v, src))
    if sfam == "string":
        return _text_plan(v, t)
    if fam != sfam:
        what = "a naive timestamp, not a UTC instant" if sfam == "naive" else f"file type {src}"
        # an all-null column of another type converts (there is no value to misread)
        return _Plan(f"TRY_CAST({v} AS {target})", f"{v} IS NOT NULL", what,
                     fallback_default=keep)
    conv = f"TRY_CAST({v} AS {target})"
    if fam in ("int", "decimal"):
        ok = f"{conv} IS NOT NULL AND {conv} = {v}"
        reason = f"file type {src} holds values that {t} cannot hold exactly"
    elif fam == "tstz" and _US[t.ts_unit or "us"] > 1:
        ok = f"epoch_us({v}) % {_US[t.ts_unit or 'us']} = 0"
        reason = f"finer than {t.ts_unit} precision"
    else:
        ok = f"{conv} IS NOT NULL"
        reason = f"file type {src} does not convert to {t}"
    return _Plan(conv, f"{v} IS NOT NULL AND NOT coalesce({ok}, FALSE)", reason,
                 fallback_default=keep)


def _scalar(con: Any, sql: str) -> Any:
    row = con.execute(sql).fetchone()
    return row[0] if row else None


def _refuse_nanoseconds(con: Any, raw: str, path: Path, text_cols: list[tuple[str, DataType]]) -> None:
    """A `timestamp_ns_utc` column whose text holds instants with digits beyond microseconds is
    valid data no engine here can hold: DuckDB's TIMESTAMP WITH TIME ZONE, PostgreSQL's
    timestamptz and Spark's TIMESTAMP keep microseconds. Loaded, they would be truncated (two
    points a nanosecond apart becoming one duplicate, a step of 1 s + 500 ns becoming 1 s), and
    refused as the wrong type they would read as a violation the data does not have (the JSON
    Schema, which reads the text, passes them): verify stops with an error naming the value."""
    for c, t in text_cols:
        if t.kind != "timestamp" or t.ts_unit != "ns":
            continue
        v = ident(c)
        x = f"NULLIF(TRIM({v}), '')"
        hit = con.execute(
            f"SELECT rowid + 1, {v} FROM {raw} WHERE regexp_matches({x}, {literal(_OFFSET_RE)}) "
            f"AND regexp_matches({x}, {literal(_SUB_US_RE)}) "
            f"AND TRY_CAST({x} AS {_TZ}) IS NOT NULL ORDER BY rowid LIMIT 1").fetchone()
        if hit is not None:
            raise LoadError(
                f"{path}: column '{c}' (timestamp_ns_utc) holds an instant with digits beyond "
                f"microseconds (row {int(hit[0])}: '{hit[1]}'): DuckDB's TIMESTAMP WITH TIME ZONE, "
                "PostgreSQL's timestamptz and Spark's TIMESTAMP hold microseconds, so every engine "
                "would check truncated instants; verify refuses rather than give verdicts on values "
                "the data does not hold (round the instants to microseconds to verify them here)")


def _refuse_duplicate_keys(con: Any, path: Path, report: LoadReport, key: str) -> None:
    """A catalog holds one row per series: with two, each engine reads it its own way (a SQL join
    counts the series' points twice, so a cadence step of 0 and a unit both right and wrong; the
    runtime and pandera take one row), and verify would report a disagreement the contract does
    not cause. verify stops with an error naming the key and its rows instead."""
    k = ident(key)
    if key not in {c for c, _ in report.columns}:
        return  # a missing key column is the load report's to say
    hit = con.execute(
        f"SELECT CAST({k} AS VARCHAR), list(rowid + 1 ORDER BY rowid) FROM {ident(report.table)} "
        f"WHERE {k} IS NOT NULL GROUP BY {k} HAVING count(*) > 1 ORDER BY min(rowid) LIMIT 1").fetchone()
    if hit is not None:
        rows = ", ".join(str(int(r)) for r in hit[1][:5])
        raise LoadError(
            f"{path}: the catalog holds {len(hit[1])} rows for {key} '{hit[0]}' (rows {rows}); a "
            "catalog has one row per series (the engines would each read a duplicate their own "
            f"way): keep one row per {key}")


def _load_relation(con: Any, path: Path, name: str, expected: dict[str, DataType],
                   shown: dict[str, DataType] | None = None) -> LoadReport:
    suffix = path.suffix.lower()
    if not path.is_file():
        raise LoadError(f"{path}: no such file")
    raw = ident(f"__tacit_raw_{name}")
    src = literal(str(path))
    if suffix == ".csv":
        fmt = "csv"
        reader = (f"read_csv({src}, all_varchar = true, header = true, delim = ',', "
                  "quote = '\"', escape = '\"')")
    elif suffix in (".parquet", ".pq"):
        fmt = "parquet"
        reader = f"read_parquet({src})"
    else:
        raise LoadError(f"{path}: expected a .csv or .parquet file")
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {raw} AS SELECT * FROM {reader}")
    except Exception as e:  # duckdb.Error and friends
        raise LoadError(f"{path}: cannot read: {e}") from e
    described = con.execute(f"DESCRIBE {raw}").fetchall()
    file_cols = [(str(r[0]), str(r[1])) for r in described]
    present = {c for c, _ in file_cols}
    missing = tuple(c for c in expected if c not in present)
    extra = tuple(c for c, _ in file_cols if c not in expected)
    selects: list[str] = []
    failures: list[ConversionFailure] = []
    plans = {c: (_text_plan(ident(c), expected[c]) if fmt == "csv"
                 else _typed_plan(ident(c), stype, expected[c]))
             for c, stype in file_cols if c in expected}
    _refuse_nanoseconds(con, raw, path, [(c, expected[c]) for c, stype in file_cols
                                         if c in expected and _family_of_duck(stype) == "string"])
    counted = [c for c in plans if plans[c].fail != "FALSE"]
    counts: dict[str, int] = dict.fromkeys(plans, 0)
    if counted:
        row = con.execute("SELECT " + ", ".join(f"count_if({plans[c].fail})" for c in counted)
                          + f" FROM {raw}").fetchone()
        counts.update({c: int(x or 0) for c, x in zip(counted, row or (), strict=True)})
    for c, stype in file_cols:
        v = ident(c)
        if c not in expected:
            # a nested extra column is kept as text: tools flatten structs (`col.a`) otherwise
            selects.append(f"{f'CAST({v} AS VARCHAR)' if _nested(stype) else v} AS {v}")
            continue
        plan = plans[c]
        count = counts[c]
        if not count:
            selects.append(f"{plan.select} AS {v}")
            continue
        expr, loaded = plan.fallback_default
        for usable, fexpr, ftype in plan.fallbacks:
            if not _scalar(con, f"SELECT count(*) FROM {raw} WHERE NOT coalesce({usable}, FALSE)"):
                expr, loaded = fexpr, ftype
                break
        rows = tuple(int(r[0]) for r in con.execute(
            f"SELECT rowid + 1 FROM {raw} WHERE {plan.fail} ORDER BY rowid "
            f"LIMIT {MAX_ROWS_REPORTED}").fetchall())
        samples = tuple(str(r[0]) for r in con.execute(
            f"SELECT s FROM (SELECT CAST({v} AS VARCHAR) AS s, min(rowid) AS r FROM {raw} "
            f"WHERE {plan.fail} GROUP BY 1) ORDER BY r LIMIT {MAX_SAMPLES}").fetchall())
        failures.append(ConversionFailure(c, str((shown or expected)[c]), loaded, count, rows, samples, plan.reason))
        selects.append(f"{expr} AS {v}")
    target = ident(name)
    body = ", ".join(selects) if selects else "*"
    con.execute(f"CREATE OR REPLACE TABLE {target} AS SELECT {body} FROM {raw} ORDER BY rowid")
    con.execute(f"DROP TABLE {raw}")
    loaded_cols = tuple((str(r[0]), str(r[1])) for r in con.execute(f"DESCRIBE {target}").fetchall())
    nrows = int(_scalar(con, f"SELECT count(*) FROM {target}") or 0)
    return LoadReport(name, nrows, loaded_cols, missing, extra, tuple(failures), fmt)


def _catalog_types(contract: Contract) -> tuple[str, dict[str, DataType], str] | None:
    """The catalog relation the plan reads, its column types and its key column."""
    from tacit_gen.plan import plan
    from tacit_gen.semantics.catalog import CatalogSpec, catalog_spec

    spec = catalog_spec(plan(contract))
    if spec is None and contract.catalog is not None:
        cat = contract.catalog
        spec = CatalogSpec(cat.relation, cat.key, cat.unit, cat.hard_min, cat.hard_max,
                           cat.cadence)
    if spec is None:
        return None
    role_type = {"key": "string", "unit": "string", "bound": "decimal(38,10)",
                 "cadence": "int64", "plausible": "decimal(38,10)", "calendar": "string"}
    types = {c: parse_type(role_type[spec.role(c)]) for c in spec.columns}
    from tacit_gen.plan import calendar_params

    cal = calendar_params(contract)
    if cal.get("calendar_catalog") == spec.relation:  # each series' exchange calendar code
        types.setdefault(str(cal["calendar_catalog_column"]), parse_type("string"))
    return spec.relation, types, spec.key


def _sessions_spec(contract: Contract) -> tuple[str, dict[str, DataType], tuple[str, ...]] | None:
    """The sessions relation the plan reads, its column types, and the calendar codes it names
    (empty for a per-series calendar: the catalog names them)."""
    from tacit_gen.plan import plan
    from tacit_gen.plan_types import uses_sessions

    for c in plan(contract):
        if uses_sessions(c) and c.param("sessions_relation") is not None:
            cols = {c.param("sessions_calendar"): "string", c.param("sessions_session"): "date",
                    c.param("sessions_open"): "timestamp_us_utc",
                    c.param("sessions_close"): "timestamp_us_utc"}
            codes = (c.param("calendar"),) if c.param("calendar") else ()
            return c.param("sessions_relation"), {k: parse_type(v) for k, v in cols.items()}, codes
    return None


def _outages_spec(contract: Contract) -> tuple[str, dict[str, DataType]] | None:
    """The outages relation a completeness clause reads (its gap types allowed), and its column
    types: the series key columns as the contract types them, `start`/`end` instants, `type`."""
    from tacit_gen.plan import plan

    for c in plan(contract):
        if c.kind == "completeness" and c.param("outages_relation") is not None:
            types = {s: f.type for s in (c.param("series") or ())
                     if (f := contract.field(s)) is not None}
            types.update({c.param("outages_start"): parse_type("timestamp_us_utc"),
                          c.param("outages_end"): parse_type("timestamp_us_utc"),
                          c.param("outages_type"): parse_type("string")})
            return str(c.param("outages_relation")), types
    return None


def _load_outages(con: Any, contract: Contract, outages_path: Path | str | None,
                  report: LoadReport) -> LoadReport:
    """The outages relation from its file, or empty (no gap is excused) without one."""
    from dataclasses import replace

    spec = _outages_spec(contract)
    if spec is None:
        if outages_path is not None:
            raise LoadError(f"{contract.name}: an outages file was given but no completeness "
                            "clause allows gap types")
        return report
    name, types = spec
    if outages_path is None:
        cols = ", ".join(f"{ident(c)} {duckdb_type(t)}" for c, t in types.items())
        con.execute(f"CREATE OR REPLACE TABLE {ident(name)} ({cols})")
        loaded = LoadReport(name, 0, tuple((c, duckdb_type(t)) for c, t in types.items()))
    else:
        loaded = _load_relation(con, Path(outages_path), name, types)
    return replace(report, outages=loaded)


def _generate_sessions(con: Any, contract: Contract, table: str, codes: tuple[str, ...],
                       catalog: tuple[str, str] | None, out: Path) -> str:
    """Write the sessions of `codes` (or of the catalog's calendars) covering the data's dates
    to `out` from exchange_calendars; returns a note saying what was generated."""
    from datetime import timedelta

    from tacit_gen.semantics.sessions import CalendarError, exchange_sessions, sessions_csv

    t = contract.time
    have = {str(r[0]): str(r[1]) for r in con.execute(f"DESCRIBE {ident(table)}").fetchall()}
    cols = [c for c in (t.column if t else None, t.ingest_column if t else None)
            if c is not None and "TIME ZONE" in have.get(c, "")]
    if not codes and catalog is not None:
        rel, col = catalog
        codes = tuple(sorted(str(r[0]) for r in con.execute(
            f"SELECT DISTINCT {ident(col)} FROM {ident(rel)} WHERE {ident(col)} IS NOT NULL").fetchall()))
    lo = hi = None
    for c in cols:
        row = con.execute(f"SELECT min(CAST({ident(c)} AS DATE)), max(CAST({ident(c)} AS DATE)) "
                          f"FROM {ident(table)}").fetchone()
        if row and row[0] is not None:
            lo = row[0] if lo is None else min(lo, row[0])
            hi = row[1] if hi is None else max(hi, row[1])
    rows = []
    if lo is not None and hi is not None:
        start, end = lo - timedelta(days=7), hi + timedelta(days=7)
        for code in codes:
            try:
                rows += exchange_sessions(code, start, end)
            except CalendarError as e:
                raise LoadError(f"sessions of {code}: {e}") from e
    out.write_text(sessions_csv(rows), encoding="utf-8")
    span = f"{lo} to {hi}" if lo is not None else "no dates"
    return (f"sessions of {', '.join(codes) or 'no calendar'} generated from exchange_calendars "
            f"for the data's dates ({span}, a week either side)")


def referenced_files(contract: Contract, data_path: Path | str, table: str, taken: set[str]
                     ) -> list[tuple[str, Path, dict[str, DataType]]]:
    """(relation, file, column types) of each relation the contract's `references:` clauses read:
    ``<relation>.csv`` or ``<relation>.parquet`` beside the data file (the data's own suffix
    first), each referenced column typed as its referencing column. A reference to the data's
    own relation needs no file. A missing file, or a name the catalog or sessions relation
    already has, is a LoadError."""
    from tacit_gen.plan import plan

    data = Path(data_path)
    wanted: dict[str, dict[str, DataType]] = {}
    for c in plan(contract):
        if c.kind != "references":
            continue
        rel, f = str(c.param("to_relation")), contract.field(str(c.param("column")))
        if rel == table:
            continue  # a self reference: the data is the relation
        if f is not None:
            wanted.setdefault(rel, {})[str(c.param("to_column"))] = f.type
    out = []
    for rel, types in wanted.items():
        if rel in taken:
            raise LoadError(f"{contract.name}: the referenced relation {rel!r} has the name of "
                            "the data, catalog or sessions relation")
        suffixes = [data.suffix.lower()] + [s for s in (".csv", ".parquet") if s != data.suffix.lower()]
        found = next((data.with_name(rel + s) for s in suffixes if data.with_name(rel + s).is_file()), None)
        if found is None:
            raise LoadError(f"{contract.name}: references read relation {rel!r}: no {rel}.csv or "
                            f"{rel}.parquet beside {data.as_posix()} (sample --out writes it there)")
        out.append((rel, found, types))
    return out


def loaded_types(contract: Contract) -> dict[str, DataType]:
    """The type each column is loaded as: the contract's, but the time column that `precision:`
    checks keeps digits finer than its precision (a warehouse's timestamptz holds microseconds;
    the precision clause, not the column's type, judges them in every engine)."""
    from dataclasses import replace

    from tacit_gen.plan_types import PRECISION_US

    out = {f.name: f.type for f in contract.fields}
    t = contract.time
    if t is not None and t.precision in PRECISION_US and t.column in out and out[t.column].kind == "timestamp":
        out[t.column] = replace(out[t.column], ts_unit="us")
    return out


def load_data(
    contract: Contract,
    data_path: Path | str,
    db_path: Path | str,
    table: str | None = None,
    catalog_path: Path | str | None = None,
    sessions_path: Path | str | None = None,
    outages_path: Path | str | None = None,
) -> LoadReport:
    """Load a CSV or Parquet file (and its catalog) into a DuckDB file, typed per the contract.

    Args:
        contract: the loaded contract (its columns and types).
        data_path: ``.csv`` (header row, comma separated) or ``.parquet``.
        db_path: the DuckDB database file (created if absent; the table is replaced).
        table: the relation name; default ``contract.name``.
        catalog_path: the catalog file, loaded as the relation the plan's catalog clauses name,
            with key and unit VARCHAR, hard bounds DECIMAL(38,10), cadence seconds BIGINT.
        sessions_path: the exchange sessions file (`tacit-gen calendar` writes it), loaded as
            the relation the plan's session clauses name. When the plan reads sessions and none
            is given, they are generated from exchange_calendars for the data's dates.
        outages_path: the outages file (the series key columns, `start`, `end`, `type`) a
            completeness clause with allowed gap types reads; without one the relation is
            empty.

    Returns:
        The LoadReport (the catalog's in ``report.catalog``).

    Raises:
        LoadError: a file cannot be read, or a catalog is given for a contract without one.
    """
    import duckdb

    name = table or contract.name
    expected = loaded_types(contract)
    cat = _catalog_types(contract) if catalog_path is not None else None
    if catalog_path is not None and cat is None:
        raise LoadError(f"{contract.name}: a catalog was given but the contract reads none")
    if cat is not None and cat[0] == name:
        raise LoadError(f"the table and the catalog relation are both named {name!r}")
    con = duckdb.connect(str(db_path))
    try:
        con.execute("SET TimeZone = 'UTC'")
        report = _load_relation(con, Path(data_path), name, expected,
                                {f.name: f.type for f in contract.fields})
        if cat is not None and catalog_path is not None:
            cat_report = _load_relation(con, Path(catalog_path), cat[0], cat[1])
            _refuse_duplicate_keys(con, Path(catalog_path), cat_report, cat[2])
            report = LoadReport(report.table, report.rows, report.columns, report.missing,
                                report.extra, report.failures, report.source_format, cat_report)
        ses = _sessions_spec(contract)
        if ses is not None:
            from dataclasses import replace

            note = f"sessions from {sessions_path}"
            if sessions_path is None:
                made = Path(db_path).with_name(Path(db_path).stem + "_sessions.csv")
                cal_col = None
                if not ses[2] and report.catalog is not None:
                    from tacit_gen.plan import calendar_params

                    cal_col = (report.catalog.table,
                               str(calendar_params(contract).get("calendar_catalog_column")))
                note = _generate_sessions(con, contract, name, ses[2], cal_col, made)
                sessions_path = made
            ses_report = _load_relation(con, Path(sessions_path), ses[0], ses[1])
            report = replace(report, sessions=ses_report, sessions_note=note)
        taken = {name} | {r.table for r in (report.catalog, report.sessions) if r is not None}
        refs = tuple(_load_relation(con, path, rel, types)
                     for rel, path, types in referenced_files(contract, data_path, name, taken))
        if refs:
            from dataclasses import replace

            report = replace(report, refs=refs)
        report = _load_outages(con, contract, outages_path, report)
    finally:
        con.close()
    return report


# --- PostgreSQL: the same typing, then a copy ------------------------------------------------

_PG_TYPES = {
    "VARCHAR": "text", "BOOLEAN": "boolean", "TINYINT": "smallint", "SMALLINT": "smallint",
    "INTEGER": "integer", "BIGINT": "bigint", "FLOAT": "real", "DOUBLE": "double precision",
    "DATE": "date", _TZ: "timestamp with time zone", "TIMESTAMPTZ": "timestamp with time zone",
    "TIMESTAMP": "timestamp", "TIMESTAMP_S": "timestamp", "TIMESTAMP_MS": "timestamp",
    "TIMESTAMP_NS": "timestamp",
}


def postgres_type(duck: str) -> str:
    """The PostgreSQL type of a column as the DuckDB loader typed it (one place decides types:
    `duckdb_type` and the conversion fallbacks; this only translates names)."""
    s = duck.upper()
    if s.startswith("DECIMAL"):
        return "numeric" + s[len("DECIMAL"):].replace(" ", "")
    if s in _PG_TYPES:
        return _PG_TYPES[s]
    return "text"


def load_postgres(
    contract: Contract,
    data_path: Path | str,
    dsn: str,
    schema: str,
    workdir: Path | str,
    table: str | None = None,
    catalog_path: Path | str | None = None,
    sessions_path: Path | str | None = None,
    outages_path: Path | str | None = None,
) -> LoadReport:
    """Load a data file (and its catalog) into PostgreSQL, typed exactly as `load_data` types it.

    The file is loaded into a DuckDB file in `workdir` first (the conversions, failure report and
    fallback types are `load_data`'s), then each relation is created in `schema` with the
    PostgreSQL names of those types and filled with ``COPY ... FROM STDIN`` (CSV written by
    DuckDB in UTC: NULL unquoted and empty, an empty string quoted).

    Args:
        contract, data_path, table, catalog_path: as `load_data`.
        dsn: a ``postgresql://`` URL (sessions run in UTC: see ``postgres_server.utc_dsn``).
        schema: created if absent; the relations are replaced.
        workdir: a scratch folder.

    Returns:
        The LoadReport (column types are the DuckDB names; `postgres_type` maps them).
    """
    import duckdb
    import psycopg2

    from tacit_gen.engines.postgres_server import utc_dsn
    from tacit_gen.sql import ident as sql_ident
    from tacit_gen.sql import qualified

    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    db = work / "load.duckdb"
    if db.exists():
        db.unlink()
    report = load_data(contract, data_path, db, table=table, catalog_path=catalog_path,
                       sessions_path=sessions_path, outages_path=outages_path)
    relations = [report] + [r for r in (report.catalog, report.sessions, report.outages)
                            if r is not None] + list(report.refs)
    try:
        pg = psycopg2.connect(utc_dsn(dsn))
    except psycopg2.Error as e:
        shown = re.sub(r"//([^:@/]*):[^@/]*@", r"//\1:***@", dsn)  # never print a password
        raise LoadError(f"cannot connect to PostgreSQL at {shown}: {str(e).strip()}") from e
    con = duckdb.connect(str(db), read_only=True)
    try:
        con.execute("SET TimeZone = 'UTC'")
        with pg, pg.cursor() as cur:
            cur.execute("SET TIME ZONE 'UTC'")
            cur.execute(f"CREATE SCHEMA IF NOT EXISTS {sql_ident(schema, 'postgres')}")
            for rel in relations:
                target = qualified(rel.table, schema, "postgres")
                cols = ", ".join(f"{sql_ident(c, 'postgres')} {postgres_type(t)}"
                                 for c, t in rel.columns)
                cur.execute(f"DROP TABLE IF EXISTS {target}")
                cur.execute(f"CREATE TABLE {target} ({cols})")
                csv = work / f"{rel.table}.csv"
                con.execute(f"COPY (SELECT * FROM {ident(rel.table)}) TO {literal(str(csv))} "
                            "(HEADER false)")
                with csv.open("r", encoding="utf-8") as f:
                    cur.copy_expert(f"COPY {target} FROM STDIN WITH (FORMAT csv)", f)
                csv.unlink()
    finally:
        pg.close()
        con.close()
    return report
