"""protobuf engine: the generated .proto compiled by protoc (grpcio-tools) to a descriptor set, its
message class built by protobuf's `message_factory`, and every row set on a message, serialized,
parsed back and compared field by field.

A value the field's type refuses (protobuf raises on a wrong Python type or an out-of-range
integer; this engine also requires an aware datetime for a Timestamp and a Decimal within the
declared precision and scale for a decimal string), or that comes back different, fails
``column:<c>``. A NULL goes on the wire as an unset field, which only a field with presence
(``optional``) can tell from a zero: a NULL in a field without ``optional`` fails ``not_null:<c>``.
An enum text with no enum value fails ``accepted_values:<c>``; a column the message has no field
for fails ``no_unknown_columns``.
"""

from __future__ import annotations

import re
import struct
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from tacit_gen.engines.base import EngineRun, VerifyInput
from tacit_gen.engines.wire import Tally, error_run, read_table, same, verdicts
from tacit_gen.plan_types import KINDS

NAME = "protobuf"
_EPOCH_DAY = date(1970, 1, 1)


class Refused(Exception):
    """The value cannot travel as the field's type."""


def _decimal_ok(value: Decimal, declared: str) -> bool:
    m = re.fullmatch(r"decimal\((\d+),(\d+)\)", declared)
    if not m:
        return True
    p, s = int(m.group(1)), int(m.group(2))
    _sign, digits, exp = value.as_tuple()
    if not isinstance(exp, int):
        return False
    scale = max(0, -exp)
    whole = len(digits) + exp if len(digits) + exp > 0 else 0
    return scale <= s and whole <= p - s


def encode(msg: Any, fd: Any, value: Any, declared: str) -> Any:
    """Set `value` on field `fd` of `msg`; return what the field should read back as.

    Raises:
        Refused: the value cannot travel as the field's type.
    """
    from google.protobuf.descriptor import FieldDescriptor as F

    name = fd.name
    if fd.type == F.TYPE_MESSAGE and fd.message_type.full_name == "google.protobuf.Timestamp":
        if not isinstance(value, datetime) or value.tzinfo is None:
            raise Refused("a Timestamp needs an aware instant (a naive timestamp is not UTC)")
        getattr(msg, name).FromDatetime(value)
        return value.astimezone(UTC)
    if fd.type == F.TYPE_ENUM:
        raise Refused("enum fields are set by the caller")
    if fd.type == F.TYPE_STRING and declared.startswith("decimal("):
        if not isinstance(value, Decimal) or not _decimal_ok(value, declared):
            raise Refused(f"{value!r} is not a {declared}")
        setattr(msg, name, format(value, "f"))
        return value
    if fd.type == F.TYPE_INT32 and declared == "date":
        if not isinstance(value, date) or isinstance(value, datetime):
            raise Refused(f"{type(value).__name__} is not a date")
        setattr(msg, name, (value - _EPOCH_DAY).days)
        return value
    if fd.type in (F.TYPE_INT32, F.TYPE_INT64) and (isinstance(value, bool) or not isinstance(value, int)):
        raise Refused(f"{type(value).__name__} is not an integer")
    if fd.type == F.TYPE_BOOL and not isinstance(value, bool):
        raise Refused(f"{type(value).__name__} is not a boolean")
    if fd.type == F.TYPE_STRING and not isinstance(value, str):
        raise Refused(f"{type(value).__name__} is not text")
    if fd.type in (F.TYPE_FLOAT, F.TYPE_DOUBLE) and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise Refused(f"{type(value).__name__} is not a number")
    try:
        setattr(msg, name, value)
    except (TypeError, ValueError) as e:
        raise Refused(str(e)) from None
    if fd.type == F.TYPE_FLOAT:
        return struct.unpack("f", struct.pack("f", float(value)))[0]
    return value


def decode(msg: Any, fd: Any, declared: str) -> Any:
    from google.protobuf.descriptor import FieldDescriptor as F

    name = fd.name
    if fd.type == F.TYPE_MESSAGE:
        return getattr(msg, name).ToDatetime(tzinfo=UTC) if msg.HasField(name) else None
    raw = getattr(msg, name)
    if fd.type == F.TYPE_STRING and declared.startswith("decimal("):
        return Decimal(raw)
    if fd.type == F.TYPE_INT32 and declared == "date":
        from datetime import timedelta

        return _EPOCH_DAY + timedelta(days=raw)
    return raw


def schema_of(fds: Any) -> tuple[Any, list[tuple[Any, bool, str]]]:
    """(message proto, [(field proto, has optional, declared contract type)]) of the file."""
    from tacit_gen.targets.protobuf.read import source_comments, tacit_marker

    fp = fds.file[-1]
    msg = fp.message_type[0]
    comments = source_comments(fp)
    out = []
    for i, f in enumerate(msg.field):
        mark = tacit_marker(comments.get((4, 0, 2, i), ""))
        out.append((f, bool(f.proto3_optional), str(mark.get("type", ""))))
    return fp, out


def run(inp: VerifyInput) -> EngineRun:
    """Encode and decode every row with `protobuf/<contract>.proto`."""
    from tacit_gen.targets.protobuf.compile import ProtocError, compile_proto, message_class
    from tacit_gen.targets.protobuf.read import validate_rules

    path = inp.artifact_dir / NAME / f"{inp.contract.name}.proto"
    try:
        fds = compile_proto(path.read_text(encoding="utf-8"), path.name)
        fp, fields = schema_of(fds)
        full = (fp.package + "." if fp.package else "") + fp.message_type[0].name
        cls = message_class(fds, full)
    except (OSError, ProtocError, IndexError, KeyError) as e:
        return error_run(NAME, inp.clauses, f"cannot compile {path.name}: {str(e).splitlines()[0]}")
    desc = cls.DESCRIPTOR
    field_rules, message_cel = validate_rules(fds, fp.message_type[0])
    validator = _validator() if field_rules or message_cel else None
    table = read_table(inp.database, inp.table)
    tally = Tally()
    carried = {"no_unknown_columns"} | carried_by_rules(field_rules, message_cel)
    names = [f.name for f, _, _ in fields]
    for f, optional, _ in fields:
        carried.add(f"column:{f.name}")
        if not optional:
            carried.add(f"not_null:{f.name}")
        if desc.fields_by_name[f.name].enum_type is not None:
            carried.add(f"accepted_values:{f.name}")
    extra = [c for c in table.columns if c not in names]
    if extra:
        tally.fail("no_unknown_columns", f"columns the message has no field for: {', '.join(extra)}",
                   len(table.rows) or 1)
    # the contract's spelling of each enum field's values (its `// tacit:` type), once
    spelled = {f.name: v for f, _, declared in fields if (v := _enum_values(declared)) is not None}
    for name in names:
        if name not in table.types:
            tally.fail(f"column:{name}", f"the data has no column '{name}'", len(table.rows) or 1)
    for row in table.rows:
        msg = cls()
        expect: dict[str, Any] = {}
        unsent: set[str] = set()
        for f, optional, declared in fields:
            if f.name not in row:
                continue
            fd = desc.fields_by_name[f.name]
            value = row[f.name]
            if value is None:
                if not optional:
                    unsent.add(f.name)
                    tally.fail(f"not_null:{f.name}", "NULL in a field without presence (optional): "
                               "it would read back as the zero value")
                else:
                    expect[f.name] = None
                continue
            if fd.enum_type is not None:
                if not isinstance(value, str):
                    tally.fail(f"column:{f.name}", f"{type(value).__name__} is not an enum value")
                    unsent.add(f.name)
                    continue
                number = enum_number(fd.enum_type, f.name, value)
                if number is None or value not in spelled.get(f.name, (value,)):
                    tally.fail(f"accepted_values:{f.name}", f"'{value}' is not a value of {fd.enum_type.name}")
                    unsent.add(f.name)
                    continue
                setattr(msg, f.name, number)
                expect[f.name] = ("enum", number)
                continue
            try:
                expect[f.name] = encode(msg, fd, value, declared)
            except Refused as e:
                tally.fail(f"column:{f.name}", str(e))
                unsent.add(f.name)
        back = cls.FromString(msg.SerializeToString())
        if validator is not None:
            # a value that cannot travel (a NULL without presence, a refused value) failed above:
            # what the rules see in its place is the zero value, not the row's value
            said: set[str] = set()
            for cid, reason in violations(validator, back):
                if cid in said or cid.partition(":")[2] in unsent or (
                        cid.startswith("invariant:") and unsent & set(_cols(cid))):
                    continue
                said.add(cid)
                tally.fail(cid, reason)
        for f, _, declared in fields:
            if f.name not in expect:
                continue
            fd = desc.fields_by_name[f.name]
            want = expect[f.name]
            if want is None:
                got_present = back.HasField(f.name)
                if got_present:
                    tally.fail(f"column:{f.name}", "a NULL came back as a value")
                continue
            got = ("enum", getattr(back, f.name)) if fd.enum_type is not None else decode(back, fd, declared)
            if not same(want, got):
                tally.fail(f"column:{f.name}", f"{want!r} came back as {got!r}")
    return verdicts(NAME, inp.clauses, carried, tally)


def _validator() -> Any:
    import protovalidate

    return protovalidate.Validator()


def carried_by_rules(field_rules: dict[str, Any], message_cel: list[Any]) -> set[str]:
    """The clause ids the file's protovalidate rules state."""
    out = {r.message for r in message_cel}
    for name, fr in field_rules.items():
        if fr.required:
            out.add(f"not_null:{name}")
        out.update(r.message for r in fr.cel)
        kind = fr.WhichOneof("type")
        typed = getattr(fr, kind) if kind else None
        if typed is None:
            continue
        fields = {fd.name for fd, _ in typed.ListFields()}
        if "const" in fields:
            out.add(f"fixed_value:{name}")
        if "pattern" in fields:
            out.add(f"pattern:{name}")
        if "in" in fields or kind == "enum":
            out.add(f"accepted_values:{name}")
        if fields & {"gte", "gt", "lte", "lt"}:
            out.add(f"range:{name}")
    return out


def _rule_clause(rule_id: str, field: str) -> str | None:
    """The clause a standard rule's violation is a verdict on (``int64.gte`` -> ``range:<c>``)."""
    if rule_id == "required":
        return f"not_null:{field}"
    kind, _, key = rule_id.partition(".")
    if kind == "enum" or key == "in":
        return f"accepted_values:{field}"
    if key == "const":
        return f"fixed_value:{field}"
    if key == "pattern":
        return f"pattern:{field}"
    if key.partition("_")[0] in ("gte", "gt", "lte", "lt"):
        return f"range:{field}"
    return None


def violations(validator: Any, msg: Any) -> list[tuple[str, str]]:
    """(clause id, reason) of each protovalidate violation of one message."""
    out = []
    for v in validator.collect_violations(msg):
        pb = v.proto
        field = pb.field.elements[0].field_name if pb.field and pb.field.elements else ""
        # a CEL rule's message is its clause id (`rules.cel_body`)
        cid = pb.message if pb.rule_id.partition(".")[0] in KINDS else _rule_clause(pb.rule_id, field)
        out.append((cid or f"column:{field}", f"protovalidate {pb.rule_id}: {pb.message}".rstrip(": ")))
    return out


def _cols(cid: str) -> tuple[str, ...]:
    from tacit_gen.expr import nodes as n
    from tacit_gen.expr.parser import parse

    return tuple(x.name for x in n.walk(parse(cid.partition(":")[2])) if isinstance(x, n.Name | n.Column))


def _enum_values(declared: str) -> tuple[str, ...] | None:
    """The enum values as the contract writes them (a field's ``// tacit:`` type): enum value
    names are upper-cased (``VENUE_EBS``), so the name alone would take 'ebs' for 'EBS', where
    every other engine compares text exactly. None for another type, or a field without the
    marker (a hand-written file, matched by name only)."""
    from tacit_gen.contract.types import TypeSyntaxError, parse_type

    try:
        t = parse_type(declared)
    except TypeSyntaxError:
        return None
    return t.values if t.kind == "enum" else None


def enum_number(enum: Any, field: str, value: str) -> int | None:
    """The number of the enum value standing for `value` (by name, ``FIELD_VALUE``), never 0."""
    v = enum.values_by_name.get(f"{field.upper()}_{value.upper()}")
    if v is None or v.number == 0:
        return None
    return int(v.number)
