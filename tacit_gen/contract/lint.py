"""The seed's checklist as lint rules with stable codes, each with a one-line rationale."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen.contract import units
from tacit_gen.contract.model import Contract, Field, Pos
from tacit_gen.contract.types import parse_type
from tacit_gen.expr import nodes as n
from tacit_gen.expr.bounds import float32_value, nearest_float32
from tacit_gen.expr.parser import ExprSyntaxError, parse

if TYPE_CHECKING:
    from tacit_gen.diagnostics import Diagnostics

RULES: dict[str, tuple[str, str]] = {
    # code: (severity, rationale)
    "TG201": ("error", "money and calibrated readings are decimal with precision and scale, never float"),
    "TG202": ("error", "every decimal or float measurement states its unit; units are part of the type"),
    "TG203": ("note", "a unit pint does not know becomes a dimension of its own, comparable only with itself"),
    "TG204": ("error", "a declared dimension must be the unit's dimension"),
    "TG205": ("error", "a unit in the column name must be the declared unit (a rename that drops it is a classic)"),
    "TG206": ("error", "the time column is a UTC instant: timestamp_{s,ms,us,ns}_utc at the stated precision, or a date (freshness in whole days, nothing that needs instants)"),
    "TG207": ("error", "revisions allowed means 'revision' is part of the key, or restatements overwrite history"),
    "TG208": ("note", "a provenance column not declared in fields is implied (revision int64 >= 0, others string)"),
    "TG209": ("warning", "a revision window needs time.ingest_column to be enforced"),
    "TG210": ("warning", "catalog forms without a 'catalog' section assume relation 'series_catalog'"),
    "TG211": ("warning", "a unit on a non-numeric field means nothing; the unit belongs to a measurement"),
    "TG212": ("warning", "a float or decimal key compares inexactly; keys are strings, integers or times"),
    "TG213": ("error", "the ingest column is a UTC timestamp"),
    "TG214": ("note", "revision reasons are enforced only on a 'revision_reason' column"),
    "TG215": ("warning", "an unknown dimension on a catalog unit says nothing checkable (a known one is checked: catalog_dimension)"),
    "TG216": ("warning", "a target disabled 'temporarily' is a contract nobody enforces (seed: Common Mistakes)"),
    "TG217": ("warning", "compatibility NONE lets any breaking change through (seed: Common Mistakes)"),
    "TG218": ("warning", "money declared dimensionless hides its currency; declare it, and waive TG201 with a reason if it is stored as float"),
    "TG219": ("warning", "trading days without time.calendar are Monday to Friday: exchange holidays count as trading days"),
    "TG220": ("warning", "a calendar without a 'calendar' section assumes the sessions relation 'trading_sessions'"),
    "TG221": ("warning", "'within session' without time.calendar cannot be checked: every session close is a gap"),
    "TG222": ("error", "a foreign key to a contract of the same folder names one of its fields, of a comparable type (a join on unlike types matches nothing)"),
    "TG223": ("warning", "the revision column orders restatements (the latest is the largest) when it is a provenance column, under a revision policy or a cadence: as text '10' sorts before '9'; declare it int32 or int64"),
    "TG224": ("warning", "an invariant that names no column is the same for every row: it always passes or always fails"),
    "TG225": ("warning", "a float32 field compared with a number float32 cannot hold: every target compares the value the column holds, exactly, so a value stored from that number is not that number (a stored 0.1 is 0.100000001490116: `x <= 0.1` fails it)"),
    "TG226": ("error", "invariants that bound one column to no value together (`x > 5`, then `x < 3`) fail every row that has one"),
}
# Column names that say money: declared dimensionless, they are a lie that passes TG201.
_MONEY_NAME = re.compile(
    r"(^|_)(amount|price|cost|revenue|fee|fees|paid|balance|spend|salary|payment|payments|"
    r"lifetime_value|ltv|gmv|income|total_value)(_|$)")

# Rationale of the loader's and checker's codes (tacit_gen.contract.errors.CODES), for the docs.
LOADER_RATIONALE: dict[str, str] = {
    "TG100": "a file that is not well-formed YAML has no meaning to check",
    "TG101": "YAML silently keeps the last of two equal keys; a contract never means that",
    "TG102": "a misspelled key would silently be ignored; x-* keys are the escape hatch for metadata",
    "TG103": "each key expects a mapping, a list or a scalar; anything else is a mistake",
    "TG104": "contract, version, fields, a field's type and time.column cannot be guessed (`fields: {}`, no column at all, is reported too)",
    "TG105": "the type grammar is closed: string, bool, int32/64, float32/64, decimal(p,s), date, timestamp_*_utc, enum[...]",
    "TG106": "durations (freshness, cadence, windows) are numbers with a unit such as 60s, 15m, 5 trading days",
    "TG107": "an invariant, key or time column naming a column the contract does not have checks nothing",
    "TG108": "an invariant must parse in the expression grammar",
    "TG109": "a bare enum literal must be a value of the enum it is compared with",
    "TG110": "comparing or combining different kinds of values (text with numbers) is a type error",
    "TG111": "units are part of the type: kPa vs bar, or a price vs a volume, is the seed's classic incident",
    "TG112": "key, time, provenance and fixed-value columns are never null; saying otherwise contradicts the contract",
    "TG113": "versions are semver, so a version bump says whether a change is breaking",
    "TG114": "a value outside what the key accepts (a timezone that is not UTC, a bad fixed value (one no value of its type equals, so no row can hold it: a float32 fixed at 0.1, a decimal(9,2) at 1.255, an int32 past 2^31), a `key` or `provenance_required` naming a column twice, an invariant's `between 10 and 1` whose bounds are reversed, ...)",
    "TG115": "names become file names, SQL identifiers and Python names: one spelling every target accepts, unique whatever the case",
    "TG116": "control characters, surrogates and line separators break or silently change YAML, Python and headers",
    "TG117": "a bound no column value can reach (inf, beyond int64 or the decimal's precision) errors in the engines",
    "TG118": "a calendar code exchange_calendars does not know has no sessions to check against",
    "TG119": "a severity for a clause the contract does not have would silently change nothing; ids are the ones `tacit-gen explain` prints",
    "TG130": "a pattern is checked by RE2, PostgreSQL, Java and Python regex engines: only what they all read the same way is accepted",
    "TG140": "a foreign key names a relation and one of its columns; anything else (a composite key of several columns included) cannot become a dbt relationships test or an anti-join",
}


def _pos(p: Pos) -> Pos:
    return p if p.line else Pos(1, 1)


def check(contract: Contract, ctx: Diagnostics) -> None:
    """Add every lint finding of a loaded contract to the collector."""

    def add(code: str, pos: Pos, message: str, word: str) -> None:
        sev = RULES[code][0]
        ctx.add(_pos(pos), sev, code, message, word)

    for f in contract.fields:
        fadd = _field_adder(ctx, f)
        if (f.unit is not None and f.unit.strip().lower() == "dimensionless"
                and f.type.is_numeric and _MONEY_NAME.search(f.name.lower())):
            fadd("TG218", f.pos, f"'{f.name}' looks like money but is declared dimensionless; "
                "declare its currency (e.g. unit: USD)", f.unit)
        resolved = None
        if f.unit is not None:
            try:
                resolved = units.resolve(f.unit)
            except units.UnitError as e:
                fadd("TG204", f.pos, f"unit of '{f.name}': {e}", f.unit)
            if resolved is not None and resolved.invented:
                fadd("TG203", f.pos, f"unit '{f.unit}' of '{f.name}' is not known to pint; it is a dimension of its own", f.unit)
            if not f.type.is_numeric:
                fadd("TG211", f.pos, f"'{f.name}' is {f.type} but states unit '{f.unit}'", f.unit)
        if resolved is not None and resolved.is_currency and not f.type.is_decimal:
            fadd("TG201", f.type_pos if f.type_pos.line else f.pos, f"'{f.name}' is money ({f.unit}) but its type is {f.type}; use decimal(p,s)", str(f.type))
        if (f.type.is_decimal or f.type.is_float) and f.unit is None and not f.unit_from_catalog and not f.implied:
            fadd("TG202", f.pos, f"measurement '{f.name}' ({f.type}) states no unit", f.name)
        if f.dimension is not None and resolved is not None:
            ok = units.dimension_matches(f.dimension, resolved)
            if ok is False:
                fadd("TG204", f.pos, f"'{f.name}' declares dimension '{f.dimension}' but unit '{f.unit}' is {resolved.dimensionality}", f.dimension)
            elif ok is None and not resolved.invented:
                fadd("TG204", f.pos, f"unknown dimension '{f.dimension}' for '{f.name}'", f.dimension)
        if (f.dimension is not None and f.unit_from_catalog and f.dimension.strip().lower() != "per series"
                and units.units_of_dimension(f.dimension) is None):
            fadd("TG215", f.pos, f"'{f.name}' takes its unit per series from the catalog; dimension '{f.dimension}' is unknown, so the catalog units cannot be checked", f.dimension)
        suffix = units.suffix_unit(f.name)
        if suffix is not None and f.type.is_numeric:
            if f.unit is None and not f.unit_from_catalog:
                fadd("TG205", f.pos, f"'{f.name}' names unit '{suffix}' but the contract states none; add unit: {suffix}", f.name)
            elif resolved is not None:
                try:
                    same = units.same_unit(resolved, units.resolve(suffix))
                except Exception:
                    same = True
                if not same:
                    fadd("TG205", f.pos, f"'{f.name}' names unit '{suffix}' but declares '{f.unit}'", f.unit or "")
        if f.name in contract.key and (f.type.is_float or f.type.is_decimal):
            fadd("TG212", f.pos, f"key column '{f.name}' is {f.type}", f.name)
        if f.implied:
            fadd("TG208", f.pos, f"provenance column '{f.name}' is not declared; implied as {f.type}", f.name)
        elif f.name == "revision" and not f.type.is_integer and _orders_revisions(contract):
            fadd("TG223", f.type_pos if f.type_pos.line else f.pos,
                 f"revision column is {f.type}: the latest revision is its largest value, and as "
                 f"{f.type} '10' sorts before '9'", str(f.type))
        if f.references is not None:
            problem = _reference_problem(contract, f, str(getattr(ctx, "file", "") or contract.path))
            if problem is not None:
                at = contract.positions.value("fields", f.name, "references") or f.pos
                fadd("TG222", at, problem, ".".join(f.references))

    t = contract.time
    if t is not None:
        tf = contract.field(t.column)
        if tf is not None:
            at = tf.type_pos if tf.type_pos.line else tf.pos
            if tf.type.kind == "date":
                # a date time column: freshness counts whole days against the UTC date of "now";
                # what needs instants (a cadence, a precision, a revision window, sessions) cannot
                why = [k for k, on in (("cadence", t.cadence is not None),
                                       ("precision", t.precision is not None),
                                       ("calendar", getattr(t, "calendar", None) is not None),
                                       ("ingest_column", t.ingest_column is not None)) if on]
                if why:
                    add("TG206", at, f"time column '{t.column}' is a date: time.{why[0]} needs a "
                        "timestamp_*_utc (a date column supports freshness, in whole days)", str(tf.type))
                if t.freshness is not None and t.freshness.seconds % 86400:
                    add("TG206", at, f"time column '{t.column}' is a date: freshness "
                        f"'{t.freshness.text}' must be whole days", str(tf.type))
            elif tf.type.kind != "timestamp":
                add("TG206", at, f"time column '{t.column}' is {tf.type}, not a timestamp_*_utc or a date", str(tf.type))
            elif t.precision and tf.type.ts_unit != t.precision:
                add("TG206", tf.type_pos if tf.type_pos.line else tf.pos, f"time column '{t.column}' is {tf.type} but time.precision says {t.precision}", str(tf.type))
        if t.ingest_column:
            inf = contract.field(t.ingest_column)
            if inf is not None and inf.type.kind != "timestamp":
                add("TG213", inf.pos, f"ingest column '{t.ingest_column}' is {inf.type}, not a timestamp_*_utc", str(inf.type))
    rp = contract.revision_policy
    if rp is not None:
        if rp.allowed and "revision" not in contract.key:
            add("TG207", rp.pos, "revision_policy allows revisions but 'revision' is not in the key", "revision_policy")
        if rp.window is not None and (t is None or not t.ingest_column):
            add("TG209", rp.pos, f"revision window '{rp.window}' cannot be enforced: time.ingest_column is not set", str(rp.window))
        if rp.window is not None and rp.window.trading and (
                t is None or (t.calendar is None and not t.calendar_from_catalog
                              and contract.positions.value("time", "calendar") is None)):
            wpos = contract.positions.value("revision_policy", "window") or rp.pos
            add("TG219", wpos, f"window '{rp.window}' counts Monday to Friday without time.calendar: "
                "exchange holidays count as trading days (set time.calendar: XNYS, or write "
                "'business days')", str(rp.window))
        if rp.reasons and contract.field("revision_reason") is None:
            add("TG214", rp.pos, "revision reasons are documented only: the contract has no 'revision_reason' column", "reasons")
    _check_settings(contract, add)
    has_cal = t is not None and (t.calendar is not None or t.calendar_from_catalog
                                 or contract.positions.value("time", "calendar") is not None)
    if t is not None and t.cadence is not None and t.cadence.sessions and not has_cal:
        cpos = contract.positions.value("time", "cadence") or t.pos
        if t.cadence.sessions == "trading_day":
            add("TG219", cpos, "cadence '1 trading day' counts Monday to Friday without "
                "time.calendar: an exchange holiday is a gap (set time.calendar: XNYS)", "trading")
        else:
            add("TG221", cpos, "'within session' is a note without time.calendar: the step over "
                "each session close fails as a gap (set time.calendar: XNYS)", "session")
    if t is not None and (t.calendar or t.calendar_from_catalog) and contract.calendar is None:
        cpos = contract.positions.value("time", "calendar") or t.pos
        add("TG220", cpos, "calendar used without a 'calendar' section; assuming the sessions "
            "relation 'trading_sessions' with columns calendar, session, open, close "
            "(tacit-gen calendar CODE --start --end --out writes it)", "calendar")
    _empty_bounds(contract, add)
    catalog_noted = contract.catalog is not None
    for inv in contract.invariants:
        try:
            tree = parse(inv.text)
        except ExprSyntaxError:
            continue
        if not n.columns(tree):
            add("TG224", inv.pos, f"invariant '{inv.text}' names no column: it is the same for every row",
                inv.text[inv.prefix:] or inv.text)
        for name, number in _float32_literals(tree, contract):
            f32 = contract.field(name)
            if f32 is not None:
                _field_adder(ctx, f32)(
                    "TG225", inv.pos,
                    f"'{name}' is float32 and {number} is not a float32 value (the nearest is "
                    f"{nearest_float32(number)}): every target compares the value the column "
                    f"holds, exactly, so a value stored from {number} is not {number}; declare the "
                    "field float64 or decimal(p,s), or compare with a number float32 holds", number)
        if not catalog_noted and isinstance(tree, n.CatalogUnit | n.CatalogBounds):
            add("TG210", inv.pos, "catalog form used without a 'catalog' section; assuming relation 'series_catalog' with columns unit, hard_min, hard_max, cadence_seconds", "catalog")
            catalog_noted = True


def _empty_bounds(contract: Contract, add: Any) -> None:
    """TG226 at the invariant whose bound leaves its column no value, with the bounds before it
    (``x > 5``, then ``x < 3``; ``z between 1.5 and 2``, then ``z > 2``): the intersection of a
    column's one-column bounds is empty, so every row with a value fails. A single ``between 10
    and 1`` is TG114 at load; a revision under provenance is ``>= 0``."""
    from tacit_gen.contract.semantics import resolve
    from tacit_gen.expr.bounds import Bounds, as_bounds, empty

    tight: dict[str, Bounds] = {}
    rev = contract.field("revision")
    if rev is not None and "revision" in contract.provenance_required and rev.type.is_integer:
        tight["revision"] = Bounds("revision", min="0")  # provenance: revision >= 0
    for inv in contract.invariants:
        ast, problems = resolve(contract, inv.text)
        found = as_bounds(ast) if ast is not None and not problems else None
        if found is None:
            continue
        b = tight.setdefault(found.column, Bounds(found.column))
        was = empty(b)
        b.intersect(found)
        if empty(b) and not was:
            add("TG226", inv.pos, f"'{inv.text}' and the bounds before it leave {b.column} no value "
                f"({b.text()}): every row with one fails", inv.text[inv.prefix:] or inv.text)


def _float32_literals(tree: n.Node, contract: Contract) -> list[tuple[str, str]]:
    """(float32 column, number) for each number a float32 column is compared with directly
    (`=`, `<`..., `between`, `in`) that float32 cannot hold exactly, in order, once each."""

    def f32(node: n.Node) -> str | None:
        if isinstance(node, n.Name | n.Column):
            f = contract.field(node.name)
            if f is not None and f.type.kind == "float32":
                return node.name
        return None

    found: list[tuple[str, str]] = []

    def note(col: str | None, other: n.Node) -> None:
        text = n.number_text(other)
        if col is not None and text is not None and not float32_value(text) and (col, text) not in found:
            found.append((col, text))

    for node in n.walk(tree):
        if isinstance(node, n.Compare):
            for a, b in zip(node.operands, node.operands[1:], strict=False):
                note(f32(a), b)
                note(f32(b), a)
        elif isinstance(node, n.Between):
            note(f32(node.operand), node.low)
            note(f32(node.operand), node.high)
        elif isinstance(node, n.InList):
            for item in node.items:
                note(f32(node.operand), item)
    return found


_TYPE_FAMILY = {"int32": "integer", "int64": "integer", "string": "text", "enum": "text",
                "float32": "float", "float64": "float"}


def _reference_problem(contract: Contract, f: Field, path: str) -> str | None:
    """When the referenced relation is a contract of the same folder (``<relation>.yaml``, or
    this contract itself): the referenced field must exist and have a comparable type. Read with
    a plain YAML load (no lint of that file, so two contracts may reference each other)."""
    assert f.references is not None
    rel, col = f.references
    if rel == contract.name:
        fields: dict[str, str] = {x.name: str(x.type) for x in contract.fields}
    else:
        folder = Path(path).parent if path else None
        found = next((p for p in ((folder / f"{rel}.yaml"), (folder / f"{rel}.yml")) if p.is_file()),
                     None) if folder is not None else None
        if found is None:
            return None  # not a contract here: a relation the data brings
        try:
            import yaml

            doc = yaml.safe_load(found.read_text(encoding="utf-8"))
            spec = doc.get("fields") if isinstance(doc, dict) else None
            fields = {str(k): str(v.get("type") if isinstance(v, dict) else v)
                      for k, v in (spec or {}).items()}
        except Exception:  # that file is unreadable: its own lint says so
            return None
    if col not in fields:
        return f"'{f.name}' references {rel}.{col}, but contract {rel} has no field '{col}'"
    try:
        theirs = parse_type(fields[col])
    except Exception:
        return None

    def family(t: Any) -> str:
        return str(_TYPE_FAMILY.get(t.kind, t.kind))

    if family(theirs) != family(f.type):
        return (f"'{f.name}' is {f.type} but references {rel}.{col}, which is {theirs}: "
                "the values cannot match")
    return None


def _orders_revisions(contract: Contract) -> bool:
    """Whether the contract reads `revision` as an order: a provenance revision, a revision
    policy, or a cadence or completeness clause (each keeps the latest revision of a point)."""
    t = contract.time
    return ("revision" in contract.provenance_required or contract.revision_policy is not None
            or (t is not None and (t.cadence is not None or t.completeness is not None)))


def _field_adder(ctx: Diagnostics, f: Field) -> Any:
    """`add` for findings about one field: a rule the field waives (``lint: {allow: [...],
    reason: ...}``) becomes a note that carries the reason, so it stays visible."""

    def fadd(code: str, pos: Pos, message: str, word: str) -> None:
        if code in f.lint_allow:
            ctx.add(_pos(pos), "note", code, f"{message} (waived: {f.lint_reason})", word)
        else:
            ctx.add(_pos(pos), RULES[code][0], code, message, word)

    return fadd


def _check_settings(contract: Contract, add: Any) -> None:
    """Common Mistakes of seed 001 that a contract can show: disabled targets, NONE compatibility."""
    at = contract.positions.value
    for target, opts in contract.targets:
        if dict(opts).get("enabled") is False:
            pos = at("targets", target, "enabled") or Pos(1, 1)
            add("TG216", pos, f"target '{target}' is disabled (enabled: false): its checks are not enforced", "enabled")
    if contract.evolution.compatibility == "NONE":
        pos = at("evolution", "compatibility") or Pos(1, 1)
        add("TG217", pos, "compatibility NONE: breaking changes are never flagged; seed 001's Common "
            "Mistakes: 'a registry left in NONE compatibility because someone once needed to push a "
            "breaking change'", "NONE")


def rules_doc() -> str:
    """docs/lint-rules.md: every code, its severity and its rationale (kept in sync by a test)."""
    from tacit_gen.contract.errors import CODES

    lines = [
        "# Lint rules and error codes",
        "",
        "Generated from `tacit_gen.contract.errors.CODES`, `tacit_gen.contract.lint.LOADER_RATIONALE` and",
        "`tacit_gen.contract.lint.RULES` by `python -m tacit_gen.contract.lint > docs/lint-rules.md`; a test keeps it in sync.",
        "",
        "Every finding is printed as `path:line:col: severity: message [code]`, pointing at the",
        "offending word. `tacit-gen lint` exits 1 on errors; warnings count only with `--strict`;",
        "notes never fail.",
        "",
        "## Loader and checker (TG1xx, always errors)",
        "",
        "| code | what | rationale |",
        "|---|---|---|",
    ]
    for code in sorted(CODES):
        lines.append(f"| {code} | {CODES[code]} | {LOADER_RATIONALE[code]} |")
    lines += [
        "",
        "## Lint rules (TG2xx): the seed's checklist and Common Mistakes",
        "",
        "| code | severity | rationale |",
        "|---|---|---|",
    ]
    for code in sorted(RULES):
        sev, why = RULES[code]
        lines.append(f"| {code} | {sev} | {why} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(rules_doc(), end="")
