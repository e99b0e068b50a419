"""Invariants checked against the model: names resolved, types, enum literals, units."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING

from tacit_gen.contract import units
from tacit_gen.contract.model import Contract, Field, Invariant
from tacit_gen.contract.types import DataType
from tacit_gen.expr import nodes as n
from tacit_gen.expr.check import DEFERRED, ColumnInfo, Problem, check
from tacit_gen.expr.parser import ExprSyntaxError, parse

if TYPE_CHECKING:
    from tacit_gen.diagnostics import Diagnostics


# The last answer of `column_infos`, kept with the fields it was made from: a contract's
# invariants are resolved one after the other (by the loader, the plan and the targets), and each
# asked for the same infos. The fields tuple is kept, so `is` cannot match a new tuple at its
# address. One slot, read once and replaced whole: two threads never mix their answers.
_LAST_INFOS: list[tuple[tuple[Field, ...], tuple[str, ...], dict[str, ColumnInfo]] | None] = [None]


def column_infos(contract: Contract, broken: Iterable[str] = ()) -> dict[str, ColumnInfo]:
    """What the expression checker knows about each column (the checker only reads it).

    `broken` names fields whose definition has an error already reported: they resolve as
    columns of unknown type, so one mistake is not reported again in every invariant.
    """
    broken = tuple(broken)
    last = _LAST_INFOS[0]
    if last is not None and last[0] is contract.fields and last[1] == broken:
        return last[2]
    out = _column_infos(contract.fields, broken)
    _LAST_INFOS[0] = (contract.fields, broken, out)
    return out


def _column_infos(fields: tuple[Field, ...], broken: tuple[str, ...]) -> dict[str, ColumnInfo]:
    out = {name: ColumnInfo(family="any", unit=DEFERRED) for name in broken}
    for f in fields:
        unit: str | None = None
        if f.unit_from_catalog:
            unit = DEFERRED
        elif f.unit is not None and f.type.is_numeric:
            try:
                units.resolve(f.unit)
                unit = f.unit
            except units.UnitError:
                unit = DEFERRED
        out[f.name] = ColumnInfo(
            family=f.type.family,
            unit=unit,
            enum_values=f.type.values if f.type.kind == "enum" else None,
        )
    return out


def _same(a: str, b: str) -> bool:
    return units.same_unit(units.resolve(a), units.resolve(b))


def _same_dim(a: str, b: str) -> bool:
    return units.resolve(a).dimensionality == units.resolve(b).dimensionality


def _combine(a: str, b: str, op: str) -> str:
    try:
        return units.multiply(a, b, op)
    except Exception:
        return DEFERRED


def _quoted(text: str, limit: int = 60) -> str:
    """An invariant as quoted in a message: on one line, cut after `limit` characters."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def resolve(
    contract: Contract, text: str, broken: Iterable[str] = ()
) -> tuple[n.Node | None, list[Problem]]:
    """Parse and resolve one invariant text against a contract."""
    try:
        ast = parse(text)
    except ExprSyntaxError as e:
        return None, [Problem("TG108", f"invalid invariant '{_quoted(text)}': {e}", e.offset, e.word)]
    try:
        resolved, problems = check(ast, column_infos(contract, broken), _same, _combine, _same_dim)
    except RecursionError:
        word = text.split()[0] if text.split() else text
        return None, [Problem("TG108", f"invalid invariant '{_quoted(text)}': expression nested too "
                                      "deeply", 0, word)]
    return resolved, problems


def check_expressions(contract: Contract, ctx: Diagnostics, broken: Iterable[str] = ()) -> None:
    """Report every problem of every invariant at its line and column."""
    broken = tuple(sorted(broken))
    for inv in contract.invariants:
        resolved, problems = resolve(contract, inv.text, broken)
        if resolved is not None:
            problems = problems + literal_problems(contract, resolved)
        for p in problems:
            _report(ctx, inv, p)


# What every engine holds: IEEE double, a signed 64-bit integer, DECIMAL(38).
FLOAT64_MAX = Decimal("1.7976931348623157e308")
INT64 = (-(2**63), 2**63 - 1)
DECIMAL_MAX = Decimal(10) ** 38


def number_problem(value: Decimal, dtype: DataType | None) -> str | None:
    """Why a numeric literal cannot stand beside a column of `dtype` in every engine, or None."""
    if not value.is_finite() or value.copy_abs() > FLOAT64_MAX:
        return "is beyond what a float64 holds (about 1.8e308): engines read it as inf or refuse it"
    if dtype is None:
        return None
    if dtype.is_integer and value == value.to_integral_value() and not INT64[0] <= value <= INT64[1]:
        return f"is beyond int64, the widest integer every engine holds; '{dtype}' values never reach it"
    if dtype.is_decimal and value.copy_abs() >= DECIMAL_MAX:
        return "has more than 38 integral digits, beyond DECIMAL(38), the widest decimal every engine holds"
    return None


def _literal(node: n.Node) -> tuple[Decimal, n.Number] | None:
    if isinstance(node, n.Number):
        return Decimal(node.text), node
    if isinstance(node, n.Neg):
        inner = _literal(node.operand)
        if inner is not None:
            return inner[0].copy_negate(), inner[1]
    return None


def literal_problems(contract: Contract, node: n.Node) -> list[Problem]:
    """Numeric literals checked against the column type they meet (TG117): none is infinite in
    float64, and a literal compared with an integer or decimal column fits int64 / DECIMAL(38)."""
    types = {f.name: f.type for f in contract.fields}
    out: list[Problem] = []
    seen: set[int] = set()

    def check_lit(lit: n.Node, dtype: DataType | None) -> None:
        found = _literal(lit)
        if found is None:
            return
        value, num = found
        problem = number_problem(value, dtype)
        if problem is not None and id(num) not in seen:
            seen.add(id(num))
            out.append(Problem("TG117", f"the number '{num.text}' {problem}", num.offset, num.text))

    def col_type(x: n.Node) -> DataType | None:
        return types.get(x.name) if isinstance(x, n.Column) else None

    def walk(x: n.Node) -> None:
        if isinstance(x, n.Compare):
            ops = x.operands
            for a, b in itertools.pairwise(ops):
                check_lit(b, col_type(a))
                check_lit(a, col_type(b))
        elif isinstance(x, n.Between):
            check_lit(x.low, col_type(x.operand))
            check_lit(x.high, col_type(x.operand))
        elif isinstance(x, n.InList):
            for item in x.items:
                check_lit(item, col_type(x.operand))
        elif isinstance(x, n.Number):
            check_lit(x, None)
        for child in _children(x):
            walk(child)

    walk(node)
    return out


def _children(x: n.Node) -> list[n.Node]:
    out: list[n.Node] = []
    for value in x.__dict__.values():
        if isinstance(value, n.Node):
            out.append(value)
        elif isinstance(value, tuple):
            out.extend(v for v in value if isinstance(v, n.Node))
    return out


def _report(ctx: Diagnostics, inv: Invariant, p: Problem) -> None:
    ctx.error(inv.pos, p.code, p.message, p.word, col_offset=max(0, p.offset - inv.prefix))
