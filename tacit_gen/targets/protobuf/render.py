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
    Unsupported,
    float_fixed,
)
from tacit_gen.targets.header import one_line
from tacit_gen.targets.protobuf import rules
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


def columns(contract: Contract, lock: Lock) -> dict[str, rules.Col]:
    """What the rules need of each field: kind, precision, presence, enum numbers."""
    return {f.name: rules.Col(f.name, f.type.kind, f.type.precision if f.type.kind == "decimal" else None,
                              has_presence(f) or f.type.kind == "timestamp",
                              dict(lock.enums[f.name]) if enum_expressible(f) else None)
            for f in contract.fields}


def rules_of(contract: Contract, clauses: tuple[Clause, ...], lock: Lock
             ) -> tuple[list[rules.FieldRule], list[rules.MessageRule], list[Unsupported]]:
    """(field options, message rules, unsupported) of the clauses, plan order."""
    cols = columns(contract, lock)
    field_rules: list[rules.FieldRule] = []
    message_rules: list[rules.MessageRule] = []
    unsupported: list[Unsupported] = []
    for c in clauses:
        if c.warn:
            unsupported.append(Unsupported(NAME, c.id, wire.WARN_REASON.format(fmt=FORMAT)))
            continue
        found = rules.rule(c, cols)
        if isinstance(found, str):
            unsupported.append(Unsupported(NAME, c.id, found))
        elif isinstance(found, rules.MessageRule):
            message_rules.append(found)
        elif found:
            field_rules += found
    return field_rules, message_rules, unsupported


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
    enum_fields_ = enum_fields(contract)
    if lock is None:
        lock = update(read_lock(options.out_dir, f"{NAME}/{contract.name}.lock.json"), contract, enum_fields_)
    field_rules, message_rules, unsupported = rules_of(contract, clauses, lock)
    msg = message_name(contract)
    lines = [f"// {line}" for line in wire.registry_header_lines(contract)]
    lines.append(one_line(f"// Field numbers live in {contract.name}.lock.json beside this file: a number "
                          "never moves, and a removed field's number and name stay reserved."))
    lines.append("// Decimals travel as strings holding the exact decimal text; each field's "
                 "'tacit:' comment states precision and scale.")
    lines.append("// The clauses protovalidate cannot state are checked by the other targets: "
                 "`tacit-gen explain --targets` lists them.")
    lines += ["", 'syntax = "proto3";', "", f"package {package(contract)};", ""]
    imports = ([f'import "{rules.IMPORT}";'] if field_rules or message_rules else [])
    if any(f.type.kind == "timestamp" for f in contract.fields):
        imports.append('import "google/protobuf/timestamp.proto";')
    if imports:
        lines += [*imports, ""]
    if contract.description:
        lines.append(one_line(f"// {contract.description}"))
    lines.append(f"message {msg} {{")
    for r in message_rules:
        lines += [f"  option {rules.MESSAGE}.cel = {{",
                  f"    id: {rules.text(rules.cel_id(r.clause_id))}",
                  f"    message: {rules.text(r.clause_id)}",
                  f"    expression: {rules.text(r.expression)}",
                  "  };"]
    if message_rules:
        lines.append("")
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
        options_ = [r.option for r in field_rules if r.column == f.name]
        decl = f"  {opt}{proto_type(f)} {f.name} = {lock.fields[f.name]}"
        if options_:
            lines += [decl + " [", *(f"    {o}," for o in options_[:-1]), f"    {options_[-1]}", "  ];"]
        else:
            lines.append(decl + ";")
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
                         ("google.protobuf", "grpc_tools", "protovalidate"), "wire") for backend in BACKENDS}
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
        if clause.warn:
            return None
        contract = wire.relaxed(contract, (clause,))
        numbers = {f.name: {v: i + 1 for i, v in enumerate(f.type.values)} for f in contract.fields
                   if enum_expressible(f)}
        lock = Lock(enums=numbers)
        if isinstance(rules.rule(clause, columns(contract, lock)), str):
            return None
        return float_fixed(clause) if clause.kind == "fixed_value" else clause


__all__ = ["ProtobufTarget", "render_files"]
