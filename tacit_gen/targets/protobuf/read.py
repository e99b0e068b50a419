"""Read a generated .proto back into clauses: compiled by protoc (grpcio-tools) to a descriptor set,
then each field's descriptor (type, `optional`, enum values) plus its ``tacit:`` comment (contract
type, unit, dimension) become the clauses the message carries. The lock beside the file is read
too: a number that differs from the lock, or a reserved number or name in use, is a finding.
Seed 001's lint: a measurement (a field with a unit) without presence is a finding."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tacit_gen.drift import base as d
from tacit_gen.drift.base import Finding, ReadResult
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.targets import wire
from tacit_gen.targets.kinds import Form, FormTable

if TYPE_CHECKING:
    from pathlib import Path

# FieldDescriptorProto.Type numbers -> proto type names
_TYPES = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 8: "bool", 9: "string",
          12: "bytes", 13: "uint32", 17: "sint32", 18: "sint64", 11: "message", 14: "enum"}
_SCALAR_TO_CONTRACT = {"double": "float64", "float": "float32", "int64": "int64", "int32": "int32",
                       "bool": "bool", "string": "string"}


def source_comments(fp: Any) -> dict[tuple[int, ...], str]:
    return {tuple(loc.path): loc.leading_comments + loc.trailing_comments
            for loc in fp.source_code_info.location if loc.leading_comments or loc.trailing_comments}


def tacit_marker(comment: str) -> dict[str, Any]:
    for line in comment.splitlines():
        line = line.strip()
        if line.startswith("tacit: "):
            try:
                data = json.loads(line[len("tacit: "):])
            except ValueError:
                return {}
            return data if isinstance(data, dict) else {}
    return {}


@dataclass(frozen=True)
class _Field:
    """What one message field states: its name, contract type, enum values (None: not an enum),
    ``tacit:`` marker, first comment line, and whether it has presence."""

    name: str
    ctype: str
    values: tuple[str, ...] | None
    mark: dict[str, Any]
    verbatim: str
    optional: bool


def _accepted_values(f: _Field) -> Clause | None:
    if f.values is None:
        return None
    return Clause(f"accepted_values:{f.name}", "accepted_values", (f.name,),
                  make_params(column=f.name, values=f.values), f.verbatim)


def _column(f: _Field) -> Clause | None:
    return Clause(f"column:{f.name}", "column", (f.name,),
                  make_params(column=f.name, type=f.ctype, unit=f.mark.get("unit"),
                              dimension=f.mark.get("dimension")), f.verbatim)


def _not_null(f: _Field) -> Clause | None:
    if f.optional:
        return None
    return Clause(f"not_null:{f.name}", "not_null", (f.name,), make_params(column=f.name), f.verbatim)


# What each message field states, in the order its clauses are read.
READ: FormTable[Callable[[_Field], Clause | None]] = FormTable("protobuf", {
    "enum": Form(("accepted_values",), _accepted_values),
    "type and tacit marker": Form(("column",), _column),
    "field without presence": Form(("not_null",), _not_null),
}, elsewhere={"no_unknown_columns": "the message's list of fields"},
    unsupported={"fixed_value": "protobuf has no constant: any value of the type is valid",
                 **wire.record_only("protobuf")})


def read(path: Path, text: str) -> ReadResult:
    """Clauses and findings of one .proto."""
    from tacit_gen.targets.header import parse_header
    from tacit_gen.targets.protobuf.compile import ProtocError, compile_proto
    from tacit_gen.targets.protobuf.lock import Lock

    where = str(path)
    try:
        fds = compile_proto(text, path.name)
    except ProtocError as e:
        return ReadResult((), (Finding(d.UNREADABLE, where, f"protoc: {e}"),))
    fp = fds.file[-1]
    if len(fp.message_type) != 1:
        return ReadResult((), (Finding(d.UNREADABLE, where, f"expected one message, found {len(fp.message_type)}"),))
    msg = fp.message_type[0]
    comments = source_comments(fp)
    enums = {e.name: e for e in msg.enum_type}
    enum_comments = {}
    for i, en in enumerate(msg.enum_type):
        for j, _ in enumerate(en.value):
            enum_comments[(en.name, j)] = comments.get((4, 0, 4, i, 2, j), "").strip()
    findings: list[Finding] = []
    clauses: list[Clause] = []
    names = tuple(f.name for f in msg.field)
    clauses.append(Clause("no_unknown_columns", "no_unknown_columns", names, make_params(columns=names), ""))
    numbers = {}
    for i, f in enumerate(msg.field):
        numbers[f.name] = f.number
        comment = comments.get((4, 0, 2, i), "")
        mark = tacit_marker(comment)
        verbatim = comment.strip().splitlines()[0] if comment.strip() else ""
        ptype = _TYPES.get(f.type, str(f.type))
        declared = str(mark.get("type", ""))
        values: list[str] | None = None
        if ptype == "message" and f.type_name == ".google.protobuf.Timestamp":
            ctype = declared if declared.startswith("timestamp_") else "timestamp"
        elif ptype == "enum":
            enum = enums.get(f.type_name.rsplit(".", 1)[-1])
            values = []
            prefix = f.name.upper() + "_"
            for j, v in enumerate(enum.value if enum is not None else []):
                if v.number == 0:
                    continue
                raw = v.name[len(prefix):] if v.name.startswith(prefix) else v.name
                said = enum_comments.get((enum.name, j), "") if enum is not None else ""
                values.append(said if said.upper() == raw else raw.lower())
            ctype = "enum[" + ", ".join(values) + "]"
        elif ptype == "string" and declared.startswith(("decimal(", "enum[")):
            ctype = declared
        elif ptype == "int32" and declared == "date":
            ctype = "date"
        else:
            ctype = _SCALAR_TO_CONTRACT.get(ptype, f"protobuf {ptype}")
        field = _Field(f.name, ctype, None if values is None else tuple(values), mark, verbatim,
                       f.proto3_optional)
        for form in READ.rules.values():
            found = form.read(field)
            if found is not None:
                clauses.append(found)
        if not f.proto3_optional and mark.get("unit") is not None:
            findings.append(Finding(
                d.PARAM_CHANGED, where,
                f"column:{f.name}: measurement field without presence: proto3 reads an unset value as "
                "zero, indistinguishable from a measured zero (seed 001: declare measurement fields "
                "optional)", clause_id=f"column:{f.name}", expected="optional", found="no presence"))
    lock_path = path.with_name(path.name[: -len(".proto")] + ".lock.json") if path.name.endswith(".proto") else None
    if lock_path is not None and lock_path.is_file():
        try:
            lock = Lock.parse(lock_path.read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError, TypeError) as e:
            findings.append(Finding(d.UNREADABLE, lock_path.as_posix(), f"the field-number lock does not parse: {e}"))
        else:
            for problem in lock.reused():
                findings.append(Finding(d.PARAM_CHANGED, lock_path.as_posix(), f"field-number lock: {problem}"))
            for name, n in numbers.items():
                if name in lock.fields and lock.fields[name] != n:
                    findings.append(Finding(
                        d.PARAM_CHANGED, where, f"column:{name}: field number {n} in the .proto, "
                        f"{lock.fields[name]} in {lock_path.name}: a field number never moves",
                        clause_id=f"column:{name}", expected=str(lock.fields[name]), found=str(n)))
    head = parse_header(text)
    return ReadResult(tuple(clauses), tuple(findings), header_contract=head[0] if head else None,
                      header_version=head[1] if head else None, header_hash=head[2] if head else None)
