"""Numbers in GX suites: contract decimal text as JSON numbers and SQL number text, and back."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any


def json_number(text: str) -> int | float:
    """A contract number (decimal text) as a JSON number: int when integral text, else float."""
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return float(text)


def number_text(value: Any) -> str | None:
    """A JSON number back as decimal text (inverse of json_number for the texts it produces)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        d = Decimal(repr(value))
        text = format(d, "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text
    if isinstance(value, str):
        return value
    return None


def decimal_value(text: str) -> Decimal:
    """Contract decimal text as a Decimal."""
    return Decimal(text)


def sql_number(d: Decimal) -> str:
    """A Decimal as SQL number text, without exponent or trailing zeros."""
    text = format(d.normalize(), "f")
    return text
