"""pandera target: one Python module per contract with a schema factory (`pandera/<contract>.py`).

The module defines ``schema(catalog=None, now=None) -> pandera.DataFrameSchema`` and, when no
clause needs a catalog frame or "now", a module-level ``SCHEMA``. It validates pandas frames as
pandas reads them, numpy-backed or Arrow-backed, without coercion; what pandera has no builtin
for it imports from `tacit_gen.pandera_checks` (written once, not into each module):

- ``column:<c>``: ``column_type(id, text, type)`` (the type as pandas holds it: ``accepts``).
- ``no_unknown_columns``: ``strict=True``; ``unique:``: a named ``duplicated`` check over the rows
  whose key holds no NULL (SQL UNIQUE); ``not_null:``: ``nullable=False`` (every other column
  says ``nullable=True``: pandera's default is False).
- ``accepted_values`` / ``fixed_value`` / ``range``: ``Check.isin`` / ``Check.eq`` /
  ``Check.in_range`` (or ``ge``/``gt``/``le``/``lt``), nulls ignored as in SQL; on a float or
  decimal column ``in_range`` / ``equals`` of the checks module (SQL order, exact decimals).
- ``invariant:``: the AST compiled to a lambda over the checks module (Kleene logic), one
  dataframe check per invariant; time-series and catalog clauses: dataframe checks built by the
  checks module from the factory's ``catalog`` and ``now``.

Each clause kind is rendered by the function the `RENDERERS` table maps it to. Every check is named by its
clause id and carries the clause's verbatim text as ``error``. No pandera, pandas or pyarrow
import here: rendering is string work.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from tacit_gen.expr import nodes as n
from tacit_gen.pandera_checks import __all__ as CHECKS_NAMES
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
from tacit_gen.targets.kinds import KindTable

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause

NAME = "pandera"
TEMPLATE = "module.py.j2"

_DECIMAL = re.compile(r"^decimal\((\d+),(\d+)\)$")
# Contract types a numpy-backed frame holds in another form: an invariant reads such a column
# with its type (`col(df, name, type)`), so a decimal in a double computes as the decimal.
TYPED_READ = re.compile(r"^(decimal\(\d+,\d+\)|int32|int64|date)$")

# AST node -> function of `tacit_gen.pandera_checks` (the names the generated module imports).
ARITH_HELPERS = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
BOOL_HELPERS = {n.And: "and_", n.Or: "or_", n.OnlyWhen: "only_when"}
_INT64_MAX = 2**63 - 1
_INTEGER = re.compile(r"^-?(0|[1-9][0-9]*)$")

# Clause kinds the module checks per column, and as dataframe checks built by the checks module.
COLUMN_KINDS = ("column", "not_null", "accepted_values", "fixed_value", "pattern", "range")
TIME_HELPERS = {
    "freshness": "freshness_check",
    "cadence": "cadence_check",
    "catalog_unit": "catalog_unit_check",
    "catalog_bounds": "catalog_bounds_check",
    "catalog_dimension": "catalog_dimension_check",
    "completeness": "completeness_check",
    "plausible": "catalog_bounds_check",  # the same test on the plausible columns, as a warning
    "revision_window": "revision_window_check",
    "references": "references_check",
    "revision_by": "revision_by_check",
    "precision": "precision_check",
}
CATALOG_KINDS = ("catalog_unit", "catalog_bounds", "catalog_dimension", "plausible")
SESSION_COMPLETENESS = "session_completeness_check"  # `completeness: N per session`
_HELPER_CALL = re.compile(r"(?<![\w.])([a-z_]+)\(")
_IND = " " * 12


class CompileError(ValueError):
    """An expression node the pandera compiler cannot express."""


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


def compile_expr(node: n.Node, types: Mapping[str, str] | None = None) -> str:
    """Compile a resolved invariant AST to a Python expression over `tacit_gen.pandera_checks`.

    The result is evaluated with ``df`` bound to the frame; each node maps to one helper call, so
    the drift reader can decompile it back into the same AST. A column whose contract type
    (`types`) a numpy-backed frame holds in another form is read with its type.
    """
    sub = functools.partial(compile_expr, types=types)
    if isinstance(node, n.Column):
        type_text = (types or {}).get(node.name)
        if type_text is not None and TYPED_READ.match(type_text):
            return f"col(df, {node.name!r}, {type_text!r})"
        return f"col(df, {node.name!r})"
    if isinstance(node, n.EnumLiteral):
        return f"enum({node.value!r})"
    if isinstance(node, n.Number):
        return literal(node.text)
    if isinstance(node, n.String):
        return repr(node.value)
    if isinstance(node, n.Bool):
        return "True" if node.value else "False"
    if isinstance(node, n.Neg):
        return f"neg({sub(node.operand)})"
    if isinstance(node, n.BinOp):
        return f"{ARITH_HELPERS[node.op]}({sub(node.left)}, {sub(node.right)})"
    if isinstance(node, n.Compare):
        parts = [sub(node.operands[0])]
        for op, operand in zip(node.ops, node.operands[1:], strict=True):
            parts += [repr(op), sub(operand)]
        return f"cmp({', '.join(parts)})"
    if isinstance(node, n.IsNull):
        return f"{'is_not_null' if node.negated else 'is_null'}({sub(node.operand)})"
    if isinstance(node, n.InList):
        args = [sub(node.operand), *(sub(i) for i in node.items)]
        return f"{'not_in' if node.negated else 'in_'}({', '.join(args)})"
    if isinstance(node, n.Between):
        parts = [sub(node.operand), sub(node.low), sub(node.high)]
        return f"{'not_between' if node.negated else 'between'}({', '.join(parts)})"
    if isinstance(node, n.Not):
        return f"not_({sub(node.operand)})"
    for cls, helper in BOOL_HELPERS.items():
        if isinstance(node, cls):
            return f"{helper}({sub(node.left)}, {sub(node.right)})"  # type: ignore[attr-defined]
    raise CompileError(f"{type(node).__name__} cannot be compiled to a row check")


def _call(func: str, args: list[str], indent: str) -> str:
    """A call laid out one argument per line (each ending with a comma)."""
    inner = indent + "    "
    return f"{func}(\n" + "".join(f"{inner}{a},\n" for a in args) + f"{indent})"


@dataclass
class _Parts:
    """What the clauses of one contract render to, filled in by the functions of `RENDERERS`."""

    contract: Contract
    by_column: dict[str, list[Clause]] = field(default_factory=dict)
    checks: list[str] = field(default_factory=list)
    strict: str = "False"
    unsupported: list[Unsupported] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)


def _per_column(parts: _Parts, c: Clause) -> None:
    """`column`, `not_null` and the value clauses of one column: rendered with its `pa.Column`."""
    parts.by_column.setdefault(c.param("column"), []).append(c)


def _strict(parts: _Parts, c: Clause) -> None:
    parts.strict = "True"


def _unique(parts: _Parts, c: Clause) -> None:
    """A named check, not `unique=[...]`: pandera's `unique=` counts two rows with a NULL in the
    same key column as duplicates; the contract's uniqueness is SQL's UNIQUE (a NULL key is
    not_null's failure), and a named check can also warn."""
    cols = list(c.param("columns"))
    parts.checks.append(_IND + _call("pa.Check", [
        f"lambda df: {unique_body(cols)}", f"name={c.id!r}", f"error={c.text!r}", "ignore_na=False",
        *(["raise_warning=True"] if c.warn else [])], _IND) + ",")


def _invariant(parts: _Parts, c: Clause) -> None:
    try:
        body = compile_expr(_expr(c), dict(c.types))
    except CompileError as e:
        parts.unsupported.append(Unsupported(NAME, c.id, str(e)))
        return
    parts.checks.append(_IND + _call("pa.Check", [
        f"lambda df: holds(df, {body})", f"name={c.id!r}", f"error={c.text!r}", "ignore_na=False",
        *(["raise_warning=True"] if c.warn else [])], _IND) + ",")


def _helper(parts: _Parts, c: Clause) -> None:
    """A time-series, catalog or reference clause: a dataframe check the checks module builds."""
    if c.kind == "cadence" and uses_sessions(c) and c.param("from_catalog"):
        parts.unsupported.append(Unsupported(
            NAME, c.id, "a catalog interval within sessions is not expressed in pandera"))
        return
    check = _time_check(c, parts.contract)
    if c.warn:  # the helper's pa.Check, made to warn
        check = _IND + "warn(" + check.strip()[:-1] + "),"
    parts.checks.append(check)
    for need in (_needs(c), _needs_outages(c)):
        if need and need not in parts.needs:
            parts.needs.append(need)


# Clause kind -> the function that renders it (every kind of `plan_types.KINDS`, or declared
# unsupported with the reason; tests/targets/test_kind_tables.py holds the table to it).
RENDERERS: KindTable[Callable[[_Parts, Clause], None]] = KindTable("pandera", "render", {
    **dict.fromkeys(COLUMN_KINDS, _per_column),
    "no_unknown_columns": _strict,
    "unique": _unique,
    "invariant": _invariant,
    **dict.fromkeys(TIME_HELPERS, _helper),
})


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
    increments = True  # the increment's frame and its boundary rows (increment.py)

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
        parts = _Parts(contract)
        for c in clauses:
            renderer = RENDERERS.get(c.kind)
            if renderer is None:
                reason = RENDERERS.unsupported.get(c.kind, f"clause kind {c.kind!r} is unknown")
                parts.unsupported.append(Unsupported(NAME, c.id, reason))
            else:
                renderer(parts, c)
        types = {c.param("column"): c.param("type") for c in clauses if c.kind == "column"}
        columns = [_column(name, cs, types.get(name), parts.unsupported)
                   for name, cs in parts.by_column.items()]
        code = "\n".join([*columns, *parts.checks])
        imports = sorted({m.group(1) for m in _HELPER_CALL.finditer(code)} & set(CHECKS_NAMES))
        source = _template(options).render(
            header=comment_header(contract),
            contract_name=repr(contract.name),
            contract_version=repr(contract.version),
            description=repr(contract.description),
            unsupported=[f"({u.clause_id!r}, {u.reason!r})" for u in parts.unsupported],
            columns=columns,
            checks=parts.checks,
            strict=parts.strict,
            imports=imports,
            decimal="Decimal(" in code,
            schema_constant=not parts.needs,
            sessions=any(uses_sessions(c) for c in clauses),
            refs=any(c.kind == "references" for c in clauses),
            outages=any(c.param("outages_relation") is not None for c in clauses),
            no_schema_reason=" and ".join(parts.needs),
        )
        path = self.artifact_paths(contract)[0]
        return RenderResult((Artifact(path, source),), tuple(parts.unsupported))


def _column(column: str, clauses: list[Clause], type_text: str | None,
            unsupported: list[Unsupported]) -> str:
    checks: list[str] = []
    type_clause = next((c for c in clauses if c.kind == "column"), None)
    if type_clause is not None:
        checks.append(f"column_type({type_clause.id!r}, {type_clause.text!r}, {type_text!r})")
    decimal = type_text if type_text and _DECIMAL.match(type_text) else None
    for c in clauses:
        warn = ", raise_warning=True" if c.warn else ""  # a SchemaWarning, not an error
        if c.kind == "accepted_values":
            values = "[" + ", ".join(repr(v) for v in c.param("values")) + "]"
            checks.append(f"pa.Check.isin({values}, name={c.id!r}, error={c.text!r}{warn})")
        elif c.kind == "fixed_value" and decimal:  # a decimal held in a double compares as one
            value = value_source(c.param("value"), decimal)
            checks.append(f"pa.Check(lambda s: equals(s, {value}, {decimal!r}), name={c.id!r}, "
                          f"error={c.text!r}, ignore_na=False{warn})")
        elif c.kind == "fixed_value":
            value = value_source(c.param("value"), type_text or "")
            checks.append(f"pa.Check.eq({value}, name={c.id!r}, error={c.text!r}{warn})")
        elif c.kind == "pattern":
            # RE2 (pyarrow) on either kind of text column: pandera's `str_matches` on an object
            # column is Python's `re`, whose `$` also accepts a final newline
            from tacit_gen.sql.pattern import full_match

            regex = full_match(c.param("pattern"), "re2")
            checks.append(f"pa.Check(lambda s: matches(s, {regex!r}), name={c.id!r}, error={c.text!r}, "
                          f"ignore_na=False{warn})")
        elif c.kind == "range":
            floating = (type_text or "").startswith("float")
            checks.append(_range_check(c, floating, decimal)[:-1] + warn + ")")
        elif c.kind == "not_null" and c.warn:  # `nullable=False` cannot warn: a check can
            checks.append(f"pa.Check(lambda s: s.notna(), name={c.id!r}, error={c.text!r}, "
                          f"ignore_na=False{warn})")
    nullable = not any(c.kind == "not_null" and not c.warn for c in clauses)
    args = [f"nullable={nullable}"]
    if checks:
        items = "".join(f"\n{_IND}        {ch}," for ch in checks)
        args.append(f"checks=[{items}\n{_IND}    ]")
    if type_clause is not None and (type_clause.param("unit") or type_clause.param("dimension")):
        meta = {"unit": type_clause.param("unit"), "dimension": type_clause.param("dimension")}
        args.append("metadata={" + ", ".join(f"{k!r}: {v!r}" for k, v in meta.items()) + "}")
    return f"{_IND}{column!r}: " + _call("pa.Column", args, _IND) + ","


def _time_check(c: Clause, contract: Contract) -> str:
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
        helper = "session_cadence_check" if c.kind == "cadence" else "session_window_check"
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
    elif c.kind == "precision":
        kw += [("column", repr(p["column"])), ("precision", repr(p["precision"]))]
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


def _range_check(c: Clause, floating: bool = False, decimal: str | None = None) -> str:
    """pandera's own range check; on a float column ``in_range`` of the checks module (SQL
    order: NaN above every number, where pandera's checks compare as IEEE and fail ``NaN >= 0``),
    on a decimal column ``in_range`` with its type (a decimal held in a double compares as one)."""
    lo, hi = c.param("min"), c.param("max")
    lo_inc, hi_inc = bool(c.param("min_inclusive", True)), bool(c.param("max_inclusive", True))
    tail = f"name={c.id!r}, error={c.text!r}"
    if (floating or decimal) and (lo is not None or hi is not None):
        bounds = ", ".join(literal(v) if v is not None else "None" for v in (lo, hi))
        typed = f", {decimal!r}" if decimal else ""
        return (f"pa.Check(lambda s: in_range(s, {bounds}, {lo_inc}, {hi_inc}{typed}), {tail}, "
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
