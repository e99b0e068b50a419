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
    if isinstance(key, str):
        return _STR(key)
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return _STR(int.__repr__(key))
    if isinstance(key, float):
        return _STR(_float(key))
    raise TypeError(key)


def _write(value: Any, pad: str, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(_STR(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = pad + "  "
        out.append("[\n" + inner)
        for i, item in enumerate(value):
            if i:
                out.append(",\n" + inner)
            _write(item, inner, out)
        out.append("\n" + pad + "]")
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = pad + "  "
        out.append("{\n" + inner)
        for i, (k, v) in enumerate(value.items()):
            if i:
                out.append(",\n" + inner)
            out.append(_key(k) + ": ")
            _write(v, inner, out)
        out.append("\n" + pad + "}")
    else:
        raise TypeError(value)


def dumps(data: Any) -> str:
    """The text of ``json.dumps(data, indent=2, ensure_ascii=False)``."""
    out: list[str] = []
    try:
        _write(data, "", out)
    except (TypeError, RecursionError):
        return json.dumps(data, indent=2, ensure_ascii=False)  # its own error, or its own text
    return "".join(out)
