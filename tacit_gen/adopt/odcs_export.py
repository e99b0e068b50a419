"""`tacit-gen export odcs`: a contract as an ODCS v3.1.0 document (Open Data Contract Standard).

What ODCS says natively is said natively, so any ODCS tool checks it: one schema object per
contract, a property per field (`logicalType`, `physicalType` as DuckDB names it, `required`,
`primaryKey` + `primaryKeyPosition`, `description`), an `invalidValues` quality rule with
`validValues` per enum and fixed value, a `duplicateValues` rule over the key, a `sql` rule
(``SELECT COUNT(*) FROM ${table} WHERE NOT (...)`` must be 0: SQL CHECK semantics, a NULL
passes) per invariant and range, `custom` rules (engine ``tacit-gen``) for the clauses no SQL
row condition expresses (cadence, catalog joins, the revision window), and the freshness as an
SLA property. What ODCS has no field for is carried in `customProperties` named ``tacit*``
(exact type, unit, dimension, notes, the time, revision, provenance, catalog, evolution and
targets sections verbatim) and ``x-*`` (the contract's own metadata), so `import odcs` of the
export gives the same clause plan back. docs/import-export.md lists what each part becomes.
"""

from __future__ import annotations

from typing import Any

import yaml

from tacit_gen.contract import yamlpos
from tacit_gen.contract.model import Contract
from tacit_gen.contract.types import parse_type

API_VERSION = "v3.1.0"
ENGINE = "tacit-gen"
# Contract keys ODCS says natively; every other top-level key (owner, invariants, time,
# revision_policy, ... and whatever the language adds) is carried verbatim as `tacit<CamelKey>`.
NATIVE_KEYS = ("contract", "version", "description", "key", "fields")
NATIVE_FIELD_KEYS = ("description",)


def prop_name(key: str) -> str:
    """`revision_policy` -> `tacitRevisionPolicy` (ODCS asks for camel case)."""
    return "tacit" + "".join(part[:1].upper() + part[1:] for part in key.split("_"))


def key_name(prop: str) -> str | None:
    """`tacitRevisionPolicy` -> `revision_policy` (None for a name not of that form)."""
    import re

    if not prop.startswith("tacit") or len(prop) <= 5:
        return None
    return re.sub(r"(?<!^)([A-Z])", r"_\1", prop[5:]).lower()
_LOGICAL = {"string": "string", "enum": "string", "bool": "boolean", "int32": "integer",
            "int64": "integer", "float32": "number", "float64": "number", "decimal": "number",
            "date": "date", "timestamp": "timestamp"}
_DIMENSION = {"not_null": "completeness", "unique": "uniqueness", "accepted_values": "conformity",
              "fixed_value": "conformity", "range": "accuracy", "invariant": "consistency",
              "freshness": "timeliness", "cadence": "completeness", "catalog_unit": "conformity",
              "catalog_bounds": "accuracy", "revision_window": "timeliness"}
_DURATION_UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))


def _cp(prop: str, value: Any) -> dict[str, Any]:
    return {"property": prop, "value": value}


def _raw(contract: Contract) -> dict[str, Any]:
    root, _, _ = yamlpos.compose(contract.source)
    data = yamlpos.plain(root) if root is not None else {}
    return data if isinstance(data, dict) else {}


def _physical(type_text: str) -> str:
    from tacit_gen.sql.types import column_type

    return column_type(parse_type(type_text), "duckdb").upper()


def _tacit(clause: Any) -> list[dict[str, Any]]:
    return [_cp("tacitClause", clause.id), _cp("tacitText", clause.text)]


def _sql_rule(clause: Any) -> dict[str, Any]:
    from tacit_gen.sql import to_sql

    cond = to_sql(clause.expr, "duckdb", clause.integers, clause.strings, clause.singles)
    return {"name": clause.id, "description": clause.text, "type": "sql",
            "dimension": _DIMENSION[clause.kind],
            "query": f"SELECT COUNT(*) FROM ${{table}} WHERE NOT ({cond})", "mustBe": 0,
            "customProperties": _tacit(clause)}


def _custom_rule(clause: Any) -> dict[str, Any]:
    return {"name": clause.id, "description": clause.text, "type": "custom",
            "dimension": _DIMENSION[clause.kind], "engine": ENGINE, "implementation": clause.text,
            "customProperties": _tacit(clause)}


def _duration(seconds: int) -> tuple[int, str]:
    for unit, size in _DURATION_UNITS:
        if seconds % size == 0:
            return seconds // size, unit
    return seconds, "s"


def to_odcs(contract: Contract) -> dict[str, Any]:
    """The ODCS document of a contract, as plain data (deterministic key order).

    Args:
        contract: a loaded contract.

    Returns:
        The document: validates against the ODCS v3.1.0 JSON Schema.
    """
    from tacit_gen.plan import plan

    raw = _raw(contract)
    clauses = plan(contract)
    by_kind: dict[str, list[Any]] = {}
    for cl in clauses:
        by_kind.setdefault(cl.kind, []).append(cl)
    name = contract.name
    props: list[dict[str, Any]] = []
    raw_fields = raw.get("fields") or {}
    for f in contract.fields:
        spec = raw_fields.get(f.name)
        spec = {"type": spec} if isinstance(spec, str) else dict(spec or {})
        spec["type"] = str(f.type)
        p: dict[str, Any] = {"name": f.name, "logicalType": _LOGICAL[f.type.kind],
                             "physicalType": _physical(str(f.type))}
        if f.description:
            p["description"] = f.description
        if f.name in contract.key:
            p["primaryKey"] = True
            p["primaryKeyPosition"] = contract.key.index(f.name) + 1
        required = any(c.id == f"not_null:{f.name}" for c in by_kind.get("not_null", []))
        p["required"] = required
        if contract.key == (f.name,):
            p["unique"] = True
        quality = []
        for kind in ("accepted_values", "fixed_value"):
            for cl in by_kind.get(kind, []):
                if cl.param("column") == f.name:
                    values = (list(cl.param("values")) if kind == "accepted_values"
                              else [cl.param("value")])
                    quality.append({"name": cl.id, "description": cl.text, "type": "library",
                                    "dimension": _DIMENSION[kind], "metric": "invalidValues",
                                    "arguments": {"validValues": values}, "mustBe": 0,
                                    "customProperties": _tacit(cl)})
        if quality:
            p["quality"] = quality
        custom = [_cp(prop_name(k), v) for k, v in spec.items()
                  if k not in NATIVE_FIELD_KEYS and not k.startswith("x-")]
        if f.implied:
            custom.append(_cp("tacitImplied", True))
        custom += [_cp(k, v) for k, v in f.meta]
        if custom:
            p["customProperties"] = custom
        props.append(p)
    schema_quality: list[dict[str, Any]] = []
    if len(contract.key) > 1:
        (cl,) = by_kind["unique"]
        schema_quality.append({"name": cl.id, "description": cl.text, "type": "library",
                               "dimension": "uniqueness", "metric": "duplicateValues",
                               "arguments": {"properties": list(contract.key)}, "mustBe": 0,
                               "customProperties": _tacit(cl)})
    invariant_texts = {str(t) for t in raw.get("invariants") or []}
    for cl in clauses:
        if cl.kind in ("range", "invariant") and cl.expr is not None and cl.text in invariant_texts:
            schema_quality.append(_sql_rule(cl))
        elif cl.kind in ("catalog_unit", "catalog_bounds", "cadence", "revision_window",
                         "freshness"):
            schema_quality.append(_custom_rule(cl))
    obj: dict[str, Any] = {"name": name, "physicalName": name, "logicalType": "object",
                           "physicalType": "table"}
    if contract.description:
        obj["description"] = contract.description
    obj["properties"] = props
    if schema_quality:
        obj["quality"] = schema_quality
    doc: dict[str, Any] = {"apiVersion": API_VERSION, "kind": "DataContract", "id": name,
                           "name": name, "version": contract.version, "status": "active"}
    if contract.description:
        doc["description"] = {"purpose": contract.description}
    doc["schema"] = [obj]
    for cl in by_kind.get("freshness", []):
        value, unit = _duration(int(cl.param("max_age_seconds")))
        doc["slaProperties"] = [{"property": "freshness", "value": value, "unit": unit,
                                 "element": f"{name}.{cl.param('column')}"}]
    custom = [_cp(prop_name(k), v) for k, v in raw.items()
              if k not in NATIVE_KEYS and not k.startswith("x-")]
    custom += [_cp(k, v) for k, v in contract.meta]
    if custom:
        doc["customProperties"] = custom
    return doc


def export_odcs(contract: Contract) -> str:
    """The ODCS document as YAML text (the same bytes on every run)."""
    import json

    plain = json.loads(json.dumps(to_odcs(contract), default=str))
    header = (f"# ODCS {API_VERSION} document exported by tacit-gen from contract {contract.name} "
              f"version {contract.version}.\n")
    return header + yaml.safe_dump(plain, sort_keys=False, allow_unicode=True, width=1_000_000)
