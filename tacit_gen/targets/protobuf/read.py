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
from tacit_gen.targets.base import float_text
from tacit_gen.targets.kinds import Form, FormTable
from tacit_gen.targets.protobuf import rules as rules_
from tacit_gen.targets.protobuf.rules import IMPORT, Col

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
    rules: Any = None  # the field's buf.validate.FieldRules, or None


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
    if f.optional and not (f.rules is not None and f.rules.required):
        return None
    return Clause(f"not_null:{f.name}", "not_null", (f.name,), make_params(column=f.name), f.verbatim)


_TYPED = ("string", "bool", "int32", "int64", "double")


def _typed(f: _Field) -> Any:
    """The field's type-specific rules (``int64 = {...}``), or None."""
    if f.rules is None:
        return None
    kind = f.rules.WhichOneof("type")
    return getattr(f.rules, kind) if kind in _TYPED else None


def _fixed_value(f: _Field) -> Clause | None:
    typed = _typed(f)
    if typed is None or not typed.HasField("const"):
        return None
    value: Any = typed.const
    if isinstance(value, float):
        value = float_text(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    return Clause(f"fixed_value:{f.name}", "fixed_value", (f.name,), make_params(column=f.name, value=value),
                  f.verbatim)


def _pattern(f: _Field) -> Clause | None:
    from tacit_gen.sql.pattern import body_of

    typed = _typed(f)
    if typed is None or f.rules.WhichOneof("type") != "string" or not typed.HasField("pattern"):
        return None
    return Clause(f"pattern:{f.name}", "pattern", (f.name,),
                  make_params(column=f.name, pattern=body_of(typed.pattern)), f.verbatim)


def _string_in(f: _Field) -> Clause | None:
    typed = _typed(f)
    if typed is None or f.rules.WhichOneof("type") != "string" or not typed.__getattribute__("in"):
        return None
    return Clause(f"accepted_values:{f.name}", "accepted_values", (f.name,),
                  make_params(column=f.name, values=tuple(getattr(typed, "in"))), f.verbatim)


def _range_clause(f: _Field, bounds: list[tuple[str, str]]) -> Clause:
    from tacit_gen.targets.protobuf.rules import number_text

    lo = hi = None
    lo_inc = hi_inc = True
    for op, bound in bounds:
        if op in (">=", ">"):
            lo, lo_inc = number_text(bound), op == ">="
        else:
            hi, hi_inc = number_text(bound), op == "<="
    return Clause(f"range:{f.name}", "range", (f.name,),
                  make_params(column=f.name, min=lo, max=hi, min_inclusive=lo_inc, max_inclusive=hi_inc),
                  f.verbatim)


def _bounds(f: _Field) -> Clause | None:
    typed = _typed(f)
    if typed is None or f.rules.WhichOneof("type") not in ("int32", "int64", "double"):
        return None
    bounds = []
    for op, key in ((">=", "gte"), (">", "gt"), ("<=", "lte"), ("<", "lt")):
        if typed.HasField(key):
            value = getattr(typed, key)
            bounds.append((op, float_text(value) if isinstance(value, float) else str(value)))
    return _range_clause(f, bounds) if bounds else None


def _cel_range(f: _Field) -> Clause | None:
    from tacit_gen.targets.protobuf.rules import read_range

    for r in f.rules.cel if f.rules is not None else ():
        if r.message == f"range:{f.name}":
            bounds = read_range(r.expression)
            if bounds is None:
                raise ValueError(f"range:{f.name}: a CEL rule tacit-gen does not write: {r.expression!r}")
            return _range_clause(f, bounds)
    return None


# What each message field states, in the order its clauses are read.
READ: FormTable[Callable[[_Field], Clause | None]] = FormTable("protobuf", {
    "enum": Form(("accepted_values",), _accepted_values),
    "type and tacit marker": Form(("column",), _column),
    "field without presence, or (buf.validate.field).required": Form(("not_null",), _not_null),
    "<type>.const": Form(("fixed_value",), _fixed_value),
    "string.pattern": Form(("pattern",), _pattern),
    "string.in": Form(("accepted_values",), _string_in),
    "<type> = {gte, gt, lte, lt}": Form(("range",), _bounds),
    "cel range:<column>": Form(("range",), _cel_range),
}, elsewhere={"no_unknown_columns": "the message's list of fields",
              "invariant": "the message's (buf.validate.message).cel rules"},
    unsupported=dict(rules_.RULES.unsupported))


def validate_rules(fds: Any, msg: Any) -> tuple[dict[str, Any], list[Any]]:
    """({field name: its buf.validate.FieldRules}, [the message's CEL rules]) of a compiled
    message: the options are extensions protobuf keeps as unknown fields in a pool of our own, so
    their bytes are parsed with the rule classes of the same descriptor set."""
    from google.protobuf import unknown_fields

    from tacit_gen.targets.protobuf.compile import message_class

    if not any(fp.name == IMPORT for fp in fds.file):
        return {}, []
    field_rules_cls = message_class(fds, "buf.validate.FieldRules")
    message_rules_cls = message_class(fds, "buf.validate.MessageRules")

    def ext(options: Any) -> bytes:
        return b"".join(bytes(u.data) for u in unknown_fields.UnknownFieldSet(options) if u.field_number == _EXT)

    out = {}
    for f in msg.field:
        raw = ext(f.options)
        if raw:
            out[f.name] = field_rules_cls.FromString(raw)
    raw = ext(msg.options)
    return out, list(message_rules_cls.FromString(raw).cel) if raw else []


_EXT = 1159  # (buf.validate.field), (buf.validate.message): validate.proto's extension number


def _invariants(rules_: list[Any], cols: dict[str, Col], where: str) -> tuple[list[Clause], list[Finding]]:
    """Each message CEL rule as the invariant its id names; a rule whose expression is not the one
    that invariant renders to (a hand edit) is a finding."""
    from tacit_gen.expr.parser import ExprSyntaxError, parse
    from tacit_gen.expr.printer import to_text
    from tacit_gen.targets.protobuf.rules import Inexpressible, cel_id, invariant_cel

    clauses: list[Clause] = []
    findings: list[Finding] = []
    for r in rules_:
        kind, _, said = r.message.partition(":")
        if kind != "invariant" or r.id != cel_id(r.message):
            findings.append(Finding(d.UNKNOWN_CHECK, where, f"(buf.validate.message).cel {r.id!r}: not a rule tacit-gen writes"))
            continue
        try:
            node = _resolve(parse(said), cols)
            want = invariant_cel(node, cols)
        except (ExprSyntaxError, Inexpressible) as e:
            findings.append(Finding(d.UNKNOWN_CHECK, where, f"{r.id}: {e}"))
            continue
        if r.expression != want:
            findings.append(Finding(
                d.PARAM_CHANGED, where, f"{r.message}: the CEL rule is not the one the invariant "
                "renders to (edited by hand?)", clause_id=r.message, expected=want, found=r.expression))
        clauses.append(Clause(r.message, "invariant", n_columns(node), make_params(expr=to_text(node)), ""))
    return clauses, findings


def _resolve(node: Any, cols: dict[str, Col]) -> Any:
    """Names as the contract resolves them: a field is a column, any other name an enum value."""
    import dataclasses

    from tacit_gen.expr import nodes as n

    if isinstance(node, n.Name):
        return n.Column(node.name) if node.name in cols else n.EnumLiteral(node.name)
    if not isinstance(node, n.Node):
        return node
    changes = {}
    for fld in dataclasses.fields(node):
        v = getattr(node, fld.name)
        if isinstance(v, n.Node):
            changes[fld.name] = _resolve(v, cols)
        elif isinstance(v, tuple) and any(isinstance(x, n.Node) for x in v):
            changes[fld.name] = tuple(_resolve(x, cols) for x in v)
    return dataclasses.replace(node, **changes) if changes else node


def n_columns(node: Any) -> tuple[str, ...]:
    from tacit_gen.expr import nodes as n

    return tuple(n.columns(node))


def _kind(ctype: str) -> str:
    return ctype.split("(", 1)[0].split("[", 1)[0] if not ctype.startswith("timestamp") else "timestamp"


def _precision(ctype: str) -> int | None:
    import re

    m = re.fullmatch(r"decimal\((\d+),\d+\)", ctype)
    return int(m.group(1)) if m else None


def read(path: Path, text: str) -> ReadResult:
    """Clauses and findings of one .proto."""
    from tacit_gen.targets.protobuf.compile import ProtocError, compile_proto
    from tacit_gen.targets.protobuf.lock import Lock
    from tacit_gen.targets.wire import parse_registry_header

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
    field_rules, message_cel = validate_rules(fds, msg)
    cols: dict[str, Col] = {}
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
        enum = None
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
                       f.proto3_optional, field_rules.get(f.name))
        for form in READ.rules.values():
            try:
                found = form.read(field)
            except ValueError as e:
                findings.append(Finding(d.UNKNOWN_CHECK, where, str(e)))
                continue
            if found is not None and all(c.id != found.id for c in clauses):
                clauses.append(found)
        enum_numbers = ({v: j for v, j in zip(values, [x.number for x in enum.value if x.number != 0], strict=False)}
                        if ptype == "enum" and values is not None and enum is not None else None)
        cols[f.name] = Col(f.name, _kind(ctype), _precision(ctype),
                           f.proto3_optional or ptype == "message", enum_numbers)
        if not f.proto3_optional and mark.get("unit") is not None:
            findings.append(Finding(
                d.PARAM_CHANGED, where,
                f"column:{f.name}: measurement field without presence: proto3 reads an unset value as "
                "zero, indistinguishable from a measured zero (seed 001: declare measurement fields "
                "optional)", clause_id=f"column:{f.name}", expected="optional", found="no presence"))
    found_inv, inv_findings = _invariants(message_cel, cols, where)
    clauses += found_inv
    findings += inv_findings
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
    head = parse_registry_header(text)
    return ReadResult(tuple(clauses), tuple(findings), header_contract=head[0] if head else None,
                      header_version=head[1] if head else None)
