"""Read a generated .proto back into clauses: compiled by protoc (grpcio-tools) to a descriptor set,
then each field's descriptor (type, `optional`, enum values) plus its ``tacit:`` comment (contract
type, unit, dimension) become the clauses the message carries. The lock beside the file is read
too: a number that differs from the lock, or a reserved number or name in use, is a finding.
Seed 001's lint: a measurement (a field with a unit) without presence is a finding."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tacit_gen.drift import base as d
from tacit_gen.drift.base import Finding, ReadResult
from tacit_gen.plan_types import Clause, make_params

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
        if ptype == "message" and f.type_name == ".google.protobuf.Timestamp":
            ctype = declared if declared.startswith("timestamp_") else "timestamp"
        elif ptype == "enum":
            enum = enums.get(f.type_name.rsplit(".", 1)[-1])
            values: list[str] = []
            prefix = f.name.upper() + "_"
            for j, v in enumerate(enum.value if enum is not None else []):
                if v.number == 0:
                    continue
                raw = v.name[len(prefix):] if v.name.startswith(prefix) else v.name
                said = enum_comments.get((enum.name, j), "") if enum is not None else ""
                values.append(said if said.upper() == raw else raw.lower())
            ctype = "enum[" + ", ".join(values) + "]"
            clauses.append(Clause(f"accepted_values:{f.name}", "accepted_values", (f.name,),
                                  make_params(column=f.name, values=tuple(values)), verbatim))
        elif ptype == "string" and declared.startswith(("decimal(", "enum[")):
            ctype = declared
        elif ptype == "int32" and declared == "date":
            ctype = "date"
        else:
            ctype = _SCALAR_TO_CONTRACT.get(ptype, f"protobuf {ptype}")
        clauses.append(Clause(f"column:{f.name}", "column", (f.name,),
                              make_params(column=f.name, type=ctype, unit=mark.get("unit"),
                                          dimension=mark.get("dimension")), verbatim))
        if not f.proto3_optional:
            clauses.append(Clause(f"not_null:{f.name}", "not_null", (f.name,), make_params(column=f.name), verbatim))
            if mark.get("unit") is not None:
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
