"""Immutable AST of invariant expressions; equality and hashing ignore source offsets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Node:
    """Base of every expression node."""

    offset: int = field(default=0, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True)
class Name(Node):
    """An unresolved bare identifier: a column or an enum literal (resolved by the checker)."""

    name: str


@dataclass(frozen=True)
class Column(Node):
    """A reference to a contract column."""

    name: str


@dataclass(frozen=True)
class EnumLiteral(Node):
    """A bare enum value, such as ``bad`` in ``quality = bad``."""

    value: str


@dataclass(frozen=True)
class Number(Node):
    """A numeric literal, kept as its canonical decimal text (no float rounding)."""

    text: str


@dataclass(frozen=True)
class String(Node):
    """A quoted string literal."""

    value: str


@dataclass(frozen=True)
class Bool(Node):
    """``true`` or ``false``."""

    value: bool


@dataclass(frozen=True)
class Neg(Node):
    """Unary minus."""

    operand: Node


@dataclass(frozen=True)
class BinOp(Node):
    """Arithmetic: ``+ - * /``."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Compare(Node):
    """A comparison chain: ``a <= b <= c`` is operands (a, b, c), ops ('<=', '<=')."""

    operands: tuple[Node, ...]
    ops: tuple[str, ...]


@dataclass(frozen=True)
class IsNull(Node):
    """``x is null`` / ``x is not null``."""

    operand: Node
    negated: bool = False


@dataclass(frozen=True)
class InList(Node):
    """``x in (a, b)`` / ``x not in (a, b)``."""

    operand: Node
    items: tuple[Node, ...]
    negated: bool = False


@dataclass(frozen=True)
class Between(Node):
    """``x between a and b`` (inclusive) / ``x not between a and b``."""

    operand: Node
    low: Node
    high: Node
    negated: bool = False


@dataclass(frozen=True)
class And(Node):
    """Boolean conjunction."""

    left: Node
    right: Node


@dataclass(frozen=True)
class Or(Node):
    """Boolean disjunction."""

    left: Node
    right: Node


@dataclass(frozen=True)
class Not(Node):
    """Boolean negation."""

    operand: Node


@dataclass(frozen=True)
class OnlyWhen(Node):
    """``A only when B``: A implies B, i.e. ``not A or B``."""

    left: Node
    right: Node


@dataclass(frozen=True)
class CatalogUnit(Node):
    """``X equals catalog unit for K``: X equals the catalog's unit for the row's series K."""

    subject: Node
    key: Node


@dataclass(frozen=True)
class CatalogBounds(Node):
    """``X within catalog hard_bounds for K``: hard_min <= X <= hard_max from the catalog row of K."""

    subject: Node
    key: Node


COMPARISON_OPS = ("=", "!=", "<", "<=", ">", ">=")
FLIPPED = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-expressions of a node."""
    if isinstance(node, Neg | Not):
        return (node.operand,)
    if isinstance(node, BinOp | And | Or | OnlyWhen):
        return (node.left, node.right)
    if isinstance(node, Compare):
        return node.operands
    if isinstance(node, IsNull):
        return (node.operand,)
    if isinstance(node, InList):
        return (node.operand, *node.items)
    if isinstance(node, Between):
        return (node.operand, node.low, node.high)
    if isinstance(node, CatalogUnit | CatalogBounds):
        return (node.subject, node.key)
    return ()


def rebuild(node: Node, leaf: Callable[[Node], Node | None]) -> Node:
    """The tree with each node for which `leaf` gives a node replaced by it (not descended into),
    every other node rebuilt from its rebuilt children (the same object when none changed)."""
    import dataclasses

    got = leaf(node)
    if got is not None:
        return got
    changes: dict[str, object] = {}
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        if isinstance(v, Node):
            changes[f.name] = rebuild(v, leaf)
        elif isinstance(v, tuple) and v and all(isinstance(x, Node) for x in v):
            changes[f.name] = tuple(rebuild(x, leaf) for x in v)
    return dataclasses.replace(node, **changes) if changes else node  # type: ignore[arg-type]


def walk(node: Node):  # type: ignore[no-untyped-def]
    """Every node of the tree, depth first, parents before children."""
    yield node
    for child in children(node):
        yield from walk(child)


def columns(node: Node) -> tuple[str, ...]:
    """Column names referenced by the expression, in first-seen order."""
    seen: list[str] = []
    for n in walk(node):
        if isinstance(n, Column | Name) and n.name not in seen:
            seen.append(n.name)
    return tuple(seen)


def number_text(node: Node) -> str | None:
    """The decimal text of a number literal, a negative one (``-0.7``) included; None otherwise."""
    if isinstance(node, Number):
        return node.text
    if isinstance(node, Neg) and isinstance(node.operand, Number):
        return "-" + node.operand.text
    return None
