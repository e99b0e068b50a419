"""Contract column types (``decimal(18,8)``, ``timestamp_ms_utc``...) against ibis data types."""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from typing import TYPE_CHECKING

from tacit_gen.contract.types import DataType, parse_type

if TYPE_CHECKING:
    import ibis.expr.datatypes as dt

UTC_NAMES = frozenset({"UTC", "Etc/UTC", "Etc/UCT", "UCT", "Z", "+00:00", "GMT", "Etc/GMT", "Zulu"})
_TS_SCALE = {"s": 0, "ms": 3, "us": 6, "ns": 9}

# Python annotation type per contract type kind (for hand-written schemas, the inverse).
PY_TYPES: dict[str, type] = {
    "string": str,
    "enum": str,
    "bool": bool,
    "int32": int,
    "int64": int,
    "float32": float,
    "float64": float,
    "decimal": _decimal.Decimal,
    "date": _dt.date,
    "timestamp": _dt.datetime,
}
# Default contract type for a bare Python annotation in a hand-written schema.
FROM_PY: dict[type, str] = {
    str: "string",
    bool: "bool",
    int: "int64",
    float: "float64",
    _dt.datetime: "timestamp_us_utc",
    _dt.date: "date",
}


def contract_type(text: str) -> DataType:
    """Parse a contract type string (raises TypeSyntaxError)."""
    return parse_type(text)


def to_ibis(t: DataType) -> dt.DataType:
    """The ibis type a column of contract type `t` converts to in `parse()`."""
    import ibis.expr.datatypes as dt

    simple: dict[str, dt.DataType] = {
        "string": dt.string,
        "enum": dt.string,
        "bool": dt.boolean,
        "int32": dt.int32,
        "int64": dt.int64,
        "float32": dt.float32,
        "float64": dt.float64,
        "date": dt.date,
    }
    if t.kind in simple:
        return simple[t.kind]
    if t.kind == "decimal":
        return dt.Decimal(t.precision, t.scale)
    if t.kind == "timestamp":
        return dt.Timestamp(timezone="UTC", scale=_TS_SCALE[t.ts_unit or "us"])  # pyright: ignore[reportArgumentType]
    raise ValueError(f"no ibis type for {t}")  # pragma: no cover - grammar is closed


def is_utc(tz: str | None) -> bool:
    return tz is not None and tz in UTC_NAMES


def structural_mismatch(t: DataType, actual: dt.DataType) -> str | None:
    """Why `actual` is not exactly the declared type (None when it is). No conversion assumed."""
    if t.kind in ("string", "enum"):
        ok = actual.is_string()
    elif t.kind == "bool":
        ok = actual.is_boolean()
    elif t.kind == "int32":
        ok = actual.is_int32()
    elif t.kind == "int64":
        ok = actual.is_int64()
    elif t.kind == "float32":
        ok = actual.is_float32()
    elif t.kind == "float64":
        ok = actual.is_float64()
    elif t.kind == "date":
        ok = actual.is_date()
    elif t.kind == "decimal":
        if not actual.is_decimal():
            ok = False
        else:
            p, s = actual.precision, actual.scale  # type: ignore[attr-defined]
            if (p, s) != (t.precision, t.scale):
                return f"expected {t} (precision and scale), found decimal({p},{s})"
            ok = True
    elif t.kind == "timestamp":
        if not actual.is_timestamp():
            ok = False
        else:
            tz = actual.timezone  # type: ignore[attr-defined]
            if tz is None:
                return f"expected {t} (a UTC instant), found a naive timestamp"
            if not is_utc(tz):
                return f"expected {t} (a UTC instant), found timestamp in time zone {tz!r}"
            scale = actual.scale  # type: ignore[attr-defined]
            # microseconds is the finest instant DuckDB, PostgreSQL and Spark hold (their one
            # time-zone-aware type, which dbt, Soda and GX declare for every precision): a
            # timestamp_ns_utc column there is scale 6, and the data cannot hold finer
            want = min(_TS_SCALE[t.ts_unit or "us"], 6)
            if scale is not None and scale < want:
                return f"expected {t}, found timestamp with scale {scale} (coarser than {t.ts_unit})"
            ok = True
    else:  # pragma: no cover
        ok = False
    return None if ok else f"expected {t}, found {actual}"


def conversion_refusal(t: DataType, actual: dt.DataType) -> str | None:
    """Why a column of type `actual` may not be converted to `t` in `parse()` (None: it may).

    Conversions that could invent or silently reinterpret data are refused: a naive timestamp
    never becomes a UTC instant, a timestamp never becomes a date, and nothing becomes a
    timestamp or a date except text (with an explicit offset) and other instants/dates.
    """
    if t.kind in ("string", "enum"):
        return None if (actual.is_string() or actual.is_numeric() or actual.is_boolean()) else (
            f"cannot convert {actual} to {t}"
        )
    if t.kind == "bool":
        return None if (actual.is_boolean() or actual.is_string()) else f"cannot convert {actual} to {t}"
    if t.is_numeric:
        return None if (actual.is_numeric() or actual.is_string()) else f"cannot convert {actual} to {t}"
    if t.kind == "date":
        return None if (actual.is_date() or actual.is_string()) else f"cannot convert {actual} to {t}"
    if t.kind == "timestamp":
        if actual.is_timestamp():
            if actual.timezone is None:  # type: ignore[attr-defined]
                return f"expected {t} (a UTC instant), found a naive timestamp: refusing to guess its zone"
            return None
        if actual.is_string():
            return None
        return f"cannot convert {actual} to {t}"
    return f"cannot convert {actual} to {t}"  # pragma: no cover

