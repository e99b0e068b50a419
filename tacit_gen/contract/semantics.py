"""Invariants checked against the model: names resolved, types, enum literals, units."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from tacit_gen.contract import units
from tacit_gen.contract.model import Contract, Invariant
from tacit_gen.expr import nodes as n
from tacit_gen.expr.check import DEFERRED, ColumnInfo, Problem, check
from tacit_gen.expr.parser import ExprSyntaxError, parse

if TYPE_CHECKING:
    from tacit_gen.contract.loader import _Ctx


def column_infos(contract: Contract, broken: Iterable[str] = ()) -> dict[str, ColumnInfo]:
    """What the expression checker knows about each column.

    `broken` names fields whose definition has an error already reported: they resolve as
    columns of unknown type, so one mistake is not reported again in every invariant.
    """
    out = {name: ColumnInfo(family="any", unit=DEFERRED) for name in broken}
    for f in contract.fields:
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


@lru_cache(maxsize=4096)
def _parse_cached(text: str) -> n.Node:
    return parse(text)


def resolve(
    contract: Contract, text: str, broken: Iterable[str] = ()
) -> tuple[n.Node | None, list[Problem]]:
    """Parse and resolve one invariant text against a contract."""
    try:
        ast = _parse_cached(text)
    except ExprSyntaxError as e:
        return None, [Problem("TG108", f"invalid invariant: {e}", e.offset, e.word)]
    try:
        resolved, problems = check(ast, column_infos(contract, broken), _same, _combine, _same_dim)
    except RecursionError:
        word = text.split()[0] if text.split() else text
        return None, [Problem("TG108", "invalid invariant: expression nested too deeply", 0, word)]
    return resolved, problems


def check_expressions(contract: Contract, ctx: _Ctx, broken: Iterable[str] = ()) -> None:
    """Report every problem of every invariant at its line and column."""
    broken = tuple(sorted(broken))
    for inv in contract.invariants:
        _, problems = resolve(contract, inv.text, broken)
        for p in problems:
            _report(ctx, inv, p)


def _report(ctx: Any, inv: Invariant, p: Problem) -> None:
    from tacit_gen.contract.errors import Diagnostic

    col = inv.pos.col + max(0, p.offset - inv.prefix)
    ctx.diags.append(Diagnostic(ctx.path, inv.pos.line, col, "error", p.code, p.message, p.word))
