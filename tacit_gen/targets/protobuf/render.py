"""Protobuf target (proto3): `protobuf/<contract>.proto`, one message per contract, and its
field-number lock `protobuf/<contract>.lock.json` (see `lock.py`).

Mapping (docs/engines/protobuf.md has the table and what protobuf cannot say):

- message ``CamelCase(contract)`` in package ``<targets.protobuf.package>.v<major>`` (default
  package: the contract name, so ``ohlcv_1m.v4``); fields in contract order, numbered by the lock;
- ``optional`` (presence) on every nullable field and every measurement (a field with a unit), so
  an absent reading and a reading of zero differ on the wire (seed 001); a field without
  ``optional`` is required by the schema's runtime (`verify` refuses a NULL there), which proto3
  itself cannot say;
- instants are ``google.protobuf.Timestamp``; ``date`` is ``int32`` days since 1970-01-01;
- an enum is a nested ``enum`` whose zero value is ``<FIELD>_UNSPECIFIED``, values numbered by the
  lock (removed values reserved);
- ``decimal(p,s)`` is a ``string`` holding the exact decimal text (``"12.3400"``), like
  ``google.type.Decimal``: exact at any precision (``decimal(24,4)`` does not fit an int64 of
  units), readable in every runtime; precision and scale are stated in the field's comment and
  checked by `verify`;
- each field's leading comment is its verbatim contract text, then a ``tacit: {...}`` line with
  the contract type, unit and dimension (protobuf has no place for them), which the reader uses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

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
from tacit_gen.targets.header import header_lines, one_line
from tacit_gen.targets.kinds import KindTable
from tacit_gen.targets.protobuf.lock import Lock, read_lock, update

if TYPE_CHECKING:

    from tacit_gen.contract.model import Contract, Field
    from tacit_gen.plan_types import Clause

NAME = "protobuf"
FORMAT = "Protobuf"
VALUE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SCALAR = {"string": "string", "bool": "bool", "int32": "int32", "int64": "int64",
          "float32": "float", "float64": "double", "decimal": "string", "date": "int32"}
TIMESTAMP = "google.protobuf.Timestamp"


def message_name(contract: Contract) -> str:
    return wire.camel(contract.name)


def package(contract: Contract) -> str:
    """``targets.protobuf.package`` (default: the contract's name) with the major version as its
    last component, ``ohlcv_1m.v4``: `buf lint`'s PACKAGE_VERSION_SUFFIX, and a compatible release
    keeps the package. A configured package that already ends in ``v<N>`` is kept as it is."""
    base = str(contract.target_option(NAME, "package") or contract.name)
    if re.fullmatch(r"v[0-9]+", base.rsplit(".", 1)[-1]):
        return base
    return f"{base}.v{str(contract.version).split('.')[0]}"


def enum_value_name(field: str, value: str) -> str:
    return f"{field.upper()}_{value.upper()}"


def enum_expressible(f: Field) -> bool:
    if f.type.kind != "enum":
        return False
    upper = [v.upper() for v in f.type.values]
    return (all(VALUE.fullmatch(v) for v in f.type.values) and len(set(upper)) == len(upper)
            and "UNSPECIFIED" not in upper)


def has_presence(f: Field) -> bool:
    """`optional`: nullable, or a measurement (absent must differ from zero)."""
    return f.nullable or wire.is_measurement(f)


def proto_type(f: Field) -> str:
    if f.type.kind == "timestamp":
        return TIMESTAMP
    if f.type.kind == "enum":
        return wire.camel(f.name) if enum_expressible(f) else "string"
    return SCALAR[f.type.kind]


def marker(f: Field) -> str:
    data: dict[str, Any] = {"type": str(f.type)}
    unit = wire.unit_of(f)
    if unit is not None:
        data["unit"] = unit
    if f.dimension is not None:
        data["dimension"] = f.dimension
    if not f.nullable:
        data["nullable"] = False
    return "tacit: " + json.dumps(data, ensure_ascii=False)


def _field(contract: Contract, clause: Clause) -> Field | None:
    return next((f for f in contract.fields if f.name == clause.param("column")), None)


def _not_null(contract: Contract, clause: Clause) -> str | None:
    f = _field(contract, clause)
    if f is not None and not f.nullable and wire.is_measurement(f):
        return ("a measurement has presence (optional) so that absent differs from zero; proto3 "
                "cannot also require it")
    return None


def _accepted_values(contract: Contract, clause: Clause) -> str | None:
    f = _field(contract, clause)
    if f is not None and f.type.kind == "enum" and not enum_expressible(f):
        return ("a value is not a protobuf enum value name (or two differ only by case): the field "
                "is a string")
    return None


def _fixed_value(contract: Contract, clause: Clause) -> str | None:
    return "protobuf has no constant: any value of the type is valid"


RENDER: KindTable[wire.Rule] = KindTable(NAME, "render", {
    "column": wire.carried,
    "no_unknown_columns": wire.carried,
    "not_null": _not_null,
    "accepted_values": _accepted_values,
    "fixed_value": _fixed_value,
}, wire.record_only(FORMAT))


def _also_unsupported(contract: Contract, clauses: tuple[Clause, ...]) -> dict[str, str]:
    return wire.cannot(RENDER, contract, clauses)


def _reserved_lines(reserved: list[tuple[int, str]], indent: str) -> list[str]:
    if not reserved:
        return []
    nums = ", ".join(str(n) for n, _ in sorted(reserved))
    names = ", ".join(json.dumps(name) for _, name in sorted(reserved))
    return [f"{indent}reserved {nums};", f"{indent}reserved {names};"]


def enum_fields(contract: Contract) -> dict[str, tuple[str, ...]]:
    """The fields rendered as protobuf enums, with their values."""
    return {f.name: f.type.values for f in contract.fields if enum_expressible(f)}


def render_files(contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions,
                 lock: Lock | None = None) -> tuple[str, str, list[Any]]:
    """(.proto text, lock text, unsupported) for one contract.

    Args:
        lock: the numbers to use as they are (an earlier version rendered with today's lock, for
            `compat`); None: the committed lock under ``options.out_dir``, updated for the contract.
    """
    contract = wire.relaxed(contract, clauses)
    unsupported = wire.unsupported(NAME, FORMAT, clauses, _also_unsupported(contract, clauses))
    enum_fields_ = enum_fields(contract)
    if lock is None:
        lock = update(read_lock(options.out_dir, f"{NAME}/{contract.name}.lock.json"), contract, enum_fields_)
    msg = message_name(contract)
    lines = [f"// {line}" for line in header_lines(contract)]
    lines.append(one_line(f"// Field numbers live in {contract.name}.lock.json beside this file: a number "
                          "never moves, and a removed field's number and name stay reserved."))
    lines.append("// Decimals travel as strings holding the exact decimal text; each field's "
                 "'tacit:' comment states precision and scale.")
    if unsupported:
        lines.append(one_line("// Not expressible in protobuf (checked by the other targets): "
                              + ", ".join(u.clause_id for u in unsupported)))
    lines += ["", 'syntax = "proto3";', "", f"package {package(contract)};", ""]
    if any(f.type.kind == "timestamp" for f in contract.fields):
        lines += ['import "google/protobuf/timestamp.proto";', ""]
    if contract.description:
        lines.append(one_line(f"// {contract.description}"))
    lines.append(f"message {msg} {{")
    for f in contract.fields:
        if f.name not in enum_fields_:
            continue
        lines.append(f"  enum {wire.camel(f.name)} {{")
        lines.append(f"    {f.name.upper()}_UNSPECIFIED = 0;")
        for value, number in sorted(lock.enums[f.name].items(), key=lambda kv: kv[1]):
            lines.append(f"    {enum_value_name(f.name, value)} = {number};  // {value}")
        lines += _reserved_lines(lock.enum_reserved.get(f.name, []), "    ")
        lines += ["  }", ""]
    for f in contract.fields:
        lines.append("  " + one_line(f"// {wire.field_text(f)}"))
        lines.append(f"  // {marker(f)}")
        opt = "optional " if has_presence(f) else ""
        lines.append(f"  {opt}{proto_type(f)} {f.name} = {lock.fields[f.name]};")
    lines += _reserved_lines(lock.reserved, "  ")
    lines.append("}")
    return "\n".join(lines) + "\n", lock.to_json(contract, msg), unsupported


class ProtobufTarget(Target):
    """Renderer and reader for proto3 messages, with a committed field-number lock."""

    name = NAME
    options = NoOptions
    contract_keys = (ContractKey("package", "Protobuf package of the message (dotted names; default: the contract name)", kind="dotted"),)
    artifact_name_option: str | None = None
    reader = "tacit_gen.targets.protobuf.read:read"
    compat = "tacit_gen.targets.protobuf.compat:COMPAT"
    # records, not a table: the same check on every backend (on Spark, in verify's own processes)
    engines: ClassVar[Mapping[str, Engine]] = {
        backend: Engine("tacit_gen.targets.protobuf.engine",
                         ("google.protobuf", "grpc_tools"), "wire") for backend in BACKENDS}
    templates = False

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (f"{NAME}/{contract.name}.proto", f"{NAME}/{contract.name}.lock.json")

    def render_inputs(self, contract: Contract, options: RenderOptions) -> tuple[Path, ...]:
        """The files `render` reads besides the contract: the committed lock (the render cache
        keys on its bytes)."""
        return (Path(options.out_dir) / NAME / f"{contract.name}.lock.json",) if options.out_dir else ()

    def render(self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions) -> RenderResult:
        proto, lock, unsupported = render_files(contract, clauses, options)
        a, b = self.artifact_paths(contract)
        return RenderResult((Artifact(a, proto), Artifact(b, lock)), tuple(unsupported))

    def project(self, contract: Contract, clause: Clause, options: RenderOptions | None = None) -> Clause | None:
        """The clause as the reader recovers it from the .proto, or None when protobuf cannot say it."""
        if clause.kind not in wire.STRUCTURAL or clause.warn or clause.id in _also_unsupported(contract, (clause,)):
            return None
        return clause



__all__ = ["ProtobufTarget", "render_files"]
