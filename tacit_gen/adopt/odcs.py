"""`tacit-gen import odcs`: an ODCS v3.x document to one contract per schema object.

Types: the ``tacitType`` custom property (an export of tacit-gen), else the `physicalType` read
for the document's server type (`tacit_gen.adopt.types`), else the `logicalType` where it names
one contract type (`string`, `boolean`, `date`; `integer` as `int64`, the widest contract
integer); `number` and `timestamp` without a physical type say neither precision nor time zone,
so the property is named and left out, never guessed. `required` makes a column non-null;
`primaryKey` (by `primaryKeyPosition`), else a `duplicateValues` rule or `unique`, becomes the
key when its columns are non-null. Quality rules: `nullValues` / `duplicateValues` /
`invalidValues` with `validValues` (must be 0) map to not-null, the key and an enum;
`logicalTypeOptions` minimum / maximum to a range; `sql` and `custom` rules map only when they
carry tacit-gen's own invariant text, and are otherwise kept under `x-odcs-quality` and listed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from tacit_gen.adopt.draft import KEPT, MAPPED, NOT_MAPPED, NOTE, Draft, Invariant, choose_key
from tacit_gen.adopt.odcs_export import ENGINE, key_name
from tacit_gen.adopt.types import contract_type
from tacit_gen.contract.loader import FIELD_KEYS, TOP_KEYS

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ENUM_VALUE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
_LOGICAL = {"string": "string", "boolean": "bool", "date": "date", "integer": "int64"}
_SERVER_ADAPTER = {"postgres": "postgres", "postgresql": "postgres", "snowflake": "snowflake",
                   "bigquery": "bigquery", "databricks": "databricks", "duckdb": "duckdb",
                   "local": "duckdb", "s3": "duckdb", "glue": "spark", "athena": "spark"}
# Property keys the contract maps (the rest is kept under x-odcs-<key>).
_PROP_MAPPED = ("name", "logicalType", "physicalType", "required", "unique", "primaryKey",
                "primaryKeyPosition", "description", "quality", "customProperties",
                "logicalTypeOptions")
_OBJECT_MAPPED = ("name", "properties", "quality", "description", "customProperties",
                  "logicalType", "physicalType", "physicalName")
_DOC_MAPPED = ("schema", "version", "customProperties", "description", "apiVersion", "kind",
               "slaProperties")
_DURATION_UNIT = {"d": "d", "day": "d", "days": "d", "h": "h", "hr": "h", "hour": "h",
                  "hours": "h", "m": "m", "min": "m", "minute": "m", "minutes": "m", "s": "s",
                  "sec": "s", "second": "s", "seconds": "s"}


class OdcsInputError(Exception):
    """Not an ODCS v3 document (exit 2, naming the file)."""


def _custom(holder: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """(tacit* and x-* custom properties by name, the others as written)."""
    ours: dict[str, Any] = {}
    others: list[Any] = []
    for cp in holder.get("customProperties") or []:
        prop = cp.get("property") if isinstance(cp, dict) else None
        if isinstance(prop, str) and (prop.startswith("tacit") or prop.startswith("x-")):
            ours[prop] = cp.get("value")
        else:
            others.append(cp)
    return ours, others


def _zero(rule: dict[str, Any]) -> bool:
    """The rule demands a count of 0 (mustBe 0, or mustBeLessThan 1 / <= 0)."""
    return (rule.get("mustBe") == 0 or rule.get("mustBeLessThan") == 1
            or rule.get("mustBeLessOrEqualTo") == 0)


def _num(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return None


class _Importer:
    def __init__(self, doc: dict[str, Any], obj: dict[str, Any], origin: str, single: bool) -> None:
        self.doc, self.obj = doc, obj
        self.name = str(obj.get("name"))
        self.d = Draft(self.name, "odcs", origin)
        self.single = single  # the document's own sections apply to its only schema object
        self.untyped: list[str] = []
        self.implied: set[str] = set()  # provenance columns the contract implies (tacit export)
        self.verbatim_invariants = False  # the document carries the invariants list itself
        self.columns: dict[str, dict[str, Any]] = {}
        self.not_null: set[str] = set()
        self.key_candidates: list[tuple[tuple[str, ...], str, Any]] = []
        self.servers = [s for s in doc.get("servers") or [] if isinstance(s, dict)]
        stype = str(self.servers[0].get("type", "")).lower() if self.servers else ""
        self.adapter = _SERVER_ADAPTER.get(stype, "duckdb")

    def where(self, prop: str | None = None) -> str:
        return f"{self.name}.{prop}" if prop else self.name

    def run(self) -> Draft:
        d, doc, obj = self.d, self.doc, self.obj
        version = str(doc.get("version", ""))
        if _SEMVER.match(version):
            d.version = version
            d.item(MAPPED, self.where(), "version", f"version {version}")
        else:
            d.item(NOTE, self.where(), f"version {version!r}", f"not semver: version {d.version}")
        desc = obj.get("description")
        if not isinstance(desc, str):
            top = doc.get("description")
            desc = top.get("purpose") if isinstance(top, dict) else top
        if isinstance(desc, str) and desc.strip():
            d.description = " ".join(desc.split()) if "\n" not in desc.strip() else desc.strip()
        ours, others = _custom(doc) if self.single else ({}, [])
        for prop, value in ours.items():
            key = key_name(prop)
            if key is None or key not in TOP_KEYS:
                continue
            if key == "owner":
                d.owner = str(value)
            elif key == "time" and isinstance(value, dict):
                d.time = dict(value)
            elif key == "invariants" and isinstance(value, list):
                self.verbatim_invariants = True  # the rules below only say so
                for entry in value:
                    d.invariants.append(Invariant(entry, self.where(), "invariant",
                                                  "x-odcs-invariants", entry))
            elif key not in ("contract", "version", "description", "key", "fields"):
                d.sections[key] = value
            else:
                continue
            d.item(MAPPED, self.where(), f"customProperties.{prop}", key)
        for k, v in ours.items():
            if k.startswith("x-"):
                d.meta[k] = v
                d.item(MAPPED, self.where(), f"customProperties.{k}", k)
        if others:
            d.meta["x-odcs-customProperties"] = others
            d.item(KEPT, self.where(), "customProperties", "x-odcs-customProperties")
        if self.single:
            for k in sorted(doc):
                if k == "name" and doc[k] == self.name:
                    d.item(MAPPED, self.where(), "name", "contract")
                elif k not in _DOC_MAPPED and doc[k] not in (None, [], {}, ""):
                    d.meta[f"x-odcs-{k}"] = doc[k]
                    d.item(KEPT, self.where(), k, f"x-odcs-{k}")
        for k in sorted(obj):
            if k not in _OBJECT_MAPPED and obj[k] not in (None, [], {}, ""):
                d.meta[f"x-odcs-schema-{k}"] = obj[k]
                d.item(KEPT, self.where(), f"schema.{k}", f"x-odcs-schema-{k}")
        for prop in obj.get("properties") or []:
            if isinstance(prop, dict) and prop.get("name") is not None:
                self.prop(prop)
            else:
                d.keep(d.meta, "x-odcs-properties", [prop])
                d.item(NOT_MAPPED, self.where(), "property without a name", "x-odcs-properties")
        for rule in obj.get("quality") or []:
            self.rule(rule, None)
        if self.single:
            self.sla()
        self.choose_key()
        return d

    # -- properties -----------------------------------------------------------------------

    def prop(self, p: dict[str, Any]) -> None:
        d, name = self.d, str(p["name"])
        where = self.where(name)
        ours, others = _custom(p)
        if ours.get("tacitImplied") is True:
            self.implied.add(name)
            if p.get("primaryKey") is True:
                self.key_candidates.append(((name,), f"primaryKey {p.get('primaryKeyPosition')}",
                                            p.get("primaryKeyPosition")))
            d.item(MAPPED, where, "implied provenance column", "provenance_required")
            return
        if not _IDENT.match(name):
            d.keep(d.meta, "x-odcs-properties", [p])
            d.item(NOT_MAPPED, where, "property", "kept under x-odcs-properties: a contract "
                   "column name is an identifier ([A-Za-z_][A-Za-z0-9_]*)")
            self.untyped.append(name)
            return
        ctype, why, src = None, "", ""
        if isinstance(ours.get("tacitType"), str):
            ctype, src = ours["tacitType"], "customProperties.tacitType"
        elif p.get("physicalType"):
            ctype, why = contract_type(str(p["physicalType"]), self.adapter)
            src = f"physicalType {p['physicalType']}"
        if ctype is None and p.get("logicalType") in _LOGICAL:
            ctype, src = _LOGICAL[str(p["logicalType"])], f"logicalType {p['logicalType']}"
        if ctype is None:
            d.keep(d.meta, "x-odcs-properties", [p])
            lt = p.get("logicalType")
            reason = why or (f"logicalType {lt} says no precision or time zone" if lt
                             else "no logicalType or physicalType")
            d.item(NOT_MAPPED, where, "untyped property", f"kept under x-odcs-properties: {reason}")
            self.untyped.append(name)
            return
        spec: dict[str, Any] = {"type": ctype}
        d.item(MAPPED, where, src, f"column:{name} ({ctype})")
        for cprop, value in ours.items():
            key = key_name(cprop)
            if key is not None and key in FIELD_KEYS and key != "type":
                spec[key] = value
        for k, v in ours.items():
            if k.startswith("x-"):
                spec[k] = v
        if others:
            spec["x-odcs-customProperties"] = others
            d.item(KEPT, where, "customProperties", f"fields.{name}.x-odcs-customProperties")
        if isinstance(p.get("description"), str) and p["description"].strip():
            spec["description"] = p["description"].strip()
        for k in sorted(p):
            if k not in _PROP_MAPPED and p[k] not in (None, [], {}, ""):
                spec[f"x-odcs-{k}"] = p[k]
                d.item(KEPT, where, k, f"fields.{name}.x-odcs-{k}")
        self.columns[name] = spec
        d.fields[name] = spec
        if p.get("required") is True:
            self.not_null.add(name)
            d.item(MAPPED, where, "required", f"not_null:{name}")
        if p.get("primaryKey") is True:
            pos = p.get("primaryKeyPosition")
            self.key_candidates.append(((name,), f"primaryKey {pos}", pos))
        elif p.get("unique") is True:
            self.key_candidates.append(((name,), "unique", p))
        self.options(name, p.get("logicalTypeOptions"), bool(ours.get("tacitType")))
        for rule in p.get("quality") or []:
            self.rule(rule, name)

    def options(self, name: str, opts: Any, exported: bool) -> None:
        if not isinstance(opts, dict) or not opts:
            return
        d, where = self.d, self.where(name)
        rest = dict(opts)
        lo, hi = _num(rest.get("minimum")), _num(rest.get("maximum"))
        xlo, xhi = _num(rest.get("exclusiveMinimum")), _num(rest.get("exclusiveMaximum"))
        numeric = self.columns[name]["type"].startswith(("int", "float", "decimal"))
        parts = []
        if numeric:
            for key, val, op in (("minimum", lo, ">="), ("exclusiveMinimum", xlo, ">"),
                                 ("maximum", hi, "<="), ("exclusiveMaximum", xhi, "<")):
                if val is not None:
                    parts.append(f"{name} {op} {val}")
                    rest.pop(key)
        if parts:
            text = " and ".join(parts)
            if lo is not None and hi is not None and len(parts) == 2:
                text = f"{lo} <= {name} <= {hi}"
            self.d.invariants.append(Invariant(text, where, "logicalTypeOptions bounds",
                                               "x-odcs-logicalTypeOptions", {name: opts}))
        if rest:
            self.columns[name]["x-odcs-logicalTypeOptions"] = rest
            d.item(NOT_MAPPED, where, "logicalTypeOptions " + ", ".join(sorted(rest)),
                   f"kept under fields.{name}.x-odcs-logicalTypeOptions: no contract clause")

    # -- quality rules --------------------------------------------------------------------

    def unmapped(self, column: str | None, rule: Any, what: str, why: str) -> None:
        holder = self.columns.get(column, self.d.meta) if column else self.d.meta
        self.d.keep(holder, "x-odcs-quality", [rule])
        where = f"fields.{column}.x-odcs-quality" if column in self.columns else "x-odcs-quality"
        self.d.item(NOT_MAPPED, self.where(column), what, f"kept under {where}: {why}")

    def rule(self, rule: Any, column: str | None) -> None:
        if not isinstance(rule, dict):
            self.unmapped(column, rule, "quality", "not a quality rule")
            return
        ours, _ = _custom(rule)
        rtype = str(rule.get("type", "library"))
        metric = rule.get("metric") or rule.get("rule")
        what = f"quality {rtype}" + (f" {metric}" if metric else "")
        clause = str(ours.get("tacitClause", ""))
        text = ours.get("tacitText")
        if clause and isinstance(text, str):  # tacit-gen's own export: the clause, verbatim
            kind = clause.split(":", 1)[0]
            if kind in ("invariant", "range", "catalog_unit", "catalog_bounds") \
                    and not self.verbatim_invariants:
                self.d.invariants.append(Invariant(text, self.where(column), what,
                                                   "x-odcs-quality", rule))
            elif kind in ("cadence", "freshness", "revision_window", "unique", "accepted_values",
                          "fixed_value", "invariant", "range", "catalog_unit", "catalog_bounds"):
                self.d.item(MAPPED, self.where(column), what,
                            f"{clause} (from the contract sections it came from)")
            else:
                self.unmapped(column, rule, what, f"unknown tacit clause {clause}")
            return
        if rtype == "text":
            self.d.keep(self.columns.get(column or "", self.d.meta), "x-odcs-quality", [rule])
            self.d.item(KEPT, self.where(column), what, "x-odcs-quality (a description, no check)")
            return
        if rtype == "library" and metric in ("nullValues", "nullCheck") and column and _zero(rule):
            self.not_null.add(column)
            self.d.item(MAPPED, self.where(column), what, f"not_null:{column}")
            return
        if rtype == "library" and metric in ("duplicateValues", "duplicateCount", "uniqueCheck") \
                and _zero(rule):
            cols = (column,) if column else tuple(str(c) for c in
                                                  (rule.get("arguments") or {}).get("properties") or [])
            if cols:
                self.key_candidates.append((cols, what, rule))
                return
        if rtype == "library" and metric in ("invalidValues", "validValues") and column \
                and _zero(rule):
            values = (rule.get("arguments") or {}).get("validValues")
            spec = self.columns.get(column)
            if isinstance(values, list) and values and spec and spec["type"] == "string" and all(
                    isinstance(v, str) and _ENUM_VALUE.match(v) for v in values) \
                    and len(set(values)) == len(values):
                spec["type"] = "enum[" + ", ".join(values) + "]"
                self.d.item(MAPPED, self.where(column), what, f"accepted_values:{column}")
                return
        if rtype == "custom" and rule.get("engine") == ENGINE and isinstance(
                rule.get("implementation"), str):
            self.d.invariants.append(Invariant(rule["implementation"], self.where(column), what,
                                               "x-odcs-quality", rule))
            return
        self.unmapped(column, rule, what, "no contract clause for this rule (SQL and vendor "
                      "rules are kept as written)" if rtype in ("sql", "custom")
                      else "no contract clause for this rule")

    def sla(self) -> None:
        d = self.d
        for s in self.doc.get("slaProperties") or []:
            if not isinstance(s, dict):
                continue
            prop = s.get("property")
            element = str(s.get("element") or "")
            col = element.split(".")[-1] if element else ""
            unit = _DURATION_UNIT.get(str(s.get("unit", "")).lower())
            value = s.get("value")
            if prop in ("freshness", "latency") and "freshness" in (d.time or {}):
                d.item(MAPPED, self.where(), f"slaProperties {prop}", "time.freshness")
                continue
            spec = self.columns.get(col)
            if (prop in ("freshness", "latency") and spec and spec["type"].startswith("timestamp_")
                    and isinstance(value, int) and not isinstance(value, bool) and value > 0
                    and unit and (not d.time or d.time.get("column") == col)):
                d.time = {**(d.time or {}), "column": col, "freshness": f"{value}{unit}"}
                d.item(MAPPED, self.where(), f"slaProperties {prop}", f"freshness:{col}")
                continue
            d.keep(d.meta, "x-odcs-slaProperties", [s])
            d.item(KEPT, self.where(), f"slaProperties {prop}", "x-odcs-slaProperties")

    # -- key ------------------------------------------------------------------------------

    def choose_key(self) -> None:
        d = self.d
        pk = [c for c in self.key_candidates if c[1].startswith("primaryKey")]
        if pk:
            ordered = sorted(pk, key=lambda c: (c[2] if isinstance(c[2], int) else 1 << 30,))
            cols = tuple(c[0][0] for c in ordered)
            self.not_null.update(cols)  # a primary key is never null
            rest = [c for c in self.key_candidates if not c[1].startswith("primaryKey")]
            self.key_candidates = [(cols, "primaryKey", None), *rest]
        choose_key(d, self.key_candidates,
                   present=lambda c: c in self.columns or c in self.implied,
                   never_null=lambda c: c in self.not_null or c in self.implied,
                   where=self.where, unmapped=self.unmapped)
        for name in sorted(self.not_null):
            spec = self.columns.get(name)
            if spec is not None and name not in d.key and "nullable" not in spec:
                spec["nullable"] = False



def _read(path: Path) -> dict[str, Any]:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise OdcsInputError(f"{where}: not valid YAML: {e.problem}") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise OdcsInputError(f"{path}: cannot read: {e}") from None
    if not isinstance(doc, dict):
        raise OdcsInputError(f"{path}:1:1: not an ODCS document (not a mapping)")
    api = str(doc.get("apiVersion", ""))
    if not api.startswith("v3"):
        raise OdcsInputError(f"{path}:1:1: not an ODCS v3 document (apiVersion: {api or 'none'})")
    if not isinstance(doc.get("schema"), list) or not doc["schema"]:
        raise OdcsInputError(f"{path}:1:1: ODCS document without a 'schema' list: no dataset")
    return doc


def import_odcs(path: str, out: Path) -> Any:
    """Import an ODCS v3.x document: the `tacit-gen import odcs` command without its printing.

    Args:
        path: the ODCS YAML file.
        out: the folder the contracts go to (`out/<schema name>.yaml`).

    Returns:
        An `ImportReport` (nothing written yet).

    Raises:
        OdcsInputError: not YAML, not ODCS v3, or no schema.
    """
    from tacit_gen.adopt.report import ImportReport, Written, complete

    doc = _read(Path(path))
    objects = [o for o in doc["schema"] if isinstance(o, dict)]
    report = ImportReport(source="odcs")
    for obj in objects:
        name = str(obj.get("name", ""))
        if not _IDENT.match(name):
            report.contracts.append(Written(name, (out / f"{name}.yaml").as_posix(),
                                            [_item(name)], [], None, "not written"))
            continue
        imp = _Importer(doc, obj, f"ODCS document {Path(path).as_posix()} (schema {name})",
                        len(objects) == 1)
        draft = imp.run()
        report.contracts.append(complete(draft, imp.untyped, out))
    return report


def _item(name: str) -> Any:
    from tacit_gen.adopt.draft import Item

    return Item(NOT_MAPPED, name or "?", "schema object",
                "nothing written: a contract name is an identifier ([A-Za-z_][A-Za-z0-9_]*)")
