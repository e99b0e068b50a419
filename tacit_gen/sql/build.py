"""SQL as sqlglot trees, printed per dialect: identifiers, literals, invariants, time arithmetic.

Nothing here pastes contract text into SQL text: a name becomes an ``exp.Identifier`` and a string
an ``exp.Literal``, and sqlglot's generator for the target dialect quotes and escapes them (a
backslash is doubled where the dialect treats it as an escape: BigQuery, Databricks, Spark,
Snowflake). Shapes that differ between dialects are small templates per dialect (tables first),
parsed once with sqlglot and filled with tree nodes, never with text.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, lru_cache
from typing import TYPE_CHECKING, TypeVar

from tacit_gen.sql.dialects import BACKSLASH_ESCAPES, BACKTICK, check_dialect, sqlglot_dialect
from tacit_gen.sql.names import PLAIN_TEXT as PLAIN_TEXT
from tacit_gen.sql.names import (
    QUOTABLE_TEXT,
    needs_quotes,
    prints_as_itself,
    quoted_as_itself,
)
from tacit_gen.sql.names import RESERVED as RESERVED
from tacit_gen.sql.names import SQLGLOT_QUOTES as SQLGLOT_QUOTES

if TYPE_CHECKING:
    from sqlglot import exp as Exp

    from tacit_gen.expr import nodes as n

def identifier(name: str) -> Exp.Identifier:
    """The tree of a column or relation name."""
    from sqlglot import exp

    return exp.Identifier(this=name, quoted=needs_quotes(name))


def column(name: str, table: str | None = None) -> Exp.Column:
    """The tree of a (qualified) column reference."""
    from sqlglot import exp

    return exp.Column(this=identifier(name), table=identifier(table) if table else None)


def relation(name: str, schema: str | None = None) -> Exp.Table:
    """The tree of a relation: ``schema.name`` when a schema is given; a contract's dotted
    catalog relation (``ref.series_catalog``, ``db.ref.series_catalog``) is qualified as written."""
    from sqlglot import exp

    parts = name.split(".") if schema is None and "." in name else [name]
    if schema is None and len(parts) in (2, 3) and all(parts):
        return exp.Table(this=identifier(parts[-1]), db=identifier(parts[-2]),
                         catalog=identifier(parts[0]) if len(parts) == 3 else None)
    return exp.Table(this=identifier(name), db=identifier(schema) if schema else None)


@cache
def _table_tree(name: str) -> Exp.Table:
    from sqlglot import exp

    return exp.to_table(name)


def table_name(name: str) -> Exp.Table:
    """A table reference written as SQL text (``information_schema.columns``, a CTE's name),
    parsed once: sqlglot's builders parse a string on every call."""
    return _table_tree(name).copy()


def left_join(target: Exp.Expression) -> Exp.Join:
    """``LEFT JOIN target``, for ``Select.join`` (its ``join_type="LEFT"`` is parsed on every
    call)."""
    from sqlglot import exp

    return exp.Join(this=target, side="LEFT")


def string(value: str) -> Exp.Literal:
    from sqlglot import exp

    return exp.Literal.string(value)


def number(text: str) -> Exp.Expression:
    """A decimal number written as its exact text (a negative one in parentheses)."""
    from sqlglot import exp

    if text.startswith("-"):
        return exp.Paren(this=exp.Neg(this=exp.Literal.number(text[1:])))
    return exp.Literal.number(text)


def generate(tree: Exp.Expression, dialect: str = "duckdb") -> str:
    """The SQL text of a tree in a dialect (one line, no normalisation of names).

    The tree is consumed: a dialect's transforms may rewrite it in place (no defensive deep
    copy, which was a large part of a render). Callers pass a tree built for this one call.
    """
    return str(tree.sql(dialect=sqlglot_dialect(dialect), copy=False))


def _fresh(tree: Exp.Expression, dialect: str) -> str:
    """SQL text of a tree built for this one call: no defensive copy (sqlglot deep-copies every
    tree it generates unless told otherwise; for names and literals that copy was most of the
    cost of a render)."""
    return str(tree.sql(dialect=sqlglot_dialect(dialect), copy=False))


@lru_cache(maxsize=4096)
def ident(name: str, dialect: str = "duckdb") -> str:
    """A column or relation name as SQL text, quoted (and escaped) only when it must be.

    A plain lower-case name that no dialect's generator quotes is printed as itself, and a word
    tacit-gen quotes (a keyword, a capital letter) between the dialect's identifier quotes, which
    is what sqlglot prints for them (tested for every dialect over every keyword): a contract
    whose clauses need no other SQL renders without importing sqlglot."""
    if prints_as_itself(name):
        check_dialect(dialect)
        return name
    if quoted_as_itself(name):  # a keyword or a capital, nothing to escape: quoted as it is
        check_dialect(dialect)
        return f"`{name}`" if dialect in BACKTICK else f'"{name}"'
    return _fresh(identifier(name), dialect)


@lru_cache(maxsize=1024)
def qualified(name: str, schema: str | None, dialect: str = "duckdb") -> str:
    """A relation name, qualified with its schema when one is given."""
    return _fresh(relation(name, schema), dialect)


@lru_cache(maxsize=4096)
def literal(value: str, dialect: str = "duckdb") -> str:
    """A SQL string literal, escaped for the dialect. Printable ASCII without a quote is written
    between quotes as it is (a backslash doubled in the dialects where it escapes), which is what
    sqlglot prints for it in every dialect (tested for every such character): a render need not
    import sqlglot for it."""
    if QUOTABLE_TEXT.fullmatch(value):  # nothing to escape but a backslash
        check_dialect(dialect)
        return "'" + (value.replace("\\", "\\\\") if dialect in BACKSLASH_ESCAPES else value) + "'"
    return _fresh(string(value), dialect)


def parse(sql: str, dialect: str = "duckdb") -> Exp.Expression:
    """Parse SQL text written in a dialect (templates, and tests reading generated SQL back)."""
    import sqlglot

    return sqlglot.parse_one(sql, read=sqlglot_dialect(dialect))


# --- invariants ------------------------------------------------------------------------------

_CMP = {"=": "EQ", "!=": "NEQ", "<": "LT", "<=": "LTE", ">": "GT", ">=": "GTE"}
_ARITH = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}


def _div(left: Exp.Expression, right: Exp.Expression, dialect: str,
         integer_dividend: bool) -> Exp.Expression:
    """``/`` means exact division, NULL when dividing by zero (UNKNOWN: the row passes).

    The divisor is wrapped in NULLIF(.., 0) in every dialect. DuckDB divides integers exactly,
    but what it gives for x / 0 depends on its version: NULL up to 1.0, and IEEE infinity or NaN
    from 1.1 on (``ieee_floating_point_ops``), where ``0 / 0 < 1000`` is FALSE and a row that
    must pass would fail. Elsewhere integers divide truncating (PostgreSQL, Snowflake's integer
    NUMBER) or x / 0 raises: an integer dividend is cast to an exact decimal there
    (:func:`exact_integer`). Only an integer one: a bare ``CAST(x AS DECIMAL)`` is DECIMAL(10, 0)
    in Spark and NUMBER(38, 0) in Snowflake, which rounded a float64 price of 0.6 to 1, so
    ``price / qty >= 0.65`` passed in dbt, Soda and GX on Spark and failed in pandera and the
    runtime (found 2026-12-03).
    """
    from sqlglot import exp

    divisor = exp.Nullif(this=right, expression=exp.Literal.number(0))
    if dialect == "duckdb":
        return exp.Div(this=left, expression=divisor)
    # typed: the operands' own division (sqlglot would otherwise cast a PostgreSQL dividend to
    # DOUBLE PRECISION, which makes a decimal's division inexact)
    num = exact_integer(left, dialect) if integer_dividend else left
    return exp.Div(this=num, expression=divisor, typed=True)


def integer_valued(node: n.Node, integers: Collection[str]) -> bool:
    """Whether an arithmetic operand is an integer: an integer column, an integer literal, or
    ``+ - *`` and unary minus of integers."""
    from tacit_gen.expr import nodes as n

    if isinstance(node, n.Column | n.Name):
        return node.name in integers
    if isinstance(node, n.Number):
        return node.text.lstrip("-").isdigit()
    if isinstance(node, n.Neg):
        return integer_valued(node.operand, integers)
    if isinstance(node, n.BinOp):
        return node.op != "/" and integer_valued(node.left, integers) \
            and integer_valued(node.right, integers)
    return False


def exact_integer(x: Exp.Expression, dialect: str) -> Exp.Expression:
    """An integer operand of arithmetic as ``DECIMAL(38, 0)``: integer arithmetic in an invariant
    is exact, as the contract means it, not the engine's fixed width (``int32 + int32`` overflows
    in DuckDB and PostgreSQL, raising an error on a sum past 2^31, and wraps in Spark, where
    dbt-spark turns ANSI mode off, so ``a + b <= 100`` passed for a = b = 2^62). BigQuery's NUMERIC
    holds 29 integer digits, not the 38 of a product of two int64: BIGNUMERIC there."""
    from sqlglot import exp

    to = exp.DataType.build("BIGNUMERIC" if dialect == "bigquery" else "DECIMAL(38, 0)",
                            dialect="bigquery" if dialect == "bigquery" else None)
    return exp.Cast(this=x, to=to)


def widened(x: Exp.Expression) -> Exp.Expression:
    """A float32 column as a double (``CAST(x AS DOUBLE)``; DOUBLE PRECISION in PostgreSQL,
    FLOAT64 in BigQuery). DuckDB compares a FLOAT with a decimal literal in float32 (the literal
    rounded: a stored 0.1 is ``<= 0.1``) and adds FLOATs, and a FLOAT and a decimal, in float32;
    PostgreSQL and Spark widen to double first (a stored 0.1 is 0.100000001490116, above 0.1):
    the same row failed ``x <= 0.1`` in one and passed in the other (found 2026-12-04). Widened,
    every engine compares the value the column holds, as pandera and the runtime do."""
    from sqlglot import exp

    return exp.Cast(this=x, to=exp.DataType.build("DOUBLE"))


_ORDERING = frozenset(("<", "<=", ">", ">="))


def orders_strings(node: n.Node, strings: Collection[str]) -> bool:
    """Whether the expression orders a string column (``<``, ``<=``, ``>``, ``>=``, ``between``
    with a column of `strings` as an operand): its verdict depends on the collation."""
    from tacit_gen.expr import nodes as n

    def named(x: n.Node) -> bool:
        return isinstance(x, n.Column | n.Name) and x.name in strings

    def walk(x: n.Node) -> bool:
        if isinstance(x, n.Compare) and any(
                op in _ORDERING and (named(a) or named(b))
                for a, op, b in zip(x.operands, x.ops, x.operands[1:], strict=False)):
            return True
        if isinstance(x, n.Between) and any(named(v) for v in (x.operand, x.low, x.high)):
            return True
        return any(walk(c) for c in n.children(x))

    return bool(strings) and walk(node)


def condition(node: n.Node, dialect: str = "duckdb", integers: Collection[str] = (),
              strings: Collection[str] = (), singles: Collection[str] = ()) -> Exp.Expression:
    """The boolean tree of a resolved invariant (SQL CHECK semantics: NULL operands pass).

    `integers` names the integer-typed columns (`Clause.integers`): as operands of ``+ - *`` and
    unary minus they are cast to an exact decimal (:func:`exact_integer`). `strings` names the
    string and enum columns (`Clause.strings`): strings order by code point, as in DuckDB, Spark,
    Snowflake, BigQuery and pandas; PostgreSQL orders them by the database's collation (under
    ``en_US``, ``'B' < 'b'`` is false), so there a string column that is an operand of an
    ordering comparison or of ``between`` is compared ``COLLATE "C"``. `singles` names the
    float32 columns (`Clause.singles`): each is read as a double (:func:`widened`), so it is
    compared and computed as the value it holds, in every dialect.

    Raises:
        ValueError: a catalog form (not an expression of one row).
    """
    from sqlglot import exp

    from tacit_gen.expr import nodes as n

    check_dialect(dialect)

    def paren(e: Exp.Expression) -> Exp.Expression:
        return exp.Paren(this=e)

    def val(x: n.Node) -> Exp.Expression:
        """An operand: a predicate used as a value is parenthesised (`(a = 0) = FALSE`)."""
        tree = go(x)
        if isinstance(x, n.Compare | n.IsNull | n.InList | n.Between) and not isinstance(
            tree, exp.Paren
        ):
            return paren(tree)
        return tree

    def ordered(x: n.Node) -> Exp.Expression:
        """An operand of an ordering comparison: a string column in byte order on PostgreSQL."""
        tree = val(x)
        if dialect == "postgres" and isinstance(x, n.Column | n.Name) and x.name in strings:
            return exp.Collate(this=tree, expression=exp.Identifier(this="C", quoted=True))
        return tree

    def term(x: n.Node) -> Exp.Expression:
        """An operand of + - * or unary minus: an integer column is computed exactly."""
        if isinstance(x, n.Column | n.Name) and x.name in integers:
            return exact_integer(column(x.name), dialect)
        return go(x)

    def go(x: n.Node) -> Exp.Expression:
        if isinstance(x, n.Column | n.Name):
            return widened(column(x.name)) if x.name in singles else column(x.name)
        if isinstance(x, n.EnumLiteral | n.String):
            return string(x.value)
        if isinstance(x, n.Number):
            return number(x.text)
        if isinstance(x, n.Bool):
            return exp.Boolean(this=x.value)
        if isinstance(x, n.Neg):
            return paren(exp.Neg(this=term(x.operand)))
        if isinstance(x, n.BinOp):
            if x.op == "/":
                return paren(_div(go(x.left), go(x.right), dialect,
                                  integer_valued(x.left, integers)))
            left, right = term(x.left), term(x.right)
            return paren(getattr(exp, _ARITH[x.op])(this=left, expression=right))
        if isinstance(x, n.Compare):
            parts = [
                getattr(exp, _CMP[op])(this=ordered(a), expression=ordered(b)) if op in _ORDERING
                else getattr(exp, _CMP[op])(this=val(a), expression=val(b))
                for a, op, b in zip(x.operands, x.ops, x.operands[1:], strict=False)
            ]
            return parts[0] if len(parts) == 1 else paren(exp.and_(*parts, wrap=False, copy=False))
        if isinstance(x, n.IsNull):
            tree: Exp.Expression = exp.Is(this=val(x.operand), expression=exp.Null())
            return exp.Not(this=tree) if x.negated else tree
        if isinstance(x, n.InList):
            tree = exp.In(this=val(x.operand), expressions=[val(i) for i in x.items])
            return exp.Not(this=tree) if x.negated else tree
        if isinstance(x, n.Between):
            tree = exp.Between(this=ordered(x.operand), low=ordered(x.low), high=ordered(x.high))
            return exp.Not(this=tree) if x.negated else tree
        if isinstance(x, n.And):
            return paren(exp.And(this=go(x.left), expression=go(x.right)))
        if isinstance(x, n.Or):
            return paren(exp.Or(this=go(x.left), expression=go(x.right)))
        if isinstance(x, n.Not):
            return paren(exp.Not(this=go(x.operand)))
        if isinstance(x, n.OnlyWhen):
            return paren(exp.Or(this=exp.Not(this=paren(go(x.left))), expression=go(x.right)))
        raise ValueError(f"{type(x).__name__} has no single-row SQL form")

    return go(node)


# --- one contract's SQL texts, shared by its targets ------------------------------------------

_T = TypeVar("_T")
_SHARED: ContextVar[dict[Hashable, object] | None] = ContextVar("tacit_sql_shared", default=None)


@contextmanager
def shared_texts() -> Iterator[None]:
    """While one contract renders to every target: a SQL text several targets ask for in the
    same dialect (an invariant's condition in dbt, Soda and Soda 4; a failed-rows query in Soda
    and Soda 4) is generated once and reused. The scope is one contract: nothing is carried
    from one contract to the next, so N contracts still generate N times."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def shared(key: Hashable, make: Callable[[], _T]) -> _T:
    """``make()``, or the text it made for the same `key` within the current `shared_texts`
    scope (no scope: always ``make()``). `key` names everything the text depends on."""
    memo = _SHARED.get()
    if memo is None:
        return make()
    if key in memo:
        return memo[key]  # type: ignore[return-value]
    value = memo[key] = make()
    return value


def to_sql(node: n.Node, dialect: str = "duckdb", integers: Collection[str] = (),
           strings: Collection[str] = (), singles: Collection[str] = ()) -> str:
    """The SQL text of a resolved invariant in a dialect (`integers`, `strings`, `singles`: as for
    :func:`condition`; a clause's own are `Clause.integers`, `Clause.strings`, `Clause.singles`)."""
    ints, texts, f32 = frozenset(integers), frozenset(strings), frozenset(singles)
    return shared(("to_sql", node, dialect, ints, texts, f32),
                  lambda: _to_sql(node, dialect, ints, texts, f32))


def _to_sql(node: n.Node, dialect: str, ints: frozenset[str], texts: frozenset[str],
            f32: frozenset[str] = frozenset()) -> str:
    """`to_sql`, from a compiled template when one fits (`tacit_gen.sql.shapes`): the columns are
    the slots, everything else of the expression is its shape."""
    from tacit_gen.expr.nodes import columns
    from tacit_gen.sql import shapes

    if not shapes.active():
        return generate(condition(node, dialect, ints, texts, f32), dialect)
    names = columns(node)
    check_dialect(dialect)

    def build(values: list[str]) -> str:
        if values == list(names):
            return generate(condition(node, dialect, ints, texts, f32), dialect)
        to = dict(zip(names, values, strict=True))
        return generate(condition(renamed(node, to), dialect, frozenset(to[c] for c in ints if c in to),
                                  frozenset(to[c] for c in texts if c in to),
                                  frozenset(to[c] for c in f32 if c in to)), dialect)

    canon = {c: f"c{i}" for i, c in enumerate(names)}
    structure = "\n".join([dialect, repr(renamed(node, canon)),
                           ",".join(canon[c] for c in names if c in ints),
                           ",".join(canon[c] for c in names if c in texts),
                           *([",".join(canon[c] for c in names if c in f32)] if f32 else [])])
    return shapes.text("invariant", structure, [shapes.Slot("name", c) for c in names], build)


def renamed(node: n.Node, to: dict[str, str]) -> n.Node:
    """The expression with each column named in `to` renamed."""
    import dataclasses

    from tacit_gen.expr import nodes as n

    def leaf(x: n.Node) -> n.Node | None:
        if isinstance(x, n.Column | n.Name):
            return dataclasses.replace(x, name=to.get(x.name, x.name))
        return None

    return n.rebuild(node, leaf)


# --- instants and time arithmetic (UTC instants in every dialect) ---------------------------

# `{x}` is an instant (timestamp with time zone). Every form reads the absolute instant: none
# casts to a naive timestamp, so the session time zone never moves a result.
_EPOCH_MS = {
    "duckdb": "epoch_ms(__x__)",
    "postgres": "EXTRACT(EPOCH FROM __x__) * 1000",
    "spark": "unix_millis(__x__)",
    "databricks": "unix_millis(__x__)",
    "snowflake": "DATE_PART(epoch_millisecond, __x__)",
    "bigquery": "UNIX_MILLIS(__x__)",
}
_EPOCH_US = {
    "duckdb": "epoch_us(__x__)",
    "postgres": "EXTRACT(EPOCH FROM __x__) * 1000000",
    "spark": "unix_micros(__x__)",
    "databricks": "unix_micros(__x__)",
    "snowflake": "DATE_PART(epoch_microsecond, __x__)",
    "bigquery": "UNIX_MICROS(__x__)",
}
_UTC_DATE = {
    "duckdb": "CAST(timezone('UTC', __x__) AS DATE)",
    "postgres": "CAST(__x__ AT TIME ZONE 'UTC' AS DATE)",
    "spark": "to_date(__x__)",  # the session time zone is UTC (verify sets it)
    "databricks": "to_date(__x__)",
    "snowflake": "CAST(CONVERT_TIMEZONE('UTC', __x__) AS DATE)",
    "bigquery": "DATE(__x__, 'UTC')",
}
_INSTANT = {
    "duckdb": "CAST(__x__ AS TIMESTAMPTZ)",
    "postgres": "CAST(__x__ AS TIMESTAMPTZ)",
    "spark": "CAST(__x__ AS TIMESTAMP)",
    "databricks": "CAST(__x__ AS TIMESTAMP)",
    "snowflake": "CAST(__x__ AS TIMESTAMPTZ)",
    "bigquery": "CAST(__x__ AS TIMESTAMP)",
}


@cache
def _template(text: str, dialect: str) -> Exp.Expression:
    return parse(text, dialect)


def fill(template: str, dialect: str, **args: Exp.Expression) -> Exp.Expression:
    """A template (SQL of `dialect` naming its holes ``__name__``) with tree nodes in the holes."""
    from sqlglot import exp

    holes = {f"__{k}__": v for k, v in args.items()}

    def put(node: Exp.Expression) -> Exp.Expression:
        if isinstance(node, exp.Column) and not node.table and node.name in holes:
            return holes[node.name].copy()
        return node

    return _template(template, dialect).copy().transform(put, copy=False)


def epoch_ms(x: Exp.Expression, dialect: str) -> Exp.Expression:
    """Milliseconds since 1970-01-01 UTC of an instant."""
    return fill(_EPOCH_MS[check_dialect(dialect)], dialect, x=x)


def epoch_us(x: Exp.Expression, dialect: str) -> Exp.Expression:
    """Microseconds since 1970-01-01 UTC of an instant."""
    return fill(_EPOCH_US[check_dialect(dialect)], dialect, x=x)


def utc_date(x: Exp.Expression, dialect: str) -> Exp.Expression:
    """The UTC calendar date of an instant."""
    return fill(_UTC_DATE[check_dialect(dialect)], dialect, x=x)


def instant(iso: str, dialect: str) -> Exp.Expression:
    """An instant literal from ISO-8601 text with an offset."""
    return fill(_INSTANT[check_dialect(dialect)], dialect, x=string(iso))




_DAYS_SINCE_EPOCH = {  # days from tacit_gen.semantics.calendar.WEEKDAY_EPOCH
    "duckdb": "DATE_DIFF('day', DATE '{epoch}', __x__)",
    "postgres": "(__x__ - DATE '{epoch}')",
    "spark": "DATEDIFF(__x__, DATE '{epoch}')",
    "databricks": "DATEDIFF(__x__, DATE '{epoch}')",
    "snowflake": "DATEDIFF(day, DATE '{epoch}', __x__)",
    "bigquery": "DATE_DIFF(__x__, DATE '{epoch}', DAY)",
}


def int_div(a: Exp.Expression, b: Exp.Expression, dialect: str) -> Exp.Expression:
    """Integer division of non-negative integers (Snowflake's IntDiv rounds: FLOOR there)."""
    from sqlglot import exp

    if dialect == "snowflake":
        return exp.Floor(this=exp.Div(this=a, expression=b))
    return exp.IntDiv(this=a, expression=b)


def days_since_weekday_epoch(date: Exp.Expression, dialect: str) -> Exp.Expression:
    """Days from 0001-01-01 (a Monday, `WEEKDAY_EPOCH`) to `date`: modulo 7, 0-4 are Monday to
    Friday. Never negative for a date after it, so `int_div` and the remainder are exact."""
    from tacit_gen.semantics.calendar import WEEKDAY_EPOCH

    return fill(_DAYS_SINCE_EPOCH[check_dialect(dialect)].format(epoch=WEEKDAY_EPOCH.isoformat()),
                dialect, x=date)


def weekdays_through(date: Exp.Expression, dialect: str) -> Exp.Expression:
    """Mon-Fri days from 0001-01-01 (a Monday) through `date`, inclusive: the formula of
    `tacit_gen.semantics.calendar.weekday_number`, as a tree."""
    from sqlglot import exp

    from tacit_gen.semantics.calendar import WEEKDAY_EPOCH

    days = fill(_DAYS_SINCE_EPOCH[check_dialect(dialect)].format(epoch=WEEKDAY_EPOCH.isoformat()),
                dialect, x=date)
    seven = exp.Literal.number(7)
    weeks = exp.Mul(this=exp.Literal.number(5),
                    expression=exp.Paren(this=int_div(days.copy(), seven, dialect)))
    rest = exp.Least(this=exp.Add(this=exp.Mod(this=days.copy(), expression=seven.copy()),
                                  expression=exp.Literal.number(1)),
                     expressions=[exp.Literal.number(5)])
    return exp.Paren(this=exp.Add(this=weeks, expression=rest))


def is_not_null(e: Exp.Expression) -> Exp.Expression:
    from sqlglot import exp

    return exp.Not(this=exp.Is(this=e, expression=exp.Null()))


def is_null(e: Exp.Expression) -> Exp.Expression:
    from sqlglot import exp

    return exp.Is(this=e, expression=exp.Null())


def lag_over(value: Exp.Expression, partition: list[Exp.Expression],
             order: Exp.Expression, dialect: str = "duckdb") -> Exp.Expression:
    """``LAG(value) OVER (PARTITION BY .. ORDER BY order)``, `order` never NULL (callers filter
    NULL points out): the dialect's own NULL ordering is kept, so no ``NULLS LAST`` is written."""
    from sqlglot import exp

    nulls_first = sqlglot_dialect(dialect).NULL_ORDERING == "nulls_are_small"
    return exp.Window(this=exp.Lag(this=value), partition_by=partition or None,
                      order=exp.Order(expressions=[exp.Ordered(this=order, nulls_first=nulls_first)]))


def pretty(tree: Exp.Expression, dialect: str = "duckdb") -> str:
    """Multi-line SQL text of a query (queries an artifact shows as a block); the tree is
    consumed, as in :func:`generate`."""
    return str(tree.sql(dialect=sqlglot_dialect(dialect), pretty=True, copy=False))


def pattern_match(name: str, body: str, dialect: str = "duckdb") -> Exp.Expression:
    """``name`` matches the whole pattern `body` (`tacit_gen.sql.pattern`), in the dialect's
    regex function (DuckDB ``REGEXP_MATCHES``, PostgreSQL ``~``, Spark ``RLIKE``, ...): a NULL
    value gives NULL (the row passes, SQL CHECK semantics)."""
    from sqlglot import exp

    from tacit_gen.sql.pattern import DIALECT_FLAVOR, full_match

    return exp.RegexpLike(this=column(name), expression=string(full_match(body, DIALECT_FLAVOR[dialect])))


# `pattern_match`'s text in each dialect: sqlglot's form of a regex match (tested against it)
_REGEX_FORM = {
    "duckdb": "REGEXP_MATCHES({c}, {p})",
    "postgres": "{c} ~ {p}",
    "spark": "{c} RLIKE {p}",
    "databricks": "REGEXP_LIKE({c}, {p})",
    "snowflake": "REGEXP_LIKE({c}, {p})",
    "bigquery": "REGEXP_CONTAINS({c}, {p})",
}


def pattern_sql(name: str, body: str, dialect: str = "duckdb") -> str:
    """The SQL text of `pattern_match`, written as sqlglot prints it: the dialect's form with the
    name (`ident`) and the whole-match regex (`literal`), so that a plain name and a regex of
    printable ASCII need no sqlglot."""
    from tacit_gen.sql.pattern import DIALECT_FLAVOR, full_match

    check_dialect(dialect)
    return _REGEX_FORM[dialect].format(c=ident(name, dialect),
                                       p=literal(full_match(body, DIALECT_FLAVOR[dialect]), dialect))


def revision_by_ok(by_column: str, values: tuple[str, ...], revision_column: str = "revision") -> Exp.Expression:
    """A row passes when its revision is not above 0, or its `by_column` is one of `values`
    (a restated row with a NULL restater fails: a restatement names who made it)."""
    from sqlglot import exp

    rev = column(revision_column)
    allowed = exp.In(this=column(by_column), expressions=[string(v) for v in values])
    named = exp.and_(is_not_null(column(by_column)), allowed, copy=False)
    return exp.or_(exp.Not(this=exp.paren(exp.GT(this=rev, expression=exp.Literal.number(0)), copy=False)),
                   exp.paren(named, copy=False), copy=False)


def precision_ok(name: str, unit_us: int, dialect: str = "duckdb") -> Exp.Expression:
    """A row passes when its instant `name` is NULL or a whole number of `unit_us` microseconds
    since the epoch (`precision:`; the epoch is whole at every precision, so the remainder of
    the instant's microseconds is the digits finer than the precision)."""
    from sqlglot import exp

    c = column(name)
    whole = exp.EQ(this=exp.Mod(this=epoch_us(c.copy(), dialect), expression=exp.Literal.number(unit_us)),
                   expression=exp.Literal.number(0))
    return exp.or_(is_null(c), whole, copy=False)


def read_precision(sql: str) -> tuple[str, int] | None:
    """(column, unit in microseconds) of SQL written by :func:`precision_ok`, or None."""
    from sqlglot import exp

    for tree in _parse_any(sql):
        mod = tree.find(exp.Mod)
        col = tree.find(exp.Column)
        if mod is None or col is None or not isinstance(mod.expression, exp.Literal):
            continue
        try:
            return col.name, int(str(mod.expression.this))
        except ValueError:
            continue
    return None


_READ_DIALECTS = ("duckdb", "postgres", "spark", "snowflake", "bigquery")


def _parse_any(sql: str) -> list[Exp.Expression]:
    from sqlglot.errors import ParseError

    out = []
    for d in _READ_DIALECTS:
        try:
            out.append(parse(sql, d))
        except (ParseError, ValueError):
            continue
    return out


def read_pattern_match(sql: str) -> tuple[str, str] | None:
    """(column, pattern body) of SQL written by :func:`pattern_match` in any dialect, or None."""
    from sqlglot import exp

    from tacit_gen.sql.pattern import body_of

    for tree in _parse_any(sql):
        node = tree if isinstance(tree, exp.RegexpLike) else tree.find(exp.RegexpLike)
        if node is None or not isinstance(node.this, exp.Column) or not isinstance(node.expression, exp.Literal):
            continue
        body = body_of(str(node.expression.this).replace("\\\\", "\\"))
        if body is not None:
            return node.this.name, body
    return None


def read_revision_by(sql: str) -> tuple[str, str, tuple[str, ...]] | None:
    """(by column, revision column, allowed values) of SQL written by :func:`revision_by_ok`."""
    from sqlglot import exp

    for tree in _parse_any(sql):
        found = tree.find(exp.In)
        gt = tree.find(exp.GT)
        if found is None or gt is None or not isinstance(found.this, exp.Column) or not isinstance(gt.this, exp.Column):
            continue
        values = tuple(str(e.this) for e in found.expressions if isinstance(e, exp.Literal))
        return found.this.name, gt.this.name, values
    return None
