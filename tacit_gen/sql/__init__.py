"""Every SQL text tacit-gen emits, built as sqlglot trees and generated per dialect.

``dialects`` names the dialects and prints them; ``build`` makes trees (identifiers, literals,
invariants, time arithmetic on UTC instants). Targets and engines never paste contract text into
SQL: they ask this package for the text of a tree in their dialect.
"""

from tacit_gen.sql.build import (
    RESERVED,
    column,
    condition,
    epoch_ms,
    epoch_us,
    fill,
    generate,
    ident,
    identifier,
    instant,
    int_div,
    is_not_null,
    is_null,
    lag_over,
    left_join,
    literal,
    needs_quotes,
    number,
    orders_strings,
    parse,
    pattern_match,
    pattern_sql,
    precision_ok,
    pretty,
    qualified,
    read_pattern_match,
    read_precision,
    read_revision_by,
    relation,
    revision_by_ok,
    shared,
    shared_texts,
    string,
    table_name,
    to_sql,
    utc_date,
    weekdays_through,
    widened,
)
from tacit_gen.sql.dialects import (
    ADAPTER_DIALECT,
    BACKSLASH_ESCAPES,
    DIALECTS,
    UnknownDialect,
    check_dialect,
    sqlglot_dialect,
)

__all__ = [
    "ADAPTER_DIALECT", "BACKSLASH_ESCAPES", "DIALECTS", "RESERVED", "UnknownDialect",
    "check_dialect", "column", "condition", "epoch_ms", "epoch_us", "fill", "generate", "ident",
    "identifier", "instant", "int_div", "is_not_null", "is_null", "lag_over", "left_join", "literal",
    "needs_quotes", "number", "orders_strings", "parse", "pattern_match", "pattern_sql", "precision_ok", "pretty", "qualified", "read_pattern_match", "read_precision", "read_revision_by", "relation", "revision_by_ok", "shared", "shared_texts", "sqlglot_dialect",
    "string", "table_name", "to_sql", "utc_date", "weekdays_through", "widened",
]
