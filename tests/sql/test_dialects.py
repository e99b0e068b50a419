"""The SQL layer in every dialect: contract text stays inside its literal or identifier.

Each generated text is parsed back with sqlglot in the same dialect, and the tree must hold the
literal (or name) intact and nothing else: a backslash that the dialect reads as an escape cannot
end the literal early and rewrite the WHERE clause.
"""

from __future__ import annotations

import pytest
from sqlglot import exp

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.sql import DIALECTS, condition, generate, ident, literal, parse, to_sql
from tacit_gen.sql.build import column, relation, string

HOSTILE = (
    "\\') and false --",
    "\\",
    "it's",
    "a\\'b",
    "\\\\'",
    "line\nbreak",
    "tab\tand\\n",
    "back`tick\"quote",
    "${var} {{ jinja }}",
    "üñí€",
)

CONTRACT = load(
    "backslash.yaml",
    """\
contract: backslash_literal
version: 1.0.0
fields:
  id: {type: int64, nullable: false}
  note: {type: string}
invariants:
  - "note != '\\\\'') and false --'"
""",
)


def _invariant() -> exp.Expression:
    (clause,) = [c for c in plan(CONTRACT) if c.kind == "invariant"]
    assert clause.expr is not None
    return clause.expr  # type: ignore[return-value]


def test_the_contract_holds_the_backslash_literal() -> None:
    (clause,) = [c for c in plan(CONTRACT) if c.kind == "invariant"]
    assert clause.text == "note != '\\'') and false --'"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_backslash_literal_is_intact_in_every_dialect(dialect: str) -> None:
    sql = to_sql(_invariant(), dialect)  # type: ignore[arg-type]
    query = f"SELECT * FROM t WHERE NOT ({sql})"
    tree = parse(query, dialect)
    where = tree.args["where"].this
    assert isinstance(where, exp.Not)
    cmp = where.this.unnest()
    assert isinstance(cmp, exp.NEQ), generate(tree, dialect)
    assert cmp.this.name == "note"
    assert isinstance(cmp.expression, exp.Literal) and cmp.expression.is_string
    assert cmp.expression.this == "\\') and false --"
    # nothing else in the WHERE clause: no FALSE, no comment swallowed the rest
    assert not list(where.find_all(exp.Boolean))
    assert [lit.this for lit in tree.find_all(exp.Literal)] == ["\\') and false --"]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("value", HOSTILE)
def test_literal_round_trips(dialect: str, value: str) -> None:
    tree = parse(f"SELECT {literal(value, dialect)} AS v", dialect)
    lits = list(tree.find_all(exp.Literal))
    assert [x.this for x in lits] == [value]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", ["value", "select", "Mixed", 'a"b', "a`b", "x y", "plain_1"])
def test_identifier_round_trips(dialect: str, name: str) -> None:
    tree = parse(f"SELECT {ident(name, dialect)} FROM {ident(name, dialect)}", dialect)
    col = tree.find(exp.Column)
    tbl = tree.find(exp.Table)
    assert col is not None and col.name == name
    assert tbl is not None and tbl.name == name


def test_duckdb_and_postgres_double_quotes_others_escape_backslashes() -> None:
    value = "\\'"
    assert literal(value, "duckdb") == "'\\'''"
    assert literal(value, "postgres") == "'\\'''"
    for d in ("spark", "databricks", "bigquery", "snowflake"):
        assert literal(value, d) == "'\\\\\\''"
    assert ident("value", "spark") == "`value`"
    assert ident("value", "postgres") == '"value"'


@pytest.mark.parametrize("dialect", DIALECTS)
def test_qualified_relation(dialect: str) -> None:
    text = generate(exp.select(column("a")).from_(relation("series catalog", "tacit s1")), dialect)
    table = parse(text, dialect).find(exp.Table)
    assert table is not None and table.name == "series catalog" and table.db == "tacit s1"


def test_division_is_exact_and_null_on_zero() -> None:
    contract = load(
        "div.yaml",
        "contract: div\nversion: 1.0.0\nfields:\n  a: {type: int64}\n  b: {type: int64}\n"
        "invariants:\n  - a / b < 1\n",
    )
    (clause,) = [c for c in plan(contract) if c.kind == "invariant"]
    # NULLIF in DuckDB too: from DuckDB 1.1 on, x / 0 is inf or NaN, not NULL
    assert to_sql(clause.expr, "duckdb") == "(a / NULLIF(b, 0)) < 1"  # type: ignore[arg-type]
    # an integer dividend is an exact decimal where integers divide truncating (PostgreSQL)
    assert clause.integers == {"a", "b"}
    assert to_sql(clause.expr, "postgres", clause.integers) == \
        "(CAST(a AS DECIMAL(38, 0)) / NULLIF(b, 0)) < 1"  # type: ignore[arg-type]
    tree = condition(clause.expr, "spark")  # type: ignore[arg-type]
    assert tree.find(exp.Nullif) is not None
    assert string("x").this == "x"


def test_plain_names_print_as_sqlglot_prints_them_without_it() -> None:
    """`ident` prints a plain name itself, without sqlglot, unless a generator would quote it,
    and a word tacit-gen quotes (a keyword, a capital) between the dialect's quotes: the shipped
    set is the pinned sqlglot's, and for every keyword of every dialect's tokenizer and
    generator, and names around them, the fast answer is sqlglot's own."""
    from tacit_gen.sql.build import RESERVED, SQLGLOT_QUOTES, identifier
    from tacit_gen.sql.dialects import sqlglot_dialect

    quoted = set()
    words = {"value", "symbol", "bar_start", "open", "close", "_x", "a1", "window_start", "é"}
    for d in DIALECTS:
        dialect = sqlglot_dialect(d)
        quoted |= {k.lower() for k in dialect.generator_class.RESERVED_KEYWORDS}
        words |= {k.lower() for k in dialect.tokenizer_class.KEYWORDS if k.isidentifier()}
    assert frozenset(quoted - RESERVED) == SQLGLOT_QUOTES
    words |= set(RESERVED) | set(SQLGLOT_QUOTES) | {w + "_x" for w in SQLGLOT_QUOTES}
    # names tacit-gen quotes without sqlglot (`quoted_as_itself`): capitals, every keyword in
    # capitals and in title case, a leading underscore; and some it hands to sqlglot
    words |= {"Upper", "ID", "Price_USD", "A1", "_X", "x_Y", "has space", 'q"uote', "back`tick"}
    words |= {w.upper() for w in RESERVED} | {w.title() for w in SQLGLOT_QUOTES}
    assert len(words) > 300
    for d in DIALECTS:
        for w in sorted(words):
            assert ident(w, d) == identifier(w).sql(dialect=sqlglot_dialect(d)), (d, w)


def test_plain_string_literals_print_as_sqlglot_prints_them_without_it() -> None:
    """`literal` writes printable ASCII without a quote or a backslash between quotes itself,
    without sqlglot: for every such character, alone and together, in every dialect, that is
    sqlglot's text; anything else goes through sqlglot (escaped)."""
    from tacit_gen.sql.build import PLAIN_TEXT, literal, string
    from tacit_gen.sql.dialects import sqlglot_dialect

    plain = [chr(i) for i in range(0x20, 0x7F) if chr(i) not in "'\\"]
    samples = ["", "XNYS", "".join(plain), *plain, "a{b}c", "%(x)s", ":name", "$$", "--", "/*x*/"]
    for d in DIALECTS:
        for s in samples:
            assert PLAIN_TEXT.fullmatch(s)
            assert literal(s, d) == string(s).sql(dialect=sqlglot_dialect(d)) == f"'{s}'", (d, s)
        for s in ["it's", "a\\b", "tab\there", "é", "line\n"]:
            assert not PLAIN_TEXT.fullmatch(s)
            assert literal(s, d) == string(s).sql(dialect=sqlglot_dialect(d)), (d, s)
        # a backslash (the regexes of `pattern:`) is written without sqlglot too: as it is, or
        # doubled where it escapes; beside every other printable character
        for s in ["\\", "\\\\", "^(a\\.b)\\z", "\\d{3}-\\d{4}", *("\\" + c for c in plain), "".join(plain) + "\\"]:
            assert literal(s, d) == string(s).sql(dialect=sqlglot_dialect(d)), (d, s)


def test_a_pattern_match_is_written_as_sqlglot_prints_it() -> None:
    """`pattern_sql` (the dbt test's expression) is sqlglot's text of `pattern_match` in every
    dialect, for plain, keyword, capitalised and odd column names and regexes with backslashes,
    quotes and non-ASCII characters."""
    from tacit_gen.sql.build import generate, pattern_match, pattern_sql

    names = ["series_id", "value", "Value", "order", "has space", 'q"uote', "é"]
    bodies = ["[a-z][a-z0-9_]{0,62}[0-9]", "\\d{3}-\\d{4}", "a\\.b", "(foo|bar)+", "[^x]*", "it's",
              "é+", "[A-Z]{2}\\s?[0-9]+"]
    for d in DIALECTS:
        for name in names:
            for body in bodies:
                assert pattern_sql(name, body, d) == generate(pattern_match(name, body, d), d), (d, name, body)
