"""Precedence-ladder parser for invariants; the binary levels are driven by tables.

Lowest to highest: ``only when`` < ``or`` < ``and`` < ``not`` < predicate (comparison chains,
``is [not] null``, ``[not] in``, ``[not] between``, catalog forms) < ``+ -`` < ``* /`` < unary minus.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from tacit_gen.expr import nodes as n
from tacit_gen.expr.tokens import LexError, Token, tokenize


class ExprSyntaxError(ValueError):
    """A syntax error with the offset of the offending token and its text."""

    def __init__(self, message: str, offset: int, word: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.word = word


ADDITIVE = {"+": "+", "-": "-"}
MULTIPLICATIVE = {"*": "*", "/": "/"}
COMPARISON = {op: op for op in n.COMPARISON_OPS}
MAX_DEPTH = 50  # parenthesis nesting; deeper is surely not an invariant anyone means


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        try:
            self.tokens = tokenize(text)
        except LexError as e:
            raise ExprSyntaxError(str(e), e.offset, e.word) from None
        self.i = 0
        self.depth = 0

    # -- token helpers -------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, k: int = 1) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def advance(self) -> Token:
        t = self.tokens[self.i]
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return t

    def at(self, kind: str, text: str | None = None) -> bool:
        t = self.tok
        return t.kind == kind and (text is None or t.text == text)

    def at_word(self, word: str) -> bool:
        t = self.tok
        return t.kind in ("ident", "keyword") and t.text.lower() == word

    def error(self, message: str, tok: Token | None = None) -> ExprSyntaxError:
        t = tok or self.tok
        word = t.text or "end of expression"
        return ExprSyntaxError(message, t.offset, word)

    def expect(self, kind: str, text: str | None = None, what: str = "") -> Token:
        if not self.at(kind, text):
            got = self.tok.text or "end of expression"
            raise self.error(f"expected {what or text or kind}, found '{got}'")
        return self.advance()

    def expect_word(self, word: str) -> Token:
        if not self.at_word(word):
            got = self.tok.text or "end of expression"
            raise self.error(f"expected '{word}', found '{got}'")
        return self.advance()

    # -- grammar ---------------------------------------------------------
    def parse(self) -> n.Node:
        if self.at("eof"):
            raise self.error("empty expression")
        node = self.only_when()
        if not self.at("eof"):
            raise self.error(f"unexpected '{self.tok.text}' after a complete expression")
        return node

    def only_when(self) -> n.Node:
        left = self.or_()
        if self.at("keyword", "only"):
            t = self.advance()
            self.expect("keyword", "when", "'when' after 'only'")
            right = self.or_()
            if self.at("keyword", "only"):
                raise self.error("'only when' cannot be chained; use parentheses")
            return n.OnlyWhen(left, right, offset=t.offset)
        return left

    def _left_assoc(
        self, sub: Callable[[], n.Node], words: dict[str, type[n.And] | type[n.Or]]
    ) -> n.Node:
        left = sub()
        while self.tok.kind == "keyword" and self.tok.text in words:
            t = self.advance()
            right = sub()
            left = words[t.text](left, right, offset=t.offset)
        return left

    def or_(self) -> n.Node:
        return self._left_assoc(self.and_, {"or": n.Or})

    def and_(self) -> n.Node:
        return self._left_assoc(self.not_, {"and": n.And})

    def not_(self) -> n.Node:
        if self.at("keyword", "not"):
            t = self.advance()
            return n.Not(self.not_(), offset=t.offset)
        return self.predicate()

    def predicate(self) -> n.Node:
        start = self.tok
        left = self.additive()
        t = self.tok
        if t.kind == "op" and t.text in COMPARISON:
            operands = [left]
            ops: list[str] = []
            while self.tok.kind == "op" and self.tok.text in COMPARISON:
                ops.append(COMPARISON[self.advance().text])
                operands.append(self.additive())
            return n.Compare(tuple(operands), tuple(ops), offset=start.offset)
        if self.at("keyword", "is"):
            self.advance()
            negated = bool(self.at("keyword", "not")) and bool(self.advance())
            self.expect("keyword", "null", "'null' after 'is'")
            return n.IsNull(left, negated, offset=start.offset)
        negated = False
        if self.at("keyword", "not") and self.peek().kind == "keyword" and self.peek().text in (
            "in",
            "between",
        ):
            self.advance()
            negated = True
        if self.at("keyword", "in"):
            self.advance()
            self.expect("op", "(", "'(' after 'in'")
            items = [self.additive()]
            while self.at("op", ","):
                self.advance()
                items.append(self.additive())
            self.expect("op", ")", "')' closing the 'in' list")
            return n.InList(left, tuple(items), negated, offset=start.offset)
        if self.at("keyword", "between"):
            self.advance()
            low = self.additive()
            self.expect("keyword", "and", "'and' in 'between ... and ...'")
            high = self.additive()
            return n.Between(left, low, high, negated, offset=start.offset)
        if self.at_word("within"):
            self.advance()
            self.expect_word("catalog")
            self.expect_word("hard_bounds")
            self.expect_word("for")
            key = self.primary()
            return n.CatalogBounds(left, key, offset=start.offset)
        if self.at_word("equals"):
            self.advance()
            self.expect_word("catalog")
            self.expect_word("unit")
            self.expect_word("for")
            key = self.primary()
            return n.CatalogUnit(left, key, offset=start.offset)
        return left

    def _binary(self, sub: Callable[[], n.Node], table: dict[str, str]) -> n.Node:
        left = sub()
        while self.tok.kind == "op" and self.tok.text in table:
            t = self.advance()
            right = sub()
            left = n.BinOp(table[t.text], left, right, offset=t.offset)
        return left

    def additive(self) -> n.Node:
        return self._binary(self.multiplicative, ADDITIVE)

    def multiplicative(self) -> n.Node:
        return self._binary(self.unary, MULTIPLICATIVE)

    def unary(self) -> n.Node:
        if self.at("op", "-"):
            t = self.advance()
            operand = self.unary()
            if isinstance(operand, n.Number):
                text = operand.text[1:] if operand.text.startswith("-") else "-" + operand.text
                return n.Number(text, offset=t.offset)
            return n.Neg(operand, offset=t.offset)
        if self.at("op", "+"):
            self.advance()
            return self.unary()
        return self.primary()

    def primary(self) -> n.Node:
        t = self.tok
        if t.kind == "number":
            self.advance()
            return n.Number(t.text, offset=t.offset)
        if t.kind == "string":
            self.advance()
            return n.String(t.value, offset=t.offset)
        if t.kind == "keyword" and t.text in ("true", "false"):
            self.advance()
            return n.Bool(t.text == "true", offset=t.offset)
        if t.kind == "ident":
            self.advance()
            return n.Name(t.text, offset=t.offset)
        if self.at("op", "("):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self.error(f"parentheses nested deeper than {MAX_DEPTH}")
            self.advance()
            inner = self.only_when()
            self.depth -= 1
            self.expect("op", ")", "')'")
            return inner
        if t.kind == "eof":
            raise self.error("expression ends too early")
        raise self.error(f"unexpected '{t.text}'")


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> n.Node:
    """Parse invariant text into an AST of unresolved names. The nodes are immutable, so one
    text's tree is parsed once and shared (the loader, the linter and the plan each read every
    invariant).

    Raises:
        ExprSyntaxError: with the offset and text of the offending token.
    """
    parser = _Parser(text)
    try:
        return parser.parse()
    except RecursionError:
        raise ExprSyntaxError("expression nested too deeply", 0, text.split()[0] if text.split() else text) from None
