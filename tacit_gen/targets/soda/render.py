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
from typing import TYPE_CHECKING, Any

import yaml

from tacit_gen import sql
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.sql.dialects import DIALECTS
from tacit_gen.targets.base import (
    Artifact,
    ContractKey,
    NoOptions,
    RenderOptions,
    RenderResult,
    Unsupported,
)
from tacit_gen.targets.header import comment_header

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract

NAME = "soda"
SCHEMA_IDENTITY = "column:*"
UNKNOWN_COLUMNS_METRIC = "unknown_column_count"
CLAUSE_MARK = "-- tacit_clause: "
NOW_VARIABLE = "NOW"

# Contract type -> the type Soda's data source reports for the column (lower-cased
# information_schema data_type), per dialect. enum columns are strings in the data; their values
# are the accepted_values check's job. PostgreSQL reports `numeric` without precision and `text`.
SODA_TYPES: dict[str, dict[str, str]] = {
    "duckdb": {"string": "varchar", "bool": "boolean", "int32": "integer", "int64": "bigint",
               "float32": "float", "float64": "double", "date": "date",
               "timestamp": "timestamp with time zone", "decimal": "decimal({p},{s})"},
    "postgres": {"string": "text", "bool": "boolean", "int32": "integer", "int64": "bigint",
                 "float32": "real", "float64": "double precision", "date": "date",
                 "timestamp": "timestamp with time zone", "decimal": "numeric"},
    "spark": {"string": "string", "bool": "boolean", "int32": "int", "int64": "bigint",
              "float32": "float", "float64": "double", "date": "date",
              "timestamp": "timestamp", "decimal": "decimal({p},{s})"},
    "snowflake": {"string": "text", "bool": "boolean", "int32": "number", "int64": "number",
                  "float32": "float", "float64": "float", "date": "date",
                  "timestamp": "timestamp_tz", "decimal": "number"},
    "bigquery": {"string": "string", "bool": "bool", "int32": "int64", "int64": "int64",
                 "float32": "float64", "float64": "float64", "date": "date",
                 "timestamp": "timestamp", "decimal": "numeric"},
}
SODA_TYPES["databricks"] = SODA_TYPES["spark"]
TIMESTAMP_TZ = "timestamp with time zone"


def soda_type(contract_type: str, dialect: str = "duckdb") -> str:
    """The type text a schema check expects for a contract type on a dialect's data source."""
    table = SODA_TYPES[dialect]
    if contract_type in table:
        return table[contract_type]
    if contract_type.startswith("timestamp_"):
        return table["timestamp"]
    if contract_type.startswith("enum["):
        return table["string"]
    m = re.fullmatch(r"decimal\((\d+),(\d+)\)", contract_type.replace(" ", ""))
    if m:
        return table["decimal"].format(p=m.group(1), s=m.group(2))
    raise ValueError(f"no Soda type for '{contract_type}'")


def ident(name: str, dialect: str = "duckdb") -> str:
    """An identifier of the dialect, quoted only when it must be."""
    return sql.ident(name, dialect)


def literal(value: str, dialect: str = "duckdb") -> str:
    """A SQL string literal of the dialect."""
    return sql.literal(value, dialect)


_JINJA_OPEN = re.compile(r"\$\{|\{%|\{#")


def jinja_escape(text: str) -> str:
    """Soda runs names and SQL through Jinja (`${var}`, `{% %}`, `{# #}`): keep openers literal."""
    return _JINJA_OPEN.sub(lambda m: "${'" + m.group(0) + "'}", text)


def check_name(clause: Clause, part: str = "") -> str:
    """A check's `name:`: ``<clause id>: <verbatim contract text>`` with whitespace normalised,
    so two checks from one contract line (``key: [order_id]`` gives not-null and unique) read
    apart. An invariant's id already is its text: the name is the id."""
    if clause.kind == "invariant":
        return jinja_escape(clause.id)
    return jinja_escape(f"{clause.id}{part}: {' '.join(clause.text.split())}")


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


def _valid_value(value: Any, dialect: str = "duckdb") -> Any:
    """A `valid values` entry. Soda 3.5.6 pastes strings into '...' without escaping: the text is
    escaped here as the dialect's literal body (quote doubled; backslash doubled where the dialect
    reads it as an escape)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return Num(str(value))
    return jinja_escape(sql.literal(str(value), dialect)[1:-1])


def _fail_query(clause_id: str, sql_text: str) -> Block:
    return Block(jinja_escape(CLAUSE_MARK + clause_id + "\n" + sql_text.rstrip("\n") + "\n"))


def _dec(text: str) -> str:
    """Exact decimal text, without exponent or trailing zeros."""
    d = Decimal(text)
    s = format(d.normalize(), "f")
    return s


def _n(text: str) -> Any:
    return sql.number(text)


def cadence_sql(clause: Clause, dataset: str, has_revision: bool, dialect: str = "duckdb") -> str:
    """Rows whose step from the previous point of the same series is off the cadence."""
    from sqlglot import exp

    col = sql.column(clause.param("column"))
    series = [sql.column(s) for s in clause.param("series") or ()]
    tol = Decimal(str(clause.param("tolerance_pct") or "0"))
    # rows with a NULL time or series value are not points (not_null's business)
    present = exp.and_(*[sql.is_not_null(x.copy()) for x in [col, *series]])
    ds = sql.relation(dataset)
    if has_revision:
        rev = sql.column("revision")
        latest = exp.Window(this=exp.Max(this=rev.copy()),
                            partition_by=[x.copy() for x in [*series, col]])
        inner = (exp.select(exp.Star(), exp.alias_(latest, "_tacit_latest"))
                 .from_(ds).where(present).subquery("d"))
        keep = exp.or_(exp.EQ(this=rev.copy(), expression=sql.column("_tacit_latest")),
                       exp.Paren(this=exp.and_(sql.is_null(sql.column("_tacit_latest")),
                                               sql.is_null(rev.copy()))))
        points = exp.select(exp.Star()).from_(inner).where(keep)
    else:
        points = exp.select(exp.Star()).from_(ds).where(present)
    lag = sql.lag_over(col.copy(), [x.copy() for x in series], col.copy(), dialect)
    step = exp.Sub(this=sql.epoch_us(col.copy(), dialect), expression=sql.epoch_us(lag, dialect))
    steps = exp.select(exp.Star(), exp.alias_(step, "_tacit_step_us")).from_("points")
    if clause.param("from_catalog"):
        ccol = sql.column(clause.param("catalog_column"), "c")
        s_step = sql.column("_tacit_step_us", "s")
        lo = exp.Mul(this=ccol.copy(), expression=_n(_dec(str(10000 * (100 - tol)))))
        hi = exp.Mul(this=ccol.copy(), expression=_n(_dec(str(10000 * (100 + tol)))))
        cond: Any = exp.LT(this=s_step.copy(), expression=lo)
        if not clause.param("gaps_allowed"):
            cond = exp.Paren(this=exp.or_(cond, exp.GT(this=s_step.copy(), expression=hi)))
        on = exp.EQ(this=sql.column(clause.param("catalog_key"), "c"),
                    expression=sql.column(clause.param("series")[0], "s"))
        # A series with no catalog entry (or no interval) is a violation, never a silent pass.
        final = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("s")))
                 .from_(exp.alias_(exp.to_table("steps"), "s", table=True))
                 .join(exp.alias_(sql.relation(clause.param("relation")), "c", table=True),
                       on=on, join_type="LEFT")
                 .where(exp.or_(sql.is_null(ccol.copy()),
                                exp.Paren(this=exp.and_(sql.is_not_null(s_step.copy()), cond)))))
    else:
        interval_us = Decimal(int(clause.param("interval_seconds"))) * 1000000
        step_c = sql.column("_tacit_step_us")
        lo_n = _n(_dec(str(interval_us * (100 - tol) / 100)))
        hi_n = _n(_dec(str(interval_us * (100 + tol) / 100)))
        cond = exp.LT(this=step_c.copy(), expression=lo_n)
        if not clause.param("gaps_allowed"):
            cond = exp.Paren(this=exp.or_(cond, exp.GT(this=step_c.copy(), expression=hi_n)))
        final = (exp.select(exp.Star()).from_("steps")
                 .where(exp.and_(sql.is_not_null(step_c.copy()), cond)))
    final = final.with_("points", as_=points).with_("steps", as_=steps)
    return sql.pretty(final, dialect) + "\n"


def _catalog_rows(clause: Clause, dataset: str, bad: Any, dialect: str) -> str:
    from sqlglot import exp

    on = exp.EQ(this=sql.column(clause.param("catalog_key"), "c"),
                expression=sql.column(clause.param("key"), "d"))
    q = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("d")))
         .from_(exp.alias_(sql.relation(dataset), "d", table=True))
         .join(exp.alias_(sql.relation(clause.param("relation")), "c", table=True), on=on,
               join_type="LEFT")
         .where(exp.and_(sql.is_not_null(sql.column(clause.param("column"), "d")),
                         exp.Paren(this=exp.or_(
                             sql.is_null(sql.column(clause.param("catalog_key"), "c")), bad)))))
    return sql.pretty(q, dialect) + "\n"


def catalog_unit_sql(clause: Clause, dataset: str, dialect: str = "duckdb") -> str:
    from sqlglot import exp

    same = exp.EQ(this=sql.column(clause.param("column"), "d"),
                  expression=sql.column(clause.param("catalog_column"), "c"))
    return _catalog_rows(clause, dataset, exp.Not(this=exp.Paren(this=same)), dialect)


def catalog_bounds_sql(clause: Clause, dataset: str, dialect: str = "duckdb") -> str:
    from sqlglot import exp

    v = sql.column(clause.param("column"), "d")
    inside = exp.and_(exp.LTE(this=sql.column(clause.param("min_column"), "c"), expression=v),
                      exp.LTE(this=v.copy(), expression=sql.column(clause.param("max_column"), "c")))
    return _catalog_rows(clause, dataset, exp.Not(this=exp.Paren(this=inside)), dialect)


def revision_window_sql(clause: Clause, dataset: str, dialect: str = "duckdb") -> str | None:
    """Rows restated against the policy; None when the policy has nothing row-level to check."""
    from sqlglot import exp

    rev = sql.column(clause.param("column") or "revision")
    base = exp.select(exp.Star()).from_(sql.relation(dataset))
    if not clause.param("allowed"):
        return sql.pretty(base.where(exp.NEQ(this=rev, expression=exp.Literal.number(0))),
                          dialect) + "\n"
    ingest = clause.param("ingest_column")
    tcol = clause.param("time_column")
    bdays = clause.param("business_days")
    window = clause.param("window_seconds")
    if not ingest or not tcol or (bdays is None and window is None):
        return None
    i, t = sql.column(ingest), sql.column(tcol)
    if bdays is not None:
        late: Any = exp.GT(
            this=exp.Sub(this=sql.weekdays_through(sql.utc_date(i, dialect), dialect),
                         expression=sql.weekdays_through(sql.utc_date(t, dialect), dialect)),
            expression=exp.Literal.number(int(bdays)))
    else:
        late = exp.GT(this=exp.Sub(this=sql.epoch_us(i, dialect), expression=sql.epoch_us(t, dialect)),
                      expression=exp.Literal.number(int(window) * 1000000))
    q = base.where(exp.and_(exp.GT(this=rev, expression=exp.Literal.number(0)), late))
    return sql.pretty(q, dialect) + "\n"


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


def unknown_columns_sql(dataset: str, columns: tuple[str, ...], dialect: str = "duckdb") -> str:
    from sqlglot import exp

    q = (exp.select(exp.Count(this=exp.Star()))
         .from_(exp.to_table("information_schema.columns"))
         .where(exp.and_(
             exp.EQ(this=exp.column("table_schema"), expression=exp.CurrentSchema()),
             exp.EQ(this=exp.column("table_name"), expression=sql.string(dataset)),
             exp.Not(this=exp.In(this=exp.column("column_name"),
                                 expressions=[sql.string(c) for c in columns])))))
    return sql.pretty(q, dialect) + "\n"


def fail_query_sql(contract: Contract, clause: Clause, dialect: str = "duckdb") -> str | None:
    """The failed-rows SQL of a cadence / catalog / revision clause (None: not expressible)."""
    ds = dataset_name(contract)
    if clause.kind == "cadence":
        if clause.param("from_catalog") and len(clause.param("series") or ()) != 1:
            return None
        if not clause.param("from_catalog") and not clause.param("interval_seconds"):
            return None
        return cadence_sql(clause, ds, contract.field("revision") is not None, dialect)
    if clause.kind == "catalog_unit":
        return catalog_unit_sql(clause, ds, dialect)
    if clause.kind == "catalog_bounds":
        return catalog_bounds_sql(clause, ds, dialect)
    if clause.kind == "revision_window":
        return revision_window_sql(clause, ds, dialect)
    return None


def invariant_sql(clause: Clause, dialect: str = "duckdb") -> str | None:
    if clause.expr is None:
        return None
    try:
        return sql.to_sql(clause.expr, dialect)
    except ValueError:
        return None


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
    for c in clauses:
        k = c.kind
        if k == "column":
            continue
        if k == "no_unknown_columns":
            checks.append(
                {
                    f"{UNKNOWN_COLUMNS_METRIC} = 0": {
                        "name": check_name(c),
                        "identity": c.id,
                        f"{UNKNOWN_COLUMNS_METRIC} query": Block(
                            jinja_escape(unknown_columns_sql(ds, tuple(c.param("columns")), dialect))
                        ),
                    }
                }
            )
        elif k == "not_null":
            checks.append(
                {
                    f"missing_count({ident(c.param('column'), dialect)}) = 0": {
                        "name": check_name(c),
                        "identity": c.id,
                    }
                }
            )
        elif k == "unique":
            args = ", ".join(ident(x, dialect) for x in c.param("columns"))
            checks.append(
                {f"duplicate_count({args}) = 0": {"name": check_name(c), "identity": c.id}}
            )
        elif k in ("accepted_values", "fixed_value"):
            values = c.param("values") if k == "accepted_values" else (c.param("value"),)
            checks.append(
                {
                    f"invalid_count({ident(c.param('column'), dialect)}) = 0": {
                        "name": check_name(c),
                        "identity": c.id,
                        "valid values": [_valid_value(v, dialect) for v in values],
                    }
                }
            )
        elif k == "range":
            checks.extend(_range_checks(c, dialect))
        elif k == "invariant":
            text = invariant_sql(c, dialect)
            if text is None:
                unsupported.append(Unsupported(NAME, c.id, "no single-row SQL form"))
                continue
            checks.append(
                {
                    "failed rows": {
                        "name": check_name(c),
                        "fail condition": jinja_escape(f"NOT ({strip_parens(text)})"),
                    }
                }
            )
        elif k == "freshness":
            line = (f"freshness({ident(c.param('column'), dialect)}) < "
                    f"{soda_duration(int(c.param('max_age_seconds')))}")
            checks.append({line: {"name": check_name(c), "identity": c.id}})
        elif k in ("cadence", "catalog_unit", "catalog_bounds", "revision_window"):
            text = fail_query_sql(contract, c, dialect)
            if text is None:
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
                        "name": check_name(c),
                        "fail query": _fail_query(c.id, text),
                    }
                }
            )
        else:
            unsupported.append(Unsupported(NAME, c.id, f"clause kind '{k}' has no Soda check"))
    return checks, unsupported


def _comment(text: str) -> str:
    return " ".join(text.split())


class SodaTarget:
    """(The reader is bound in `target.py`.) Renders SodaCL and reads it back."""

    name = NAME
    options = NoOptions
    contract_keys = (
        ContractKey("dataset", "Soda dataset name"),
        ContractKey("dialect", "SQL dialect of the target's queries and type names (default: the --dialect option, else the dbt adapter's, else duckdb)", kind="choice", choices=DIALECTS),
    )
    artifact_name_option = "dataset"
    engine = "tacit_gen.targets.soda.engine"
    templates = False

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


def wrapped(text: str) -> bool:
    """True when the whole text is one parenthesised group (quotes respected)."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth, quote = 0, ""
    for i, ch in enumerate(text):
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
            if depth == 0 and i != len(text) - 1:
                return False
    return depth == 0


def strip_parens(text: str) -> str:
    """`((a AND b))` -> `a AND b`."""
    text = text.strip()
    while wrapped(text):
        text = text[1:-1].strip()
    return text


def normalize_sql(text: str) -> str:
    """SQL with its `-- tacit_clause` line dropped, whitespace collapsed, outer parens removed."""
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith(CLAUSE_MARK.strip())]
    return strip_parens(" ".join(" ".join(lines).split()))


def project(contract: Contract, clause: Clause, dialect: str = "duckdb") -> Clause | None:
    k = clause.kind
    p = clause.param
    params: dict[str, Any]
    cols: tuple[str, ...] = ()
    text = " ".join(clause.text.split())  # check names carry the text whitespace-normalised
    if k == "column":
        params = {"column": p("column"), "soda_type": soda_type(p("type"), dialect)}
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
        text_sql = invariant_sql(clause, dialect)
        if text_sql is None:
            return None
        params, text = {"sql": normalize_sql(text_sql)}, clause.id.removeprefix("invariant:")
    elif k == "freshness":
        params = {"column": p("column"), "max_age_seconds": int(p("max_age_seconds"))}
        cols = (p("column"),)
    elif k in ("cadence", "catalog_unit", "catalog_bounds", "revision_window"):
        text_sql = fail_query_sql(contract, clause, dialect)
        if text_sql is None:
            return None
        params = {"sql": normalize_sql(text_sql)}
    else:
        return None
    return Clause(clause.id, k, cols, make_params(**params), text)
