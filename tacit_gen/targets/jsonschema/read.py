"""Read a JSON Schema back into clauses: meta-validated against draft 2020-12 by `jsonschema`
(an invalid schema is a finding), then each property's type, null branch, enum, const, pattern and
format, the `required` list, `additionalProperties` and the rules of the top-level `allOf` (ranges,
null-only-when invariants: `rules.read_entry`) become the clauses the schema carries."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tacit_gen.drift import base as d
from tacit_gen.drift.base import Finding, ReadResult
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.targets.base import float_text

if TYPE_CHECKING:
    from pathlib import Path


def _pattern_body(pattern: Any) -> str | None:
    """The body of a string property's `pattern` written for a contract's `pattern:` (decimal
    patterns are the decimal type's, not a clause)."""
    from tacit_gen.sql.pattern import body_of
    from tacit_gen.targets.jsonschema.decimal_bounds import decimal_from_pattern

    if not isinstance(pattern, str) or decimal_from_pattern(pattern):
        return None
    return body_of(pattern)


def contract_type(prop: dict[str, Any]) -> str:
    """The contract type a property's (non-null) schema stands for; anything else is described."""
    from tacit_gen.targets.jsonschema.decimal_bounds import decimal_from_pattern
    from tacit_gen.targets.jsonschema.render import INT_BOUNDS, tacit_note, timestamp_from_pattern

    types = prop.get("type")
    base = [t for t in types if t != "null"] if isinstance(types, list) else [types]
    kind = base[0] if len(base) == 1 else None
    if kind == "string":
        if "enum" in prop:
            return "enum[" + ", ".join(str(v) for v in prop["enum"] if v is not None) + "]"
        fmt, pattern = prop.get("format"), prop.get("pattern")
        if fmt == "date-time" and isinstance(pattern, str):
            found = timestamp_from_pattern(pattern)
            if found:
                return found
        elif fmt == "date" and pattern is None:
            return "date"
        elif fmt is None and isinstance(pattern, str):
            found = decimal_from_pattern(pattern)
            if found:
                return found
        elif fmt is None and pattern is None:
            return "string"
        if fmt is None and isinstance(pattern, str) and _pattern_body(pattern) is not None:
            return "string"
    if kind == "boolean":
        return "bool"
    if kind == "integer":
        for name, (lo, hi) in INT_BOUNDS.items():
            if prop.get("minimum") == lo and prop.get("maximum") == hi:
                return name
    width = tacit_note(prop).get("type")
    if kind == "number" and width in ("float32", "float64"):
        return str(width)
    shown = {k: v for k, v in prop.items() if k not in ("description", "$comment", "const")}
    return "jsonschema " + json.dumps(shown, sort_keys=True)


def read(path: Path, text: str) -> ReadResult:
    """Clauses and findings of one JSON Schema document."""
    import jsonschema

    from tacit_gen.targets.jsonschema.render import HEADER, tacit_note

    where = str(path)
    try:
        doc = json.loads(text)
    except ValueError as e:
        return ReadResult((), (Finding(d.UNREADABLE, where, f"not JSON: {e}"),))
    try:
        jsonschema.Draft202012Validator.check_schema(doc)
    except jsonschema.SchemaError as e:
        return ReadResult((), (Finding(d.UNREADABLE, where, f"not a valid draft 2020-12 schema: {e.message}"),))
    if not isinstance(doc, dict) or not isinstance(doc.get("properties"), dict):
        return ReadResult((), (Finding(d.UNREADABLE, where, "not an object schema with 'properties'"),))
    findings: list[Finding] = []
    clauses: list[Clause] = []
    props: dict[str, Any] = doc["properties"]
    required = set(doc.get("required") or [])
    names = tuple(props)
    if doc.get("additionalProperties") is False:
        clauses.append(Clause("no_unknown_columns", "no_unknown_columns", names,
                              make_params(columns=names), ""))
    for name, prop in props.items():
        if not isinstance(prop, dict):
            findings.append(Finding(d.UNREADABLE, where, f"property '{name}' is not a schema"))
            continue
        text_ = str(prop.get("description", ""))
        note = tacit_note(prop)
        clauses.append(Clause(f"column:{name}", "column", (name,),
                              make_params(column=name, type=contract_type(prop), unit=note.get("unit"),
                                          dimension=note.get("dimension")), text_))
        types = prop.get("type")
        allows_null = isinstance(types, list) and "null" in types
        if name in required and not allows_null:
            clauses.append(Clause(f"not_null:{name}", "not_null", (name,), make_params(column=name), text_))
        elif name in required or not allows_null:
            findings.append(Finding(d.PARAM_CHANGED, where,
                                    f"not_null:{name}: 'required' and a type without null go together "
                                    f"(required: {name in required}, null allowed: {allows_null})",
                                    clause_id=f"not_null:{name}"))
        if "enum" in prop:
            clauses.append(Clause(f"accepted_values:{name}", "accepted_values", (name,),
                                  make_params(column=name, values=tuple(str(v) for v in prop["enum"] if v is not None)),
                                  text_))
        if "const" in prop:
            clauses.append(Clause(f"fixed_value:{name}", "fixed_value", (name,),
                                  make_params(column=name, value=float_text(prop["const"])
                                              if isinstance(prop["const"], float) else prop["const"]), text_))
        body = _pattern_body(prop.get("pattern")) if prop.get("format") is None else None
        if body is not None and "enum" not in prop:
            clauses.append(Clause(f"pattern:{name}", "pattern", (name,),
                                  make_params(column=name, pattern=body), text_))
    from tacit_gen.targets.jsonschema.rules import read_entry

    entries = doc.get("allOf", [])
    for entry in entries if isinstance(entries, list) else [entries]:
        try:
            clauses.append(read_entry(entry if isinstance(entry, dict) else {}, props))
        except ValueError as e:
            findings.append(Finding(d.UNKNOWN_CHECK, where, f"allOf: {e}"))
    head = tacit_note(doc, HEADER)
    return ReadResult(tuple(clauses), tuple(findings), header_contract=head.get("contract"),
                      header_version=head.get("version"))
