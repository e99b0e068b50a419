"""The checks of tacit-gen's generated pandera modules, in one importable module.

A generated module (``tacit-gen render --targets pandera``) is the contract in pandera's words;
what pandera has no builtin for lives here: the column types as pandas holds them (`accepts`),
row conditions in SQL's three-valued logic, and the time-series and catalog clauses.

Row conditions are evaluated with pyarrow.compute, whose Kleene and/or/not and null-propagating
comparisons are SQL's three-valued logic; a numpy-backed column is read into Arrow first (`col`).
"""

# pyarrow.compute's functions are made at import (its stubs name none of them) and pandas-stubs
# types `df[name]` as Series | DataFrame: pyright cannot follow this module's array code.
# pyright: reportAttributeAccessIssue=false, reportArgumentType=false, reportCallIssue=false
# pyright: reportOperatorIssue=false

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pyarrow
import pyarrow.compute as pc

_UTC_NAMES = frozenset(
    ("UTC", "Etc/UTC", "Etc/UCT", "UCT", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu", "Z", "+00:00")
)
_TEXT_TYPES = (pyarrow.string(), pyarrow.large_string(), pyarrow.string_view())
_ARROW_TYPES = {
    "string": pyarrow.string(),
    "bool": pyarrow.bool_(),
    "int32": pyarrow.int32(),
    "int64": pyarrow.int64(),
    "float32": pyarrow.float32(),
    "float64": pyarrow.float64(),
    "date": pyarrow.date32(),
}
_INT_BOUNDS = {"int32": 2**31, "int64": 2**63}
_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)")


def col(df: pd.DataFrame, name: str, type_text: str | None = None) -> Any:
    """Column ``name`` as an Arrow array; dictionary-encoded text (an enum) is decoded, and a
    float32 is read as a float64 (computed and compared as the value it holds, as every target
    does: float32 arithmetic rounds). NaN of a numpy float column is NULL (pandas' convention).
    With the contract's `type_text` (a decimal, integer or date), a numpy-backed column is read
    as the Arrow type it stands for: a decimal held in a double as the decimal its shortest
    repr writes, whole doubles as integers, a naive midnight timestamp as a date."""
    arr = pyarrow.array(df[name])
    if pyarrow.types.is_dictionary(arr.type):
        arr = pc.cast(arr, arr.type.value_type)
    if type_text is not None and not isinstance(df[name].dtype, pd.ArrowDtype):
        arr = _as_contract_type(arr, type_text)
    if pyarrow.types.is_null(arr.type):  # an object column of only nulls (or none): text
        arr = arr.cast(pyarrow.string())
    if pyarrow.types.is_float32(arr.type):
        arr = pc.cast(arr, pyarrow.float64())
    return arr


def _as_contract_type(arr: Any, type_text: str) -> Any:
    """A numpy-backed column's Arrow array as the type of its contract column, where it can be."""
    m = _DECIMAL.fullmatch(type_text)
    try:
        if m is not None:
            target = pyarrow.decimal128(int(m.group(1)), int(m.group(2)))
            if pyarrow.types.is_floating(arr.type):
                text = [None if v is None else Decimal(repr(v)) for v in arr.to_pylist()]
                return pyarrow.array(text, target)
            return pc.cast(arr, target)
        if type_text in _INT_BOUNDS and pyarrow.types.is_floating(arr.type):
            return pc.cast(arr, pyarrow.int64())
        if type_text == "date" and pyarrow.types.is_timestamp(arr.type) and arr.type.tz is None:
            return pc.cast(arr, pyarrow.date32())
    except (pyarrow.ArrowInvalid, pyarrow.ArrowNotImplementedError, ArithmeticError, ValueError):
        pass  # not of the type: the column's type check fails, the values compare as they are
    return arr


def _v(x: Any) -> Any:
    """An Arrow array or scalar as is; a Python literal as an Arrow scalar."""
    if isinstance(x, pyarrow.Array | pyarrow.ChunkedArray | pyarrow.Scalar):
        return x
    return pyarrow.scalar(x)


def enum(value: str) -> str:
    """A bare enum literal of the contract (compared as text)."""
    return value


def _nan(x: Any) -> Any:
    """True where a float is NaN (NULL stays NULL); False for any other type."""
    if pyarrow.types.is_floating(x.type):
        return pc.is_nan(x)
    return pyarrow.scalar(False)


def _both(fn: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """``fn(a, b)``; two decimals whose common type passes 38 digits (decimal(38,10) against
    decimal(38,20) is 48) compared as decimal256, exactly (Arrow raises on them)."""
    try:
        return fn(a, b)
    except (pyarrow.ArrowInvalid, pyarrow.ArrowNotImplementedError):
        return fn(_wide(a), _wide(b))


def _eq(a: Any, b: Any) -> Any:
    """``a = b`` in SQL order: NaN equals NaN (IEEE says it never does)."""
    na, nb = _nan(a), _nan(b)
    both = pc.and_kleene(na, nb)
    return pc.or_kleene(both, pc.and_kleene(pc.and_kleene(pc.invert(na), pc.invert(nb)), _both(pc.equal, a, b)))


def _lt(a: Any, b: Any) -> Any:
    """``a < b`` in SQL order: NaN is above every number (DuckDB, PostgreSQL and Spark agree)."""
    na, nb = _nan(a), _nan(b)
    return pc.or_kleene(pc.and_kleene(pc.invert(na), nb), pc.and_kleene(pc.invert(nb), _both(pc.less, a, b)))


def _le(a: Any, b: Any) -> Any:
    """``a <= b`` in SQL order: anything is at most NaN; NaN is at most only NaN."""
    return pc.or_kleene(_nan(b), pc.and_kleene(pc.invert(_nan(a)), _both(pc.less_equal, a, b)))


_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "=": _eq,
    "!=": lambda a, b: pc.invert(_eq(a, b)),
    "<": _lt,
    "<=": _le,
    ">": lambda a, b: _lt(b, a),
    ">=": lambda a, b: _le(b, a),
}


def cmp(first: Any, *rest: Any) -> Any:
    """A comparison chain ``a op b op c``: the Kleene AND of each adjacent pair."""
    out = None
    left = _v(first)
    for op, right in zip(rest[::2], rest[1::2], strict=True):
        right = _v(right)
        step = _COMPARE[op](left, right)
        out = step if out is None else pc.and_kleene(out, step)
        left = right
    return out


def _wide(x: Any) -> Any:
    t = x.type
    if pyarrow.types.is_decimal128(t):
        return pc.cast(x, pyarrow.decimal256(t.precision, t.scale))
    return x


def _float(x: Any) -> Any:
    if pyarrow.types.is_floating(x.type):
        return x
    return pc.cast(x, pyarrow.float64())


def _exact(x: Any) -> Any:
    """An integer as a decimal of its digits (int64: 19): a sum or product past the integer's
    width stays exact, as in the SQL targets (DECIMAL(38, 0)), instead of overflowing."""
    t = x.type
    if pyarrow.types.is_integer(t):
        return pc.cast(x, pyarrow.decimal128(19 if t.bit_width > 32 else 10, 0))
    return x


def _arith(fn: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """Exact decimal/integer arithmetic: integers past their width become decimals, decimals
    past 38 digits decimal256; double only when neither holds the result."""
    a, b = _v(a), _v(b)
    try:
        return fn(a, b)
    except (pyarrow.ArrowInvalid, pyarrow.ArrowNotImplementedError):
        pass
    a, b = _exact(a), _exact(b)
    for step in (lambda x: x, _wide):
        try:
            return fn(step(a), step(b))
        except (pyarrow.ArrowInvalid, pyarrow.ArrowNotImplementedError):
            pass
    return fn(_float(a), _float(b))


def add(a: Any, b: Any) -> Any:
    return _arith(pc.add_checked, a, b)


def sub(a: Any, b: Any) -> Any:
    return _arith(pc.subtract_checked, a, b)


def mul(a: Any, b: Any) -> Any:
    return _arith(pc.multiply_checked, a, b)


def div(a: Any, b: Any) -> Any:
    """Division as in DuckDB: in double precision, and NULL when the divisor is zero."""
    fa, fb = _float(_v(a)), _float(_v(b))
    return pc.if_else(pc.equal(fb, 0.0), pyarrow.scalar(None, pyarrow.float64()), pc.divide(fa, fb))


def neg(x: Any) -> Any:
    x = _v(x)
    try:
        return pc.negate_checked(x)
    except pyarrow.ArrowInvalid:  # -(-2^63): past int64
        return pc.negate_checked(_exact(x))


def and_(a: Any, b: Any) -> Any:
    return pc.and_kleene(_v(a), _v(b))


def or_(a: Any, b: Any) -> Any:
    return pc.or_kleene(_v(a), _v(b))


def not_(a: Any) -> Any:
    return pc.invert(_v(a))


def only_when(a: Any, b: Any) -> Any:
    """``A only when B``: A implies B, i.e. ``not A or B``."""
    return pc.or_kleene(pc.invert(_v(a)), _v(b))


def is_null(x: Any) -> Any:
    return pc.is_null(_v(x))


def is_not_null(x: Any) -> Any:
    return pc.is_valid(_v(x))


def in_(x: Any, *items: Any) -> Any:
    """``x in (a, b)`` as ``x = a or x = b``: NULL when x is NULL, as in SQL."""
    out = None
    for item in items:
        step = cmp(x, "=", item)
        out = step if out is None else pc.or_kleene(out, step)
    return out


def not_in(x: Any, *items: Any) -> Any:
    return pc.invert(in_(x, *items))


def between(x: Any, low: Any, high: Any) -> Any:
    return pc.and_kleene(cmp(low, "<=", x), cmp(x, "<=", high))


def not_between(x: Any, low: Any, high: Any) -> Any:
    return pc.invert(between(x, low, high))


def holds(df: pd.DataFrame, condition: Any) -> pd.Series:
    """Per row: passes unless the condition is FALSE (NULL, i.e. UNKNOWN, passes)."""
    if isinstance(condition, pyarrow.Scalar):
        condition = pyarrow.array([condition.as_py()] * len(df), pyarrow.bool_())
    passed = pc.fill_null(condition, True).to_numpy(zero_copy_only=False)
    return pd.Series(passed, index=df.index, dtype=bool)


def in_range(s: pd.Series, low: Any, high: Any, include_low: bool, include_high: bool,
             type_text: str | None = None) -> pd.Series:
    """A range in SQL order (NaN above every number, so ``x >= 0`` holds for NaN and
    ``x <= 500`` does not; pandera's ``ge``/``in_range`` compare as IEEE); NULL passes. With a
    decimal `type_text`, compared as decimals whatever the frame holds (`col`)."""
    x = col(pd.DataFrame({"x": s}), "x", type_text)
    parts = []
    if low is not None:
        parts.append(cmp(low, "<=" if include_low else "<", x))
    if high is not None:
        parts.append(cmp(x, "<=" if include_high else "<", high))
    ok = parts[0] if len(parts) == 1 else pc.and_kleene(parts[0], parts[1])
    return pd.Series(pc.fill_null(ok, True).to_numpy(zero_copy_only=False), index=s.index, dtype=bool)


def equals(s: pd.Series, value: Any, type_text: str) -> pd.Series:
    """A fixed decimal value, compared as decimals whatever the frame holds (`col`); NULL passes."""
    ok = cmp(col(pd.DataFrame({"x": s}), "x", type_text), "=", value)
    return pd.Series(pc.fill_null(ok, True).to_numpy(zero_copy_only=False), index=s.index, dtype=bool)


def matches(s: pd.Series, regex: str) -> pd.Series:
    """A `pattern:` (`regex` a whole-value RE2 match, ``^(...)$``) by pyarrow's RE2 on any kind
    of text column: pandas hands ``str.match`` on an ``object`` column to Python's ``re``, whose
    ``$`` also accepts a final newline. NULL passes."""
    ok = pc.match_substring_regex(col(pd.DataFrame({"x": s}), "x"), regex)
    return pd.Series(pc.fill_null(ok, True).to_numpy(zero_copy_only=False), index=s.index, dtype=bool)


def accepts(series: pd.Series, type_text: str) -> bool:
    """Whether a column holds contract type `type_text` as pandas holds it, without coercion.

    Arrow-backed (``pd.ArrowDtype``): the exact Arrow type (a timestamp: any unit, tz UTC; text:
    string, large_string or dictionary-encoded). numpy-backed, as ``read_csv``, ``read_parquet``
    and DuckDB's ``.df()`` give it: text as ``object`` holding ``str`` or a string dtype; an
    integer as an integer dtype, or ``float64`` holding whole numbers (a column with nulls);
    a decimal as ``float64`` (scale and digits as far as a double tells: `_double_fits`), an
    integer dtype, or ``object`` holding ``Decimal``; a date as a naive ``datetime64`` at
    midnight or ``object`` holding ``date``; an instant as ``datetime64[*, UTC]``."""
    dtype = series.dtype
    if isinstance(dtype, pd.ArrowDtype):
        return _arrow_accepts(dtype.pyarrow_dtype, type_text)
    values = series[series.notna()]
    if type_text.startswith("timestamp_"):
        return isinstance(dtype, pd.DatetimeTZDtype) and str(dtype.tz) in _UTC_NAMES
    if type_text == "string" or type_text.startswith("enum["):
        if isinstance(dtype, pd.CategoricalDtype):
            values = pd.Series(dtype.categories)
            dtype = values.dtype
        return isinstance(dtype, pd.StringDtype) or (
            pd.api.types.is_object_dtype(dtype) and all(isinstance(v, str) for v in values))
    if type_text == "bool":
        return pd.api.types.is_bool_dtype(dtype) or (
            pd.api.types.is_object_dtype(dtype) and all(isinstance(v, bool | np.bool_) for v in values))
    if type_text == "date":
        if isinstance(dtype, np.dtype) and dtype.kind == "M":
            return bool((values == values.dt.normalize()).all())
        return pd.api.types.is_object_dtype(dtype) and all(isinstance(v, date) and not isinstance(v, datetime) for v in values)
    if type_text in ("float32", "float64"):
        return pd.api.types.is_float_dtype(dtype) and (type_text == "float32" or dtype.itemsize == 8)
    if type_text in _INT_BOUNDS:
        bound = _INT_BOUNDS[type_text]
        if pd.api.types.is_integer_dtype(dtype):
            return values.empty or (-bound <= int(values.min()) and int(values.max()) < bound)
        if pd.api.types.is_float_dtype(dtype):
            v = values.to_numpy(dtype="float64")
            return bool(np.isfinite(v).all() and (v == np.floor(v)).all() and (np.abs(v) <= bound).all())
        return False
    m = _DECIMAL.fullmatch(type_text)
    if m is None:
        return False
    precision, scale = int(m.group(1)), int(m.group(2))
    if pd.api.types.is_integer_dtype(dtype):
        return values.empty or max(abs(int(values.min())), abs(int(values.max()))) < 10 ** (precision - scale)
    if pd.api.types.is_float_dtype(dtype):
        return all(_double_fits(float(v), precision, scale) for v in values)
    return pd.api.types.is_object_dtype(dtype) and all(_decimal_fits(v, precision, scale) for v in values)


def _arrow_accepts(t: Any, type_text: str) -> bool:
    """The Arrow type a DuckDB, PostgreSQL or Spark column of the contract type reads as."""
    if type_text.startswith("timestamp_"):
        return pyarrow.types.is_timestamp(t) and t.tz in _UTC_NAMES
    if type_text.startswith("enum[") and pyarrow.types.is_dictionary(t):
        t = t.value_type
    if type_text == "string" or type_text.startswith("enum["):
        return t in _TEXT_TYPES
    m = _DECIMAL.fullmatch(type_text)
    if m is not None:
        return pyarrow.types.is_decimal(t) and (t.precision, t.scale) == (int(m.group(1)), int(m.group(2)))
    return type_text in _ARROW_TYPES and t == _ARROW_TYPES[type_text]


def _decimal_fits(value: Any, precision: int, scale: int) -> bool:
    """A ``Decimal`` with at most `scale` places as written and `precision - scale` whole digits."""
    if not isinstance(value, Decimal) or not value.is_finite():
        return False
    exponent = value.as_tuple().exponent
    return isinstance(exponent, int) and -exponent <= scale and (value == 0 or value.adjusted() < precision - scale)


def _double_fits(value: float, precision: int, scale: int) -> bool:
    """A double read from a decimal of `scale` places: its shortest repr has at most `scale`
    places (a decimal with more places rounds to a double whose repr shows them, up to 17
    significant digits: past those a double cannot tell), and it is at most the largest value
    of the type, rounded to a double as the value was."""
    if not math.isfinite(value):
        return False
    places = Decimal(repr(value)).as_tuple().exponent
    largest = float(Decimal(10) ** (precision - scale) - Decimal(10) ** -scale)
    return isinstance(places, int) and -places <= scale and abs(value) <= largest


def column_type(name: str, error: str, type_text: str) -> pa.Check:
    """The column's type (`accepts`): one check named by its clause, whatever the frame."""
    return pa.Check(lambda s: accepts(s, type_text), name=name, error=error)
