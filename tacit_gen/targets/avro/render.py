"""Avro target: one record schema (`avro/<contract>.avsc`) per contract.

Mapping (docs/engines/avro.md has the table and what Avro cannot say):

- the record is named after the contract, in namespace ``targets.avro.namespace`` (default: the
  contract's name, so the full name is ``<contract>.<contract>``); fields in
  contract order; each field's ``doc`` is its verbatim contract text; ``unit`` and ``dimension``
  are field properties;
- ``decimal(p,s)`` is ``bytes`` with ``logicalType: decimal``, precision and scale (never double);
  ``timestamp_ms_utc`` is ``timestamp-millis``, ``timestamp_us_utc`` ``timestamp-micros``;
  ``timestamp_s_utc`` is ``timestamp-millis`` (Avro has no seconds type; whole seconds are exact
  in it) and ``timestamp_ns_utc`` is Avro 1.12's ``timestamp-nanos``; ``date`` is ``int`` with
  ``logicalType: date``;
- an enum is an Avro ``enum`` named ``<field>_enum`` (a value that is not an Avro symbol makes the
  field a ``string`` and its accepted values unsupported);
- a nullable field is ``["null", T]`` with ``"default": null``; a non-null field has no null branch;
- a field's ``aliases`` become Avro ``aliases`` (and its enum type's aliases), so a reader
  resolves data written under the old name.

The tacit-gen header is the schema's ``tacit_gen`` property (Avro keeps unknown properties, and
its Parsing Canonical Form, what a registry fingerprints, drops them with every ``doc``: an edit
of the contract that changes nothing on the wire registers no new schema).
This module imports neither fastavro nor avro.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
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
)
from tacit_gen.targets.kinds import KindTable

if TYPE_CHECKING:

    from tacit_gen.contract.model import Contract, Field
    from tacit_gen.contract.types import DataType
    from tacit_gen.plan_types import Clause

NAME = "avro"
FORMAT = "Avro"
SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PRIMITIVE = {"string": "string", "bool": "boolean", "int32": "int", "int64": "long",
              "float32": "float", "float64": "double"}
_TIMESTAMP = {"s": "timestamp-millis", "ms": "timestamp-millis", "us": "timestamp-micros",
              "ns": "timestamp-nanos"}
# What a reader recovers for each contract timestamp type (seconds travel as milliseconds).
CARRIED_TS = {"s": "ms", "ms": "ms", "us": "us", "ns": "ns"}


def enum_name(field: str) -> str:
    return f"{field}_enum"


def enum_expressible(t: DataType) -> bool:
    return t.kind == "enum" and all(SYMBOL.fullmatch(v) for v in t.values)


def avro_type(f: Field) -> Any:
    """The non-null Avro type of a field."""
    t = f.type
    if t.kind in _PRIMITIVE:
        return _PRIMITIVE[t.kind]
    if t.kind == "decimal":
        return {"type": "bytes", "logicalType": "decimal", "precision": t.precision, "scale": t.scale}
    if t.kind == "timestamp":
        return {"type": "long", "logicalType": _TIMESTAMP[str(t.ts_unit)]}
    if t.kind == "date":
        return {"type": "int", "logicalType": "date"}
    if t.kind == "enum":
        if not enum_expressible(t):
            return "string"
        out: dict[str, Any] = {"type": "enum", "name": enum_name(f.name), "symbols": list(t.values)}
        if f.aliases:
            out["aliases"] = [enum_name(a) for a in f.aliases]
        return out
    raise ValueError(f"no Avro type for {t}")


def field_schema(f: Field) -> dict[str, Any]:
    out: dict[str, Any] = {"name": f.name}
    t = avro_type(f)
    if f.nullable:
        out["type"] = ["null", t]
        out["default"] = None
    else:
        out["type"] = t
    out["doc"] = wire.field_text(f)
    if f.aliases:
        out["aliases"] = list(f.aliases)
    unit = wire.unit_of(f)
    if unit is not None:
        out["unit"] = unit
    if f.dimension is not None:
        out["dimension"] = f.dimension
    return out


def _accepted_values(contract: Contract, clause: Clause) -> str | None:
    f = next((f for f in contract.fields if f.name == clause.param("column")), None)
    if f is not None and f.type.kind == "enum" and not enum_expressible(f.type):
        return "a value is not an Avro enum symbol ([A-Za-z_][A-Za-z0-9_]*): the field is a string"
    return None


def _fixed_value(contract: Contract, clause: Clause) -> str | None:
    return "Avro has no constant: any value of the type is valid"


RENDER: KindTable[wire.Rule] = KindTable(NAME, "render", {
    "column": wire.carried,
    "no_unknown_columns": wire.carried,
    "not_null": wire.carried,
    "accepted_values": _accepted_values,
    "fixed_value": _fixed_value,
}, wire.record_only(FORMAT))


def _also_unsupported(contract: Contract, clauses: tuple[Clause, ...]) -> dict[str, str]:
    return wire.cannot(RENDER, contract, clauses)


def schema_document(contract: Contract, clauses: tuple[Clause, ...]) -> tuple[dict[str, Any], list[Any]]:
    contract = wire.relaxed(contract, clauses)
    unsupported = wire.unsupported(NAME, FORMAT, clauses, _also_unsupported(contract, clauses))
    doc: dict[str, Any] = {"tacit_gen": wire.registry_meta(contract), "type": "record", "name": contract.name}
    # a registry keys a record by its full name: the default namespace is the contract's name
    doc["namespace"] = str(contract.target_option(NAME, "namespace") or contract.name)
    if contract.description:
        doc["doc"] = contract.description
    doc["fields"] = [field_schema(f) for f in contract.fields]
    return doc, unsupported


def dump(doc: dict[str, Any]) -> str:
    return jsontext.dumps(doc) + "\n"


class AvroTarget(Target):
    """Renderer and reader for Avro record schemas (.avsc)."""

    name = NAME
    options = NoOptions
    contract_keys = (ContractKey("namespace", "Avro namespace of the record (dotted names)", kind="dotted"),)
    artifact_name_option: str | None = None
    reader = "tacit_gen.targets.avro.read:read"
    compat = "tacit_gen.targets.avro.compat:COMPAT"
    # records, not a table: the same check on every backend (on Spark, in verify's own processes)
    engines: ClassVar[Mapping[str, Engine]] = {
        backend: Engine("tacit_gen.targets.avro.engine",
                         ("fastavro",), "wire") for backend in BACKENDS}
    templates = False

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (f"avro/{contract.name}.avsc",)

    def render(self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions) -> RenderResult:
        doc, unsupported = schema_document(contract, clauses)
        return RenderResult((Artifact(self.artifact_paths(contract)[0], dump(doc)),), tuple(unsupported))

    def project(self, contract: Contract, clause: Clause, options: RenderOptions | None = None) -> Clause | None:
        """The clause as the reader recovers it from the .avsc, or None when Avro cannot say it."""
        if clause.kind not in wire.STRUCTURAL or clause.warn or clause.id in _also_unsupported(contract, (clause,)):
            return None
        if clause.kind == "column":
            m = re.fullmatch(r"timestamp_(s|ms|us|ns)_utc", str(clause.param("type")))
            if m:
                params = dict(clause.params)
                params["type"] = f"timestamp_{CARRIED_TS[m.group(1)]}_utc"
                return replace(clause, params=tuple(sorted(params.items())))
        return clause



__all__ = ["AvroTarget", "avro_type", "schema_document"]
