"""Load a contract file into the typed model, reporting every problem with path:line:col.

Nothing downstream reads raw YAML. `load` raises `ContractError` with all error diagnostics of a
file; `load_report` returns the contract (or None) with every diagnostic, warnings included.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from tacit_gen.contract import names, yamlpos
from tacit_gen.contract.errors import ContractError, Diagnostic
from tacit_gen.contract.model import (
    Cadence,
    Calendar,
    Catalog,
    Completeness,
    Contract,
    Duration,
    Evolution,
    Field,
    Invariant,
    Pos,
    Positions,
    RevisionPolicy,
    TimeSpec,
)
from tacit_gen.contract.types import DataType, TypeSyntaxError, parse_type
from tacit_gen.contract.yamlpos import YNode
from tacit_gen.diagnostics import Diagnostics, close_matches

TOP_KEYS = (
    "contract",
    "version",
    "owner",
    "source",
    "description",
    "key",
    "time",
    "fields",
    "invariants",
    "revision_policy",
    "provenance_required",
    "severity",
    "catalog",
    "calendar",
    "evolution",
    "targets",
)
FIELD_KEYS = (
    "type",
    "nullable",
    "unit",
    "dimension",
    "value",
    "note",
    "description",
    "constraint",
    "pattern",
    "plausible",
    "references",
    "aliases",
    "lint",
)
LINT_WAIVER_KEYS = ("allow", "reason")
SEVERITY_KEYS = ("warn",)  # `severity: {warn: [<clause id>, ...]}`; unlisted clauses are errors
TIME_KEYS = ("column", "precision", "timezone", "calendar", "cadence", "completeness", "freshness",
             "ingest_column")
REVISION_KEYS = ("allowed", "window", "reasons", "notification", "by", "by_column", "note")
CATALOG_KEYS = ("relation", "key", "unit", "hard_min", "hard_max", "cadence", "calendar",
                "plausible_min", "plausible_max")
CALENDAR_KEYS = ("relation", "calendar", "session", "open", "close")
PER_SERIES_CALENDAR = "per series from catalog"
_WITHIN_SESSION = re.compile(r"^within\s+sessions?$", re.I)
_NO_OUTSIDE = re.compile(r"^no\s+bars\s+outside\s+sessions?$", re.I)
EVOLUTION_KEYS = ("compatibility", "notice_period", "reserved")
COMPAT_MODES = (
    "NONE",
    "BACKWARD",
    "FORWARD",
    "FULL",
    "BACKWARD_TRANSITIVE",
    "FORWARD_TRANSITIVE",
    "FULL_TRANSITIVE",
)
SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$"
)
IDENT = names.IDENT  # fullmatch only: see tacit_gen.contract.names
_DURATION = re.compile(
    r"^\s*(?P<n>\d+(?:\.\d+)?)\s*(?P<u>ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|"
    r"d|days?|w|weeks?|(?:trading|business)\s+days?)(?![A-Za-z])",
    re.I,
)
_UNIT_SECONDS = {
    "ms": Decimal("0.001"),
    "s": Decimal(1),
    "m": Decimal(60),
    "h": Decimal(3600),
    "d": Decimal(86400),
    "w": Decimal(604800),
}
_TOLERANCE = re.compile(r"^tolerance\s*(?:\+/-|±|\+-)\s*(\d+(?:\.\d+)?)\s*%(?:\s*of\s*interval)?$", re.I)
_GAPS = re.compile(r"^gaps\s+(allowed|forbidden|not\s+allowed)$", re.I)
IMPLIED_PROVENANCE = {"revision": "int64"}


def parse_duration(text: str) -> tuple[Duration, str] | None:
    """Parse a leading duration; returns (duration, rest of the text) or None."""
    m = _DURATION.match(text)
    if not m:
        return None
    num = Decimal(m.group("n"))
    unit = m.group("u").lower()
    business = None
    trading = "trading" in unit
    if "trading" in unit or "business" in unit:
        if num != num.to_integral_value():
            return None
        business = int(num)
        seconds = num * 86400
    else:
        key = (
            "ms"
            if unit.startswith("ms") or unit.startswith("milli")
            else unit[0]
        )
        seconds = num * _UNIT_SECONDS[key]
    if seconds != seconds.to_integral_value() or seconds <= 0:
        return None
    return Duration(m.group(0).strip(), int(seconds), business, trading), text[m.end() :].strip()


@dataclass
class _Ctx(Diagnostics):
    """The loader's collector: the diagnostics, plus what loading one file needs."""

    file: str = ""  # the path as given, for the portable header path
    resolved: str = ""  # its realpath
    root: str | None = None  # its project root, once `_portable` found it
    protected: str = ""
    suggested: set[tuple[int, str]] = field(default_factory=set)  # (map start, key) did-you-mean

    def text_of(self, node: YNode, start: YNode | None = None) -> str:
        return yamlpos.source_text(self.protected, node, start)


def positions(root: YNode) -> Positions:
    """The position of every key and list item of a composed file, by YAML path."""
    out: list[tuple[tuple[str, ...], Pos, Pos]] = []
    stack: list[tuple[tuple[str, ...], YNode]] = [((), root)]
    while stack:
        path, node = stack.pop()
        if node.kind == "map":
            items = [((*path, str(k.value)), k, v) for k, v in node.value]
        elif node.kind == "seq":
            items = [((*path, str(i)), v, v) for i, v in enumerate(node.value)]
        else:
            continue
        for p, k, v in items:
            out.append((p, _pos(k), _pos(v)))
            stack.append((p, v))
    return Positions(tuple(sorted(out, key=lambda e: (e[1].line, e[1].col, e[0]))))


def _key_node(node: YNode | None, key: str) -> YNode | None:
    """The key node of `key` in a mapping node (for errors that point at the key)."""
    if node is None or node.kind != "map":
        return None
    for k, _ in node.value:
        if k.value == key:
            return k
    return None


def _pos(node: YNode) -> Pos:
    return Pos(node.line, node.col)


def _kind_name(node: YNode) -> str:
    return {"map": "a mapping", "seq": "a list", "scalar": "a scalar"}[node.kind]


def _lint_waiver(ctx: _Ctx, node: YNode | None, name: str) -> tuple[tuple[str, ...], str | None]:
    """A field's ``lint: {allow: [TG201], reason: "..."}``: which lint rules are waived, and why
    (required: a waiver without a reason is an error)."""
    if node is None or not _expect(ctx, node, "map", f"'lint' of '{name}'"):
        return (), None
    _check_keys(ctx, node, LINT_WAIVER_KEYS, f"'lint' of '{name}'")
    from tacit_gen.contract.lint import RULES

    codes: list[str] = []
    allow = node.get("allow")
    if allow is None:
        ctx.error(node, "TG104", f"'lint' of '{name}' has no 'allow' (the rule codes it waives)", "lint")
    else:
        for code, cnode in _name_list(ctx, allow, f"'lint.allow' of '{name}'"):
            if code not in RULES:
                close = close_matches(code, list(RULES), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                ctx.error(cnode, "TG114", f"'{code}' is not a lint rule that can be waived{hint}", code)
            elif code not in codes:
                codes.append(code)
    reason = _string(ctx, node.get("reason"), f"the lint waiver reason of '{name}'")
    if reason is None or not reason.strip():
        ctx.error(node, "TG104", f"the lint waiver of '{name}' has no 'reason': say why the rule "
                                 "does not apply", "reason")
        return (), None
    return tuple(codes), reason.strip()


def _check_keys(ctx: _Ctx, node: YNode, allowed: tuple[str, ...], where: str) -> None:
    for k in node.key_nodes():
        name = str(k.value)
        if name in allowed or name.startswith("x-"):
            continue
        close = close_matches(name, allowed, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        ctx.error(k, "TG102", f"unknown key '{name}' in {where}{hint}", name)
        if close:
            ctx.suggested.add((node.start, close[0]))


def _misspelled(ctx: _Ctx, node: YNode, key: str) -> bool:
    """Whether a missing `key` of `node` was already reported as a misspelling (did-you-mean)."""
    return (node.start, key) in ctx.suggested


def _expect(ctx: _Ctx, node: YNode | None, kind: str, what: str) -> bool:
    if node is None:
        return False
    if node.kind != kind:
        ctx.error(
            node,
            "TG103",
            f"{what} must be {'a mapping' if kind == 'map' else 'a list' if kind == 'seq' else 'a scalar'}, "
            f"found {_kind_name(node)}",
            node.raw if node.kind == "scalar" else "",
        )
        return False
    return True


def _string(ctx: _Ctx, node: YNode | None, what: str) -> str | None:
    if node is None:
        return None
    if not _expect(ctx, node, "scalar", what):
        return None
    if node.value is None:
        return None
    return str(node.raw) if not isinstance(node.value, str) else node.value


def _bool(ctx: _Ctx, node: YNode | None, what: str) -> bool | None:
    if node is None:
        return None
    if node.kind != "scalar" or not isinstance(node.value, bool):
        ctx.error(node, "TG103", f"{what} must be true or false, found '{node.raw}'", node.raw)
        return None
    return bool(node.value)


def _name_list(ctx: _Ctx, node: YNode | None, what: str, once: bool = False) -> list[tuple[str, YNode]]:
    """The names of a list (or one scalar); `once`: a name listed twice is an error (TG114)."""
    if node is None:
        return []
    if node.kind == "scalar" and isinstance(node.value, str):
        return [(node.value, node)]
    if not _expect(ctx, node, "seq", what):
        return []
    out: list[tuple[str, YNode]] = []
    for item in node.value:
        if item.kind != "scalar" or not isinstance(item.value, str) or not item.value:
            ctx.error(item, "TG103", f"{what} entries must be names", item.raw)
            continue
        if once and any(name == item.value for name, _ in out):  # `key: [id, id]`: a typo
            ctx.error(item, "TG114", f"{what} names '{item.value}' twice", item.raw)
            continue
        out.append((item.value, item))
    return out


def _value_offset(node: YNode) -> int:
    """Columns to add to node.col to reach the first character of a scalar's text."""
    return 1 if node.style in ("'", '"') else 0


# -----------------------------------------------------------------------------------------------
def _load_field(ctx: _Ctx, knode: YNode, vnode: YNode, key_cols: set[str]) -> Field | None:
    name = str(knode.value)
    problem = names.name_problem(name, "column name")
    if problem is not None:
        ctx.error(knode, "TG115", problem, name)
        return None
    text = ctx.text_of(vnode, knode)
    if vnode.kind == "scalar":
        spec: dict[str, YNode] = {"type": vnode}
    elif vnode.kind == "map":
        _check_keys(ctx, vnode, FIELD_KEYS, f"field '{name}'")
        spec = {str(k.value): v for k, v in vnode.value}
    else:
        ctx.error(vnode, "TG103", f"field '{name}' must be a mapping such as {{type: string}}", name)
        return None
    tnode = spec.get("type")
    if tnode is None:
        if not _misspelled(ctx, vnode, "type"):
            ctx.error(knode, "TG104", f"field '{name}' has no 'type'", name)
        return None
    ttext = _string(ctx, tnode, f"the type of '{name}'")
    if ttext is None:
        if tnode.kind == "scalar":
            ctx.error(tnode, "TG105", f"the type of '{name}' is empty", name)
        return None
    try:
        dtype = parse_type(ttext)
    except TypeSyntaxError as e:
        ctx.error(tnode, "TG105", str(e), e.word or ttext, _value_offset(tnode) + e.offset)
        return None
    nullable_node = spec.get("nullable")
    nullable = _bool(ctx, nullable_node, f"'nullable' of '{name}'")
    unit_text = _string(ctx, spec.get("unit"), f"the unit of '{name}'")
    unit_from_catalog = False
    if unit_text is not None and unit_text.strip().lower() == "per series from catalog":
        unit_from_catalog, unit_text = True, None
    dim = _string(ctx, spec.get("dimension"), f"the dimension of '{name}'")
    has_value = "value" in spec
    value: Any = None
    if has_value:
        vn = spec["value"]
        if vn.kind != "scalar" or vn.value is None:
            ctx.error(vn, "TG114", f"the fixed value of '{name}' must be a single non-null value", vn.raw)
            has_value = False
        else:
            value = _fixed_value(ctx, vn, dtype, name)
            if value is _BAD:
                has_value = False
                value = None
    never_null = name in key_cols or has_value
    if nullable is True and never_null:
        why = "a key column" if name in key_cols else "a fixed-value field"
        assert nullable_node is not None
        ctx.error(
            _key_node(vnode, "nullable") or nullable_node,
            "TG112",
            f"'{name}' is {why} and is never null; 'nullable: true' contradicts it",
            "nullable",
        )
    aliases = [a for a, _ in _name_list(ctx, spec.get("aliases"), f"'aliases' of '{name}'")]
    allow, reason = _lint_waiver(ctx, spec.get("lint"), name)
    pattern = _pattern(ctx, spec.get("pattern"), name, dtype)
    plausible = _plausible(ctx, spec.get("plausible"), name, dtype)
    references = _references(ctx, spec.get("references"), name)
    return Field(
        name=name,
        type=dtype,
        nullable=(nullable if nullable is not None else True) and not never_null,
        unit=unit_text,
        unit_from_catalog=unit_from_catalog,
        dimension=dim,
        has_value=has_value,
        value=value,
        note=_string(ctx, spec.get("note"), f"the note of '{name}'"),
        description=_string(ctx, spec.get("description"), f"the description of '{name}'"),
        constraint=_string(ctx, spec.get("constraint"), f"the constraint of '{name}'"),
        pattern=pattern,
        plausible=plausible,
        references=references,
        aliases=tuple(aliases),
        lint_allow=allow,
        lint_reason=reason,
        meta=tuple((k, yamlpos.plain(v)) for k, v in spec.items() if k.startswith("x-")),
        pos=_pos(knode),
        text=text,
        type_pos=Pos(tnode.line, tnode.col + _value_offset(tnode)),
    )


_BAD = object()


def _pattern(ctx: _Ctx, node: YNode | None, name: str, dtype: DataType) -> str | None:
    """A field's `pattern:`: a string field's regex in the portable subset (TG130)."""
    text = _string(ctx, node, f"the pattern of '{name}'")
    if text is None or node is None:
        return None
    if dtype.kind != "string":
        ctx.error(node, "TG110", f"'pattern' applies to string fields; '{name}' is {dtype}", text)
        return None
    from tacit_gen.sql.pattern import PatternError, normalize

    try:
        normalize(text)
    except PatternError as e:
        # in a double-quoted scalar escapes shift columns: point at the value's start there
        offset = _value_offset(node) + e.offset if node.style != '"' else 0
        ctx.error(node, "TG130", f"pattern of '{name}': {e}", e.word or text, offset)
        return None
    return text


def _references(ctx: _Ctx, node: YNode | None, name: str) -> tuple[str, str] | None:
    """A field's `references: <relation>.<column>`: a foreign key (TG140 when not that form; a
    list, a mapping or a column list in parentheses is a composite key, which is not expressible)."""
    composite = (f"references of '{name}': a composite foreign key (several columns) is not "
                 "expressible; a reference is one <relation>.<column> (such as "
                 "customers.customer_id), on the one field it constrains")
    if node is not None and node.kind == "seq" and len(node.value) > 1:
        second = node.value[1]  # the second column is the word that makes it composite
        ctx.error(second, "TG140", composite, str(second.raw) if second.kind == "scalar" else "")
        return None
    if node is not None and node.kind == "map":
        first = node.key_nodes()[0] if node.key_nodes() else node
        ctx.error(first, "TG140", composite, str(first.raw) if first.kind == "scalar" else "")
        return None
    text = _string(ctx, node, f"the reference of '{name}'")
    if text is None or node is None:
        return None
    cut = min((i for i in (text.find("("), text.find(",")) if i >= 0), default=-1)
    exact = node.style != '"' or "\\" not in ctx.text_of(node)  # escapes shift columns
    if cut >= 0:
        word = text[cut:].strip()
        ctx.error(node, "TG140", composite, word,
                  _value_offset(node) + text.find(word) if exact else 0)
        return None
    rel, dot, col = text.strip().rpartition(".")
    if not dot or names.IDENT.fullmatch(rel) is None or names.IDENT.fullmatch(col) is None:
        word = next((w for w in (rel, col) if w and names.IDENT.fullmatch(w) is None), text)
        ctx.error(node, "TG140", f"references of '{name}' must be <relation>.<column> (one "
                  f"identifier each, such as customers.customer_id), not '{text}'", word,
                  _value_offset(node) + max(text.find(word), 0) if node.style != '"' else 0)
        return None
    return rel, col


PLAUSIBLE_SOURCES = ("catalog",)


def _plausible_series(ctx: _Ctx, fields: list[Field], key: list[str], time: Any,
                      fnode: YNode | None) -> None:
    """`plausible: catalog` joins the catalog on one series column (as `profile` writes it)."""
    tcol = time.column if time is not None else None
    series = [k for k in key if k not in (tcol, "revision")]
    if len(series) == 1:
        return
    for f in fields:
        if f.plausible is None:
            continue
        spec = fnode.get(f.name) if fnode is not None else None
        pn = spec.get("plausible") if spec is not None and spec.kind == "map" else None
        ctx.error(pn, "TG110", f"'plausible' of '{f.name}' reads the catalog row of one series "
                  f"column; the series key is {', '.join(series) or 'empty'}", "plausible")


def _plausible(ctx: _Ctx, node: YNode | None, name: str, dtype: DataType) -> str | None:
    """A field's `plausible:`: `catalog` (the catalog's plausible_min/plausible_max per series,
    which `tacit-gen profile` proposes); numeric fields only. Always a warning."""
    text = _string(ctx, node, f"'plausible' of '{name}'")
    if text is None or node is None:
        return None
    if not dtype.is_numeric:
        ctx.error(node, "TG110", f"'plausible' applies to numeric fields; '{name}' is {dtype}", text)
        return None
    if text.strip().lower() not in PLAUSIBLE_SOURCES:
        ctx.error(node, "TG110", f"'plausible' of '{name}' takes 'catalog' (the bounds per series "
                  f"in the catalog's plausible_min/plausible_max columns), not '{text}'", text)
        return None
    return text.strip().lower()


def _fixed_value(ctx: _Ctx, vn: YNode, dtype: DataType, name: str) -> Any:
    v = vn.value
    ok = True
    if dtype.kind == "bool":
        ok = isinstance(v, bool)
    elif dtype.is_integer:
        ok = isinstance(v, int) and not isinstance(v, bool)
    elif dtype.is_numeric:
        ok = isinstance(v, int | Decimal) and not isinstance(v, bool)
    elif dtype.kind == "enum":
        v = vn.raw
        ok = v in dtype.values
    elif dtype.kind == "string":
        v = vn.raw if not isinstance(v, str) else v
    else:
        v = vn.raw
    if not ok:
        ctx.error(
            vn,
            "TG114",
            f"fixed value '{vn.raw}' of '{name}' does not match its type {dtype}",
            vn.raw,
        )
        return _BAD
    if dtype.is_numeric:
        from tacit_gen.contract.semantics import number_problem

        problem = number_problem(Decimal(v), dtype)
        if problem is not None:
            ctx.error(vn, "TG117", f"fixed value '{vn.raw}' of '{name}' {problem}", vn.raw)
            return _BAD
        held = _unheld(Decimal(v), dtype)
        if held is not None:
            ctx.error(vn, "TG114", f"fixed value '{vn.raw}' of '{name}' is not a value of {dtype} ({held}): "
                      "no row can hold it, so every row would fail; fix a value of the type, or "
                      "declare a type that holds it", vn.raw)
            return _BAD
        if not dtype.is_integer:
            return str(v)
    return v


def _unheld(value: Decimal, dtype: DataType) -> str | None:
    """Why no value of `dtype` equals the number, or None (a fixed value's check; a bound may lie
    beyond the type). Every target compares a column as the value it holds: a float32 as the
    double it is (DuckDB alone rounded the number to float32 and passed a stored 0.1), a decimal
    exactly (found 2026-12-04)."""
    if dtype.kind == "int32" and not -(2**31) <= value <= 2**31 - 1:
        return "int32 holds -2147483648 to 2147483647"
    if dtype.kind == "float32":
        from tacit_gen.expr.bounds import float32_value, nearest_float32

        if not float32_value(str(value)):
            return f"float32 holds {nearest_float32(str(value))} for it; float64 or decimal(p,s) hold it"
    if dtype.is_decimal and dtype.precision is not None and dtype.scale is not None:
        exponent = value.normalize().as_tuple().exponent
        fraction = max(0, -exponent) if isinstance(exponent, int) else 0
        whole = len(str(int(value.copy_abs()))) if value.copy_abs() >= 1 else 0
        if fraction > dtype.scale or whole > dtype.precision - dtype.scale:
            return (f"at most {dtype.precision - dtype.scale} digit(s) before the point and "
                    f"{dtype.scale} after it")
    return None


def _load_time(ctx: _Ctx, node: YNode) -> TimeSpec | None:
    if not _expect(ctx, node, "map", "'time'"):
        return None
    _check_keys(ctx, node, TIME_KEYS, "'time'")
    col = _string(ctx, node.get("column"), "'time.column'")
    if col is None:
        if not _misspelled(ctx, node, "column"):
            ctx.error(node, "TG104", "'time' needs a 'column'", "time")
        return None
    lines: list[tuple[str, int]] = []
    texts: list[tuple[str, str]] = []
    for k, v in node.value:
        lines.append((str(k.value), k.line))
        texts.append((str(k.value), ctx.text_of(v, k)))
    precision = _string(ctx, node.get("precision"), "'time.precision'")
    if precision is not None and precision not in ("s", "ms", "us", "ns"):
        pn = node.get("precision")
        ctx.error(pn, "TG114", f"time precision '{precision}' is not one of s, ms, us, ns", precision)
    tz_text = _string(ctx, node.get("timezone"), "'time.timezone'") or "UTC instant"
    tz_main, _, tz_note = tz_text.partition(";")
    if tz_main.strip().lower() not in ("utc instant", "utc"):
        tzn = node.get("timezone")
        ctx.error(
            tzn,
            "TG114",
            f"timezone '{tz_main.strip()}' is not supported: times are UTC instants "
            "(write 'UTC instant', prose after ';')",
            tz_main.strip(),
        )
    calendar, calendar_from_catalog = _time_calendar(ctx, node.get("calendar"))
    cadence = None
    cnode = node.get("cadence")
    ctext = _string(ctx, cnode, "'time.cadence'")
    if ctext is not None and cnode is not None:
        cadence = _parse_cadence(ctx, cnode, ctext)
    completeness = _time_completeness(ctx, node.get("completeness"), calendar, calendar_from_catalog)
    freshness = None
    fnode = node.get("freshness")
    ftext = _string(ctx, fnode, "'time.freshness'")
    if ftext is not None and fnode is not None:
        parsed = parse_duration(ftext)
        if parsed is None or parsed[0].business_days is not None:
            ctx.error(fnode, "TG106", f"freshness '{ftext}' is not a duration such as 15m or 2h", ftext)
        else:
            freshness = parsed[0]
    return TimeSpec(
        column=col,
        precision=precision,
        timezone=tz_main.strip(),
        timezone_note=tz_note.strip() or None,
        cadence=cadence,
        freshness=freshness,
        ingest_column=_string(ctx, node.get("ingest_column"), "'time.ingest_column'"),
        calendar=calendar,
        calendar_from_catalog=calendar_from_catalog,
        completeness=completeness,
        pos=_pos(node),
        lines=tuple(lines),
        texts=tuple(texts),
    )


def _time_completeness(ctx: _Ctx, node: YNode | None, calendar: str | None,
                       per_series_calendar: bool) -> Completeness | None:
    """`time.completeness` (tacit_gen.contract.completeness); `per session` needs a calendar."""
    from tacit_gen.contract.completeness import CompletenessSyntaxError, parse_completeness

    text = _string(ctx, node, "'time.completeness'")
    if text is None or node is None:
        return None
    try:
        found = parse_completeness(text, parse_duration)
    except CompletenessSyntaxError as e:
        ctx.error(node, "TG106", str(e), e.word)
        return None
    if found.window is None and calendar is None and not per_series_calendar:
        ctx.error(node, "TG114", "completeness 'per session' needs time.calendar (the sessions are "
                  "the windows)", "session")
        return None
    return found


def _time_calendar(ctx: _Ctx, node: YNode | None) -> tuple[str | None, bool]:
    """`time.calendar`: an exchange_calendars code, or `per series from catalog`."""
    from tacit_gen.semantics.calendar import CALENDAR_CODES

    text = _string(ctx, node, "'time.calendar'")
    if text is None or node is None:
        return None, False
    code = text.strip()
    if code.lower() == PER_SERIES_CALENDAR:
        return None, True
    if code not in CALENDAR_CODES:
        close = close_matches(code.upper(), CALENDAR_CODES, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        ctx.error(node, "TG118", f"unknown exchange calendar '{code}'{hint} (a code exchange_calendars "
                  "knows, such as XNYS, XLON, XTKS; or 'per series from catalog')", code)
        return None, False
    return code, False


def _parse_cadence(ctx: _Ctx, cnode: YNode, text: str) -> Cadence | None:
    parts = [p.strip() for p in text.split(";")]
    head = parts[0]
    notes: list[str] = []
    interval = None
    from_catalog = False
    sessions = None
    if head.lower().startswith("per series from catalog"):
        from_catalog = True
        rest = head[len("per series from catalog") :].strip()
    elif (daily := parse_duration(head)) is not None and daily[0].business_days is not None:
        if daily[0].business_days != 1 or not daily[0].trading:
            ctx.error(cnode, "TG106", f"cadence '{head}': the calendar cadence is '1 trading day' "
                      "(one bar per session)", head.split()[0])
            return None
        sessions, rest = "trading_day", daily[1]
    else:
        parsed = parse_duration(head)
        if parsed is None or parsed[0].business_days is not None:
            ctx.error(
                cnode,
                "TG106",
                f"cadence '{head}' does not start with a duration such as 60s, or "
                "'per series from catalog'",
                head.split()[0] if head.split() else head,
            )
            return None
        interval, rest = parsed
    if rest and _WITHIN_SESSION.match(rest):
        sessions = "within"  # kept in the note too: without a calendar it is only a note
    if rest:
        notes.append(rest)
    tolerance = "0"
    gaps = False
    for p in parts[1:]:
        if not p:
            continue
        m = _TOLERANCE.match(p)
        g = _GAPS.match(p)
        if _NO_OUTSIDE.match(p) or _WITHIN_SESSION.match(p):
            sessions = sessions or "within"
            notes.append(p)
        elif m and sessions == "trading_day":
            ctx.error(cnode, "TG114", f"'{p}': a '1 trading day' cadence has no interval to "
                      "tolerate (a bar stamps its session's date or open)", p)
        elif m:
            tolerance = m.group(1)
        elif g:
            gaps = g.group(1).lower() == "allowed"
        elif p.lower().startswith("tolerance"):
            ctx.error(cnode, "TG114", f"cannot read '{p}': write 'tolerance +/-N% of interval'", p)
        else:
            notes.append(p)
    return Cadence(
        interval=interval,
        from_catalog=from_catalog,
        tolerance_pct=tolerance,
        gaps_allowed=gaps,
        note="; ".join(notes) or None,
        text=text,
        sessions=sessions,
    )


def _load_revision(ctx: _Ctx, knode: YNode, node: YNode) -> RevisionPolicy | None:
    if not _expect(ctx, node, "map", "'revision_policy'"):
        return None
    _check_keys(ctx, node, REVISION_KEYS, "'revision_policy'")
    allowed = _bool(ctx, node.get("allowed"), "'revision_policy.allowed'")
    if allowed is None:
        if node.get("allowed") is None:
            ctx.error(knode, "TG104", "'revision_policy' needs 'allowed: true|false'", "revision_policy")
        allowed = True
    window = None
    wnode = node.get("window")
    wtext = _string(ctx, wnode, "'revision_policy.window'")
    if wtext is not None and wnode is not None:
        parsed = parse_duration(wtext)
        if parsed is None:
            ctx.error(wnode, "TG106", f"window '{wtext}' is not a duration such as 2 days or 5 trading days", wtext)
        else:
            window = parsed[0]
    reasons = [r for r, _ in _name_list(ctx, node.get("reasons"), "'revision_policy.reasons'")]
    bnode = node.get("by")
    by: list[str] = []
    if bnode is not None and bnode.kind == "scalar":
        one = _string(ctx, bnode, "'revision_policy.by'")
        by = [one] if one else []
    elif bnode is not None:
        by = [b for b, _ in _name_list(ctx, bnode, "'revision_policy.by'")]
    by_column = _string(ctx, node.get("by_column"), "'revision_policy.by_column'")
    return RevisionPolicy(
        allowed=allowed,
        window=window,
        reasons=tuple(reasons),
        notification=_string(ctx, node.get("notification"), "'revision_policy.notification'"),
        by=tuple(by),
        by_column=by_column,
        note=_string(ctx, node.get("note"), "'revision_policy.note'"),
        pos=_pos(knode),
        text=ctx.text_of(node, knode),
    )


def _load_severity(ctx: _Ctx, node: YNode) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, Pos], ...]]:
    """``severity: {warn: [<clause id>, ...]}``: the clauses whose violation is a warning. The
    shape is checked here; that each id names a clause of the plan is checked by the plan
    (`tacit_gen.plan.severity_problems`), with this position."""
    if not _expect(ctx, node, "map", "'severity'"):
        return (), ()
    _check_keys(ctx, node, SEVERITY_KEYS, "'severity'")
    levels: list[tuple[str, str]] = []
    where: list[tuple[str, Pos]] = []
    for cid, cn in _name_list(ctx, node.get("warn"), "'severity.warn'"):
        cid = cid.strip()
        if any(cid == seen for seen, _ in levels):
            ctx.error(cn, "TG101", f"clause '{cid}' is listed twice in 'severity.warn'", cid)
            continue
        levels.append((cid, "warn"))
        where.append((cid, Pos(cn.line, cn.col + _value_offset(cn))))
    return tuple(levels), tuple(where)


def _load_catalog(ctx: _Ctx, node: YNode) -> Catalog | None:
    if not _expect(ctx, node, "map", "'catalog'"):
        return None
    _check_keys(ctx, node, CATALOG_KEYS, "'catalog'")
    rel = _string(ctx, node.get("relation"), "'catalog.relation'")
    if rel is None:
        ctx.error(node, "TG104", "'catalog' needs a 'relation'", "catalog")
        return None
    vals = {k: _string(ctx, node.get(k), f"'catalog.{k}'") for k in CATALOG_KEYS[1:]}
    for k, v in [("relation", rel), *vals.items()]:
        if v is None:
            continue
        problem = names.name_problem(v, f"'catalog.{k}'", names.RELATION if k == "relation" else names.IDENT)
        if problem is not None:
            ctx.error(node.get(k), "TG115", problem, v)
    defaults = Catalog(relation=rel, key="")
    return Catalog(
        relation=rel,
        key=vals["key"] or "",
        unit=vals["unit"] or defaults.unit,
        hard_min=vals["hard_min"] or defaults.hard_min,
        hard_max=vals["hard_max"] or defaults.hard_max,
        cadence=vals["cadence"] or defaults.cadence,
        pos=_pos(node),
        calendar=vals["calendar"] or defaults.calendar,
        plausible_min=vals["plausible_min"] or defaults.plausible_min,
        plausible_max=vals["plausible_max"] or defaults.plausible_max,
    )


def _load_calendar(ctx: _Ctx, node: YNode) -> Calendar | None:
    if not _expect(ctx, node, "map", "'calendar'"):
        return None
    _check_keys(ctx, node, CALENDAR_KEYS, "'calendar'")
    vals = {k: _string(ctx, node.get(k), f"'calendar.{k}'") for k in CALENDAR_KEYS}
    for k, v in vals.items():
        if v is None:
            continue
        problem = names.name_problem(v, f"'calendar.{k}'", names.RELATION if k == "relation" else names.IDENT)
        if problem is not None:
            ctx.error(node.get(k), "TG115", problem, v)
    d = Calendar()
    return Calendar(relation=vals["relation"] or d.relation, calendar=vals["calendar"] or d.calendar,
                    session=vals["session"] or d.session, open=vals["open"] or d.open,
                    close=vals["close"] or d.close, pos=_pos(node))


def _load_evolution(ctx: _Ctx, node: YNode) -> Evolution:
    if not _expect(ctx, node, "map", "'evolution'"):
        return Evolution()
    _check_keys(ctx, node, EVOLUTION_KEYS, "'evolution'")
    mode = _string(ctx, node.get("compatibility"), "'evolution.compatibility'") or "BACKWARD"
    if mode.upper() not in COMPAT_MODES:
        close = close_matches(mode.upper(), COMPAT_MODES, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        ctx.error(node.get("compatibility"), "TG114", f"unknown compatibility mode '{mode}'{hint}", mode)
        mode = "BACKWARD"
    notice = None
    nnode = node.get("notice_period")
    ntext = _string(ctx, nnode, "'evolution.notice_period'")
    if ntext is not None:
        parsed = parse_duration(ntext)
        if parsed is None:
            ctx.error(nnode, "TG106", f"notice period '{ntext}' is not a duration", ntext)
        else:
            notice = parsed[0]
    reserved = [r for r, _ in _name_list(ctx, node.get("reserved"), "'evolution.reserved'")]
    return Evolution(compatibility=mode.upper(), notice_period=notice, reserved=tuple(reserved))


def _target_keys(name: str) -> dict[str, Any]:
    """The keys target `name` takes under `targets.<name>`: key -> its `ContractKey` (None: `enabled`)."""
    from tacit_gen import registry

    return {**{spec.key: spec for spec in registry.get(name).contract_keys}, "enabled": None}


def _load_targets(ctx: _Ctx, node: YNode) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    from tacit_gen import registry

    if not _expect(ctx, node, "map", "'targets'"):
        return ()
    known = registry.names()
    out = []
    for k, v in node.value:
        name = str(k.value)
        if name not in known:
            close = close_matches(name, list(known), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            ctx.error(k, "TG102", f"unknown target '{name}'{hint}", name)
            continue
        if not _expect(ctx, v, "map", f"'targets.{name}'"):
            continue
        keys = _target_keys(name)
        _check_keys(ctx, v, tuple(keys), f"'targets.{name}'")
        opts = []
        for ok, ov in v.value:
            val = yamlpos.plain(ov)
            spec = keys.get(str(ok.value))
            kind = spec.kind if spec is not None else None
            if spec is not None and spec.kind == "choice" and val not in spec.choices:
                ctx.error(ov, "TG115", f"'targets.{name}.{ok.value}' must be one of "
                          f"{', '.join(spec.choices)}, found {val!r}", str(val))
                continue
            if kind in ("name", "class"):
                what = f"'targets.{name}.{ok.value}'"
                problem = (f"{what} must be a name, found {_kind_name(ov) if ov.kind != 'scalar' else repr(ov.raw)}"
                           if not isinstance(val, str) else
                           names.class_problem(val, what) if kind == "class" else
                           names.name_problem(val, what))
                if problem is not None:
                    ctx.error(ov, "TG115", problem, str(val))
                    continue
            if kind in ("dotted", "text"):
                what = f"'targets.{name}.{ok.value}'"
                problem = (f"{what} must be text, found {_kind_name(ov)}" if not isinstance(val, str) else
                           names.name_problem(val, what, names.RELATION) if kind == "dotted" else
                           None if val and not any(ch.isspace() for ch in val) else
                           f"{what} {val!r} is empty or has white space")
                if problem is not None:
                    ctx.error(ov, "TG115", problem, str(val))
                    continue
            if str(ok.value) == "dialect":
                from tacit_gen.sql.dialects import DIALECTS

                if val not in DIALECTS:
                    ctx.error(ov, "TG115", f"'targets.{name}.dialect' must be one of "
                              f"{', '.join(DIALECTS)}, found {val!r}", str(val))
                    continue
            opts.append((str(ok.value), val))
        out.append((name, tuple(sorted(opts))))
    return tuple(sorted(out))


# -----------------------------------------------------------------------------------------------
def canonical_data(root: YNode) -> Any:
    """The contract as plain data with sorted keys: what the canonical hash covers."""
    return yamlpos.plain(root)


def _hash(data: Any) -> str:
    blob = json.dumps(data, sort_keys=True, default=str, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def display_path(path: str | os.PathLike[str], resolved: str | None = None) -> str:
    """A path as shown in messages: relative to the working directory when below it, else as
    given (so an editor can open it). `resolved`: its `realpath`, when the caller has it."""
    resolved = os.path.realpath(path) if resolved is None else resolved
    cwd = _real_cwd(os.getcwd())
    if resolved == cwd:
        return "."
    prefix = cwd if cwd.endswith(os.sep) else cwd + os.sep
    if resolved.startswith(prefix):
        return Path(resolved[len(prefix):]).as_posix()
    return Path(path).as_posix()


@functools.lru_cache(maxsize=16)
def _real_cwd(cwd: str) -> str:
    """The working directory with its links resolved (keyed by its name: one per folder)."""
    return os.path.realpath(cwd)


def project_root(path: str | os.PathLike[str]) -> Path:
    """The folder artifact headers name contracts from: the enclosing git checkout's top level
    (a `.git` folder or file), else the folder holding the nearest `contracts/` folder, else the
    file's own folder. Never the working directory: the same contract gets the same header
    wherever the command runs."""
    return Path(_root_of(os.path.realpath(path)))


def _root_of(resolved: str) -> str:
    """`project_root` of a path already resolved, as a string."""
    parents = []
    folder = os.path.dirname(resolved)
    while True:
        parents.append(folder)
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        up = os.path.dirname(folder)
        if up == folder:
            break
        folder = up
    for folder in parents:
        if os.path.basename(folder) == "contracts":
            return os.path.dirname(folder)
    return parents[0]


def portable_path(path: str | os.PathLike[str]) -> str:
    """A path for artifact headers, never machine-specific: relative to `project_root`."""
    resolved = os.path.realpath(path)
    return Path(os.path.relpath(resolved, _root_of(resolved))).as_posix()


def _portable(ctx: _Ctx) -> str:
    """`portable_path` of the file being loaded (its realpath already known); its project root
    is kept on `ctx`."""
    resolved = ctx.resolved or os.path.realpath(ctx.file)
    ctx.root = _root_of(resolved)
    return Path(os.path.relpath(resolved, ctx.root)).as_posix()


def load_rooted(path: str | os.PathLike[str]) -> tuple[Contract, Path]:
    """`load`, with the contract's `project_root` (found while loading: the path is resolved,
    and its folders walked, once for both).

    Raises:
        ContractError: with every error diagnostic of the file.
    """
    contract, diags, root = _load(path, None)
    if contract is None:
        raise ContractError([d for d in diags if d.severity == "error"])
    return contract, Path(root if root is not None else _root_of(os.path.realpath(path)))


def load_report(
    path: str | os.PathLike[str], text: str | None = None
) -> tuple[Contract | None, list[Diagnostic]]:
    """Load a contract and return it (None if it has errors) with every diagnostic.

    Args:
        path: the contract file (read unless `text` is given; `path` is then only for messages).
        text: the file's text, if already read.
    """
    contract, diags, _ = _load(path, text)
    return contract, diags


def _load(path: str | os.PathLike[str], text: str | None
          ) -> tuple[Contract | None, list[Diagnostic], str | None]:
    """`load_report`, and the project root when the contract was built (None before)."""
    resolved = os.path.realpath(path)
    shown = display_path(path, resolved)
    ctx = _Ctx(shown, file=os.fspath(path), resolved=resolved)
    try:
        if text is None:
            text = yamlpos.read_text(path)
        root, dups, protected = yamlpos.compose(text)
    except yamlpos.YamlSyntaxError as e:
        at = f" at '{e.word}'" if e.word and e.code == "TG100" else ""
        ctx.diags.append(Diagnostic(shown, e.line, e.col, "error", e.code, f"{e}{at}", e.word))
        return None, ctx.diags, None
    ctx.protected = protected
    for dup, first in dups:
        ctx.error(
            dup,
            "TG101",
            f"duplicate key '{dup.raw}' (first at line {first.line}); YAML would silently keep the last",
            dup.raw,
        )
    if root is None or root.kind != "map":
        ctx.error(root, "TG103", "a contract is a mapping with 'contract', 'version', 'fields', ...",
                  root.raw if root is not None else "")
        return None, ctx.diags, None
    _check_keys(ctx, root, TOP_KEYS, "the contract")
    contract = _build(ctx, root, text)
    if any(d.severity == "error" for d in ctx.diags):
        return None, ctx.sorted(), ctx.root
    return contract, ctx.sorted(), ctx.root


def load(path: str | os.PathLike[str], text: str | None = None) -> Contract:
    """Load a contract.

    Raises:
        ContractError: with every error diagnostic of the file.
    """
    contract, diags = load_report(path, text)
    if contract is None:
        raise ContractError([d for d in diags if d.severity == "error"])
    return contract


def _check_names(ctx: _Ctx, root: YNode, name: str | None, name_node: YNode | None,
                 fields: list[Field], targets: tuple[Any, ...]) -> None:
    """Names across the contract: columns unique whatever the case, the class a contract name
    becomes, aliases and reserved names (TG115)."""
    seen: dict[str, Field] = {}
    for f in fields:
        first = seen.setdefault(f.name.lower(), f)
        if first is not f:
            ctx.error(f.pos, "TG115", f"column '{f.name}' differs from '{first.name}' (line {first.pos.line}) "
                      "only in case; warehouses fold unquoted names, so they would be one column", f.name)
    if name and name_node is not None:
        _target_checks(ctx, root, name, targets)
    fnode = root.get("fields")
    for k, v in fnode.value if fnode is not None and fnode.kind == "map" else ():
        alias_node = v.get("aliases") if v.kind == "map" else None
        for alias, an in _name_list(ctx, alias_node, "aliases") if alias_node is not None else ():
            problem = names.name_problem(alias, f"alias of '{k.value}'")
            if problem is not None:
                ctx.error(an, "TG115", problem, alias)
    enode = root.get("evolution")
    rnode = enode.get("reserved") if enode is not None and enode.kind == "map" else None
    for reserved, rn in _name_list(ctx, rnode, "reserved") if rnode is not None else ():
        problem = names.name_problem(reserved, "reserved name")
        if problem is not None:
            ctx.error(rn, "TG115", problem, reserved)


def _target_checks(ctx: _Ctx, root: YNode, name: str, targets: tuple[Any, ...]) -> None:
    """The contract checks every registered target declares (`Target.check_contract`)."""
    from tacit_gen import registry

    keys = {t: dict(opts) for t, opts in targets}
    for t in registry.names():
        for problem in registry.get(t).check_contract(name, keys.get(t, {})):
            at = root.get(problem.at)
            ctx.error(at if at is not None else root, problem.code, problem.message, problem.word)


def _build(ctx: _Ctx, root: YNode, text: str) -> Contract | None:
    name_node = root.get("contract")
    name = _string(ctx, name_node, "'contract'")
    if name_node is None:
        if not _misspelled(ctx, root, "contract"):
            ctx.error(root, "TG104", "the contract has no 'contract' name", "contract")
    elif name is not None and (problem := names.name_problem(name, "contract name")) is not None:
        ctx.error(name_node, "TG115", problem, name)
        name = None
    vnode = root.get("version")
    version = None
    if vnode is None:
        if not _misspelled(ctx, root, "version"):
            ctx.error(root, "TG104", "the contract has no 'version'", "version")
    elif vnode.kind != "scalar" or not SEMVER.fullmatch(vnode.raw):
        ctx.error(vnode, "TG113", f"version '{vnode.raw}' is not semver (MAJOR.MINOR.PATCH)", vnode.raw)
    else:
        version = vnode.raw
    # key
    knode = root.get("key")
    key = _name_list(ctx, knode, "'key'", once=True)
    key_cols = {k for k, _ in key}
    # fields
    fields: list[Field] = []
    broken: set[str] = set()  # fields whose definition has an error (reported already)
    fnode = root.get("fields")
    if fnode is None:
        if not _misspelled(ctx, root, "fields"):
            ctx.error(root, "TG104", "the contract has no 'fields'", "fields")
    elif _expect(ctx, fnode, "map", "'fields'"):
        if not fnode.value:  # `fields: {}`: a contract of no columns checks nothing
            ctx.error(fnode, "TG104", "'fields' is empty: a contract names at least one column",
                      fnode.raw or "fields")
        for k, v in fnode.value:
            f = _load_field(ctx, k, v, key_cols)
            if f is not None:
                fields.append(f)
            elif k.kind == "scalar" and isinstance(k.value, str):
                broken.add(k.value)
    time = None
    tnode = root.get("time")
    if tnode is not None:
        time = _load_time(ctx, tnode)
    # never-null columns beyond the key: time column, provenance
    prov_node = root.get("provenance_required")
    prov = _name_list(ctx, prov_node, "'provenance_required'", once=True)
    never_null = set(key_cols) | {p for p, _ in prov}
    if time is not None:
        never_null.add(time.column)
    fixed: list[Field] = []
    for f in fields:
        if f.name in never_null and f.nullable:
            # declared nullable: true explicitly?
            spec = fnode.get(f.name) if fnode is not None else None
            nn = spec.get("nullable") if spec is not None and spec.kind == "map" else None
            if nn is not None and nn.value is True and f.name not in key_cols:
                why = "the time column" if time and f.name == time.column else "a provenance column"
                ctx.error(_key_node(spec, "nullable") or nn, "TG112", f"'{f.name}' is {why} and is never null; 'nullable: true' contradicts it", "nullable")
            f = Field(**{**f.__dict__, "nullable": False})
        fixed.append(f)
    fields = fixed
    declared = {f.name for f in fields}
    prov_text = ctx.text_of(prov_node, None) if prov_node is not None else ""
    prov_key = None
    if prov_node is not None:
        for k in root.key_nodes():
            if k.value == "provenance_required":
                prov_key = k
        prov_text = ctx.text_of(prov_node, prov_key)
    for p, pn in prov:
        if p not in declared:
            problem = names.name_problem(p, "provenance column")
            if problem is not None:
                ctx.error(pn, "TG115", problem, p)
                continue
            fields.append(
                Field(
                    name=p,
                    type=DataType(IMPLIED_PROVENANCE.get(p, "string")),
                    nullable=False,
                    implied=True,
                    pos=_pos(pn),
                    text=prov_text,
                )
            )
            declared.add(p)
    # revision policy / catalog / evolution / targets
    rev = None
    for k, v in root.value:
        if k.value == "revision_policy":
            rev = _load_revision(ctx, k, v)
    catalog = None
    cnode = root.get("catalog")
    if cnode is not None:
        catalog = _load_catalog(ctx, cnode)
    calendar = None
    calnode = root.get("calendar")
    if calnode is not None:
        calendar = _load_calendar(ctx, calnode)
    evolution = Evolution()
    enode = root.get("evolution")
    if enode is not None:
        evolution = _load_evolution(ctx, enode)
    severity: tuple[tuple[str, str], ...] = ()
    severity_pos: tuple[tuple[str, Pos], ...] = ()
    snode = root.get("severity")
    if snode is not None:
        severity, severity_pos = _load_severity(ctx, snode)
    targets: tuple[Any, ...] = ()
    tgnode = root.get("targets")
    if tgnode is not None:
        targets = _load_targets(ctx, tgnode)
    _check_names(ctx, root, name, name_node, fields, targets)
    # invariants (verbatim) and field constraints
    invariants: list[Invariant] = []
    inode = root.get("invariants")
    if inode is not None and _expect(ctx, inode, "seq", "'invariants'"):
        for item in inode.value:
            if item.kind != "scalar" or not isinstance(item.value, str) or not item.value.strip():
                ctx.error(item, "TG103", "an invariant is a line of text such as 'low <= high'",
                          item.raw if item.kind == "scalar" else "")
                continue
            lead = len(item.value) - len(item.value.lstrip())
            invariants.append(
                Invariant(item.value.strip(), Pos(item.line, item.col + _value_offset(item) + lead))
            )
    # a field's `constraint:` is an invariant with the subject left out
    if fnode is not None and fnode.kind == "map":
        for k, v in fnode.value:
            cn = v.get("constraint") if v.kind == "map" else None
            if cn is not None and cn.kind == "scalar" and isinstance(cn.value, str) and cn.value.strip():
                subject = f"{k.value} "
                invariants.append(
                    Invariant(
                        subject + cn.value.strip(),
                        Pos(cn.line, cn.col + _value_offset(cn)),
                        source=f"fields.{k.value}.constraint",
                        prefix=len(subject),
                    )
                )
    # key columns must exist
    for k, kn in key:
        if k not in declared and k not in broken:
            close = close_matches(k, sorted(declared | broken), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            ctx.error(kn, "TG107", f"key column '{k}' is not a field{hint}", k)
    if time is not None and time.column not in declared and time.column not in broken:
        close = close_matches(time.column, sorted(declared), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        cn = tnode.get("column") if tnode is not None else None
        ctx.error(cn, "TG107", f"time column '{time.column}' is not a field{hint}", time.column)
    if time is not None and time.ingest_column and time.ingest_column not in declared:
        cn = tnode.get("ingest_column") if tnode is not None else None
        ctx.error(cn, "TG107", f"ingest column '{time.ingest_column}' is not a field", time.ingest_column)
    if rev is not None and rev.by_column and rev.by_column not in declared:
        rnode = root.get("revision_policy")
        bn = rnode.get("by_column") if rnode is not None and rnode.kind == "map" else None
        ctx.error(bn, "TG107", f"by_column '{rev.by_column}' is not a field", rev.by_column)
    _plausible_series(ctx, fields, [k for k, _ in key], time, fnode)
    failed = any(d.severity == "error" for d in ctx.diags) or name is None or version is None
    kkey = next((k for k in root.key_nodes() if k.value == "key"), None)
    contract = Contract(
        name=name or "",
        version=version or "0.0.0",
        owner=_string(ctx, root.get("owner"), "'owner'"),
        description=_string(ctx, root.get("description"), "'description'"),
        key=tuple(k for k, _ in key),
        time=time,
        fields=tuple(fields),
        invariants=tuple(invariants),
        revision_policy=rev,
        provenance_required=tuple(p for p, _ in prov),
        catalog=catalog,
        evolution=evolution,
        targets=targets,
        meta=tuple((str(k.value), yamlpos.plain(v)) for k, v in root.value if str(k.value).startswith("x-")),
        calendar=calendar,
        severity=severity,
        severity_pos=severity_pos,
        path=_portable(ctx) if ctx.file else ctx.path,
        source=text,
        canonical_hash=_hash(canonical_data(root)),
        key_pos=_pos(knode) if knode is not None else Pos(0, 0),
        key_text=ctx.text_of(knode, kkey) if knode is not None else "",
        provenance_pos=_pos(prov_node) if prov_node is not None else Pos(0, 0),
        provenance_text=prov_text,
        version_pos=_pos(vnode) if vnode is not None else Pos(0, 0),
        positions=positions(root),
        source_system=_string(ctx, root.get("source"), "'source'"),
    )
    # Semantic checks that need the whole model: units, invariants, lint rules.
    from tacit_gen.contract import lint
    from tacit_gen.contract.semantics import check_expressions

    check_expressions(contract, ctx, broken)
    lint.check(contract, ctx)
    return None if failed else contract
