"""The loader's tables of keys, its collector (`Ctx`), positions and the YAML node helpers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from tacit_gen.contract import names, yamlpos
from tacit_gen.contract.model import Duration, Pos, Positions
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
class Ctx(Diagnostics):
    """The loader's collector: the diagnostics, plus what loading one file needs."""

    file: str = ""  # the path as given, for the portable header path
    resolved: str = ""  # its realpath
    root: str | None = None  # its project root, once the loader found it
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
            out.append((p, pos_of(k), pos_of(v)))
            stack.append((p, v))
    return Positions(tuple(sorted(out, key=lambda e: (e[1].line, e[1].col, e[0]))))


def key_node(node: YNode | None, key: str) -> YNode | None:
    """The key node of `key` in a mapping node (for errors that point at the key)."""
    if node is None or node.kind != "map":
        return None
    for k, _ in node.value:
        if k.value == key:
            return k
    return None


def pos_of(node: YNode) -> Pos:
    return Pos(node.line, node.col)


def kind_name(node: YNode) -> str:
    return {"map": "a mapping", "seq": "a list", "scalar": "a scalar"}[node.kind]


def lint_waiver(ctx: Ctx, node: YNode | None, name: str) -> tuple[tuple[str, ...], str | None]:
    """A field's ``lint: {allow: [TG201], reason: "..."}``: which lint rules are waived, and why
    (required: a waiver without a reason is an error)."""
    if node is None or not expect(ctx, node, "map", f"'lint' of '{name}'"):
        return (), None
    check_keys(ctx, node, LINT_WAIVER_KEYS, f"'lint' of '{name}'")
    from tacit_gen.contract.lint import RULES

    codes: list[str] = []
    allow = node.get("allow")
    if allow is None:
        ctx.error(node, "TG104", f"'lint' of '{name}' has no 'allow' (the rule codes it waives)", "lint")
    else:
        for code, cnode in name_list(ctx, allow, f"'lint.allow' of '{name}'"):
            if code not in RULES:
                close = close_matches(code, list(RULES), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                ctx.error(cnode, "TG114", f"'{code}' is not a lint rule that can be waived{hint}", code)
            elif code not in codes:
                codes.append(code)
    reason = text_value(ctx, node.get("reason"), f"the lint waiver reason of '{name}'")
    if reason is None or not reason.strip():
        ctx.error(node, "TG104", f"the lint waiver of '{name}' has no 'reason': say why the rule "
                                 "does not apply", "reason")
        return (), None
    return tuple(codes), reason.strip()


def check_keys(ctx: Ctx, node: YNode, allowed: tuple[str, ...], where: str) -> None:
    for k in node.key_nodes():
        name = str(k.value)
        if name in allowed or name.startswith("x-"):
            continue
        close = close_matches(name, allowed, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        ctx.error(k, "TG102", f"unknown key '{name}' in {where}{hint}", name)
        if close:
            ctx.suggested.add((node.start, close[0]))


def misspelled(ctx: Ctx, node: YNode, key: str) -> bool:
    """Whether a missing `key` of `node` was already reported as a misspelling (did-you-mean)."""
    return (node.start, key) in ctx.suggested


def expect(ctx: Ctx, node: YNode | None, kind: str, what: str) -> bool:
    if node is None:
        return False
    if node.kind != kind:
        ctx.error(
            node,
            "TG103",
            f"{what} must be {'a mapping' if kind == 'map' else 'a list' if kind == 'seq' else 'a scalar'}, "
            f"found {kind_name(node)}",
            node.raw if node.kind == "scalar" else "",
        )
        return False
    return True


def text_value(ctx: Ctx, node: YNode | None, what: str) -> str | None:
    if node is None:
        return None
    if not expect(ctx, node, "scalar", what):
        return None
    if node.value is None:
        return None
    return str(node.raw) if not isinstance(node.value, str) else node.value


def bool_value(ctx: Ctx, node: YNode | None, what: str) -> bool | None:
    if node is None:
        return None
    if node.kind != "scalar" or not isinstance(node.value, bool):
        ctx.error(node, "TG103", f"{what} must be true or false, found '{node.raw}'", node.raw)
        return None
    return bool(node.value)


def name_list(ctx: Ctx, node: YNode | None, what: str, once: bool = False) -> list[tuple[str, YNode]]:
    """The names of a list (or one scalar); `once`: a name listed twice is an error (TG114)."""
    if node is None:
        return []
    if node.kind == "scalar" and isinstance(node.value, str):
        return [(node.value, node)]
    if not expect(ctx, node, "seq", what):
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


def value_offset(node: YNode) -> int:
    """Columns to add to node.col to reach the first character of a scalar's text."""
    return 1 if node.style in ("'", '"') else 0
