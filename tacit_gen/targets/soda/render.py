"""Soda v3 target: one SodaCL file per contract (`soda/<contract>.yml`), in the idiom of seed 001.

Each clause becomes one check (a `range` with an exclusive side becomes a `min` and a `max`
check); every check is named with the clause text and carries the clause id where Soda keeps it:
`identity:` on metric and schema checks (it comes back as `source_identity` in
`Scan.get_scan_results()`), the invariant text as the `name:` of a `fail condition` check (Soda
rejects `identity:` on `failed rows` checks), and a `-- tacit_clause: <id>` first line in the SQL of
a `fail query` check. The `column:` clauses share one schema check, as in the seed.

Decisions (see docs/engines/soda.md):
- "no unexpected columns": SodaCL has no documented "only these columns" validation, so a
  user-defined metric counts the columns of `information_schema.columns` not in the contract
  (Spark has none: the column names of one row as JSON keys).
- `range`: inclusive bounds use `invalid_count(c) = 0` with `valid min` / `valid max` (a failing
  row count, and an empty table passes); an exclusive bound uses `min(c) > x` / `max(c) < y`.
- Soda 3.5.6 pastes `valid values` into SQL without escaping: a quote is written doubled.
- Fail queries (cadence, catalog, revision window) are DuckDB SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from tacit_gen import sql
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.targets.base import (
    Artifact,
    ContractKey,
    Engine,
    NoOptions,
    RenderOptions,
    RenderResult,
    Target,
    Unsupported,
    dialect_key,
)
from tacit_gen.targets.header import comment_header
from tacit_gen.targets.kinds import KindTable

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract

from tacit_gen.targets.soda.names import (
    CLAUSE_MARK,
    NAME,
    NOW_VARIABLE,
    SCHEMA_IDENTITY,
    UNKNOWN_COLUMNS_METRIC,
    artifact_path,
    check_name,
    dataset_name,
    ident,
    jinja_escape,
    soda_type,
)
from tacit_gen.targets.soda.queries import (
    DECIMAL_HIDDEN,
    DECIMAL_METRIC,
    NOW_REFERENCE,
    decimal_type_sql,
    fail_query_sql,
    invariant_sql,
    normalize_sql,
    strip_parens,
    unknown_columns_sql,
)
from tacit_gen.targets.soda.writer import Block, Num, dump

# --- clause -> check ------------------------------------------------------------------------


def soda_duration(seconds: int) -> str:
    """Seconds as a Soda freshness threshold (`15m`, `1d2h`)."""
    if seconds <= 0:
        return "0s"
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        q, seconds = divmod(seconds, size)
        if q:
            parts.append(f"{q}{unit}")
    return "".join(parts)


def _valid_value(value: Any, dialect: str = "duckdb") -> Any:
    """A `valid values` entry. Soda 3.5.6 pastes strings into '...' without escaping: the text is
    escaped here as the dialect's literal body (quote doubled; backslash doubled where the dialect
    reads it as an escape)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return Num(str(value))
    return jinja_escape(sql.literal(str(value), dialect)[1:-1])


def soda_regex(body: str, dialect: str) -> str:
    """A `valid regex` for a pattern body: a whole-value match in the dialect's regex flavor.
    SodaCL pastes it into an SQL string literal unescaped, so where that dialect's literals read a
    backslash as an escape (Spark's `\\z`), it is doubled here."""
    from tacit_gen.sql import BACKSLASH_ESCAPES
    from tacit_gen.sql.pattern import DIALECT_FLAVOR, full_match

    text = full_match(body, DIALECT_FLAVOR[dialect])
    return text.replace("\\", "\\\\") if dialect in BACKSLASH_ESCAPES else text


def _fail_query(clause_id: str, sql_text: str) -> Block:
    escaped = jinja_escape(CLAUSE_MARK + clause_id + "\n" + sql_text.rstrip("\n") + "\n")
    # the one Jinja reference the query means: the pinned now (a date column's freshness)
    return Block(escaped.replace(jinja_escape(NOW_REFERENCE), NOW_REFERENCE))


def range_exact(clause: Clause) -> bool:
    """Whether Soda's own range checks decide `clause` exactly. Soda 3 reads `valid min` and
    `valid max` as floats and pastes ``str(float)`` into the query, and reads a `min(c) > x`
    threshold as a float (a decimal metric too): a bound a double does not keep, compared with
    an integer or decimal column, moved the verdict (`i64 <= 9007199254740993` failed the row at
    the bound; `g <= 10000000000000000` became `g <= 1e+16`, a double comparison, and passed the
    row above it; found 2026-12-03). Such a range is a failed-rows query with the exact bound."""
    from tacit_gen.expr.bounds import compares_in_double, prints_in_double

    ctype = clause.column_type(str(clause.param("column")))
    lo, hi = clause.param("min"), clause.param("max")
    inclusive = ((lo is None or clause.param("min_inclusive", True))
                 and (hi is None or clause.param("max_inclusive", True)))
    exact = prints_in_double if inclusive else compares_in_double  # valid min/max, or thresholds
    return all(exact(str(b), ctype) for b in (lo, hi) if b is not None)


def _range_checks(clause: Clause, dialect: str = "duckdb") -> list[dict[str, Any]]:
    col = clause.param("column")
    lo, hi = clause.param("min"), clause.param("max")
    lo_inc, hi_inc = clause.param("min_inclusive", True), clause.param("max_inclusive", True)
    inclusive = (lo is None or lo_inc) and (hi is None or hi_inc)
    if inclusive:
        cfg: dict[str, Any] = {"name": check_name(clause), "identity": clause.id}
        if lo is not None:
            cfg["valid min"] = Num(lo)
        if hi is not None:
            cfg["valid max"] = Num(hi)
        return [{f"invalid_count({ident(col, dialect)}) = 0": cfg}]
    out = []
    if lo is not None:
        op = ">=" if lo_inc else ">"
        out.append(
            {
                f"min({ident(col, dialect)}) {op} {lo}": {
                    "name": check_name(clause, " (min)"),
                    "identity": clause.id + " (min)",
                }
            }
        )
    if hi is not None:
        op = "<=" if hi_inc else "<"
        out.append(
            {
                f"max({ident(col, dialect)}) {op} {hi}": {
                    "name": check_name(clause, " (max)"),
                    "identity": clause.id + " (max)",
                }
            }
        )
    return out


def build(contract: Contract, clauses: tuple[Clause, ...],
          dialect: str = "duckdb") -> tuple[list[Any], list[Unsupported]]:
    """The check list of the `checks for <dataset>` section, and what it cannot say."""
    ds = dataset_name(contract)
    checks: list[Any] = []
    unsupported: list[Unsupported] = []
    cols = [c for c in clauses if c.kind == "column"]
    if cols:
        checks.append(
            {
                "schema": {
                    "name": "every contract column is present with its type",
                    "identity": SCHEMA_IDENTITY,
                    "fail": {
                        "when required column missing": [c.param("column") for c in cols],
                        "when wrong column type": {
                            c.param("column"): soda_type(c.param("type"), dialect) for c in cols
                        },
                    },
                }
            }
        )
    if dialect in DECIMAL_HIDDEN:
        import re

        for i, c in enumerate(x for x in cols if str(x.param("type")).startswith("decimal(")):
            m = re.fullmatch(r"decimal\((\d+),(\d+)\)", str(c.param("type")))
            if m is None:
                continue
            metric = f"{DECIMAL_METRIC}{i + 1}"
            checks.append({f"{metric} = 0": {
                "name": jinja_escape(f"{c.param('column')} is numeric({m.group(1)},{m.group(2)})"),
                "identity": c.id,
                f"{metric} query": Block(jinja_escape(decimal_type_sql(
                    ds, c.param("column"), int(m.group(1)), int(m.group(2)), dialect))),
            }})
    for c in clauses:
        rule = RENDER.get(c.kind)
        said = rule(contract, c, dialect) if rule is not None else RENDER.unsupported.get(
            c.kind, f"clause kind '{c.kind}' has no Soda check")
        if isinstance(said, str):
            unsupported.append(Unsupported(NAME, c.id, said))
            continue
        said = _increment(contract, c, said, dialect)
        checks.extend([_as_warning(check) for check in said] if c.warn else said)
    return checks, unsupported


def _increment(contract: Contract, c: Clause, checks: Checks, dialect: str) -> Checks:
    """The clause's checks restricted to the increment when the scan sets ``tacit_since``
    (`tacit_gen.targets.soda.since`): row clauses (a reference as its anti-join's failed rows)
    and steps; keys holding the time column (their copies all lie in the increment or all
    before it); other keys, the rows repeating a key of the increment; completeness's windows
    that end after its start. Others read the whole dataset."""
    from tacit_gen.targets.soda import since

    tcol = contract.time.column if contract.time and contract.time.column else None
    if tcol is None:
        return checks
    keyed = c.kind == "unique" and tcol in (c.param("columns") or ())
    windows = c.kind in since.WINDOW_KINDS
    col = ident(tcol, dialect)
    if c.kind == "unique" and not keyed:  # the increment's keys, counted over the whole dataset
        key = [ident(k, dialect) for k in c.param("columns")]
        cond = since.key_condition(ident(dataset_name(contract), dialect), key, col, dialect)
        return [{line: {**cfg, "filter": cond}} for check in checks for line, cfg in check.items()]
    if c.kind not in since.ROW_KINDS and c.kind not in since.STEP_KINDS and not keyed and not windows:
        return checks
    out: Checks = []
    for check in checks:
        ((line, cfg),) = check.items()
        cfg = dict(cfg)
        if line == "failed rows" and "fail query" in cfg:
            text = str(cfg["fail query"])
            cfg["fail query"] = Block(since.wrap_query(text, None if windows else col, dialect,
                                                       CLAUSE_MARK))
        elif line == "failed rows" and "fail condition" in cfg:
            cfg["fail condition"] = since.and_condition(str(cfg["fail condition"]), col, dialect)
        elif line.startswith(("missing_count(", "invalid_count(", "duplicate_count(")):
            cfg["filter"] = since.condition(col, dialect)
        else:  # a reference check: Soda takes no filter there
            out.append(check)
            continue
        out.append({line: cfg})
    return out


# ---------------------------------------------------------------------------------------------
# one function per kind: (contract, clause, dialect) -> its checks, or why it has none

Checks = list[dict[str, Any]]
Rule = Callable[["Contract", Clause, str], "Checks | str"]


def _in_schema_check(contract: Contract, c: Clause, dialect: str) -> Checks:
    """The `column:` clauses share the one schema check `build` writes first."""
    return []


def _no_unknown_columns(contract: Contract, c: Clause, dialect: str) -> Checks:
    query = unknown_columns_sql(dataset_name(contract), tuple(c.param("columns")), dialect)
    return [{f"{UNKNOWN_COLUMNS_METRIC} = 0": {
        "name": check_name(c), "identity": c.id, f"{UNKNOWN_COLUMNS_METRIC} query": Block(jinja_escape(query))}}]


def _not_null(contract: Contract, c: Clause, dialect: str) -> Checks:
    return [{f"missing_count({ident(c.param('column'), dialect)}) = 0": {"name": check_name(c), "identity": c.id}}]


def _unique(contract: Contract, c: Clause, dialect: str) -> Checks:
    args = ", ".join(ident(x, dialect) for x in c.param("columns"))
    return [{f"duplicate_count({args}) = 0": {"name": check_name(c), "identity": c.id}}]


def _valid_values(contract: Contract, c: Clause, dialect: str) -> Checks:
    """accepted_values, and fixed_value as one valid value."""
    values = c.param("values") if c.kind == "accepted_values" else (c.param("value"),)
    return [{f"invalid_count({ident(c.param('column'), dialect)}) = 0": {
        "name": check_name(c), "identity": c.id, "valid values": [_valid_value(v, dialect) for v in values]}}]


def _pattern(contract: Contract, c: Clause, dialect: str) -> Checks:
    return [{f"invalid_count({ident(c.param('column'), dialect)}) = 0": {
        "name": check_name(c), "identity": c.id, "valid regex": soda_regex(c.param("pattern"), dialect)}}]


def _references(contract: Contract, c: Clause, dialect: str) -> Checks:
    if c.warn or _timed(contract):
        # a reference check can neither warn nor take a filter (the increment): the anti-join
        # as failed rows
        return _failed_rows_query(contract, c, dialect)
    # Soda's reference check (NULLs pass)
    line = (f"values in ({ident(c.param('column'), dialect)}) must exist in "
            f"{ident(c.param('to_relation'), dialect)} ({ident(c.param('to_column'), dialect)})")
    return [{line: {"name": check_name(c), "identity": c.id}}]


def _range(contract: Contract, c: Clause, dialect: str) -> Checks | str:
    return _range_checks(c, dialect) if range_exact(c) else _fail_query_check(contract, c, dialect)


def _invariant(contract: Contract, c: Clause, dialect: str) -> Checks | str:
    text = invariant_sql(c, dialect)
    if text is None:
        return "no single-row SQL form"
    return [{"failed rows": {"name": check_name(c), "fail condition": jinja_escape(f"NOT ({strip_parens(text)})")}}]


def _freshness(contract: Contract, c: Clause, dialect: str) -> Checks:
    if c.param("whole_days"):  # a date column: whole days
        return _failed_rows_query(contract, c, dialect)
    line = (f"freshness({ident(c.param('column'), dialect)}) < "
            f"{soda_duration(int(c.param('max_age_seconds')))}")
    return [{line: {"name": check_name(c), "identity": c.id}}]


def _failed_rows_query(contract: Contract, c: Clause, dialect: str) -> Checks:
    """A `failed rows` check of the clause's fail query (one it always has)."""
    text = fail_query_sql(contract, c, dialect)
    assert text is not None
    return [{"failed rows": {"name": check_name(c), "fail query": _fail_query(c.id, text)}}]


def _fail_query_check(contract: Contract, c: Clause, dialect: str) -> Checks | str:
    """A `failed rows` check of the clause's fail query, or why it has none."""
    text = fail_query_sql(contract, c, dialect)
    if text is None:
        return ("the revision policy states no row-level rule (no ingest column or no window)"
                if c.kind == "revision_window"
                else "a catalog cadence needs exactly one series column, and is not expressed within sessions")
    return [{"failed rows": {"name": check_name(c), "fail query": _fail_query(c.id, text)}}]


RENDER: KindTable[Rule] = KindTable("soda", "render", {
    "column": _in_schema_check,
    "no_unknown_columns": _no_unknown_columns,
    "not_null": _not_null,
    "unique": _unique,
    "accepted_values": _valid_values,
    "fixed_value": _valid_values,
    "pattern": _pattern,
    "references": _references,
    "range": _range,
    "invariant": _invariant,
    "precision": _fail_query_check,
    "freshness": _freshness,
    "cadence": _fail_query_check,
    "completeness": _fail_query_check,
    "catalog_unit": _fail_query_check,
    "catalog_bounds": _fail_query_check,
    "plausible": _fail_query_check,
    "catalog_dimension": _fail_query_check,
    "revision_window": _fail_query_check,
    "revision_by": _fail_query_check,
})


# The threshold that warns when the rendered pass condition does not hold (a count above 0, a
# bound crossed, data older than the freshness): Soda's `warn: when ...` (no `fail:`).
_WARN_WHEN = {"=": ">", ">=": "<", ">": "<=", "<=": ">", "<": ">="}


def _as_warning(check: Any) -> Any:
    """A check of a `severity: warn` clause: its threshold moved to `warn:` (Soda reports the
    outcome `warn`, and the scan does not fail on it)."""
    ((line, cfg),) = check.items()
    cfg = dict(cfg)
    if line == "failed rows":
        cfg["warn"] = "when > 0"
        return {line: cfg}
    import re

    m = re.fullmatch(r"(?P<metric>.+?\))\s*(?P<op><=|>=|=|<|>)\s*(?P<value>.+)", line)
    if m is None:
        return check
    op = _WARN_WHEN[m.group("op")]
    if m.group("metric").startswith("freshness("):
        op = ">"  # Soda's freshness threshold is `when > <duration>`: older than that warns
    cfg["warn"] = f"when {op} {m.group('value')}"
    return {m.group("metric"): cfg}


def _comment(text: str) -> str:
    return " ".join(text.split())


class SodaTarget(Target):
    """Renders SodaCL and reads it back."""

    name = NAME
    options = NoOptions
    contract_keys = (
        ContractKey("dataset", "Soda dataset name"),
        dialect_key(),
    )
    artifact_name_option = "dataset"
    reader = "tacit_gen.targets.soda.read:read"
    engines: ClassVar[Mapping[str, Engine]] = {
        "duckdb": Engine("tacit_gen.targets.soda.engine", ("soda",), "soda", cost=20),
        "postgres": Engine("tacit_gen.targets.soda.engine", ("soda", "psycopg2"), "postgres", cost=20),
        "spark": Engine("tacit_gen.targets.soda.spark", ("soda", "pyspark"), cost=20, session=True),
    }
    templates = False
    increments = True  # the variable tacit_since

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (artifact_path(contract),)

    def render(
        self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions
    ) -> RenderResult:
        dialect = options.dialect_for(NAME, contract)
        checks, unsupported = build(contract, clauses, dialect)
        head = comment_header(contract)
        if any(c.kind == "freshness" for c in clauses):
            head += (
                "# Soda v3 (SodaCL). Run: soda scan -d <data source> -c <configuration.yml> "
                f"-v {NOW_VARIABLE}=<ISO-8601 UTC instant> {artifact_path(contract)} "
                f"({NOW_VARIABLE} pins the clock of the freshness check)\n"
            )
        else:
            head += (
                "# Soda v3 (SodaCL). Run: soda scan -d <data source> -c <configuration.yml> "
                f"{artifact_path(contract)}\n"
            )
        if dialect != "duckdb":
            head += f"# SQL dialect: {dialect} (queries and column types are {dialect}'s)\n"
        if unsupported:
            head += "# Clauses this file cannot check (unsupported by the Soda target):\n"
            for u in unsupported:
                head += f"#   - {_comment(u.clause_id)}: {_comment(u.reason)}\n"
        body = dump({f"checks for {dataset_name(contract)}": checks}) if checks else ""
        return RenderResult(
            artifacts=(Artifact(artifact_path(contract), head + body),),
            unsupported=tuple(unsupported),
        )

    def project(self, contract: Contract, clause: Clause, options: RenderOptions) -> Clause | None:
        """What a faithful Soda artifact says about `clause`: the reader returns exactly this.

        None when the clause is unsupported. Column types are the dialect's (`soda_type`);
        invariants and the fail-query clauses are compared as SQL (`sql`).
        """
        return project(contract, clause, options.dialect_for(NAME, contract))


def project(contract: Contract, clause: Clause, dialect: str = "duckdb") -> Clause | None:
    """What a faithful Soda artifact says about `clause`, through `PROJECT` (None: unsupported)."""
    rule = PROJECT.get(clause.kind)
    said = rule(contract, clause, dialect) if rule is not None else None
    if said is None:
        return None
    params, cols, text = said
    if text is None:  # check names carry the text whitespace-normalised
        text = " ".join(clause.text.split())
    return Clause(clause.id, clause.kind, cols, make_params(**params), text, severity=clause.severity)


# ---------------------------------------------------------------------------------------------
# one function per kind: (contract, clause, dialect) -> (params, columns, text or None for the
# clause's own) of what the reader returns, or None


Said = tuple[dict[str, Any], tuple[str, ...], "str | None"]
Projection = Callable[["Contract", Clause, str], "Said | None"]


def _on_column(*keys: str) -> Projection:
    """The clause's `keys` as they are, read back on its column."""
    def said(contract: Contract, clause: Clause, dialect: str) -> Said:
        return {key: clause.param(key) for key in keys}, (clause.param("column"),), None

    return said


def _on_columns(contract: Contract, clause: Clause, dialect: str) -> Said:
    columns = tuple(clause.param("columns"))
    return {"columns": columns}, columns, None


def _column_said(contract: Contract, clause: Clause, dialect: str) -> Said:
    col = clause.param("column")
    return {"column": col, "soda_type": soda_type(clause.param("type"), dialect)}, (col,), ""


def _accepted_values_said(contract: Contract, clause: Clause, dialect: str) -> Said:
    return {"column": clause.param("column"), "values": tuple(clause.param("values"))}, (clause.param("column"),), None


def _query_said(contract: Contract, clause: Clause, dialect: str) -> Said | None:
    """A fail query's SQL (None: the clause has none)."""
    text = fail_query_sql(contract, clause, dialect)
    return None if text is None else ({"sql": normalize_sql(text)}, (), None)


def _range_said(contract: Contract, clause: Clause, dialect: str) -> Said | None:
    if range_exact(clause):
        return _on_column("column", "min", "max", "min_inclusive", "max_inclusive")(contract, clause, dialect)
    return _query_said(contract, clause, dialect)


def _timed(contract: Contract) -> bool:
    """Whether the contract has a time column (checks then take the increment, `_increment`)."""
    return contract.time is not None and bool(contract.time.column)


def _references_said(contract: Contract, clause: Clause, dialect: str) -> Said | None:
    if not clause.warn and not _timed(contract):
        return _on_column("column", "to_relation", "to_column")(contract, clause, dialect)
    return {"sql": normalize_sql(str(fail_query_sql(contract, clause, dialect)))}, (), None


def _invariant_said(contract: Contract, clause: Clause, dialect: str) -> Said | None:
    text = invariant_sql(clause, dialect)
    return None if text is None else ({"sql": normalize_sql(text)}, (), clause.id.removeprefix("invariant:"))


def _freshness_said(contract: Contract, clause: Clause, dialect: str) -> Said | None:
    if clause.param("whole_days"):
        return _query_said(contract, clause, dialect)
    col = clause.param("column")
    return {"column": col, "max_age_seconds": int(clause.param("max_age_seconds"))}, (col,), None


PROJECT: KindTable[Projection] = KindTable("soda", "project", {
    "column": _column_said,
    "no_unknown_columns": _on_columns,
    "not_null": _on_column("column"),
    "unique": _on_columns,
    "accepted_values": _accepted_values_said,
    "fixed_value": _on_column("column", "value"),
    "pattern": _on_column("column", "pattern"),
    "references": _references_said,
    "range": _range_said,
    "invariant": _invariant_said,
    "precision": _query_said,
    "freshness": _freshness_said,
    "cadence": _query_said,
    "completeness": _query_said,
    "catalog_unit": _query_said,
    "catalog_bounds": _query_said,
    "plausible": _query_said,
    "catalog_dimension": _query_said,
    "revision_window": _query_said,
    "revision_by": _query_said,
})
