"""Which names and string literals print as themselves in every dialect: the rules
`tacit_gen.sql.build.ident` and `literal` and the compiled templates (`tacit_gen.sql.shapes`)
share, without importing sqlglot."""

from __future__ import annotations

import re

RESERVED = frozenset(
    (
        "all", "and", "any", "as", "asc", "between", "by", "case", "cast", "check", "collate",
        "column", "constraint", "create", "cross", "current_date", "current_time",
        "current_timestamp", "current_user", "default", "desc", "distinct", "else", "end", "except",
        "false", "fetch", "for", "foreign", "from", "full", "grant", "group", "having", "in",
        "inner", "intersect", "interval", "into", "is", "join", "key", "lateral", "left", "like",
        "limit", "natural", "not", "null", "offset", "on", "or", "order", "outer", "over",
        "partition", "primary", "range", "references", "right", "rows", "select", "session_user",
        "some", "table", "then", "to", "true", "union", "unique", "user", "using", "value", "values",
        "when", "where", "window", "with",
    )
)
_PLAIN = re.compile(r"[a-z_][a-z0-9_]*")
# The words sqlglot's generators quote even when a name is written unquoted (their
# RESERVED_KEYWORDS, DuckDB's and BigQuery's; the other dialects have none), beyond RESERVED:
# a plain name in neither set prints as itself in every dialect, without sqlglot (`ident`). A test
# recomputes this set from the pinned sqlglot and compares it.
SQLGLOT_QUOTES = frozenset(
    (
        'analyse', 'analyze', 'array', 'asc_p', 'assert_rows_modified', 'asymmetric', 'at',
        'both', 'check_p', 'contains', 'create_p', 'cube', 'current', 'current_catalog',
        'current_role', 'deferrable', 'define', 'desc_p', 'do', 'end_p', 'enum', 'escape',
        'exclude', 'exists', 'extract', 'false_p', 'following', 'group_p', 'grouping', 'groups',
        'hash', 'if', 'ignore', 'in_p', 'initially', 'lateral_p', 'leading', 'localtime',
        'localtimestamp', 'lookup', 'merge', 'new', 'no', 'null_p', 'nulls', 'of', 'only',
        'placing', 'preceding', 'proto', 'qualify', 'recursive', 'respect', 'returning',
        'rollup', 'set', 'struct', 'symmetric', 'tablesample', 'trailing', 'treat', 'true_p',
        'unbounded', 'unnest', 'variadic', 'within',
    )
)


def needs_quotes(name: str) -> bool:
    """A name is quoted unless it is lower-case plain and no keyword (the same in every dialect)."""
    return not (_PLAIN.fullmatch(name) and name not in RESERVED)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quoted_as_itself(name: str) -> bool:
    """Whether tacit-gen quotes the name (`needs_quotes`: a keyword such as ``value``, or a
    capital letter) and it is a word of ASCII letters, digits and underscores: sqlglot then
    prints it between the dialect's identifier quotes, as it is (no character to escape)."""
    return _WORD.fullmatch(name) is not None and needs_quotes(name)


def prints_as_itself(name: str) -> bool:
    """Whether sqlglot prints the name unquoted, as itself, in every dialect: plain lower case,
    and neither in `RESERVED` nor a word a generator quotes (`SQLGLOT_QUOTES`)."""
    return not needs_quotes(name) and name not in SQLGLOT_QUOTES


# A string literal's content that every dialect writes as it is between quotes: printable ASCII
# but the quote and the backslash (tested against sqlglot for every such character).
PLAIN_TEXT = re.compile(r"[\x20-\x26\x28-\x5b\x5d-\x7e]*")


# Printable ASCII but the quote: every dialect writes it between quotes as it is, a backslash
# doubled where a backslash escapes (`tacit_gen.sql.dialects.BACKSLASH_ESCAPES`; tested).
QUOTABLE_TEXT = re.compile(r"[\x20-\x26\x28-\x7e]*")


def plain_text(value: str) -> bool:
    """Whether sqlglot prints `value` as a string literal ``'value'`` in every dialect."""
    return PLAIN_TEXT.fullmatch(value) is not None
