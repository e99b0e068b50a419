"""One-column bounds of an invariant (``volume >= 0``, ``-40 <= x <= 150``, ``x between 1 and
2``, ``x is null or x >= 0``): what the plan turns into a ``range:`` clause, and what lint reads
to find bounds that leave a column no value."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from tacit_gen.expr import nodes as n

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause


@dataclass
class Bounds:
    column: str
    min: str | None = None
    max: str | None = None
    min_inclusive: bool = True
    max_inclusive: bool = True
    texts: list[str] = field(default_factory=list)
    line: int = 0
    expr: n.Node | None = None

    def merge(self, other: Bounds) -> bool:
        """Fold another bound on the same column in; False if both bound the same side differently."""
        for side in ("min", "max"):
            mine, theirs = getattr(self, side), getattr(other, side)
            incl = f"{side}_inclusive"
            if theirs is None:
                continue
            if mine is not None and (mine != theirs or getattr(self, incl) != getattr(other, incl)):
                return False
        for side in ("min", "max"):
            if getattr(other, side) is not None:
                setattr(self, side, getattr(other, side))
                setattr(self, f"{side}_inclusive", getattr(other, f"{side}_inclusive"))
        for t in other.texts:
            if t not in self.texts:
                self.texts.append(t)
        return True

    def intersect(self, other: Bounds) -> None:
        """Tighten to the values both allow (lint's view; the plan `merge`s instead, keeping
        bounds on one side that differ apart as invariants of their own)."""
        if other.min is not None and (self.min is None or Decimal(other.min) > Decimal(self.min) or (
                Decimal(other.min) == Decimal(self.min) and not other.min_inclusive)):
            self.min, self.min_inclusive = other.min, other.min_inclusive
        if other.max is not None and (self.max is None or Decimal(other.max) < Decimal(self.max) or (
                Decimal(other.max) == Decimal(self.max) and not other.max_inclusive)):
            self.max, self.max_inclusive = other.max, other.max_inclusive

    def text(self) -> str:
        """``c > 5 and c < 3``: the two sides as an invariant would say them."""
        lo = f"{self.column} {'>=' if self.min_inclusive else '>'} {self.min}"
        hi = f"{self.column} {'<=' if self.max_inclusive else '<'} {self.max}"
        return f"{lo} and {hi}"


def bound_number(node: n.Node) -> str | None:
    return node.text.lstrip("+") if isinstance(node, n.Number) else None


def as_bounds(node: n.Node) -> Bounds | None:
    """A one-column bound (``volume >= 0``, ``-40 <= x <= 150``, ``x between 1 and 2``,
    ``x is null or x >= 0``), or None. Nulls pass a range, as in SQL CHECK."""
    if isinstance(node, n.Compare):
        ops, opd = node.ops, node.operands
        if len(ops) == 1:
            a, b = opd
            op = ops[0]
            if isinstance(a, n.Column) and bound_number(b) is not None:
                col, k = a.name, bound_number(b)
            elif isinstance(b, n.Column) and bound_number(a) is not None:
                col, k, op = b.name, bound_number(a), n.FLIPPED[op]
            else:
                return None
            if op in (">=", ">"):
                return Bounds(col, min=k, min_inclusive=op == ">=")
            if op in ("<=", "<"):
                return Bounds(col, max=k, max_inclusive=op == "<=")
            return None
        if len(ops) == 2 and isinstance(opd[1], n.Column):
            lo, hi = bound_number(opd[0]), bound_number(opd[2])
            if lo is None or hi is None:
                return None
            if all(o in ("<", "<=") for o in ops):
                return Bounds(opd[1].name, lo, hi, ops[0] == "<=", ops[1] == "<=")
            if all(o in (">", ">=") for o in ops):
                return Bounds(opd[1].name, hi, lo, ops[1] == ">=", ops[0] == ">=")
        return None
    if isinstance(node, n.Between) and not node.negated and isinstance(node.operand, n.Column):
        lo, hi = bound_number(node.low), bound_number(node.high)
        if lo is None or hi is None:
            return None
        return Bounds(node.operand.name, lo, hi)
    if isinstance(node, n.Or):
        for a, b in ((node.left, node.right), (node.right, node.left)):
            if isinstance(a, n.IsNull) and not a.negated and isinstance(a.operand, n.Column):
                r = as_bounds(b)
                if r is not None and r.column == a.operand.name:
                    return r
        return None
    if isinstance(node, n.And):
        left, right = as_bounds(node.left), as_bounds(node.right)
        if left is not None and right is not None and left.column == right.column and left.merge(right):
            return left
    return None


def empty(b: Bounds) -> bool:
    """Whether no number is within the bounds (``x > 5`` and ``x < 3``; ``x > 5`` and ``x <= 5``):
    every non-null value fails."""
    if b.min is None or b.max is None:
        return False
    lo, hi = Decimal(b.min), Decimal(b.max)
    return lo > hi or (lo == hi and not (b.min_inclusive and b.max_inclusive))


# --- bounds compared through a double --------------------------------------------------------

_DOUBLE_INTS = 2**53  # every integer up to this magnitude is a double
_DOUBLE_DIGITS = 15  # DBL_DIG: any decimal of 15 significant digits survives a double round trip


def _decimal_precision(column_type: str) -> int | None:
    if not column_type.startswith("decimal(") or not column_type.endswith(")"):
        return None
    try:
        return int(column_type[len("decimal("):-1].split(",")[0])
    except ValueError:
        return None


def compares_in_double(bound: str, column_type: str | None) -> bool:
    """Whether comparing every value of a `column_type` column with the double nearest `bound`,
    in double arithmetic, gives the exact comparison's verdict.

    GX's native expectations take their bounds as floats (its ``Comparable`` is ``float``), and
    Soda's thresholds are floats: the engine then compares the column, cast to double, with the
    rounded bound. That is the exact verdict for a float column (every engine compares a double
    column with a decimal bound in double), for a bound of zero (no non-zero value rounds to it),
    for an integer column and a bound of at most 2^53 that a double keeps, and for a decimal
    column of at most 15 digits and a bound of at most 15 significant digits (each survives the
    round trip, so their order does). Elsewhere it is not: ``i64 <= 9007199254740993`` failed the
    row 9007199254740993 (the bound became 2^53), a decimal(38,20) value 0.3 was not ``> 0.3``
    in SQL but passed in GX (found 2026-12-03)."""
    b = Decimal(bound)
    if column_type is None or b == 0 or column_type in ("float32", "float64"):
        return True
    if column_type in ("int32", "int64"):
        return abs(b) <= _DOUBLE_INTS and Decimal(repr(float(b))) == b
    precision = _decimal_precision(column_type)
    if precision is not None:
        return precision <= _DOUBLE_DIGITS and len(b.normalize().as_tuple().digits) <= _DOUBLE_DIGITS
    return True  # not a number: no double in the comparison


def _single(bound: str) -> float | None:
    """The float32 nearest the number (as a Python float), None past float32's range."""
    import struct

    try:
        return float(struct.unpack("<f", struct.pack("<f", float(Decimal(bound))))[0])
    except OverflowError:
        return None


def float32_value(bound: str) -> bool:
    """Whether the bound is a float32 value exactly (``0.5``, ``100``, ``-0.25``; not ``0.1``,
    whose float32 is 0.100000001490116, nor ``16777217``)."""
    single = _single(bound)
    return single is not None and Decimal(single) == Decimal(bound)


def nearest_float32(bound: str) -> str:
    """The float32 nearest the number, as Python prints it (``0.10000000149011612`` for 0.1), or
    a phrase when it is beyond float32's range."""
    single = _single(bound)
    return "out of float32's range" if single is None else repr(single)


def pasted_exactly(bound: str, column_type: str | None) -> bool:
    """Whether SQL with the bound pasted in as a number, compared with the bare column, decides
    exactly for a `column_type` column. Not for a float32 column and a bound float32 does not
    hold: DuckDB compares a FLOAT with a number in float32 (the bound rounded: a stored 0.1 is
    ``<= 0.1`` there and not in PostgreSQL or Spark, which widen the column; found 2026-12-04)."""
    return column_type != "float32" or float32_value(bound)


def range_pasted_exactly(clause: Clause) -> bool:
    """`pasted_exactly` for every bound of a ``range`` clause (dbt's `tacit_accepted_range`,
    Soda 4's ``valid_min``/``valid_max`` paste them)."""
    ctype = clause.column_type(str(clause.param("column")))
    return all(pasted_exactly(str(b), ctype) for b in (clause.param("min"), clause.param("max"))
               if b is not None)


def prints_in_double(bound: str, column_type: str | None) -> bool:
    """Whether SQL that prints the bound as Python prints its float (Soda v3's ``valid min`` and
    ``valid max``: ``float(value)`` pasted into the query) compares exactly: the printed text is
    the bound itself, and a text in exponent form (a double literal in DuckDB and Spark, a
    numeric one in PostgreSQL) is compared as a double exactly (`compares_in_double`). A float32
    column: only a bound float32 holds (`pasted_exactly`)."""
    if column_type == "float32":
        return float32_value(bound) and Decimal(repr(float(Decimal(bound)))) == Decimal(bound)
    if column_type == "float64" or Decimal(bound) == 0:
        return True
    text = repr(float(Decimal(bound)))
    if Decimal(text) != Decimal(bound):
        return False
    return "e" not in text.lower() or compares_in_double(bound, column_type)


def range_condition(column: str, lo: str | None, hi: str | None, lo_inclusive: bool = True,
                    hi_inclusive: bool = True) -> n.Node:
    """The condition a row of a ``range`` clause meets (``lo <= column and column <= hi``, a
    side left out when it has no bound), for the targets that write a range as SQL."""
    col = n.Column(column)
    parts: list[n.Node] = []
    if lo is not None:
        parts.append(n.Compare((col, n.Number(lo)), (">=" if lo_inclusive else ">",)))
    if hi is not None:
        parts.append(n.Compare((col, n.Number(hi)), ("<=" if hi_inclusive else "<",)))
    if not parts:
        return n.Bool(True)
    return parts[0] if len(parts) == 1 else n.And(parts[0], parts[1])

