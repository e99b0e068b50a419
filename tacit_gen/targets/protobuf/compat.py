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

# field descriptor type -> wire type (FieldDescriptorProto.Type)
_WIRE = {1: "64-bit", 2: "32-bit", 3: "varint", 4: "varint", 5: "varint", 8: "varint", 13: "varint",
         14: "varint", 17: "varint", 18: "varint", 6: "64-bit", 16: "64-bit", 7: "32-bit", 15: "32-bit",
         9: "length-delimited", 12: "length-delimited", 11: "length-delimited"}
_TYPE_NAMES = {1: "double", 2: "float", 3: "int64", 5: "int32", 8: "bool", 9: "string", 12: "bytes", 14: "enum"}


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
        from tacit_gen.targets.protobuf.compile import ProtocError

        rv, wv = reader.version, writer.version
        out: list[WireFinding] = []
        try:
            rf, _, _ = _fields(reader.schema, "reader.proto")
            wf, w_res_n, w_res_names = _fields(writer.schema, "writer.proto")
        except ProtocError as e:
            return [WireFinding(NAME, direction, rv, wv, None, f"protoc: {e}")]
        renamed = {**aliases(reader.contract), **{v: k for k, v in aliases(writer.contract).items()}}
        for n, f in rf.items():
            if n in w_res_n or f.name in w_res_names:
                out.append(WireFinding(NAME, direction, rv, wv, f.name,
                                       f"number {n} / name '{f.name}' is reserved in {wv}: a reserved number or name is never reused"))
            w = wf.get(n)
            if w is None:
                continue
            if w.name != f.name and renamed.get(w.name) != f.name and renamed.get(f.name) != w.name:
                out.append(WireFinding(NAME, direction, rv, wv, f.name,
                                       f"number {n} is '{w.name}' in {wv} and '{f.name}' in {rv}: a field number is reused"))
            if _WIRE.get(w.type) != _WIRE.get(f.type) or (w.type == 11 and w.type_name != f.type_name):
                out.append(WireFinding(NAME, direction, rv, wv, f.name,
                                       f"number {n} changes type ({w.type_name or _TYPE_NAMES.get(w.type, w.type)} -> "
                                       f"{f.type_name or _TYPE_NAMES.get(f.type, f.type)}) outside its wire type"))
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


def _fields(text: str, filename: str) -> tuple[dict[int, Any], set[int], set[str]]:
    """(field number -> field descriptor, reserved numbers, reserved names) of the message."""
    from tacit_gen.targets.protobuf.compile import compile_proto

    msg = compile_proto(text, filename).file[-1].message_type[0]
    reserved_numbers = {n for r in msg.reserved_range for n in range(r.start, r.end)}
    return {f.number: f for f in msg.field}, reserved_numbers, set(msg.reserved_name)


def _message(text: str, filename: str) -> tuple[Any, list[Any]]:
    """The message class of a .proto text, and its fields as the engine encodes them."""
    from tacit_gen.targets.protobuf.compile import compile_proto, message_class
    from tacit_gen.targets.protobuf.engine import schema_of

    fds = compile_proto(text, filename)
    fp, fields = schema_of(fds)
    return message_class(fds, (fp.package + "." if fp.package else "") + fp.message_type[0].name), fields


COMPAT = ProtobufCompat()
