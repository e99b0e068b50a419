"""`json.dumps(data, indent=2, ensure_ascii=False)`, byte for byte, without the pure-Python
iterating encoder that the standard library falls back to whenever `indent` is given.

Strings go through the standard library's C string encoder; containers are joined directly.
A value the JSON encoder would not accept is handed to `json.dumps` itself (same error).
"""

from __future__ import annotations

import json
import json.encoder
from typing import Any

_STR: Any = json.encoder.encode_basestring  # the C encoder when the _json module exists
_INF = float("inf")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INF:
        return "Infinity"
    if value == -_INF:
        return "-Infinity"
    return float.__repr__(value)


def _key(key: Any) -> str:
    """A key's text: a string as it is, a scalar's text as a string (``"true"``, ``"1"``)."""
    return _STR(key) if isinstance(key, str) else _STR(_scalar(key))


def _scalar(value: Any) -> str:
    """A scalar's text (a subclass of str, int or float as its base type writes), else TypeError."""
    if isinstance(value, str):
        return _STR(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    raise TypeError(value)


def _write(value: Any, pad: str, out: list[str]) -> None:
    """`value` at `pad`. Exact types are dispatched first (a string value is written in the
    container's loop, without a call); subclasses go through the `isinstance` chain."""
    kind = type(value)
    if kind is dict or isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = pad + "  "
        sep = "{\n" + inner
        for k, v in value.items():
            head = sep + (_STR(k) if type(k) is str else _key(k)) + ": "
            sep = ",\n" + inner
            if type(v) is str:
                out.append(head + _STR(v))
            else:
                out.append(head)
                _write(v, inner, out)
        out.append("\n" + pad + "}")
    elif kind is list or kind is tuple or isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = pad + "  "
        sep = "[\n" + inner
        for item in value:
            if type(item) is str:
                out.append(sep + _STR(item))
            else:
                out.append(sep)
                _write(item, inner, out)
            sep = ",\n" + inner
        out.append("\n" + pad + "]")
    else:
        out.append(_scalar(value))


def dumps(data: Any) -> str:
    """The text of ``json.dumps(data, indent=2, ensure_ascii=False)``."""
    out: list[str] = []
    try:
        _write(data, "", out)
    except (TypeError, RecursionError):
        return json.dumps(data, indent=2, ensure_ascii=False)  # its own error, or its own text
    return "".join(out)


def _inline(value: Any) -> str:
    """`value` on one line: ``{"k": v, "k2": [1, 2]}``."""
    if isinstance(value, dict):
        return "{" + ", ".join(_key(k) + ": " + _inline(v) for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return _scalar(value)


def _fit(value: Any, pad: str, used: int, width: int, out: list[str]) -> None:
    """`value` at `pad`, `used` characters into its line: a container whose one-line text fits
    in `width` (with the comma after it) stays on the line, else one item a line."""
    if not isinstance(value, dict | list | tuple) or not value:
        out.append(_inline(value))
        return
    flat = _inline(value)
    if used + len(flat) + 1 <= width:
        out.append(flat)
        return
    inner = pad + "  "
    is_dict = isinstance(value, dict)
    items = ([(_key(k) + ": ", v) for k, v in value.items()] if isinstance(value, dict)
             else [("", v) for v in value])
    out.append("{" if is_dict else "[")
    for i, (key, v) in enumerate(items):
        head = inner + key
        out.append(("\n" if i == 0 else ",\n") + head)
        _fit(v, inner, len(head), width, out)
    out.append("\n" + pad + ("}" if is_dict else "]"))


def dumps_fitted(data: Any, width: int = 100) -> str:
    """JSON as `dumps` indents it, except that an object or array whose one-line text fits in
    `width` columns is written on one line (``"kwargs": {"column": "symbol"}``). Deterministic;
    `json.loads` reads back the same data."""
    out: list[str] = []
    try:
        _fit(data, "", 0, width, out)
    except (TypeError, RecursionError):
        return json.dumps(data, indent=2, ensure_ascii=False)
    return "".join(out)
