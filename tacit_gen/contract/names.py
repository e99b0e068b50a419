"""The one name validator: contract, column, relation and target names land in file names, SQL
identifiers and Python source, so a name is one spelling every target accepts.

Rules (code TG115): the whole text matches ``[A-Za-z_][A-Za-z0-9_]*`` (``fullmatch``: a trailing
newline is not a name), at most 63 characters (PostgreSQL truncates longer identifiers silently),
columns unique whatever the case (warehouses fold unquoted names), and a name that becomes a Python
class is neither a keyword (``None``) nor a builtin or a name the generated module imports.
"""

from __future__ import annotations

import builtins
import keyword
import re

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A catalog relation may be schema-qualified: `ref.series_catalog`.
RELATION = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
MAX_LENGTH = 63
# Names a generated ibis module binds at the top level: a class of that name would shadow them.
_MODULE_NAMES = frozenset({"Annotated", "Clause", "Column", "Decimal", "Schema", "date", "datetime"})


def name_problem(text: str, what: str, pattern: re.Pattern[str] = IDENT) -> str | None:
    """Why `text` cannot be `what` (e.g. "column name"), or None when it can."""
    if not pattern.fullmatch(text):
        return (f"{what} {text!r} is not a name: letters, digits and '_', not starting with a digit"
                + (" (a trailing line break is part of the text)" if text.rstrip() != text else ""))
    if len(text) > MAX_LENGTH:
        return f"{what} '{text[:20]}...' is {len(text)} characters; at most {MAX_LENGTH} (PostgreSQL truncates longer names)"
    return None


def class_problem(text: str, what: str) -> str | None:
    """Why `text` cannot name the generated Python class, or None."""
    problem = name_problem(text, what)
    if problem is not None:
        return problem
    if keyword.iskeyword(text) or keyword.issoftkeyword(text):
        return f"{what} '{text}' is a Python keyword"
    if text in _MODULE_NAMES or hasattr(builtins, text):
        return f"{what} '{text}' would shadow the Python name '{text}' the generated module uses"
    return None


def pascal_case(name: str) -> str:
    """The class name a contract name gives the generated ibis Schema (`ohlcv_1m` -> `Ohlcv1m`)."""
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", name) if p]
    out = "".join(p[:1].upper() + p[1:] for p in parts) or "Contract"
    if not out.isidentifier() or out[0].isdigit():
        out = "Contract" + out
    return out
