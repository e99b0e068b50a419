"""The invariant expression language: tokens, an immutable AST, a precedence-ladder parser."""

from tacit_gen.expr.nodes import Node
from tacit_gen.expr.parser import ExprSyntaxError, parse
from tacit_gen.expr.printer import to_text

__all__ = ["ExprSyntaxError", "Node", "parse", "to_text"]
