"""Soda v3 target: one SodaCL file per contract (`soda/<contract>.yml`), in the idiom of seed 001.

Each clause becomes one check (a `range` with an exclusive side becomes a `min` and a `max`
check); every check is named with the clause text and carries the clause id where Soda keeps it:
`identity:` on metric and schema checks (it comes back as `source_identity` in
`Scan.get_scan_results()`), the invariant text as the `name:` of a `fail condition` check (Soda
rejects `identity:` on `failed rows` checks), and a `-- tacit_clause: <id>` first line in the SQL of
a `fail query` check. The `column:` clauses share one schema check, as in the seed.

Decisions (see docs/engines/soda.md):
- "no unexpected columns": SodaCL has no documented "only these columns" validation, so a
  user-defined metric counts the columns of `information_schema.columns` not in the contract.
- `range`: inclusive bounds use `invalid_count(c) = 0` with `valid min` / `valid max` (a failing
  row count, and an empty table passes); an exclusive bound uses `min(c) > x` / `max(c) < y`.
- Soda 3.5.6 pastes `valid values` into SQL without escaping: a quote is written doubled.
- Fail queries (cadence, catalog, revision window) are DuckDB SQL.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from tacit_gen.plan_types import Clause, make_params
from tacit_gen.targets.base import Artifact, RenderOptions, RenderResult, Unsupported
from tacit_gen.targets.header import comment_header

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.drift.base import ReadResult

NAME = "soda"
SCHEMA_IDENTITY = "column:*"
UNKNOWN_COLUMNS_METRIC = "unknown_column_count"
CLAUSE_MARK = "-- tacit_clause: "
NOW_VARIABLE = "NOW"

# Contract type -> the type Soda's DuckDB data source reports (lower-cased information_schema).
# enum columns are VARCHAR in the data; their values are the accepted_values check's job.
SODA_TYPES: dict[str, str] = {
    "string": "varchar",
    "bool": "boolean",
    "int32": "integer",
    "int64": "bigint",
    "float32": "float",
    "float64": "double",
    "date": "date",
}
TIMESTAMP_TZ = "timestamp with time zone"


def soda_type(contract_type: str) -> str:
    """The DuckDB type text a schema check expects for a contract type."""
    if contract_type in SODA_TYPES:
        return SODA_TYPES[contract_type]
    if contract_type.startswith("timestamp_"):
        return TIMESTAMP_TZ
    if contract_type.startswith("enum["):
        return "varchar"
    m = re.fullmatch(r"decimal\((\d+),(\d+)\)", contract_type.replace(" ", ""))
    if m:
        return f"decimal({m.group(1)},{m.group(2)})"
    raise ValueError(f"no Soda type for '{contract_type}'")


def ident(name: str) -> str:
    """A DuckDB identifier, quoted only when it must be (shared with the invariant compiler)."""
    from tacit_gen.expr.sql import ident as _ident

    return _ident(name, "duckdb")


def literal(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


_JINJA_OPEN = re.compile(r"\$\{|\{%|\{#")


def jinja_escape(text: str) -> str:
    """Soda runs names and SQL through Jinja (`${var}`, `{% %}`, `{# #}`): keep openers literal."""
    return _JINJA_OPEN.sub(lambda m: "${'" + m.group(0) + "'}", text)


def jinja_unescape(text: str) -> str:
    return re.sub(r"\$\{'(\$\{|\{%|\{#)'\}", lambda m: m.group(1), text)


def dataset_name(contract: Contract) -> str:
    """The Soda dataset: the contract name unless `targets: {soda: {dataset: ...}}` says otherwise."""
    return str(contract.target_option(NAME, "dataset", contract.name))


def artifact_path(contract: Contract) -> str:
    return f"soda/{contract.name}.yml"


# --- one deterministic YAML writer ------------------------------------------------------------


class Num(str):
    """A number kept as its exact decimal text; written as a plain YAML number."""


class Block(str):
    """Multi-line text (SQL), written as a YAML literal block."""


class _Dumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _num_repr(dumper: yaml.SafeDumper, value: Num) -> yaml.Node:
    tag = "tag:yaml.org,2002:int" if re.fullmatch(r"-?\d+", value) else "tag:yaml.org,2002:float"
    return dumper.represent_scalar(tag, str(value))


def _block_repr(dumper: yaml.SafeDumper, value: Block) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style="|")


_Dumper.add_representer(Num, _num_repr)
_Dumper.add_representer(Block, _block_repr)


def dump(data: Any) -> str:
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=10**9,
        default_flow_style=False,
    )


class Loader(yaml.SafeLoader):
    """Safe loader that keeps numbers as their exact text (`Num`), so bounds round-trip."""


def _num_ctor(loader: yaml.SafeLoader, node: yaml.Node) -> Num:
    return Num(loader.construct_scalar(node))  # type: ignore[arg-type]


Loader.add_constructor("tag:yaml.org,2002:int", _num_ctor)
Loader.add_constructor("tag:yaml.org,2002:float", _num_ctor)


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=Loader)


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


def _valid_value(value: Any) -> Any:
    """A `valid values` entry; strings get their quotes doubled (Soda 3.5.6 does not escape)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return Num(str(value))
    return jinja_escape(str(value).replace("'", "''"))


def _cmp_threshold(op: str, value: str) -> str:
    return f"{op} {value}"


def _fail_query(clause_id: str, sql: str) -> Block:
    return Block(jinja_escape(CLAUSE_MARK + clause_id + "\n" + sql.rstrip("\n") + "\n"))


def _dec(text: str) -> str:
    """Exact decimal text, without exponent or trailing zeros."""
    d = Decimal(text)
    s = format(d.normalize(), "f")
    return s


def cadence_sql(clause: Clause, dataset: str, has_revision: bool) -> str:
    """Rows whose step from the previous point of the same series is off the cadence."""
    col = ident(clause.param("column"))
    series = [ident(s) for s in clause.param("series") or ()]
    part = ", ".join(series)
    over_point = ", ".join([*series, col])
    tol = Decimal(str(clause.param("tolerance_pct") or "0"))
    # rows with a NULL time or series value are not points (not_null's business)
    present = " AND ".join(f"{x} IS NOT NULL" for x in [col, *series])
    lines = ["WITH points AS ("]
    if has_revision:
        rev = ident("revision")
        lines += [
            "  SELECT * FROM (",
            f"    SELECT *, MAX({rev}) OVER (PARTITION BY {over_point}) AS _tacit_latest",
            f"    FROM {ident(dataset)}",
            f"    WHERE {present}",
            "  ) AS d",
            f"  WHERE {rev} = _tacit_latest OR (_tacit_latest IS NULL AND {rev} IS NULL)",
            "),",
        ]
    else:
        lines += [f"  SELECT * FROM {ident(dataset)} WHERE {present}", "),"]
    partition = f"PARTITION BY {part} " if part else ""
    lines += [
        "steps AS (",
        f"  SELECT *, DATE_DIFF('microsecond', LAG({col}) OVER ({partition}ORDER BY {col}), {col}) AS _tacit_step_us",
        "  FROM points",
        ")",
    ]
    if clause.param("from_catalog"):
        rel = ident(clause.param("relation"))
        ckey = ident(clause.param("catalog_key"))
        ccol = ident(clause.param("catalog_column"))
        lo = f"c.{ccol} * {_dec(str(10000 * (100 - tol)))}"
        hi = f"c.{ccol} * {_dec(str(10000 * (100 + tol)))}"
        # A series with no catalog entry (or no interval) is a violation, never a silent pass.
        lines += [
            "SELECT s.*",
            "FROM steps AS s",
            f"LEFT JOIN {rel} AS c ON c.{ckey} = s.{series[0]}",
            f"WHERE c.{ccol} IS NULL",
        ]
        cond = f"s._tacit_step_us < {lo}"
        if not clause.param("gaps_allowed"):
            cond = f"({cond} OR s._tacit_step_us > {hi})"
        lines.append(f"   OR (s._tacit_step_us IS NOT NULL AND {cond})")
    else:
        interval_us = Decimal(int(clause.param("interval_seconds"))) * 1000000
        lo = _dec(str(interval_us * (100 - tol) / 100))
        hi = _dec(str(interval_us * (100 + tol) / 100))
        lines += ["SELECT *", "FROM steps", "WHERE _tacit_step_us IS NOT NULL"]
        cond = f"_tacit_step_us < {lo}"
        if not clause.param("gaps_allowed"):
            cond = f"(_tacit_step_us < {lo} OR _tacit_step_us > {hi})"
        lines.append(f"  AND {cond}")
    return "\n".join(lines) + "\n"


def catalog_unit_sql(clause: Clause, dataset: str) -> str:
    col, key = ident(clause.param("column")), ident(clause.param("key"))
    ckey, ccol = ident(clause.param("catalog_key")), ident(clause.param("catalog_column"))
    return (
        "\n".join(
            [
                "SELECT d.*",
                f"FROM {ident(dataset)} AS d",
                f"LEFT JOIN {ident(clause.param('relation'))} AS c ON c.{ckey} = d.{key}",
                f"WHERE d.{col} IS NOT NULL",
                f"  AND (c.{ckey} IS NULL OR NOT (d.{col} = c.{ccol}))",
            ]
        )
        + "\n"
    )


def catalog_bounds_sql(clause: Clause, dataset: str) -> str:
    col, key = ident(clause.param("column")), ident(clause.param("key"))
    ckey = ident(clause.param("catalog_key"))
    lo, hi = ident(clause.param("min_column")), ident(clause.param("max_column"))
    return (
        "\n".join(
            [
                "SELECT d.*",
                f"FROM {ident(dataset)} AS d",
                f"LEFT JOIN {ident(clause.param('relation'))} AS c ON c.{ckey} = d.{key}",
                f"WHERE d.{col} IS NOT NULL",
                f"  AND (c.{ckey} IS NULL OR NOT (c.{lo} <= d.{col} AND d.{col} <= c.{hi}))",
            ]
        )
        + "\n"
    )


def _weekdays_through(date_sql: str) -> str:
    """Mon-Fri days from 1900-01-01 (a Monday) through `date_sql`, inclusive."""
    days = f"DATE_DIFF('day', DATE '1900-01-01', {date_sql})"
    return f"(5 * ({days} // 7) + LEAST({days} % 7 + 1, 5))"


def revision_window_sql(clause: Clause, dataset: str) -> str | None:
    """Rows restated against the policy; None when the policy has nothing row-level to check."""
    rev = ident(clause.param("column") or "revision")
    if not clause.param("allowed"):
        return f"SELECT *\nFROM {ident(dataset)}\nWHERE {rev} <> 0\n"
    ingest = clause.param("ingest_column")
    tcol = clause.param("time_column")
    bdays = clause.param("business_days")
    window = clause.param("window_seconds")
    if not ingest or not tcol or (bdays is None and window is None):
        return None
    i, t = ident(ingest), ident(tcol)
    if bdays is not None:
        d_event = f"CAST(TIMEZONE('UTC', {t}) AS DATE)"
        d_ingest = f"CAST(TIMEZONE('UTC', {i}) AS DATE)"
        late = f"{_weekdays_through(d_ingest)} - {_weekdays_through(d_event)} > {int(bdays)}"
    else:
        late = f"DATE_DIFF('microsecond', {t}, {i}) > {int(window) * 1000000}"
    return (
        "\n".join(["SELECT *", f"FROM {ident(dataset)}", f"WHERE {rev} > 0", f"  AND {late}"])
        + "\n"
    )


def _range_checks(clause: Clause) -> list[dict[str, Any]]:
    col = clause.param("column")
    lo, hi = clause.param("min"), clause.param("max")
    lo_inc, hi_inc = clause.param("min_inclusive", True), clause.param("max_inclusive", True)
    inclusive = (lo is None or lo_inc) and (hi is None or hi_inc)
    if inclusive:
        cfg: dict[str, Any] = {"name": jinja_escape(clause.text), "identity": clause.id}
        if lo is not None:
            cfg["valid min"] = Num(lo)
        if hi is not None:
            cfg["valid max"] = Num(hi)
        return [{f"invalid_count({ident(col)}) = 0": cfg}]
    out = []
    if lo is not None:
        op = ">=" if lo_inc else ">"
        out.append(
            {
                f"min({ident(col)}) {op} {lo}": {
                    "name": jinja_escape(clause.text),
                    "identity": clause.id + " (min)",
                }
            }
        )
    if hi is not None:
        op = "<=" if hi_inc else "<"
        out.append(
            {
                f"max({ident(col)}) {op} {hi}": {
                    "name": jinja_escape(clause.text),
                    "identity": clause.id + " (max)",
                }
            }
        )
    return out


def unknown_columns_sql(dataset: str, columns: tuple[str, ...]) -> str:
    names = ", ".join(literal(c) for c in columns)
    return (
        "\n".join(
            [
                "SELECT COUNT(*)",
                "FROM information_schema.columns",
                "WHERE table_schema = CURRENT_SCHEMA()",
                f"  AND table_name = {literal(dataset)}",
                f"  AND column_name NOT IN ({names})",
            ]
        )
        + "\n"
    )


def fail_query_sql(contract: Contract, clause: Clause) -> str | None:
    """The failed-rows SQL of a cadence / catalog / revision clause (None: not expressible)."""
    ds = dataset_name(contract)
    if clause.kind == "cadence":
        if clause.param("from_catalog") and len(clause.param("series") or ()) != 1:
            return None
        if not clause.param("from_catalog") and not clause.param("interval_seconds"):
            return None
        return cadence_sql(clause, ds, contract.field("revision") is not None)
    if clause.kind == "catalog_unit":
        return catalog_unit_sql(clause, ds)
    if clause.kind == "catalog_bounds":
        return catalog_bounds_sql(clause, ds)
    if clause.kind == "revision_window":
        return revision_window_sql(clause, ds)
    return None


def invariant_sql(clause: Clause) -> str | None:
    from tacit_gen.expr.sql import to_sql

    if clause.expr is None:
        return None
    try:
        return to_sql(clause.expr, "duckdb")
    except ValueError:
        return None


def build(contract: Contract, clauses: tuple[Clause, ...]) -> tuple[list[Any], list[Unsupported]]:
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
                            c.param("column"): soda_type(c.param("type")) for c in cols
                        },
                    },
                }
            }
        )
    for c in clauses:
        k = c.kind
        if k == "column":
            continue
        if k == "no_unknown_columns":
            checks.append(
                {
                    f"{UNKNOWN_COLUMNS_METRIC} = 0": {
                        "name": jinja_escape(c.text),
                        "identity": c.id,
                        f"{UNKNOWN_COLUMNS_METRIC} query": Block(
                            jinja_escape(unknown_columns_sql(ds, tuple(c.param("columns"))))
                        ),
                    }
                }
            )
        elif k == "not_null":
            checks.append(
                {
                    f"missing_count({ident(c.param('column'))}) = 0": {
                        "name": jinja_escape(c.text),
                        "identity": c.id,
                    }
                }
            )
        elif k == "unique":
            args = ", ".join(ident(x) for x in c.param("columns"))
            checks.append(
                {f"duplicate_count({args}) = 0": {"name": jinja_escape(c.text), "identity": c.id}}
            )
        elif k in ("accepted_values", "fixed_value"):
            values = c.param("values") if k == "accepted_values" else (c.param("value"),)
            checks.append(
                {
                    f"invalid_count({ident(c.param('column'))}) = 0": {
                        "name": jinja_escape(c.text),
                        "identity": c.id,
                        "valid values": [_valid_value(v) for v in values],
                    }
                }
            )
        elif k == "range":
            checks.extend(_range_checks(c))
        elif k == "invariant":
            sql = invariant_sql(c)
            if sql is None:
                unsupported.append(Unsupported(NAME, c.id, "no single-row SQL form"))
                continue
            checks.append(
                {
                    "failed rows": {
                        "name": jinja_escape(c.id.removeprefix("invariant:")),
                        "fail condition": jinja_escape(f"NOT ({strip_parens(sql)})"),
                    }
                }
            )
        elif k == "freshness":
            line = f"freshness({ident(c.param('column'))}) < {soda_duration(int(c.param('max_age_seconds')))}"
            checks.append({line: {"name": jinja_escape(c.text), "identity": c.id}})
        elif k in ("cadence", "catalog_unit", "catalog_bounds", "revision_window"):
            sql = fail_query_sql(contract, c)
            if sql is None:
                reason = (
                    "the revision policy states no row-level rule (no ingest column or no window)"
                    if k == "revision_window"
                    else "a catalog cadence needs exactly one series column"
                )
                unsupported.append(Unsupported(NAME, c.id, reason))
                continue
            checks.append(
                {
                    "failed rows": {
                        "name": jinja_escape(c.text),
                        "fail query": _fail_query(c.id, sql),
                    }
                }
            )
        else:
            unsupported.append(Unsupported(NAME, c.id, f"clause kind '{k}' has no Soda check"))
    return checks, unsupported


def _comment(text: str) -> str:
    return " ".join(text.split())


class SodaTarget:
    """Renders SodaCL and reads it back."""

    name = NAME

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (artifact_path(contract),)

    def render(
        self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions
    ) -> RenderResult:
        checks, unsupported = build(contract, clauses)
        head = comment_header(contract)
        head += (
            f"# Soda v3 (SodaCL). Pin freshness with a scan variable: soda scan -d <data source> "
            f"-v {NOW_VARIABLE}=<ISO-8601 UTC instant> {artifact_path(contract)}\n"
        )
        if unsupported:
            head += "# Clauses this file cannot check (unsupported by the Soda target):\n"
            for u in unsupported:
                head += f"#   - {_comment(u.clause_id)}: {_comment(u.reason)}\n"
        body = dump({f"checks for {dataset_name(contract)}": checks}) if checks else ""
        return RenderResult(
            artifacts=(Artifact(artifact_path(contract), head + body),),
            unsupported=tuple(unsupported),
        )

    def read(self, path: Path, text: str) -> ReadResult:
        from tacit_gen.targets.soda.read import read

        return read(path, text)

    def project(self, contract: Contract, clause: Clause) -> Clause | None:
        """What a faithful Soda artifact says about `clause`: the reader returns exactly this.

        None when the clause is unsupported. Column types are DuckDB types (`soda_type`);
        invariants and the fail-query clauses are compared as SQL (`sql`).
        """
        return project(contract, clause)


def _wrapped(sql: str) -> bool:
    """True when the whole text is one parenthesised group (quotes respected)."""
    if not (sql.startswith("(") and sql.endswith(")")):
        return False
    depth, quote = 0, ""
    for i, ch in enumerate(sql):
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != len(sql) - 1:
                return False
    return depth == 0


def strip_parens(sql: str) -> str:
    """`((a AND b))` -> `a AND b`."""
    sql = sql.strip()
    while _wrapped(sql):
        sql = sql[1:-1].strip()
    return sql


def normalize_sql(sql: str) -> str:
    """SQL with its `-- tacit_clause` line dropped, whitespace collapsed, outer parens removed."""
    lines = [ln for ln in sql.splitlines() if not ln.strip().startswith(CLAUSE_MARK.strip())]
    return strip_parens(" ".join(" ".join(lines).split()))


def project(contract: Contract, clause: Clause) -> Clause | None:
    k = clause.kind
    p = clause.param
    params: dict[str, Any]
    cols: tuple[str, ...] = ()
    text = clause.text
    if k == "column":
        params = {"column": p("column"), "soda_type": soda_type(p("type"))}
        cols, text = (p("column"),), ""
    elif k == "no_unknown_columns":
        params = {"columns": tuple(p("columns"))}
        cols = tuple(p("columns"))
    elif k == "not_null":
        params, cols = {"column": p("column")}, (p("column"),)
    elif k == "unique":
        params, cols = {"columns": tuple(p("columns"))}, tuple(p("columns"))
    elif k == "accepted_values":
        params = {"column": p("column"), "values": tuple(p("values"))}
        cols = (p("column"),)
    elif k == "fixed_value":
        params, cols = {"column": p("column"), "value": p("value")}, (p("column"),)
    elif k == "range":
        params = {key: p(key) for key in ("column", "min", "max", "min_inclusive", "max_inclusive")}
        cols = (p("column"),)
    elif k == "invariant":
        sql = invariant_sql(clause)
        if sql is None:
            return None
        params, text = {"sql": normalize_sql(sql)}, clause.id.removeprefix("invariant:")
    elif k == "freshness":
        params = {"column": p("column"), "max_age_seconds": int(p("max_age_seconds"))}
        cols = (p("column"),)
    elif k in ("cadence", "catalog_unit", "catalog_bounds", "revision_window"):
        sql = fail_query_sql(contract, clause)
        if sql is None:
            return None
        params = {"sql": normalize_sql(sql)}
    else:
        return None
    return Clause(clause.id, k, cols, make_params(**params), text)


TARGET = SodaTarget()
