"""Compile a resolved invariant AST to a boolean SQL expression for a dialect.

The result follows SQL CHECK semantics by construction: a row violates the invariant when
``NOT (<sql>)`` is TRUE; a NULL operand makes the expression UNKNOWN, and the row passes.
The SQL is a sqlglot tree printed per dialect (`tacit_gen.sql`); this module keeps the names
the targets import.
"""

from __future__ import annotations

from tacit_gen.sql import DIALECTS, RESERVED, ident, literal, to_sql
from tacit_gen.sql.dialects import BACKTICK as BACKTICK_DIALECTS

__all__ = ["BACKTICK_DIALECTS", "DIALECTS", "RESERVED", "ident", "literal", "to_sql"]
