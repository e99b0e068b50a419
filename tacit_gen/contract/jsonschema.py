"""A JSON Schema (draft 2020-12) of the contract format, generated from the loader's key tables.

Editors (VS Code's YAML extension, JetBrains) use it to complete and validate contract files:
point `yaml.schemas` at docs/contract.schema.json, or add
`# yaml-language-server: $schema=<path>/contract.schema.json` on a contract's first line.
The schema sees plain YAML, so it reads contracts in canonical form (`tacit-gen fmt`): the seed's
unquoted `{type: decimal(18,8)}` is a different mapping to a plain YAML parser. The loader stays
the authority (units, invariants, cross-references); the schema covers shape and spelling.

`python -m tacit_gen.contract.jsonschema` prints the schema; docs/contract.schema.json is that
output, kept in sync by a test.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tacit_gen.contract import loader
from tacit_gen.contract.types import SIMPLE, TIMESTAMP_UNITS
from tacit_gen.semantics.calendar import CALENDAR_CODES

SCHEMA_ID = "https://github.com/tacit-gen/tacit-gen/blob/main/docs/contract.schema.json"
IDENT_PATTERN = f"^{loader.IDENT.pattern}$"
DOTTED_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"
SEMVER_PATTERN = loader.SEMVER.pattern
X_KEY = "^x-"


def type_pattern() -> str:
    """A regular expression (ECMA 262 subset) for the type grammar of `types.parse_type`."""
    simple = "|".join(SIMPLE)
    ts = "timestamp_(?:" + "|".join(TIMESTAMP_UNITS) + ")_utc"
    decimal = r"decimal\s*\(\s*[0-9]+\s*,\s*[0-9]+\s*\)"
    value = r"\s*(?:[A-Za-z_][A-Za-z0-9_.\-]*|'[A-Za-z_][A-Za-z0-9_.\-]*'|\"[A-Za-z_][A-Za-z0-9_.\-]*\")\s*"
    enum = rf"enum\s*\[{value}(?:,{value})*\]"
    return rf"^\s*(?:{simple}|{ts}|{decimal}|{enum})\s*$"


def _ci(word: str) -> str:
    """A case-insensitive regex for a word (JSON Schema regexes have no flags)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)


DURATION_PATTERN = (
    r"^\s*[0-9]+(?:\.[0-9]+)?\s*(?:ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?"
    r"|d|days?|w|weeks?|(?:trading|business)\s+days?)(?![A-Za-z])"
)
TIMEZONE_PATTERN = rf"^\s*{_ci('utc')}(?:\s+{_ci('instant')})?\s*(?:;.*)?$"
CADENCE_PATTERN = rf"^\s*(?:[0-9]+(?:\.[0-9]+)?\s*[A-Za-z]|{_ci('per series from catalog')})"


def _str(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _names(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "oneOf": [
            {"type": "array", "items": {"type": "string", "pattern": IDENT_PATTERN}},
            {"type": "string", "pattern": IDENT_PATTERN},
        ],
    }


def _obj(properties: dict[str, Any], keys: tuple[str, ...], description: str,
         required: tuple[str, ...] = ()) -> dict[str, Any]:
    missing = [k for k in keys if k not in properties]
    extra = [k for k in properties if k not in keys]
    if missing or extra:  # the loader's tables are the truth: fail loudly when they move
        raise AssertionError(f"schema out of step with the loader: missing {missing}, extra {extra}")
    out: dict[str, Any] = {
        "type": "object",
        "description": description,
        "properties": {k: properties[k] for k in keys},
        "patternProperties": {X_KEY: {"description": "metadata, passed to artifacts"}},
        "additionalProperties": False,
    }
    if required:
        out["required"] = list(required)
    return out


def _field() -> dict[str, Any]:
    props = {
        "type": _str("decimal(p,s), enum[a, b], string, bool, int32, int64, float32, float64, date, "
                     "timestamp_{s,ms,us,ns}_utc", pattern=type_pattern()),
        "nullable": {"type": "boolean", "default": True,
                     "description": "may hold NULL (default true; key, time, provenance and "
                                    "fixed-value columns are never null)"},
        "unit": _str("unit of a measurement (pint: kPa, degC, USD, quote_currency, ...), or "
                     "'per series from catalog'"),
        "dimension": _str("dimension of the unit (pressure, temperature, currency, ...), or "
                          "'per series'"),
        "value": {"type": ["string", "number", "boolean"],
                  "description": "fixed value: every row holds exactly this value"},
        "note": _str("prose carried into artifacts"),
        "description": _str("what the column means"),
        "constraint": _str("an invariant on this field with the subject left out, e.g. "
                           "'equals catalog unit for series_id'"),
        "pattern": _str("string fields: a regex every value matches whole (the portable subset: "
                        "no '.', no \\d, no (?...); see docs/contract-language.md)"),
        "references": _str("a foreign key: <relation>.<column> holding every non-null value of "
                           "this field (dbt relationships, a Soda reference check, an anti-join)",
                           pattern="^[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_]*$"),
        "plausible": {"enum": ["catalog"],
                      "description": "numeric fields: warn (never fail) on a value outside its "
                                     "series' catalog plausible_min/plausible_max (tacit-gen "
                                     "profile proposes them)"},
        "aliases": {"type": "array", "items": {"type": "string", "pattern": IDENT_PATTERN},
                    "description": "earlier names of the field (a rename with an alias)"},
        "lint": {"type": "object", "additionalProperties": False, "required": ["allow", "reason"],
                 "description": "waive lint rules on this field, with the reason (shown by explain "
                                "and in every artifact header)",
                 "properties": {
                     "allow": {"type": "array", "items": {"type": "string", "pattern": "^TG2[0-9]{2}$"}},
                     "reason": {"type": "string", "minLength": 1}}},
    }
    spec = _obj(props, loader.FIELD_KEYS, "a column of the contract", required=("type",))
    return {"oneOf": [spec, {"type": "string", "pattern": type_pattern(),
                             "description": "shorthand for {type: ...}"}]}


def _targets() -> dict[str, Any]:
    """`targets:`: each registered target's keys, with the descriptions the target declares."""
    from tacit_gen import registry

    props = {}
    for target in registry.names():
        tprops: dict[str, Any] = {}
        for spec in registry.get(target).contract_keys:
            tprops[spec.key] = ({"enum": list(spec.choices), "description": spec.description}
                                if spec.kind == "choice" else
                                _str(spec.description, pattern={"dotted": DOTTED_PATTERN,
                                                                "text": r"^\S+$"}.get(spec.kind, IDENT_PATTERN)))
        tprops["enabled"] = {"type": "boolean", "default": True, "description": "render this target"}
        props[target] = _obj(tprops, tuple(tprops), f"options of the {target} target")
    out = _obj(props, registry.names(), "per-target options")
    out.pop("patternProperties")
    return out


def contract_schema() -> dict[str, Any]:
    """The JSON Schema of a contract file (draft 2020-12)."""
    time = _obj(
        {
            "column": _str("the event-time column (never null)", pattern=IDENT_PATTERN),
            "precision": {"enum": list(TIMESTAMP_UNITS), "description": "timestamp precision"},
            "timezone": _str("'UTC instant', prose after ';' kept as a note",
                             pattern=TIMEZONE_PATTERN),
            "calendar": _str("an exchange calendar code exchange_calendars knows (XNYS, XLON), "
                             "or 'per series from catalog'",
                             anyOf=[{"enum": list(CALENDAR_CODES)},
                                    {"pattern": f"^{_ci('per series from catalog')}$"}]),
            "cadence": _str("a duration (60s, 15m) or 'per series from catalog', optionally "
                            "'within session', or '1 trading day'; then "
                            "'; tolerance +/-N% of interval', '; gaps allowed', "
                            "'; no bars outside session', prose",
                            pattern=CADENCE_PATTERN),
            "completeness": _str("readings expected per series per window: 'N per <window> per "
                                 "series' (a window dividing a UTC day, or 'session'), then "
                                 "'; at least P%', '; gaps allowed for <type>, ...'",
                                 pattern=r"^\s*[0-9]+\s+[Pp][Ee][Rr]\s"),
            "freshness": _str("maximum age of the newest row, a duration (15m, 2h)",
                              pattern=DURATION_PATTERN),
            "ingest_column": _str("ingest-time column, for the revision window",
                                  pattern=IDENT_PATTERN),
        },
        loader.TIME_KEYS,
        "the time section",
        required=("column",),
    )
    revision = _obj(
        {
            "allowed": {"type": "boolean", "description": "may points be restated"},
            "window": _str("how long after the event a revision may arrive (2 days, "
                           "5 trading days)", pattern=DURATION_PATTERN),
            "reasons": {"type": "array", "items": {"type": "string"},
                        "description": "allowed revision reasons"},
            "notification": _str("how consumers are told"),
            "by": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                   "description": "who may restate: the values of by_column allowed on rows with "
                                  "revision > 0"},
            "by_column": _str("the column naming who restated (default revised_by when declared, "
                              "else source_id)", pattern=IDENT_PATTERN),
            "note": _str("prose"),
        },
        loader.REVISION_KEYS,
        "the revision policy",
        required=("allowed",),
    )
    catalog = _obj(
        {
            "relation": _str("table holding one row per series", pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$"),
            "key": _str("catalog column naming the series", pattern=IDENT_PATTERN),
            "unit": _str("catalog column with the series' unit (default unit)", pattern=IDENT_PATTERN),
            "hard_min": _str("catalog column with the lower hard bound (default hard_min)",
                             pattern=IDENT_PATTERN),
            "hard_max": _str("catalog column with the upper hard bound (default hard_max)",
                             pattern=IDENT_PATTERN),
            "cadence": _str("catalog column with the interval in seconds (default cadence_seconds)",
                            pattern=IDENT_PATTERN),
            "calendar": _str("catalog column with the series' exchange calendar code (default "
                             "calendar)", pattern=IDENT_PATTERN),
            "plausible_min": _str("catalog column with the lower plausible bound (default "
                                  "plausible_min)", pattern=IDENT_PATTERN),
            "plausible_max": _str("catalog column with the upper plausible bound (default "
                                  "plausible_max)", pattern=IDENT_PATTERN),
        },
        loader.CATALOG_KEYS,
        "the series catalog",
        required=("relation",),
    )
    calendar = _obj(
        {
            "relation": _str("table of exchange sessions (tacit-gen calendar writes it; default "
                             "trading_sessions)", pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$"),
            "calendar": _str("column with the calendar code (default calendar)", pattern=IDENT_PATTERN),
            "session": _str("column with the session date (default session)", pattern=IDENT_PATTERN),
            "open": _str("column with the open, a UTC instant (default open)", pattern=IDENT_PATTERN),
            "close": _str("column with the close, a UTC instant (default close)",
                          pattern=IDENT_PATTERN),
        },
        loader.CALENDAR_KEYS,
        "the exchange sessions relation",
    )
    evolution = _obj(
        {
            "compatibility": {"enum": list(loader.COMPAT_MODES), "default": "BACKWARD",
                              "description": "compatibility mode checked by `tacit-gen compat`"},
            "notice_period": _str("notice before a change with notice", pattern=DURATION_PATTERN),
            "reserved": {"type": "array", "items": {"type": "string"},
                         "description": "removed field names that must never be reused"},
        },
        loader.EVOLUTION_KEYS,
        "evolution settings",
    )
    top = {
        "contract": _str("the dataset's name", pattern=IDENT_PATTERN),
        "version": _str("semantic version MAJOR.MINOR.PATCH", pattern=SEMVER_PATTERN),
        "owner": _str("owning team"),
        "source": _str("the source system the series come from (identity; carried into every "
                       "artifact header)"),
        "description": _str("what the dataset is"),
        "key": _names("the natural key (unique, never null)"),
        "time": time,
        "fields": {
            "type": "object",
            "description": "the columns, in order",
            "propertyNames": {"pattern": IDENT_PATTERN},
            "additionalProperties": _field(),
        },
        "invariants": {
            "type": "array",
            "description": "row conditions with SQL CHECK semantics (see docs/contract-language.md)",
            "items": {"type": "string", "minLength": 1},
        },
        "revision_policy": revision,
        "provenance_required": _names("required non-null provenance columns"),
        "severity": _obj({"warn": _names("clause ids (as `tacit-gen explain` prints them) whose "
                                         "violation is reported as a warning, never a failure")},
                         loader.SEVERITY_KEYS, "which clauses only warn"),
        "catalog": catalog,
        "calendar": calendar,
        "evolution": evolution,
        "targets": _targets(),
    }
    schema = _obj(top, loader.TOP_KEYS, "A tacit-gen data contract",
                  required=("contract", "version", "fields"))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "tacit-gen contract",
        **schema,
    }


def schema_text() -> str:
    """The schema as committed at docs/contract.schema.json."""
    return json.dumps(contract_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(schema_text(), end="")
