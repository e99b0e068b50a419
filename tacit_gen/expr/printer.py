"""Canonical printer: ``parse(to_text(ast)) == ast`` for every AST the parser produces."""

from __future__ import annotations

from tacit_gen.expr import nodes as n

# Binding strength; a child weaker than its slot is parenthesised.
ONLY_WHEN, OR, AND, NOT, PRED, ADD, MUL, UNARY, ATOM = range(1, 10)
_BIN_LEVEL = {"+": ADD, "-": ADD, "*": MUL, "/": MUL}


def level(node: n.Node) -> int:
    """The precedence level of a node."""
    if isinstance(node, n.OnlyWhen):
        return ONLY_WHEN
    if isinstance(node, n.Or):
        return OR
    if isinstance(node, n.And):
        return AND
    if isinstance(node, n.Not):
        return NOT
    if isinstance(node, n.Compare | n.IsNull | n.InList | n.Between | n.CatalogUnit | n.CatalogBounds):
        return PRED
    if isinstance(node, n.BinOp):
        return _BIN_LEVEL[node.op]
    if isinstance(node, n.Neg):
        return UNARY
    if isinstance(node, n.Number) and node.text.startswith("-"):
        return UNARY
    return ATOM


def _wrap(node: n.Node, at_least: int) -> str:
    text = to_text(node)
    return f"({text})" if level(node) < at_least else text


def quote(value: str) -> str:
    """A single-quoted string literal of the expression language."""
    return "'" + value.replace("'", "''") + "'"


def to_text(node: n.Node) -> str:
    """Print an AST in canonical form."""
    if isinstance(node, n.Name | n.Column):
        return node.name
    if isinstance(node, n.EnumLiteral):
        return node.value
    if isinstance(node, n.Number):
        return node.text
    if isinstance(node, n.String):
        return quote(node.value)
    if isinstance(node, n.Bool):
        return "true" if node.value else "false"
    if isinstance(node, n.Neg):
        return "-" + _wrap(node.operand, UNARY)
    if isinstance(node, n.BinOp):
        lv = _BIN_LEVEL[node.op]
        return f"{_wrap(node.left, lv)} {node.op} {_wrap(node.right, lv + 1)}"
    if isinstance(node, n.Compare):
        parts = [_wrap(node.operands[0], ADD)]
        for op, operand in zip(node.ops, node.operands[1:], strict=True):
            parts.append(f"{op} {_wrap(operand, ADD)}")
        return " ".join(parts)
    if isinstance(node, n.IsNull):
        return f"{_wrap(node.operand, ADD)} is {'not ' if node.negated else ''}null"
    if isinstance(node, n.InList):
        items = ", ".join(_wrap(i, ADD) for i in node.items)
        return f"{_wrap(node.operand, ADD)} {'not ' if node.negated else ''}in ({items})"
    if isinstance(node, n.Between):
        neg = "not " if node.negated else ""
        return (
            f"{_wrap(node.operand, ADD)} {neg}between {_wrap(node.low, ADD)} and "
            f"{_wrap(node.high, ADD)}"
        )
    if isinstance(node, n.And):
        return f"{_wrap(node.left, AND)} and {_wrap(node.right, AND + 1)}"
    if isinstance(node, n.Or):
        return f"{_wrap(node.left, OR)} or {_wrap(node.right, OR + 1)}"
    if isinstance(node, n.Not):
        return "not " + _wrap(node.operand, NOT)
    if isinstance(node, n.OnlyWhen):
        return f"{_wrap(node.left, OR)} only when {_wrap(node.right, OR)}"
    if isinstance(node, n.CatalogUnit):
        return f"{_wrap(node.subject, ADD)} equals catalog unit for {_wrap(node.key, ATOM)}"
    if isinstance(node, n.CatalogBounds):
        return f"{_wrap(node.subject, ADD)} within catalog hard_bounds for {_wrap(node.key, ATOM)}"
    raise TypeError(f"cannot print {type(node).__name__}")
