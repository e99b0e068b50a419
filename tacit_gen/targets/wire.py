"""What the three wire-schema targets (avro, protobuf, jsonschema) share.

A wire schema describes the structure of one record: which fields, of which type, which may be
absent. It checks the structural clauses (`column:`, `no_unknown_columns`, `not_null:`,
`accepted_values:`, and `fixed_value:` where the format has a constant); JSON Schema and Protobuf
(through protovalidate) also state the per-record value rules they can (their `rules.py`). Every
other clause is declared unsupported at render time, so `explain --targets` and `render` show it.
The header a registered schema carries (`registry_meta`) changes only with the wire.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tacit_gen.plan_types import KINDS
from tacit_gen.targets.base import Unsupported

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract, Field
    from tacit_gen.plan_types import Clause
    from tacit_gen.targets.kinds import KindTable

# A wire renderer's rule: None when the record schema carries the clause, else why it cannot.
Rule = Callable[["Contract", "Clause"], "str | None"]

STRUCTURAL = ("column", "no_unknown_columns", "not_null", "accepted_values", "fixed_value")


def unsupported_reason(fmt: str, clause: Clause) -> str:
    """Why a clause has no form in a wire schema (one line)."""
    if clause.kind == "references":
        return (f"a foreign key reads another relation ({clause.param('to_relation')}); {fmt} "
                "describes one record on its own: dbt, Soda, GX, pandera and the runtime check it")
    return (f"{fmt} describes the structure of one record; clauses on values, rows or other data "
            "are checked by the SQL and dataframe targets")


def record_only(fmt: str) -> dict[str, str]:
    """Kind -> why a wire schema never carries it: every kind but the structural ones (a
    renderer reports each clause with `unsupported_reason`, the same reason naming the clause)."""
    return {kind: (f"a foreign key reads another relation; {fmt} describes one record on its own: "
                   "dbt, Soda, GX, pandera and the runtime check it") if kind == "references"
            else (f"{fmt} describes the structure of one record; clauses on values, rows or other "
                  "data are checked by the SQL and dataframe targets")
            for kind in KINDS if kind not in STRUCTURAL}


def carried(contract: Contract, clause: Clause) -> str | None:
    """The record schema's field carries the clause (its type, null branch, symbols)."""
    return None


def cannot(table: KindTable[Rule], contract: Contract, clauses: tuple[Clause, ...]) -> dict[str, str]:
    """Clause id -> why the schema cannot carry it, through `table`: its rule's reason, or the
    table's own for a structural kind it declares unsupported (any other declared kind is reported
    by `unsupported`, with `unsupported_reason`)."""
    out: dict[str, str] = {}
    for c in clauses:
        rule = table.get(c.kind)
        if rule is None:
            if c.kind in STRUCTURAL:
                out[c.id] = table.unsupported[c.kind]
            continue
        why = rule(contract, c)
        if why is not None:
            out[c.id] = why
    return out


def unsupported(target: str, fmt: str, clauses: tuple[Clause, ...],
                also: dict[str, str] | None = None) -> list[Unsupported]:
    """The non-structural clauses (plus `also`: clause id -> reason) as Unsupported, plan order."""
    extra = also or {}
    out = []
    for c in clauses:
        if c.id in extra:
            out.append(Unsupported(target, c.id, extra[c.id]))
        elif c.warn:
            out.append(Unsupported(target, c.id, WARN_REASON.format(fmt=fmt)))
        elif c.kind not in STRUCTURAL:
            out.append(Unsupported(target, c.id, unsupported_reason(fmt, c)))
    return out


WARN_REASON = ("severity warn: {fmt} accepts or rejects a record, it cannot warn (a warn not_null "
               "field has presence); the SQL and dataframe targets report the warning")


def relaxed(contract: Contract, clauses: tuple[Clause, ...]) -> Contract:
    """The contract as a wire schema carries it: a field whose `not_null:` is a warning has
    presence (nullable), since a schema cannot warn."""
    from dataclasses import replace

    warn_nn = {c.param("column") for c in clauses if c.kind == "not_null" and c.warn}
    if not warn_nn:
        return contract
    return replace(contract, fields=tuple(replace(f, nullable=True) if f.name in warn_nn else f
                                          for f in contract.fields))


NOTICE = "Do not edit: change the contract and re-render."


def registry_meta(contract: Contract) -> dict[str, Any]:
    """The header a registered schema carries: what it was generated from, never the contract's
    hash, line numbers or the clauses left to other targets (``explain --targets`` lists those).
    A registry keys a schema by its text: a contract edit that changes nothing on the wire (a
    note, a clause another target checks) must leave the text as it was. `check` still finds a
    stale schema by comparing it with a fresh render, byte for byte."""
    from tacit_gen.targets.header import x_metadata

    meta: dict[str, Any] = {"generated_by": "tacit-gen", "source": contract.path, "contract": contract.name,
            "version": contract.version, "notice": NOTICE}
    if contract.source_system:  # provenance of the series, not bookkeeping: it stays
        meta["source_system"] = contract.source_system
    extra = dict(x_metadata(contract))
    if extra:
        meta["x_metadata"] = extra
    return meta


def registry_header_lines(contract: Contract) -> list[str]:
    """`registry_meta` as comment lines (no marker): the first two are the ones every artifact
    opens with, without the hash (`parse_registry_header` reads them back)."""
    from tacit_gen.targets.header import GENERATED_MARK, one_line, x_metadata

    return [one_line(f"{GENERATED_MARK} from {contract.path}. {NOTICE}"),
            f"contract {contract.name} version {contract.version}",
            *([one_line(f"source system: {contract.source_system}")] if contract.source_system else []),
            *(one_line(f"{key}: {json.dumps(value, sort_keys=True, ensure_ascii=False)}")
              for key, value in x_metadata(contract))]


def parse_registry_header(text: str) -> tuple[str, str] | None:
    """(contract, version) of a comment header `registry_header_lines` wrote, or None."""
    import re

    m = re.search(r"^// contract (\S+) version (\S+)$", text[:2000], re.M)
    return (m.group(1), m.group(2)) if m else None


def field_text(f: Field) -> str:
    """The field's verbatim contract text (an implied provenance column says so)."""
    if f.text:
        return f.text
    return f"{f.name}: {f.type} (implied by provenance_required)"


def unit_of(f: Field) -> str | None:
    return "per series from catalog" if f.unit_from_catalog else f.unit


def is_measurement(f: Field) -> bool:
    """A field with a unit: seed 001's measurements, whose absence must differ from zero."""
    return unit_of(f) is not None


def camel(name: str) -> str:
    """`fct_sensor_readings` -> `FctSensorReadings` (a message or type name)."""
    return "".join(p[:1].upper() + p[1:] for p in name.split("_") if p) or "Record"


def fields_by_name(contract: Contract) -> dict[str, Field]:
    return {f.name: f for f in contract.fields}
