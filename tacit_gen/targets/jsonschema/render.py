"""JSON Schema target (draft 2020-12): one schema per contract, `jsonschema/<contract>.schema.json`,
for one record (one row as a JSON object).

- ``$schema``, ``$id`` (``targets.jsonschema.id_prefix`` + ``<contract>.v<major>.schema.json``;
  default prefix ``urn:tacit-gen:``), ``additionalProperties: false`` (an unknown field fails), ``required`` for
  every non-null field; a nullable field's type includes ``"null"``.
- Instants are strings with ``format: date-time`` plus a pattern that requires a UTC offset and at
  most the declared fraction digits (s: none, ms: 3, us: 6, ns: 9); dates ``format: date``.
- JSON has one number type: a ``decimal(p,s)`` travels as a string whose pattern states precision
  and scale (at most p-s integer digits and s fraction digits); the ``$comment`` says so.
- Enums are ``enum``; a fixed value is ``const``; int32/int64 are integers with their bounds.

This module imports nothing from jsonschema.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from tacit_gen import jsontext
from tacit_gen.targets import wire
from tacit_gen.targets.base import (
    BACKENDS,
    Artifact,
    ContractKey,
    Engine,
    NoOptions,
    RenderOptions,
    RenderResult,
    Target,
    float_fixed,
)
from tacit_gen.targets.jsonschema import rules

if TYPE_CHECKING:

    from tacit_gen.contract.model import Contract, Field
    from tacit_gen.plan_types import Clause

NAME = "jsonschema"
FORMAT = "JSON Schema"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
DEFAULT_ID_PREFIX = "urn:tacit-gen:"
FRACTION = {"s": 0, "ms": 3, "us": 6, "ns": 9}
INT_BOUNDS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
TACIT = "tacit: "
HEADER = "tacit-gen: "
DECIMAL_COMMENT = ("JSON has one number type: decimal fields travel as strings; each pattern states "
                   "the precision and scale (at most p-s integer digits, at most s fraction digits).")


def decimal_pattern(precision: int, scale: int) -> str:
    whole = precision - scale
    head = "-?(0|[1-9][0-9]{0,%s})" % (whole - 1) if whole > 0 else "-?0"
    tail = r"(\.[0-9]{1,%s})?" % scale if scale > 0 else ""  # noqa: UP031
    return f"^{head}{tail}$"


def timestamp_pattern(unit: str) -> str:
    digits = FRACTION[unit]
    frac = r"(\.[0-9]{1,%s})?" % digits if digits else ""  # noqa: UP031 (braces are regex)
    return r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}" + frac + r"(Z|[+-][0-9]{2}:[0-9]{2})$"


def timestamp_from_pattern(pattern: str) -> str | None:
    for unit in FRACTION:
        if timestamp_pattern(unit) == pattern:
            return f"timestamp_{unit}_utc"
    return None


def major(contract: Contract) -> str:
    """The contract's major version: the `$id` names it, so a compatible release keeps the id."""
    return str(contract.version).split(".")[0]


def value_schema(f: Field) -> dict[str, Any]:
    """The property schema of a non-null value of the field."""
    t = f.type
    if t.kind in ("string", "enum"):
        out: dict[str, Any] = {"type": "string"}
        if t.kind == "enum":
            out["enum"] = list(t.values)
        if f.pattern is not None:  # ECMA-262 `$` is the end of the input: a whole-value match
            from tacit_gen.sql.pattern import full_match, normalize

            out["pattern"] = full_match(normalize(f.pattern), "re2")
        return out
    if t.kind == "bool":
        return {"type": "boolean"}
    if t.kind in INT_BOUNDS:
        lo, hi = INT_BOUNDS[t.kind]
        return {"type": "integer", "minimum": lo, "maximum": hi}
    if t.kind in ("float32", "float64"):
        return {"type": "number"}  # the width is in the property's `$comment` (`tacit_note`)
    if t.kind == "decimal":
        return {"type": "string", "pattern": decimal_pattern(int(t.precision or 0), int(t.scale or 0))}
    if t.kind == "timestamp":
        return {"type": "string", "format": "date-time", "pattern": timestamp_pattern(str(t.ts_unit))}
    if t.kind == "date":
        return {"type": "string", "format": "date"}
    raise ValueError(f"no JSON Schema type for {t}")


def property_schema(f: Field) -> dict[str, Any]:
    out = value_schema(f)
    if f.nullable:
        out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
    if f.has_value:
        v = f.value
        out["const"] = format(v, "f") if not isinstance(v, bool | int | str) else v
        if f.type.is_float and isinstance(v, str):
            # a float goes on the wire as a JSON number: the text "0.5" matched no record
            # (found 2026-12-04); a decimal stays text, as the wire carries it
            out["const"] = float(v)
    out["description"] = wire.field_text(f)
    note: dict[str, Any] = {}
    if f.type.is_float:
        note["type"] = f.type.kind
    unit = wire.unit_of(f)
    if unit is not None:
        note["unit"] = unit
    if f.dimension is not None:
        note["dimension"] = f.dimension
    if note:
        out["$comment"] = TACIT + json.dumps(note, ensure_ascii=False)
    return out


def tacit_note(schema: Mapping[str, Any], prefix: str = "tacit: ") -> dict[str, Any]:
    """What a `$comment` written by tacit-gen carries (a float's width, a unit, a dimension; the
    header, with prefix ``tacit-gen: ``), or {}. A strict validator knows `$comment`; it refuses
    the `x-` keywords these once were."""
    text = schema.get("$comment")
    if not isinstance(text, str):
        return {}
    for line in text.splitlines():
        if line.startswith(prefix):
            try:
                found = json.loads(line[len(prefix):])
            except ValueError:
                return {}
            return found if isinstance(found, dict) else {}
    return {}


def schema_document(contract: Contract, clauses: tuple[Clause, ...]) -> tuple[dict[str, Any], list[Any]]:
    contract = wire.relaxed(contract, clauses)
    fields = wire.fields_by_name(contract)
    entries: list[dict[str, Any]] = []
    cannot: dict[str, str] = {}
    for c in clauses:
        if c.warn:
            continue
        found = rules.rule(c, fields)
        if isinstance(found, dict):
            entries.append({"$comment": c.id, **found})
        elif isinstance(found, str) and (c.kind not in rules.RULES.unsupported or c.kind in wire.STRUCTURAL):
            # a kind the table declares unsupported is reported by `wire.unsupported` (its
            # reason names the clause), unless it is one a wire schema otherwise carries
            cannot[c.id] = found
    # `pattern` is carried by the property (a warn one too, as before); a rule by its entry
    carried = {c.id for c in clauses if c.kind == "pattern"} | {e["$comment"] for e in entries}
    unsupported = [u for u in wire.unsupported(NAME, FORMAT, clauses, also=cannot)
                   if u.clause_id not in carried]
    head = wire.registry_meta(contract)
    prefix = str(contract.target_option(NAME, "id_prefix") or DEFAULT_ID_PREFIX)
    doc: dict[str, Any] = {
        "$schema": DRAFT,
        "$id": prefix + f"{contract.name}.v{major(contract)}.schema.json",
        "$comment": (f"Generated by tacit-gen from {contract.path}. Do not edit. " + DECIMAL_COMMENT
                     + "\n" + HEADER + json.dumps(head, ensure_ascii=False)),
        "title": contract.name,
    }
    if contract.description:
        doc["description"] = contract.description
    doc["type"] = "object"
    doc["properties"] = {f.name: property_schema(f) for f in contract.fields}
    doc["required"] = [f.name for f in contract.fields if not f.nullable]
    doc["additionalProperties"] = False
    if entries:
        doc["allOf"] = entries
    return doc, unsupported


class JsonSchemaTarget(Target):
    """Renderer and reader for JSON Schema (draft 2020-12) record schemas."""

    name = NAME
    options = NoOptions
    contract_keys = (ContractKey("id_prefix", "prefix of the schema's $id, the file name is appended (default: urn:tacit-gen:)", kind="text"),)
    artifact_name_option: str | None = None
    reader = "tacit_gen.targets.jsonschema.read:read"
    compat = "tacit_gen.targets.jsonschema.compat:COMPAT"
    # records, not a table: the same check on every backend (on Spark, in verify's own processes)
    engines: ClassVar[Mapping[str, Engine]] = {
        backend: Engine("tacit_gen.targets.jsonschema.engine",
                         ("jsonschema",), "wire") for backend in BACKENDS}
    templates = False

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (f"jsonschema/{contract.name}.schema.json",)

    def render(self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions) -> RenderResult:
        doc, unsupported = schema_document(contract, clauses)
        text = jsontext.dumps(doc) + "\n"
        return RenderResult((Artifact(self.artifact_paths(contract)[0], text),), tuple(unsupported))

    def project(self, contract: Contract, clause: Clause, options: RenderOptions | None = None) -> Clause | None:
        """The clause as the reader recovers it, or None when JSON Schema cannot say it."""
        if clause.warn:
            return None
        if clause.kind in (*wire.STRUCTURAL, "pattern"):
            return float_fixed(clause)
        if clause.kind in ("range", "invariant"):
            found = rules.rule(clause, wire.fields_by_name(contract))
            if isinstance(found, dict):
                props = {f.name: property_schema(f) for f in contract.fields}
                return rules.read_entry({"$comment": clause.id, **found}, props)
        return None



__all__ = ["JsonSchemaTarget", "schema_document"]
