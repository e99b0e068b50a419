"""Read an .avsc back into clauses: parsed by fastavro (the schema must be valid Avro), then each
field's type, null branch, enum symbols and unit/dimension properties become the clauses a record
schema carries (`column:`, `not_null:`, `accepted_values:`, `no_unknown_columns`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tacit_gen.drift import base as d
from tacit_gen.drift.base import Finding, ReadResult
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.targets import wire
from tacit_gen.targets.kinds import Form, FormTable

if TYPE_CHECKING:
    from pathlib import Path

_PRIMITIVE = {"string": "string", "boolean": "bool", "int": "int32", "long": "int64",
              "float": "float32", "double": "float64"}
_TIMESTAMP = {"timestamp-millis": "ms", "timestamp-micros": "us", "timestamp-nanos": "ns"}


def contract_type(t: Any) -> str:
    """The contract type text an Avro (non-null) type stands for; anything else is described."""
    if isinstance(t, str) and t in _PRIMITIVE:
        return _PRIMITIVE[t]
    if isinstance(t, dict):
        base, logical = t.get("type"), t.get("logicalType")
        if base == "bytes" and logical == "decimal":
            return f"decimal({t.get('precision')},{t.get('scale', 0)})"
        if base == "long" and logical in _TIMESTAMP:
            return f"timestamp_{_TIMESTAMP[logical]}_utc"
        if base == "int" and logical == "date":
            return "date"
        if base == "enum":
            return "enum[" + ", ".join(map(str, t.get("symbols") or [])) + "]"
        if logical is None and isinstance(base, str) and base in _PRIMITIVE:
            return _PRIMITIVE[base]
    return "avro " + json.dumps(t, sort_keys=True)


def split_null(t: Any) -> tuple[Any, bool]:
    """(the non-null type, whether null is allowed) of a field type."""
    if isinstance(t, list):
        rest = [x for x in t if x != "null"]
        return (rest[0] if len(rest) == 1 else rest), len(rest) != len(t)
    return t, t == "null"


def _column(name: str, t: Any, nullable: bool, fd: dict[str, Any]) -> Clause | None:
    return Clause(f"column:{name}", "column", (name,),
                  make_params(column=name, type=contract_type(t), unit=fd.get("unit"),
                              dimension=fd.get("dimension")), str(fd.get("doc", "")))


def _not_null(name: str, t: Any, nullable: bool, fd: dict[str, Any]) -> Clause | None:
    if nullable:
        return None
    return Clause(f"not_null:{name}", "not_null", (name,), make_params(column=name), str(fd.get("doc", "")))


def _accepted_values(name: str, t: Any, nullable: bool, fd: dict[str, Any]) -> Clause | None:
    if not (isinstance(t, dict) and t.get("type") == "enum"):
        return None
    return Clause(f"accepted_values:{name}", "accepted_values", (name,),
                  make_params(column=name, values=tuple(map(str, t.get("symbols") or []))),
                  str(fd.get("doc", "")))


FieldReader = Callable[[str, Any, bool, dict[str, Any]], "Clause | None"]
# What each field of the record states, in the order its clauses are read.
READ: FormTable[FieldReader] = FormTable("avro", {
    "type": Form(("column",), _column),
    "type without null": Form(("not_null",), _not_null),
    "enum": Form(("accepted_values",), _accepted_values),
}, elsewhere={"no_unknown_columns": "the record's list of fields"},
    unsupported={"fixed_value": "Avro has no constant: any value of the type is valid",
                 **wire.record_only("Avro")})


def read(path: Path, text: str) -> ReadResult:
    """Clauses and findings of one .avsc."""
    import fastavro

    where = str(path)
    try:
        doc = json.loads(text)
    except ValueError as e:
        return ReadResult((), (Finding(d.UNREADABLE, where, f"not JSON: {e}"),))
    try:
        fastavro.parse_schema(doc)
    except Exception as e:  # fastavro raises SchemaParseException, ValueError, KeyError...
        return ReadResult((), (Finding(d.UNREADABLE, where, f"not a valid Avro schema (fastavro): {e}"),))
    if not isinstance(doc, dict) or doc.get("type") != "record" or not isinstance(doc.get("fields"), list):
        return ReadResult((), (Finding(d.UNREADABLE, where, "not an Avro record schema"),))
    findings: list[Finding] = []
    clauses: list[Clause] = []
    names: list[str] = []
    for fd in doc["fields"]:
        name = str(fd["name"])
        names.append(name)
        t, nullable = split_null(fd.get("type"))
        for form in READ.rules.values():
            found = form.read(name, t, nullable, fd)
            if found is not None:
                clauses.append(found)
        if nullable and ("default" not in fd or fd["default"] is not None
                         or (isinstance(fd["type"], list) and fd["type"][0] != "null")):
            findings.append(Finding(d.PARAM_CHANGED, where,
                                    f"column:{name}: a nullable field is [\"null\", T] with \"default\": null "
                                    "(a reader of older data needs the default)",
                                    clause_id=f"column:{name}", expected='["null", T], default null',
                                    found=json.dumps({"type": fd.get("type"), "default": fd.get("default", "absent")})))
    clauses.insert(0, Clause("no_unknown_columns", "no_unknown_columns", tuple(names),
                             make_params(columns=tuple(names)), ""))
    head: dict[str, Any] = doc["tacit_gen"] if isinstance(doc.get("tacit_gen"), dict) else {}
    return ReadResult(tuple(clauses), tuple(findings), header_contract=head.get("contract"),
                      header_version=head.get("version"))
