"""jsonschema engine: every row of the data, as the JSON object a producer would send, validated
with `jsonschema` (Draft202012Validator, format checks on) against the generated schema.

Row -> JSON: decimals as their exact text (``format(d, "f")``), instants as RFC 3339 text with the
offset the value carries (a naive timestamp has none, and fails the pattern), dates ``YYYY-MM-DD``;
every column of the table is a key (NULL is ``null``). Each validation error is a verdict on the
clause its keyword expresses (a NULL is judged by ``not_null`` only); an error inside an entry of
the top-level ``allOf`` is a verdict on the clause the entry names (a range, an invariant); otherwise ``required`` / ``type`` / ``pattern`` / ``format`` / bounds ->
``column:<c>`` (a ``null`` against a type without null -> ``not_null:<c>``), ``enum`` ->
``accepted_values:<c>``, ``const`` -> ``fixed_value:<c>``, ``additionalProperties`` ->
``no_unknown_columns``. A property whose column is missing from the data fails ``column:<c>``
whether or not it is required: the contract's columns are strict (seed 001), the schema only says
that a producer may leave a nullable key out.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from tacit_gen.engines.base import EngineRun, VerifyInput
from tacit_gen.engines.wire import Tally, at_precision, error_run, json_value, read_table, verdicts

NAME = "jsonschema"


def clause_of(error: Any, prop_schemas: dict[str, Any], schema: dict[str, Any]) -> tuple[str, str] | None:
    """(clause id, reason) for one validation error: an error inside an entry of the top-level
    ``allOf`` is its clause's (`rules.entry_of`)."""
    kw = error.validator
    from tacit_gen.targets.jsonschema.rules import entry_of

    rule = entry_of(schema, error.relative_schema_path)
    if rule is not None:
        return rule, error.message
    if kw == "additionalProperties":
        return "no_unknown_columns", error.message
    if kw == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "?"
        return f"column:{missing}", error.message
    if not error.absolute_path:
        return None
    col = str(error.absolute_path[0])
    if error.instance is None and kw in ("enum", "const"):
        return None  # a NULL is not_null's business (SQL CHECK semantics: NULL passes the rest)
    if kw == "enum":
        return f"accepted_values:{col}", error.message
    if kw == "const":
        return f"fixed_value:{col}", error.message
    if kw == "pattern" and "format" not in prop_schemas.get(col, {}):
        from tacit_gen.targets.jsonschema.decimal_bounds import decimal_from_pattern

        if not decimal_from_pattern(str(prop_schemas.get(col, {}).get("pattern"))):
            return f"pattern:{col}", error.message
    if kw == "type" and error.instance is None:
        return f"not_null:{col}", error.message
    return f"column:{col}", error.message


def ecma_end(pattern: str) -> str:
    """An ECMA-262 pattern for Python's `re`: each ``$`` outside a character class (and not
    escaped) becomes ``\\Z``.

    JSON Schema's `pattern` is ECMA-262, where ``$`` without the multiline flag is the end of the
    input (ajv, RE2 agree). jsonschema's own keyword runs Python's ``re.search``, where ``$`` also
    matches before a final newline: ``"ABC\\n"`` passed ``^([A-Z]{3})$`` there and failed in every
    other engine (found 2026-12-03). The rest of the portable subset reads the same in both."""
    out: list[str] = []
    escaped = in_class = False
    for c in pattern:
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "$":
            out.append("\\Z")
            continue
        out.append(c)
    return "".join(out)


def _pattern_keyword(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """The `pattern` keyword with ECMA-262's ``$`` (`ecma_end`)."""
    import re

    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not re.search(ecma_end(pattern), instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _nan_above(keyword: Any) -> Any:
    """A bound keyword for which NaN is above every number, as SQL orders it (DuckDB, PostgreSQL
    and Spark agree; docs/contract-language.md, "Floats: NaN"). The bounds are exact decimals
    (the schema is read with ``parse_float=Decimal``), and comparing a Decimal with NaN raises."""

    def check(validator: Any, bound: Any, instance: Any, schema: Any) -> Any:
        if isinstance(instance, float) and instance != instance:
            instance = float("inf")
        return keyword(validator, bound, instance, schema)

    return check


def carried_clauses(schema: dict[str, Any]) -> set[str]:
    props = schema.get("properties") or {}
    out = {f"column:{p}" for p in props}
    required = set(schema.get("required") or [])
    for p, s in props.items():
        t = s.get("type")
        if p in required and not (isinstance(t, list) and "null" in t):
            out.add(f"not_null:{p}")
        if "enum" in s:
            out.add(f"accepted_values:{p}")
        if "const" in s:
            out.add(f"fixed_value:{p}")
        if "pattern" in s and "format" not in s and s.get("type") in ("string", ["string", "null"]):
            from tacit_gen.targets.jsonschema.decimal_bounds import decimal_from_pattern

            if not decimal_from_pattern(str(s["pattern"])):
                out.add(f"pattern:{p}")
    if schema.get("additionalProperties") is False:
        out.add("no_unknown_columns")
    out.update(e["$comment"] for e in schema.get("allOf") or [] if isinstance(e, dict) and isinstance(e.get("$comment"), str))
    return out


def run(inp: VerifyInput) -> EngineRun:
    """Validate every row against `jsonschema/<contract>.schema.json`."""
    import jsonschema
    from jsonschema import validators

    path = inp.artifact_dir / NAME / f"{inp.contract.name}.schema.json"
    try:
        # bounds as exact decimals: a value compares with the bound itself, as in SQL
        schema = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
        jsonschema.Draft202012Validator.check_schema(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        return error_run(NAME, inp.clauses, f"cannot load {path.name}: {str(e).splitlines()[0]}")
    bounds = {k: _nan_above(jsonschema.Draft202012Validator.VALIDATORS[k])
              for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")}
    ecma = validators.extend(jsonschema.Draft202012Validator, {"pattern": _pattern_keyword, **bounds})
    validator = ecma(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    table = read_table(inp.database, inp.table)
    props: dict[str, Any] = schema.get("properties") or {}
    tally = Tally()
    for p in props:
        if p not in table.types:
            tally.fail(f"column:{p}", f"the data has no column '{p}'", len(table.rows) or 1)
    for row in table.rows:
        obj = {k: json_value(v) for k, v in at_precision(row, inp.clauses).items()}
        seen: set[str] = set()
        for err in validator.iter_errors(obj):
            found = clause_of(err, props, schema)
            if found is None or found[0] in seen:
                continue
            cid, reason = found
            if cid.startswith("column:") and cid[len("column:"):] not in table.types:
                continue  # already counted once per row above
            seen.add(cid)
            tally.fail(cid, reason)
    return verdicts(NAME, inp.clauses, carried_clauses(schema), tally)
