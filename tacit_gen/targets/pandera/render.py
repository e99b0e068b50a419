"""pandera target: one Python module per contract with a schema factory (`pandera/<contract>.py`).

The module defines ``schema(catalog=None, now=None) -> pandera.DataFrameSchema`` and, when no
clause needs a catalog frame or "now", a module-level ``SCHEMA``. It validates Arrow-backed pandas
frames (``pandas.ArrowDtype`` columns, see `tacit_gen.targets.pandera.engine.read_frame`):

- ``column:<c>``: ``Column(pd.ArrowDtype(<exact arrow type>))``; timestamps and enums, whose
  Arrow type is not one exact dtype (any unit, tz UTC; string or dictionary text), get a check
  named ``column:<c>`` instead.
- ``no_unknown_columns``: ``strict=True``; ``unique:``: a named ``duplicated`` check over the rows
  whose key holds no NULL (SQL UNIQUE); ``not_null:``:
  ``nullable=False`` (every other column says ``nullable=True``: pandera's default is False).
- ``accepted_values`` / ``fixed_value`` / ``range``: ``Check.isin`` / ``Check.eq`` /
  ``Check.in_range`` (or ``ge``/``gt``/``le``/``lt``), nulls ignored as in SQL.
- ``invariant:``: the AST compiled to a lambda over pyarrow.compute helpers (Kleene logic), one
  dataframe check per invariant; time-series and catalog clauses: dataframe checks built by the
  module's helpers from the factory's ``catalog`` and ``now``.

Every check is named by its clause id and carries the clause's verbatim text as ``error``. No
pandera, pandas or pyarrow import here: rendering is string work.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from tacit_gen.expr import nodes as n
from tacit_gen.plan_types import uses_sessions
from tacit_gen.targets.base import (
    Artifact,
    ContractKey,
    Engine,
    NoOptions,
    RenderOptions,
    RenderResult,
    Target,
    Unsupported,
    sql_projection,
)
from tacit_gen.targets.header import comment_header

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause

NAME = "pandera"
TEMPLATE = "module.py.j2"

# Contract type -> pyarrow type constructor source, for types with one exact Arrow dtype.
ARROW_TYPES: dict[str, str] = {
    "string": "pyarrow.string()",
    "bool": "pyarrow.bool_()",
    "int32": "pyarrow.int32()",
    "int64": "pyarrow.int64()",
    "float32": "pyarrow.float32()",
    "float64": "pyarrow.float64()",
    "date": "pyarrow.date32()",
}
_DECIMAL = re.compile(r"^decimal\((\d+),(\d+)\)$")

# AST node -> helper of the generated module (see templates/pandera/module.py.j2).
ARITH_HELPERS = {"+": "_add", "-": "_sub", "*": "_mul", "/": "_div"}
BOOL_HELPERS = {n.And: "_and", n.Or: "_or", n.OnlyWhen: "_only_when"}
_INT64_MAX = 2**63 - 1
_INTEGER = re.compile(r"^-?(0|[1-9][0-9]*)$")

# Column-level check constructors per range shape: (has min, has max) -> pandera builtin.

# Clause kinds the module checks per column, and as dataframe checks.
COLUMN_CHECK_KINDS = ("accepted_values", "fixed_value", "pattern", "range")
TIME_HELPERS = {
    "freshness": "_freshness_check",
    "cadence": "_cadence_check",
    "catalog_unit": "_catalog_unit_check",
    "catalog_bounds": "_catalog_bounds_check",
    "catalog_dimension": "_catalog_dimension_check",
    "completeness": "_completeness_check",
    "plausible": "_catalog_bounds_check",  # the same test on the plausible columns, as a warning
    "revision_window": "_revision_window_check",
    "references": "_references_check",
    "revision_by": "_revision_by_check",
}
CATALOG_KINDS = ("catalog_unit", "catalog_bounds", "catalog_dimension", "plausible")
SESSION_COMPLETENESS = "_session_completeness_check"  # `completeness: N per session`


class CompileError(ValueError):
    """An expression node the pandera compiler cannot express."""


def arrow_dtype_source(type_text: str) -> str | None:
    """``pd.ArrowDtype(...)`` source for a contract type, or None when a check is used instead."""
    if type_text in ARROW_TYPES:
        return f"pd.ArrowDtype({ARROW_TYPES[type_text]})"
    m = _DECIMAL.match(type_text)
    if m:
        return f"pd.ArrowDtype(pyarrow.decimal128({int(m.group(1))}, {int(m.group(2))}))"
    return None


def literal(text: str) -> str:
    """A contract number (decimal text) as Python source: an int when exact, else ``Decimal``."""
    if _INTEGER.match(text) and abs(int(text)) <= _INT64_MAX:
        return str(int(text))
    return f"Decimal({text!r})"


def value_source(value: Any, type_text: str) -> str:
    """A fixed value as Python source; decimals (kept as text by the plan) become ``Decimal``."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if type_text.startswith("decimal"):
        return f"Decimal({str(value)!r})"
    if isinstance(value, int):
        return repr(value)
    if type_text in ("float32", "float64", "int32", "int64") and isinstance(value, str):
        return literal(value)
    return repr(str(value))


def compile_expr(node: n.Node) -> str:
    """Compile a resolved invariant AST to a Python expression over the module's helpers.

    The result is evaluated with ``df`` bound to the frame; each node maps to one helper call, so
    the drift reader can decompile it back into the same AST.
    """
    if isinstance(node, n.Column):
        return f"_c(df, {node.name!r})"
    if isinstance(node, n.EnumLiteral):
        return f"_enum({node.value!r})"
    if isinstance(node, n.Number):
        return literal(node.text)
    if isinstance(node, n.String):
        return repr(node.value)
    if isinstance(node, n.Bool):
        return "True" if node.value else "False"
    if isinstance(node, n.Neg):
        return f"_neg({compile_expr(node.operand)})"
    if isinstance(node, n.BinOp):
        return f"{ARITH_HELPERS[node.op]}({compile_expr(node.left)}, {compile_expr(node.right)})"
    if isinstance(node, n.Compare):
        parts = [compile_expr(node.operands[0])]
        for op, operand in zip(node.ops, node.operands[1:], strict=True):
            parts += [repr(op), compile_expr(operand)]
        return f"_cmp({', '.join(parts)})"
    if isinstance(node, n.IsNull):
        helper = "_is_not_null" if node.negated else "_is_null"
        return f"{helper}({compile_expr(node.operand)})"
    if isinstance(node, n.InList):
        helper = "_not_in" if node.negated else "_in"
        args = [compile_expr(node.operand), *(compile_expr(i) for i in node.items)]
        return f"{helper}({', '.join(args)})"
    if isinstance(node, n.Between):
        helper = "_not_between" if node.negated else "_between"
        parts = [compile_expr(node.operand), compile_expr(node.low), compile_expr(node.high)]
        return f"{helper}({', '.join(parts)})"
    if isinstance(node, n.Not):
        return f"_not({compile_expr(node.operand)})"
    for cls, helper in BOOL_HELPERS.items():
        if isinstance(node, cls):
            return f"{helper}({compile_expr(node.left)}, {compile_expr(node.right)})"  # type: ignore[attr-defined]
    raise CompileError(f"{type(node).__name__} cannot be compiled to a row check")


def _call(func: str, args: list[str], indent: str) -> str:
    """A call laid out one argument per line (each ending with a comma)."""
    inner = indent + "    "
    return f"{func}(\n" + "".join(f"{inner}{a},\n" for a in args) + f"{indent})"


@dataclass
class _Parts:
    columns: list[str]
    checks: list[str]
    strict: str
    unsupported: list[Unsupported]
    needs: list[str]


class PanderaTarget(Target):
    """Renderer (clauses -> a pandera module) and reader (module -> clauses)."""

    name = NAME
    options = NoOptions
    contract_keys: tuple[ContractKey, ...] = ()
    artifact_name_option = None
    reader = "tacit_gen.targets.pandera.read:read"
    engines: ClassVar[Mapping[str, Engine]] = {
        "duckdb": Engine("tacit_gen.targets.pandera.engine", ("pandera", "pandas"), "pandera", cost=10),
        "postgres": Engine("tacit_gen.targets.pandera.engine", ("pandera", "pandas", "ibis"),
                           "postgres", cost=10),
        "spark": Engine("tacit_gen.targets.pandera.spark", ("pandera", "pandas", "pyspark"), cost=10,
                        session=True),
    }
    templates = True

    def project(self, contract: Contract, clause: Clause, options: RenderOptions) -> Clause | None:
        """The plan's clause, plus invariant SQL in the dialect `options` give this target."""
        if clause.kind in ("cadence", "revision_window") and uses_sessions(clause) and (
                clause.param("calendar_catalog") is not None or clause.param("from_catalog")):
            return None
        return sql_projection(clause, options.dialect_for(NAME, contract))

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (f"{NAME}/{contract.name}.py",)

    def render(
        self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions
    ) -> RenderResult:
        parts = self._parts(contract, clauses)
        unsupported_items = [
            f"({u.clause_id!r}, {u.reason!r})" for u in parts.unsupported
        ]
        template = _template(options)
        source = template.render(
            header=comment_header(contract),
            contract_name=repr(contract.name),
            contract_version=repr(contract.version),
            description=repr(contract.description),
            unsupported=unsupported_items,
            columns=parts.columns,
            checks=parts.checks,
            strict=parts.strict,
            schema_constant=not parts.needs,
            warn_helper=any(c.warn and c.kind in TIME_HELPERS for c in clauses),
            dimension_helper=any(c.kind == "catalog_dimension" for c in clauses),
            sessions_helpers=any(uses_sessions(c) for c in clauses),
            refs_helpers=any(c.kind == "references" for c in clauses),
            completeness_helpers=any(c.kind == "completeness" and c.param("window_seconds") is not None
                                     for c in clauses),
            session_completeness_helper=any(c.kind == "completeness" and c.param("window_seconds") is None
                                            for c in clauses),
            outages_frame=any(c.param("outages_relation") is not None for c in clauses),
            no_schema_reason=" and ".join(parts.needs) if parts.needs else "",
        )
        path = self.artifact_paths(contract)[0]
        return RenderResult((Artifact(path, source),), tuple(parts.unsupported))

    # -- building blocks -------------------------------------------------------------------
    def _parts(self, contract: Contract, clauses: tuple[Clause, ...]) -> _Parts:
        unsupported: list[Unsupported] = []
        by_column: dict[str, list[Clause]] = {}
        for c in clauses:
            if c.kind in ("column", "not_null", *COLUMN_CHECK_KINDS):
                by_column.setdefault(c.param("column"), []).append(c)
        types = {c.param("column"): c.param("type") for c in clauses if c.kind == "column"}
        columns: list[str] = []
        for column, cs in by_column.items():
            columns.append(self._column(column, cs, types.get(column), unsupported))

        checks: list[str] = []
        needs: list[str] = []
        strict = "False"
        for c in clauses:
            if c.kind == "no_unknown_columns":
                strict = "True"
            elif c.kind == "unique":
                # a named check, not `unique=[...]`: pandera's `unique=` counts two rows with a
                # NULL in the same key column as duplicates; the contract's uniqueness is SQL's
                # UNIQUE (a NULL key is not_null's failure), and a named check can also warn
                cols = list(c.param("columns"))
                checks.append(" " * 12 + _call("pa.Check", [
                    f"lambda df: {unique_body(cols)}",
                    f"name={c.id!r}", f"error={c.text!r}", "ignore_na=False",
                    *(["raise_warning=True"] if c.warn else [])], " " * 12) + ",")
            elif c.kind == "invariant":
                try:
                    body = compile_expr(_expr(c))
                except CompileError as e:
                    unsupported.append(Unsupported(NAME, c.id, str(e)))
                    continue
                checks.append(
                    " " * 12
                    + _call(
                        "pa.Check",
                        [
                            f"lambda df: _holds(df, {body})",
                            f"name={c.id!r}",
                            f"error={c.text!r}",
                            "ignore_na=False",
                            *(["raise_warning=True"] if c.warn else []),
                        ],
                        " " * 12,
                    )
                    + ","
                )
            elif c.kind == "cadence" and uses_sessions(c) and c.param("from_catalog"):
                unsupported.append(Unsupported(
                    NAME, c.id, "a catalog interval within sessions is not expressed in pandera"))
            elif c.kind in TIME_HELPERS:
                check = self._time_check(c, contract)
                if c.warn:  # the helper's pa.Check, made to warn (`_warn` in the module)
                    check = " " * 12 + "_warn(" + check.strip()[:-1] + "),"
                checks.append(check)
                for need in (_needs(c), _needs_outages(c)):
                    if need and need not in needs:
                        needs.append(need)
            elif c.kind not in ("column", "not_null", *COLUMN_CHECK_KINDS):
                unsupported.append(Unsupported(NAME, c.id, f"clause kind {c.kind!r} is unknown"))
        return _Parts(columns, checks, strict, unsupported, needs)

    def _column(
        self,
        column: str,
        clauses: list[Clause],
        type_text: str | None,
        unsupported: list[Unsupported],
    ) -> str:
        ind = " " * 12
        dtype = arrow_dtype_source(type_text) if type_text else None
        checks: list[str] = []
        type_clause = next((c for c in clauses if c.kind == "column"), None)
        if type_clause is not None and dtype is None:
            if type_text and (type_text.startswith("timestamp_") or type_text.startswith("enum[")):
                checks.append(
                    f"_type_check({type_clause.id!r}, {type_clause.text!r}, {type_text!r})"
                )
            else:
                unsupported.append(
                    Unsupported(NAME, type_clause.id, f"type {type_text!r} has no pandera dtype")
                )
        for c in clauses:
            warn = ", raise_warning=True" if c.warn else ""  # a SchemaWarning, not an error
            if c.kind == "accepted_values":
                values = "[" + ", ".join(repr(v) for v in c.param("values")) + "]"
                checks.append(f"pa.Check.isin({values}, name={c.id!r}, error={c.text!r}{warn})")
            elif c.kind == "fixed_value":
                value = value_source(c.param("value"), type_text or "")
                checks.append(f"pa.Check.eq({value}, name={c.id!r}, error={c.text!r}{warn})")
            elif c.kind == "pattern":
                # pyarrow's RE2 runs it on the Arrow-backed frames this module validates
                from tacit_gen.sql.pattern import full_match

                regex = full_match(c.param("pattern"), "re2")
                checks.append(f"pa.Check.str_matches({regex!r}, name={c.id!r}, error={c.text!r}{warn})")
            elif c.kind == "range":
                checks.append(_range_check(c, (type_text or "").startswith("float"))[:-1]
                              + warn + ")")
            elif c.kind == "not_null" and c.warn:  # `nullable=False` cannot warn: a check can
                checks.append(f"pa.Check(lambda s: s.notna(), name={c.id!r}, error={c.text!r}, "
                              f"ignore_na=False{warn})")
        nullable = not any(c.kind == "not_null" and not c.warn for c in clauses)
        args = [dtype or "None", f"nullable={nullable}"]
        if checks:
            items = "".join(f"\n{ind}        {ch}," for ch in checks)
            args.append(f"checks=[{items}\n{ind}    ]")
        if type_clause is not None:
            meta = {
                "unit": type_clause.param("unit"),
                "dimension": type_clause.param("dimension"),
            }
            args.append("metadata={" + ", ".join(f"{k!r}: {v!r}" for k, v in meta.items()) + "}")
        return f"{ind}{column!r}: " + _call("pa.Column", args, ind) + ","

    def _time_check(self, c: Clause, contract: Contract) -> str:
        kw: list[tuple[str, str]] = [("name", repr(c.id)), ("error", repr(c.text))]
        p = c.params_dict
        if c.kind == "completeness":  # every plan param, as the reader returns them
            kw += [(k, repr(tuple(v) if isinstance(v, list) else v)) for k, v in c.params]
            if p.get("outages_relation") is not None:
                kw.append(("outages", "outages"))
            helper = TIME_HELPERS[c.kind]
            if p.get("window_seconds") is None:  # `N per session`: the sessions frame
                helper = SESSION_COMPLETENESS
                kw.append(("frame", "sessions"))
                if p.get("calendar_catalog") is not None:  # a per-series calendar
                    kw.append(("catalog", "catalog"))
            return " " * 12 + _call(helper, [f"{k}={v}" for k, v in kw], " " * 12) + ","
        if uses_sessions(c):  # every plan param, as the reader returns them
            helper = "_session_cadence_check" if c.kind == "cadence" else "_session_window_check"
            if c.kind == "cadence":
                revision = "revision" if contract.field("revision") is not None else None
                kw.append(("revision_column", repr(revision)))
            kw += [(k, repr(tuple(v) if isinstance(v, list) else v)) for k, v in c.params
                   if k != "from_catalog"]
            if p.get("sessions_relation") is not None:
                kw.append(("frame", "sessions"))
            if p.get("calendar_catalog") is not None:  # a per-series calendar
                kw.append(("catalog", "catalog"))
            return " " * 12 + _call(helper, [f"{k}={v}" for k, v in kw], " " * 12) + ","
        if c.kind == "freshness":
            kw += [("column", repr(p["column"])), ("max_age_seconds", repr(p["max_age_seconds"])),
                   ("now", "now")]
        elif c.kind == "cadence":
            revision = "revision" if contract.field("revision") is not None else None
            kw += [
                ("column", repr(p["column"])),
                ("series", repr(tuple(p["series"]))),
                ("interval_seconds", repr(p["interval_seconds"])),
                ("tolerance_pct", repr(p["tolerance_pct"])),
                ("gaps_allowed", repr(p["gaps_allowed"])),
                ("revision_column", repr(revision)),
            ]
            if p.get("from_catalog"):
                kw += [
                    ("catalog", "catalog"),
                    ("relation", repr(p["relation"])),
                    ("catalog_key", repr(p["catalog_key"])),
                    ("catalog_column", repr(p["catalog_column"])),
                ]
        elif c.kind in CATALOG_KINDS:
            keys = ["column", "key", "relation", "catalog_key"]
            keys += (["min_column", "max_column"] if c.kind in ("catalog_bounds", "plausible")
                     else ["catalog_column"])
            keys += ["dimension"] if c.kind == "catalog_dimension" else []
            kw += [(k, repr(p[k])) for k in keys]
            if c.kind == "catalog_dimension":
                kw.append(("units", repr(tuple(p["units"]))))
            kw.append(("catalog", "catalog"))
        elif c.kind == "references":
            kw += [(k, repr(p[k])) for k in ("column", "to_relation", "to_column")] + [("refs", "refs")]
        elif c.kind == "revision_by":
            kw += [("column", repr(p["column"])), ("revision", repr(p["revision_column"])),
                   ("values", repr(tuple(p["values"])))]
        elif c.kind == "revision_window":
            keys = ["column", "time_column", "ingest_column", "allowed", "window_seconds",
                    "business_days"]
            kw += [(k, repr(p.get(k))) for k in keys]
        return " " * 12 + _call(TIME_HELPERS[c.kind], [f"{k}={v}" for k, v in kw], " " * 12) + ","


def _needs(c: Clause) -> str | None:
    """What a clause needs from the factory's arguments, if anything."""
    if c.kind in CATALOG_KINDS or (c.kind == "cadence" and c.param("from_catalog")):
        return "a catalog frame"
    if c.kind == "freshness":
        return '"now"'
    if c.kind == "references":
        return "the referenced frames (refs=)"
    if uses_sessions(c) and c.param("sessions_relation") is not None:
        return "a sessions frame" if c.param("calendar_catalog") is None else "a sessions and a catalog frame"
    if c.kind == "completeness" and c.param("outages_relation") is not None:
        return "an outages frame"
    return None


def _needs_outages(c: Clause) -> str | None:
    """A completeness clause per session that allows gap types needs the outages frame too."""
    if c.kind == "completeness" and uses_sessions(c) and c.param("outages_relation") is not None:
        return "an outages frame"
    return None


def _expr(c: Clause) -> n.Node:
    if c.expr is None:
        raise CompileError("the clause carries no resolved expression")
    return c.expr


def _range_check(c: Clause, floating: bool = False) -> str:
    """pandera's own range check; on a float column the module's ``_in_range`` (SQL order:
    NaN above every number, where pandera's checks compare as IEEE and fail ``NaN >= 0``)."""
    lo, hi = c.param("min"), c.param("max")
    lo_inc, hi_inc = bool(c.param("min_inclusive", True)), bool(c.param("max_inclusive", True))
    tail = f"name={c.id!r}, error={c.text!r}"
    if floating and (lo is not None or hi is not None):
        bounds = ", ".join(literal(v) if v is not None else "None" for v in (lo, hi))
        return (f"pa.Check(lambda s: _in_range(s, {bounds}, {lo_inc}, {hi_inc}), {tail}, "
                "ignore_na=False)")
    if lo is not None and hi is not None:
        return (
            f"pa.Check.in_range(min_value={literal(lo)}, max_value={literal(hi)}, "
            f"include_min={lo_inc}, include_max={hi_inc}, {tail})"
        )
    if lo is not None:
        return f"pa.Check.{'ge' if lo_inc else 'gt'}({literal(lo)}, {tail})"
    if hi is not None:
        return f"pa.Check.{'le' if hi_inc else 'lt'}({literal(hi)}, {tail})"
    return f"pa.Check(lambda s: True, {tail})"


def _template(options: RenderOptions) -> Any:
    """The module template (see `tacit_gen.targets.templates` for the lookup order)."""
    from tacit_gen.targets.templates import jinja_template

    return jinja_template(NAME, TEMPLATE, options)


def unique_body(cols: list[str]) -> str:
    """The boolean Series of a `unique:` check: a row passes unless another row has its key,
    and a row with a NULL in its key is not compared (SQL UNIQUE; `not_null:` reports it)."""
    return f"~df.duplicated(subset={cols!r}, keep=False) | df[{cols!r}].isna().any(axis=1)"
