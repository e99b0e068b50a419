"""The column type grammar: string, bool, int32/64, float32/64, decimal(p,s), date, timestamps, enum."""

from __future__ import annotations

import re
from dataclasses import dataclass

SIMPLE = ("string", "bool", "int32", "int64", "float32", "float64", "date")
TIMESTAMP_UNITS = ("s", "ms", "us", "ns")

_DECIMAL = re.compile(r"^decimal\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)$")
_ENUM = re.compile(r"^enum\s*\[(.*)\]$", re.S)
_TS = re.compile(r"^timestamp_(s|ms|us|ns)_utc$")
_ENUM_VALUE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


class TypeSyntaxError(ValueError):
    """A type string that is not in the grammar; `offset` points into the text."""

    def __init__(self, message: str, offset: int = 0, word: str = "") -> None:
        super().__init__(message)
        self.offset = offset
        self.word = word


@dataclass(frozen=True)
class DataType:
    """A column type of the contract language."""

    kind: str  # one of SIMPLE, "decimal", "timestamp", "enum"
    precision: int | None = None
    scale: int | None = None
    ts_unit: str | None = None
    values: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.kind == "decimal":
            return f"decimal({self.precision},{self.scale})"
        if self.kind == "timestamp":
            return f"timestamp_{self.ts_unit}_utc"
        if self.kind == "enum":
            return "enum[" + ", ".join(self.values) + "]"
        return self.kind

    @property
    def is_integer(self) -> bool:
        return self.kind in ("int32", "int64")

    @property
    def is_float(self) -> bool:
        return self.kind in ("float32", "float64")

    @property
    def is_decimal(self) -> bool:
        return self.kind == "decimal"

    @property
    def is_numeric(self) -> bool:
        return self.is_integer or self.is_float or self.is_decimal

    @property
    def is_textual(self) -> bool:
        return self.kind in ("string", "enum")

    @property
    def family(self) -> str:
        """The comparison family: numeric, text, bool, temporal."""
        if self.is_numeric:
            return "numeric"
        if self.is_textual:
            return "text"
        if self.kind == "bool":
            return "bool"
        return "temporal"


def parse_type(text: str) -> DataType:
    """Parse a type string such as ``decimal(18,8)`` or ``enum[good, suspect, bad]``.

    Raises:
        TypeSyntaxError: with the offending word and its offset in ``text``.
    """
    t = text.strip()
    lead = len(text) - len(text.lstrip())
    if t in SIMPLE:
        return DataType(t)
    m = _TS.match(t)
    if m:
        return DataType("timestamp", ts_unit=m.group(1))
    if t.startswith("decimal"):
        m = _DECIMAL.match(t)
        if not m:
            raise TypeSyntaxError(
                f"malformed decimal type '{t}': expected decimal(precision,scale)", lead, t
            )
        p, s = int(m.group(1)), int(m.group(2))
        if not 1 <= p <= 38:
            raise TypeSyntaxError(f"decimal precision {p} is out of range 1..38 in '{t}'", lead, t)
        if s > p:
            raise TypeSyntaxError(f"decimal scale {s} is larger than precision {p} in '{t}'", lead, t)
        return DataType("decimal", precision=p, scale=s)
    if t.startswith("enum"):
        m = _ENUM.match(t)
        if not m:
            raise TypeSyntaxError(f"malformed enum type '{t}': expected enum[a, b, ...]", lead, t)
        inner_at = lead + t.index("[") + 1
        values: list[str] = []
        pos = 0
        for piece in m.group(1).split(","):
            v = piece.strip()
            # the value's first character; for an empty value, the ',' or ']' that ends it
            at = inner_at + pos + (len(piece) - len(piece.lstrip()) if v else len(piece))
            pos += len(piece) + 1
            if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
                v = v[1:-1]
            if not v:
                sep = text[at] if at < len(text) else "]"
                raise TypeSyntaxError(f"empty enum value before '{sep}' in '{t}'", at, sep)
            if not _ENUM_VALUE.match(v):
                raise TypeSyntaxError(f"bad enum value '{v}' in '{t}'", at, v)
            if v in values:
                raise TypeSyntaxError(f"enum value '{v}' is listed twice in '{t}'", at, v)
            values.append(v)
        return DataType("enum", values=tuple(values))
    if t.startswith("timestamp"):
        raise TypeSyntaxError(
            f"unknown type '{t}': timestamps are UTC instants, write timestamp_{{s,ms,us,ns}}_utc",
            lead,
            t,
        )
    raise TypeSyntaxError(f"unknown type '{t}'", lead, t)
