"""A decimal's bound as a pattern: JSON has one number type, so a ``decimal(p,s)`` travels as its
text (``"-12.345"``), where ``minimum`` says nothing. The texts outside a bound form a regular
language; `outside` writes its pattern (ECMA-262 and RE2 alike: alternation, classes, counted
repeats, no lookaround), the schema states ``not`` it, and `read_bound` recovers the bound from a
pattern by probing it, then writes it again: a pattern tacit-gen did not write reads as None.

The texts are the decimal type's own (``-?(0|[1-9][0-9]*)(\\.[0-9]+)?``: the property's pattern
already refuses any other); ``-0.00`` is zero.
"""

from __future__ import annotations

import re
from decimal import Decimal

_DECIMAL_RE = re.compile(r"\^-\?(?:\(0\|\[1-9\]\[0-9\]\{0,(?P<w>\d+)\}\)|0)(?:\(\\\.\[0-9\]\{1,(?P<s>\d+)\}\)\?)?\$")


def decimal_from_pattern(pattern: str) -> str | None:
    """`decimal(p,s)` from a pattern decimal_pattern wrote, else None."""
    m = _DECIMAL_RE.fullmatch(pattern)
    if not m:
        return None
    whole = int(m.group("w")) + 1 if m.group("w") is not None else 0
    scale = int(m.group("s") or 0)
    return f"decimal({whole + scale},{scale})"


def _split(b: Decimal) -> tuple[str, str]:
    """(integer digits, fraction digits without trailing zeros) of a magnitude."""
    text = format(abs(b), "f")
    whole, _, frac = text.partition(".")
    return whole, frac.rstrip("0")


def _lower(d: str) -> str:
    return f"[0-{int(d) - 1}]" if int(d) > 1 else "0"


def _upper(d: str) -> str:
    return f"[{int(d) + 1}-9]" if int(d) < 8 else "9"


def _digits(n: int) -> str:
    return "" if n == 0 else "[0-9]" if n == 1 else f"[0-9]{{{n}}}"


def _int_greater(i: str) -> list[str]:
    """Integer digit strings (no leading zero) above `i`."""
    out = [f"[1-9][0-9]{{{len(i)},}}"]
    for k, d in enumerate(i):
        if d == "9":
            continue
        rest = len(i) - k - 1
        out.append(i[:k] + _upper(d) + _digits(rest))
    return out


def _int_less(i: str) -> list[str]:
    """Integer digit strings (no leading zero) below `i`."""
    out = []
    if len(i) > 1:
        out.append("0")
        if len(i) > 2:
            out.append(f"[1-9][0-9]{{0,{len(i) - 2}}}")
        else:
            out.append("[1-9]")
    for k, d in enumerate(i):
        low = 1 if k == 0 and len(i) > 1 else 0
        if int(d) <= low:
            continue
        rest = len(i) - k - 1
        cls = f"[{low}-{int(d) - 1}]" if int(d) - 1 > low else str(low)
        out.append(i[:k] + cls + _digits(rest))
    return out


def _frac_greater(f: str) -> list[str]:
    """Fraction digit strings (one or more) above ``0.f``."""
    out = []
    for j, d in enumerate(f):
        if d != "9":
            out.append(f[:j] + _upper(d) + "[0-9]*")
    out.append(f + "0*[1-9][0-9]*")
    return out


def _frac_less(f: str) -> list[str]:
    """Fraction digit strings (one or more) below ``0.f`` (f without trailing zeros, not empty)."""
    out = []
    for j, d in enumerate(f):
        if j:
            out.append(f[:j])
        if d != "0":
            out.append(f[:j] + _lower(d) + "[0-9]*")
    return out


def _alt(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else "(" + "|".join(parts) + ")"


def _magnitude(b: Decimal, above: bool, equal: bool) -> list[str]:
    """Unsigned texts whose value is above (or below) the magnitude `b`, or equal when `equal`."""
    i, f = _split(b)
    if above:
        out = [_alt(_int_greater(i)) + r"(\.[0-9]+)?"]
        out.append(i + r"\." + _alt(_frac_greater(f)))
    else:
        out = [_alt(_int_less(i)) + r"(\.[0-9]+)?"] if _int_less(i) else []
        if f:
            out.append(i + r"(\." + _alt(_frac_less(f)) + ")?")
    if equal:
        out.append(i + (r"\." + f + "0*" if f else r"(\.0+)?"))
    return out


ZERO = r"0(\.0+)?"


def outside(bound: str, upper: bool, inclusive: bool) -> str:
    """The pattern of the decimal texts a bound refuses: above it (`upper`) or below it; the
    bound itself too when it is not `inclusive`."""
    b = Decimal(bound)
    equal = not inclusive
    alts: list[str] = []
    if upper:  # refused: x > b (x >= b)
        if b > 0 or (b == 0 and not equal):
            alts = _magnitude(b, True, equal)
        elif b == 0:  # x >= 0: every text but a negative one
            alts = [r"(0|[1-9][0-9]*)(\.[0-9]+)?", "-" + ZERO]
        else:  # x > -m: every unsigned text, and -y with y < m (y <= m)
            alts = [r"(0|[1-9][0-9]*)(\.[0-9]+)?", *("-" + a for a in _magnitude(b, False, equal))]
    else:  # refused: x < b (x <= b)
        if b < 0 or (b == 0 and not equal):
            alts = ["-" + a for a in _magnitude(b, True, equal)]
        elif b == 0:  # x <= 0: every negative text, and zero
            alts = [r"-[0-9.]+", ZERO]
        else:  # x < m: every negative text, and unsigned y < m (y <= m)
            alts = [r"-[0-9.]+", *_magnitude(b, False, equal)]
    return "^(" + "|".join(alts) + ")$"


def _probe(pattern: re.Pattern[str], scale: int, units: int) -> bool:
    q = Decimal(units).scaleb(-scale)
    return pattern.fullmatch(format(q, "f")) is not None


def read_bound(pattern: str, upper: bool, scale: int, whole: int) -> tuple[str, bool] | None:
    """(bound, inclusive) of a pattern `outside` wrote for a ``decimal(whole+scale, scale)``, or
    None. The refused texts of a bound are an interval's complement on one side: a binary search
    over the values of the type (and a few digits finer) finds its edge; the pattern written for
    that edge must be the pattern read."""
    try:
        compiled = re.compile(pattern)
    except re.error:
        return None
    fine = scale + 6
    top = 10 ** (whole + fine)
    lo, hi = -top, top  # search in units of 10^-fine
    refused_at_low = _probe(compiled, fine, lo)
    if refused_at_low == upper:
        return None
    # the last unit that is accepted (upper) or refused (lower), from below
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _probe(compiled, fine, mid) != upper:
            lo = mid
        else:
            hi = mid
    edge = Decimal(lo).scaleb(-fine) if not upper else Decimal(hi).scaleb(-fine)
    step = Decimal(1).scaleb(-fine)
    candidates = [(edge, False), (edge - step, True)] if upper else [(edge, False), (edge + step, True)]
    for value, inclusive in candidates:
        text = format(value.normalize(), "f") if value != 0 else "0"
        if outside(text, upper, inclusive) == pattern:
            return text, inclusive
    return None


__all__ = ["decimal_from_pattern", "outside", "read_bound"]
