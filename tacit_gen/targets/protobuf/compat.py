"""Protobuf's judgement of two contract versions (`Target.compat`): both .proto files compiled by
protoc and compared field by field; under ``--replay``, old bytes parsed by today's message class.

Earlier versions are numbered by the lock committed with them (a version read from git), else by
today's lock (`lock.for_earlier`): numbers never move, so today's lock remembers every number ever
given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tacit_gen.targets.compat import (
    History,
    Replayed,
    Row,
    Schemas,
    Versioned,
    WireCompat,
    WireFinding,
    aliases,
)

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.targets.protobuf.lock import Lock

NAME = "protobuf"

# FieldDescriptorProto.Type -> its name, and the groups of types whose values read as each other
# (buf breaking's FIELD_WIRE_COMPATIBLE_TYPE): int32, uint32, int64, uint64 and bool share the
# varint; an enum is only an enum; float and double differ in width.
_TYPE_NAMES = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32",
               8: "bool", 9: "string", 11: "message", 12: "bytes", 13: "uint32", 14: "enum", 15: "sfixed32",
               16: "sfixed64", 17: "sint32", 18: "sint64"}
_GROUP = {3: "varint", 4: "varint", 5: "varint", 8: "varint", 13: "varint", 17: "zigzag", 18: "zigzag",
          7: "fixed32", 15: "fixed32", 6: "fixed64", 16: "fixed64", 9: "bytes", 12: "bytes"}
# bits a varint type keeps, and whether it is signed: a reader narrower than the writer truncates
_WIDTH = {8: (1, False), 5: (32, True), 13: (32, False), 3: (64, True), 4: (64, False)}
_REPEATED = 3  # FieldDescriptorProto.LABEL_REPEATED


def _type_name(f: Any) -> str:
    return f.type_name.lstrip(".") if f.type in (11, 14) else _TYPE_NAMES.get(f.type, str(f.type))


def _type_change(writer: Any, reader: Any) -> tuple[str, str] | None:
    """(what, severity) when the reader's type differs from the writer's: an error across groups
    (as buf), a warning where the varint is shared but a value may not survive."""
    w, r = writer.type, reader.type
    if w == r and (w != 11 or writer.type_name == reader.type_name):
        return None  # an enum's own name may change with a renamed field: its numbers read the same
    change = f"changes type ({_type_name(writer)} -> {_type_name(reader)})"
    if w == r or _GROUP.get(w) is None or _GROUP.get(w) != _GROUP.get(r):
        return f"{change} outside its wire-compatible types", "error"
    if w in _WIDTH and r in _WIDTH:
        (wbits, wsigned), (rbits, rsigned) = _WIDTH[w], _WIDTH[r]
        if rbits < wbits or (wsigned != rsigned and w != 8):
            lost = ("any value but 0 reads as true" if r == 8 else
                    "a value outside its range is truncated" if rbits < wbits else
                    "a negative value reads as a large positive one, or the reverse")
            return (f"{change}: the same varint on the wire, so buf breaking (WIRE) accepts it, but "
                    f"{lost} (protobuf: interchangeable 'with sign and width caveats')", "warning")
    return None


def _cardinality_change(writer: Any, reader: Any, wv: str, rv: str) -> tuple[str, str] | None:
    """(what, severity) when the cardinality or presence differs: repeated <-> singular is an error
    (as buf); proto3 `optional` <-> implicit presence reads (buf accepts it) but a warning says
    what is lost: implicit presence does not tell an absent value from its default."""
    if (writer.label == _REPEATED) != (reader.label == _REPEATED):
        return "changes cardinality (repeated <-> singular)", "error"
    w_opt, r_opt = writer.proto3_optional, reader.proto3_optional
    if w_opt and not r_opt:
        return (f"has presence in {wv} (optional) and none in {rv}: buf breaking (WIRE) accepts it, "
                f"but an absent value written under {wv} (NULL) reads as the default (0, \"\", false) "
                f"under {rv}"), "warning"
    if r_opt and not w_opt:
        return (f"has no presence in {wv} and has in {rv} (optional): buf breaking (WIRE) accepts it, "
                f"but a default (0, \"\", false) written under {wv} is not on the wire and reads as absent (NULL) "
                f"under {rv}"), "warning"
    return None


class ProtobufCompat(WireCompat[str]):
    """The schema of a version is its .proto text, numbered as described above."""

    def schemas(self, versions: Sequence[Contract], history: History) -> Schemas[str]:
        from tacit_gen.plan import plan
        from tacit_gen.targets.base import RenderOptions
        from tacit_gen.targets.protobuf import lock as locks
        from tacit_gen.targets.protobuf.render import enum_fields, render_files

        today = versions[-1]
        options = RenderOptions(out_dir=history.out_dir)
        today_lock = locks.update(locks.read_lock(history.out_dir, f"{NAME}/{today.name}.lock.json"), today,
                                  enum_fields(today))
        out = Schemas[str]({})
        for c in versions:
            committed = None if c is today else _committed_lock(c, history)
            if c is today:
                lock = today_lock
            elif committed is not None:  # the numbers as committed with that version
                lock = locks.update(committed, c, enum_fields(c))
            else:
                lock, notes = locks.for_earlier(today_lock, c, enum_fields(c), aliases(today))
                out.notes += notes
            proto, _, _ = render_files(c, plan(c), options, lock=lock)
            out.by_version[c.version] = Versioned(c, proto)
        return out

    def compare(self, reader: Versioned[str], writer: Versioned[str], direction: str,
                history: History) -> list[WireFinding]:
        """Protobuf's wire rules as `buf breaking` (WIRE) applies them, field by field on the number:
        a number removed and reserved, a field added, a rename, a type change inside a
        compatible group, optional <-> implicit presence read; a type change across groups, an
        enum for another type, repeated <-> singular, a reserved number used again do not. A
        number naming another field without an alias is reused (the contract says they differ),
        and two wire-compatible changes buf accepts are warnings saying what a reader loses."""
        from tacit_gen.targets.protobuf.compile import ProtocError

        rv, wv = reader.version, writer.version
        try:
            rf, r_reserved = _fields(reader.schema, "reader.proto")
            wf, w_reserved = _fields(writer.schema, "writer.proto")
        except ProtocError as e:
            return [WireFinding(NAME, direction, rv, wv, None, f"protoc: {e}")]
        renamed = {**aliases(reader.contract), **{v: k for k, v in aliases(writer.contract).items()}}
        out: list[WireFinding] = []

        def said(name: str, message: str, severity: str = "error") -> None:
            out.append(WireFinding(NAME, direction, rv, wv, name, message, severity))

        for (fields, reserved, live_in, reserved_in) in ((rf, w_reserved, rv, wv), (wf, r_reserved, wv, rv)):
            for n, f in fields.items():
                if n in reserved and f.name not in reserved[n] and renamed.get(f.name) not in reserved[n]:
                    was = f" (left by '{next(iter(sorted(reserved[n])))}')" if reserved[n] else ""
                    said(f.name, f"number {n} is reserved in {reserved_in}{was} and '{f.name}' in {live_in}: "
                                 "a reserved number is never reused (data written under the field that "
                                 "left it would read as this one)")
        for n, f in rf.items():
            w = wf.get(n)
            if w is None:
                continue  # added (the reader reads its default), or removed and reserved
            if w.name != f.name and renamed.get(w.name) != f.name and renamed.get(f.name) != w.name:
                said(f.name, f"number {n} is '{w.name}' in {wv} and '{f.name}' in {rv}: a field number is "
                             "reused (no alias declares a rename)")
            problem = _type_change(w, f)
            if problem is not None:
                said(f.name, f"number {n} {problem[0]}", problem[1])
            problem = _cardinality_change(w, f, wv, rv)
            if problem is not None:
                said(f.name, f"number {n} {problem[0]}", problem[1])
        return out

    def replay(self, writer: Versioned[str], today: Versioned[str], rows: list[Row]) -> Replayed:
        from tacit_gen.targets.protobuf.engine import Refused, encode, enum_number

        wcls, wfields = _message(writer.schema, "writer.proto")
        tcls, _ = _message(today.schema, "today.proto")
        wv, rv = writer.version, today.version
        findings: list[WireFinding] = []
        by_number = {f.number: f for f in tcls.DESCRIPTOR.fields}
        renamed = aliases(today.contract)
        for fd in wcls.DESCRIPTOR.fields:
            t = by_number.get(fd.number)
            if t is not None and t.name != fd.name and renamed.get(fd.name) != t.name:
                findings.append(WireFinding(NAME, "replay", rv, wv, t.name,
                                            f"number {fd.number} was '{fd.name}' in {wv}: a field number is reused"))
        for row in rows:
            msg = wcls()
            for f, _, declared in wfields:
                value = row.get(f.name)
                if value is None:
                    continue
                fd = wcls.DESCRIPTOR.fields_by_name[f.name]
                try:
                    if fd.enum_type is not None:
                        number = enum_number(fd.enum_type, f.name, str(value))
                        if number is not None:
                            setattr(msg, f.name, number)
                    else:
                        encode(msg, fd, value, declared)
                except Refused:
                    continue
            try:
                tcls.FromString(msg.SerializeToString())
            except Exception as e:  # DecodeError: the bytes do not parse as today's message
                findings.append(WireFinding(NAME, "replay", rv, wv, None, f"{wv} bytes do not parse as {rv}: {e}"))
                break
        return Replayed(None, findings)


def _committed_lock(contract: Contract, history: History) -> Lock | None:
    """The lock committed with a version read from git, or None (not from git, no lock in that
    commit, or not a lock)."""
    from tacit_gen.targets.protobuf.lock import Lock

    text = history.committed(contract, f"{NAME}/{contract.name}.lock.json")
    if text is None:
        return None
    try:
        return Lock.parse(text)
    except (ValueError, KeyError, TypeError):
        return None


def _fields(text: str, filename: str) -> tuple[dict[int, Any], dict[int, set[str]]]:
    """(field number -> field descriptor, reserved number -> the names reserved with it) of the
    message. A .proto states reserved numbers and names apart; the lock reserves a number with
    the name of the field that left it, and they are paired here by the lock's order (each
    ``reserved`` line lists them in the same order)."""
    from tacit_gen.targets.protobuf.compile import compile_proto

    msg = compile_proto(text, filename).file[-1].message_type[0]
    numbers = [n for r in msg.reserved_range for n in range(r.start, r.end)]
    names = list(msg.reserved_name)
    paired: dict[int, set[str]] = {n: set() for n in numbers}
    if len(names) == len(numbers):
        for n, name in zip(numbers, names, strict=True):
            paired[n].add(name)
    else:  # hand-written reservations: any reserved name may go with any number
        paired = {n: set(names) for n in numbers}
    return {f.number: f for f in msg.field}, paired


def _message(text: str, filename: str) -> tuple[Any, list[Any]]:
    """The message class of a .proto text, and its fields as the engine encodes them."""
    from tacit_gen.targets.protobuf.compile import compile_proto, message_class
    from tacit_gen.targets.protobuf.engine import schema_of

    fds = compile_proto(text, filename)
    fp, fields = schema_of(fds)
    return message_class(fds, (fp.package + "." if fp.package else "") + fp.message_type[0].name), fields


COMPAT = ProtobufCompat()
