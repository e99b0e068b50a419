"""Resolve names in an invariant against the contract, and check types, enum literals and units.

The checker turns ``Name`` nodes into ``Column`` or ``EnumLiteral`` and reports every problem with
the offset of the offending word, so the loader can point at the exact line and column.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from tacit_gen.diagnostics import close_matches
from tacit_gen.expr import nodes as n

DEFERRED = "<deferred>"  # a unit known only per series (from the catalog)


@dataclass(frozen=True)
class ColumnInfo:
    """What the checker needs to know about a column."""

    family: str  # numeric, text, bool, temporal
    unit: str | None  # pint unit text, DEFERRED, or None (dimensionless / not a quantity)
    enum_values: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Problem:
    """One checker finding: code, message, offset into the expression text, offending word."""

    code: str
    message: str
    offset: int
    word: str


@dataclass(frozen=True)
class _T:
    family: str  # numeric, text, bool, temporal, null, enumlit (pending)
    unit: str | None = None
    enum_values: tuple[str, ...] | None = None
    literal: bool = False
    opaque: bool = False  # a column whose definition is broken (already reported)
    src: str = ""  # the text of the operand, for messages


def _desc(t: _T) -> str:
    unit = t.unit or "dimensionless"
    return f"'{t.src}' ({unit})" if t.src else unit


class Checker:
    def __init__(
        self, columns: dict[str, ColumnInfo], same_unit: Any, combine: Any, same_dim: Any = None
    ) -> None:
        self.columns = columns
        self.same_dim = same_dim  # (a, b) -> bool, optional
        self.same_unit = same_unit  # (a, b) -> bool
        self.combine = combine  # (a, b, op) -> unit text
        self.problems: list[Problem] = []

    def problem(self, code: str, message: str, node: n.Node, word: str) -> None:
        self.problems.append(Problem(code, message, node.offset, word))

    # -- resolution ------------------------------------------------------
    def unknown(self, node: n.Name) -> None:
        close = close_matches(node.name, list(self.columns), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        self.problem("TG107", f"unknown column '{node.name}'{hint}", node, node.name)

    def value(self, node: n.Node, peer: _T | None = None) -> tuple[n.Node, _T]:
        """Resolve a value expression; `peer` is the other side of a comparison, for enum literals."""
        if isinstance(node, n.Name):
            if node.name in self.columns:
                info = self.columns[node.name]
                return n.Column(node.name, offset=node.offset), _T(
                    info.family, info.unit, info.enum_values, opaque=info.family == "any",
                    src=node.name,
                )
            if peer is not None and peer.opaque:
                return node, _T("any")  # compared with a broken column: cannot tell
            if peer is not None and peer.enum_values is not None:
                if node.name not in peer.enum_values:
                    self.problem(
                        "TG109",
                        f"'{node.name}' is not a value of the enum "
                        f"[{', '.join(peer.enum_values)}]",
                        node,
                        node.name,
                    )
                return n.EnumLiteral(node.name, offset=node.offset), _T("text", literal=True)
            self.unknown(node)
            return node, _T("any")
        if isinstance(node, n.Number):
            return node, _T("numeric", literal=True)
        if isinstance(node, n.String):
            if peer is not None and peer.enum_values is not None and node.value not in peer.enum_values:
                self.problem(
                    "TG109",
                    f"'{node.value}' is not a value of the enum [{', '.join(peer.enum_values)}]",
                    node,
                    node.value,
                )
            return node, _T("text", literal=True)
        if isinstance(node, n.Bool):
            return node, _T("bool", literal=True)
        if isinstance(node, n.Neg):
            operand, t = self.value(node.operand)
            self.need_numeric(t, node, "-")
            return n.Neg(operand, offset=node.offset), replace(t, literal=False)
        if isinstance(node, n.BinOp):
            left, lt = self.value(node.left)
            right, rt = self.value(node.right)
            self.need_numeric(lt, node.left, node.op)
            self.need_numeric(rt, node.right, node.op)
            unit = self.arith_unit(lt, rt, node)
            from tacit_gen.expr.printer import to_text

            return n.BinOp(node.op, left, right, offset=node.offset), _T(
                "numeric", unit, src=to_text(node)
            )
        # a predicate used as a value (e.g. a boolean column compared to a predicate)
        resolved = self.predicate(node)
        return resolved, _T("bool")

    def need_numeric(self, t: _T, node: n.Node, op: str) -> None:
        if t.family not in ("numeric", "any"):
            self.problem(
                "TG110",
                f"'{op}' needs numbers, but {_describe(node)} is {t.family}",
                node,
                _word(node),
            )

    def arith_unit(self, lt: _T, rt: _T, node: n.BinOp) -> str | None:
        if DEFERRED in (lt.unit, rt.unit):
            return DEFERRED
        if node.op in ("+", "-"):
            if lt.literal or lt.unit is None:
                return rt.unit
            if rt.literal or rt.unit is None:
                return lt.unit
            if not self.same_unit(lt.unit, rt.unit):
                self.problem(
                    "TG111",
                    f"'{node.op}' of {self.kind_of(lt.unit, rt.unit)}: {_desc(lt)} {node.op} "
                    f"{_desc(rt)}",
                    node,
                    node.op,
                )
            return lt.unit
        if lt.unit is None:
            return rt.unit if node.op == "*" else (None if rt.unit is None else self.combine("1", rt.unit, "/"))
        if rt.unit is None:
            return lt.unit
        return self.combine(lt.unit, rt.unit, node.op)

    def compatible(self, a: _T, b: _T, node: n.Node, op: str) -> None:
        fams = {a.family, b.family}
        if "any" in fams or "null" in fams:
            return
        if len(fams) > 1:
            self.problem(
                "TG110",
                f"cannot compare {a.family} with {b.family} ('{op}')",
                node,
                op,
            )
            return
        if a.family == "numeric" and not a.literal and not b.literal:
            if DEFERRED in (a.unit, b.unit):
                return
            if (a.unit is None) != (b.unit is None) or (
                a.unit is not None and b.unit is not None and not self.same_unit(a.unit, b.unit)
            ):
                self.problem(
                    "TG111",
                    f"comparison of {self.kind_of(a.unit, b.unit)}: {_desc(a)} {op} {_desc(b)}",
                    node,
                    b.src or op,
                )

    def kind_of(self, a: str | None, b: str | None) -> str:
        """'different units' when both share a dimension, else 'different dimensions'."""
        if a is not None and b is not None and self.same_dim is not None and self.same_dim(a, b):
            return "different units of the same dimension"
        return "different dimensions"

    # -- predicates ------------------------------------------------------
    def predicate(self, node: n.Node) -> n.Node:
        if isinstance(node, n.And | n.Or | n.OnlyWhen):
            return type(node)(self.predicate(node.left), self.predicate(node.right), offset=node.offset)
        if isinstance(node, n.Not):
            return n.Not(self.predicate(node.operand), offset=node.offset)
        if isinstance(node, n.Compare):
            return self.compare(node)
        if isinstance(node, n.IsNull):
            operand, _ = self.value(node.operand)
            return n.IsNull(operand, node.negated, offset=node.offset)
        if isinstance(node, n.InList):
            operand, t = self.value(node.operand)
            items = []
            for item in node.items:
                r, it = self.value(item, peer=t)
                self.compatible(t, it, item, "in")
                items.append(r)
            return n.InList(operand, tuple(items), node.negated, offset=node.offset)
        if isinstance(node, n.Between):
            operand, t = self.value(node.operand)
            low, lt = self.value(node.low, peer=t)
            high, ht = self.value(node.high, peer=t)
            self.compatible(t, lt, node.low, "between")
            self.compatible(t, ht, node.high, "between")
            if isinstance(low, n.Number) and isinstance(high, n.Number) and _num(low) > _num(high):
                what = "always holds" if node.negated else "no value satisfies it"
                self.problem("TG114", f"'between {low.text} and {high.text}' is empty ({what}): write the "
                             "lower bound first", node.low, low.text)
            return n.Between(operand, low, high, node.negated, offset=node.offset)
        if isinstance(node, n.CatalogUnit | n.CatalogBounds):
            subject, st = self.value(node.subject)
            key, _ = self.value(node.key)
            if not isinstance(subject, n.Column) and not isinstance(subject, n.Name):
                self.problem("TG110", "a catalog form needs a column as its subject", node, _word(node))
            if not isinstance(key, n.Column) and not isinstance(key, n.Name):
                self.problem("TG110", "a catalog form needs a key column after 'for'", node.key, _word(node.key))
            if isinstance(node, n.CatalogUnit) and st.family not in ("text", "any"):
                self.problem(
                    "TG110",
                    f"'equals catalog unit' needs a text column, {_describe(subject)} is {st.family}",
                    node.subject,
                    _word(node.subject),
                )
            if isinstance(node, n.CatalogBounds) and st.family not in ("numeric", "any"):
                self.problem(
                    "TG110",
                    f"'within catalog hard_bounds' needs a numeric column, {_describe(subject)} is {st.family}",
                    node.subject,
                    _word(node.subject),
                )
            return type(node)(subject, key, offset=node.offset)
        # a bare value in boolean position: must be a bool column or literal
        resolved, t = self.value(node)
        if t.family not in ("bool", "any"):
            self.problem(
                "TG110",
                f"{_describe(node)} is {t.family}, not a condition",
                node,
                _word(node),
            )
        return resolved

    def compare(self, node: n.Compare) -> n.Node:
        # Resolve non-name operands first so bare enum literals can see their peer's enum.
        resolved: list[n.Node | None] = [None] * len(node.operands)
        types: list[_T | None] = [None] * len(node.operands)
        for i, op in enumerate(node.operands):
            if not (isinstance(op, n.Name) and op.name not in self.columns):
                resolved[i], types[i] = self.value(op)
        for i, op in enumerate(node.operands):
            if resolved[i] is None:
                peer = None
                for j in (i - 1, i + 1):
                    if 0 <= j < len(types) and types[j] is not None:
                        peer = types[j]
                        break
                resolved[i], types[i] = self.value(op, peer=peer)
            elif isinstance(op, n.String):
                peer = next(
                    (types[j] for j in (i - 1, i + 1) if 0 <= j < len(types) and types[j] is not None and types[j].enum_values),  # type: ignore[union-attr]
                    None,
                )
                if peer is not None:
                    self.value(op, peer=peer)
        for i, opname in enumerate(node.ops):
            a, b = types[i], types[i + 1]
            assert a is not None and b is not None
            self.compatible(a, b, node.operands[i + 1], opname)
            if opname not in ("=", "!=") and a.family in ("text", "bool") and b.family == a.family:
                pass  # ordering of strings is allowed (lexicographic), as in SQL
        return n.Compare(tuple(r for r in resolved if r is not None), node.ops, offset=node.offset)


def _word(node: n.Node) -> str:
    if isinstance(node, n.Name | n.Column):
        return node.name
    if isinstance(node, n.Number):
        return node.text
    if isinstance(node, n.String):
        return node.value
    if isinstance(node, n.EnumLiteral):
        return node.value
    from tacit_gen.expr.printer import to_text

    return to_text(node)


def _describe(node: n.Node) -> str:
    return f"'{_word(node)}'"


def check(
    node: n.Node,
    columns: dict[str, ColumnInfo],
    same_unit: Any,
    combine: Any,
    same_dim: Any = None,
) -> tuple[n.Node, list[Problem]]:
    """Resolve and check an invariant AST.

    Args:
        node: the parsed AST (with ``Name`` nodes).
        columns: the contract's columns.
        same_unit: ``(unit_a, unit_b) -> bool``.
        combine: ``(unit_a, unit_b, op) -> unit`` for ``*`` and ``/``.
        same_dim: optional ``(unit_a, unit_b) -> bool``, to tell units from dimensions in messages.

    Returns:
        The resolved AST and every problem found.
    """
    c = Checker(columns, same_unit, combine, same_dim)
    resolved = c.predicate(node)
    return resolved, c.problems


def _num(node: n.Number) -> Decimal:
    """A numeric literal's exact value (its canonical decimal text)."""
    return Decimal(node.text)
