"""Compatibility as the schema registries and wire runtimes see it (`compat`, `compat --replay`).

For each pair of versions a mode compares (see `compat`), the Avro, Protobuf and JSON Schema
artifacts of both versions are rendered and judged by the real resolvers:

- Avro: the `avro` package's `ReaderWriterCompatibilityChecker` (Avro's schema resolution rules:
  defaults, aliases, promotions), reader = the version that reads, writer = the one that wrote;
- Protobuf: both .proto files compiled by protoc; a field number used for another field (not a
  rename declared with aliases), a type change outside its wire type, or a number or name that one
  version reserves and the other uses, is incompatible;
- JSON Schema: the writer's sample rows (`tacit-gen sample`), as JSON objects, validated against
  the reader's schema.

Earlier versions are numbered by today's protobuf lock (`generated/protobuf/<contract>.lock.json`
or the `--out` folder): numbers never move, so it remembers every number ever given.

`replay_wire` (for `compat --replay DATA`): the stored rows, typed by each earlier version that
wrote them, are encoded with that version's writer schemas and decoded with today's: Avro through
fastavro's schema resolution (writer schema + today's reader schema), Protobuf as old bytes
parsed by today's message class. The Avro result is then parsed by today's runtime (`replay`).
"""

from __future__ import annotations

import io
import json
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import datetime

    from tacit_gen.contract.model import Contract


@dataclass(frozen=True)
class WireFinding:
    """One reason a registry (or a wire runtime) refuses a pair of versions."""

    registry: str  # avro, protobuf, jsonschema
    direction: str  # backward (today reads the earlier version) or forward
    reader_version: str
    writer_version: str
    field: str | None
    message: str
    severity: str = "error"  # "warning": said, does not fail (see _jsonschema)

    def as_json(self) -> dict[str, Any]:
        return {"registry": self.registry, "direction": self.direction,
                "reader_version": self.reader_version, "writer_version": self.writer_version,
                "field": self.field, "message": self.message, "severity": self.severity}

    def render(self) -> str:
        where = f" field '{self.field}'" if self.field else ""
        mark = "warning: " if self.severity == "warning" else ""
        return (f"  {self.registry:<10} {self.direction:<8} {self.reader_version} reading "
                f"{self.writer_version} data{where}: {mark}{self.message}")


@dataclass
class Schemas:
    """The three wire artifacts of one version."""

    contract: Contract
    avsc: str
    proto: str
    jsonschema: dict[str, Any]
    notes: list[str] = field(default_factory=list)


def _aliases(contract: Contract) -> dict[str, str]:
    return {a: f.name for f in contract.fields for a in f.aliases}


def schemas_of(versions: list[Contract], out_dir: str | None) -> dict[str, Schemas]:
    """Wire schemas per version; protobuf numbers from today's (the newest version's) lock."""
    from tacit_gen.plan import plan
    from tacit_gen.targets.avro import TARGET as AVRO
    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.targets.jsonschema import TARGET as JSON
    from tacit_gen.targets.protobuf import lock as locks
    from tacit_gen.targets.protobuf.render import enum_fields, render_files

    today = versions[-1]
    options = RenderOptions(out_dir=out_dir)
    today_lock = locks.update(locks.read_lock(out_dir, f"protobuf/{today.name}.lock.json"), today,
                              enum_fields(today))
    out: dict[str, Schemas] = {}
    for c in versions:
        clauses = plan(c)
        committed = None if c is today else _lock_at_revision(c, out_dir)
        if c is today:
            lock, notes = today_lock, list[str]()
        elif committed is not None:  # the numbers as committed with that version
            lock, notes = locks.update(committed, c, enum_fields(c)), []
        else:
            lock, notes = locks.for_earlier(today_lock, c, enum_fields(c), _aliases(today))
        proto, _, _ = render_files(c, clauses, options, lock=lock)
        out[c.version] = Schemas(
            c, AVRO.render(c, clauses, options).artifacts[0].content, proto,
            json.loads(JSON.render(c, clauses, options).artifacts[0].content), notes)
    return out


def _lock_at_revision(contract: Contract, out_dir: str | None) -> Any:
    """The protobuf lock committed with a version read from git (its path ends in ``@<commit>``),
    or None (a --history folder, no lock in that commit, no git)."""
    import re

    from tacit_gen.evolution.history import HistoryError, read_at_revision
    from tacit_gen.targets.protobuf.lock import Lock

    m = re.search(r"@([0-9a-f]{7,40})$", contract.path)
    if m is None or not out_dir:
        return None
    rel = Path(out_dir)
    spec = f"{m.group(1)}:{'./' if not rel.is_absolute() else ''}{rel.as_posix()}/protobuf/{contract.name}.lock.json"
    try:
        return Lock.parse(read_at_revision(spec))
    except (HistoryError, ValueError, KeyError, TypeError, OSError):
        return None


# ----------------------------------------------------------------------------------- pairs
def _avro(reader: Schemas, writer: Schemas, direction: str) -> list[WireFinding]:
    import avro.schema
    from avro.compatibility import ReaderWriterCompatibilityChecker, SchemaCompatibilityType

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Unknown timestamp-nanos, using long"
        r, w = avro.schema.parse(reader.avsc), avro.schema.parse(writer.avsc)
    result = ReaderWriterCompatibilityChecker().get_compatibility(r, w)
    if result.compatibility is SchemaCompatibilityType.compatible:
        return []
    rv, wv = reader.contract.version, writer.contract.version
    names = [f["name"] for f in json.loads(reader.avsc)["fields"]]
    # the checker returns sets (messages, locations): their pairing is lost, so each location
    # is reported with every reason
    why = ", ".join(sorted(str(getattr(i, "value", i)) for i in result.incompatibilities))
    detail = ", ".join(sorted(map(str, result.messages)))
    out = []
    for loc in sorted(map(str, result.locations)):
        fname = None
        parts = loc.strip("/").split("/")
        if len(parts) >= 2 and parts[0] == "fields" and parts[1].isdigit() and int(parts[1]) < len(names):
            fname = names[int(parts[1])]
        out.append(WireFinding("avro", direction, rv, wv, fname,
                               f"Avro schema resolution: {why} ({detail}; at {loc} of {rv}'s schema)"))
    return out


_WIRE = {1: "64-bit", 2: "32-bit", 3: "varint", 4: "varint", 5: "varint", 8: "varint", 13: "varint",
         14: "varint", 17: "varint", 18: "varint", 6: "64-bit", 16: "64-bit", 7: "32-bit", 15: "32-bit",
         9: "length-delimited", 12: "length-delimited", 11: "length-delimited"}


def _proto_fields(text: str, filename: str) -> tuple[dict[int, Any], set[int], set[str]]:
    from tacit_gen.targets.protobuf.compile import compile_proto

    msg = compile_proto(text, filename).file[-1].message_type[0]
    reserved_numbers = {n for r in msg.reserved_range for n in range(r.start, r.end)}
    return {f.number: f for f in msg.field}, reserved_numbers, set(msg.reserved_name)


def _protobuf(reader: Schemas, writer: Schemas, direction: str) -> list[WireFinding]:
    from tacit_gen.targets.protobuf.compile import ProtocError

    rv, wv = reader.contract.version, writer.contract.version
    out: list[WireFinding] = []
    try:
        rf, r_res_n, r_res_names = _proto_fields(reader.proto, "reader.proto")
        wf, w_res_n, w_res_names = _proto_fields(writer.proto, "writer.proto")
    except ProtocError as e:
        return [WireFinding("protobuf", direction, rv, wv, None, f"protoc: {e}")]
    renamed = {**_aliases(reader.contract), **{v: k for k, v in _aliases(writer.contract).items()}}
    for n, f in rf.items():
        if n in w_res_n or f.name in w_res_names:
            out.append(WireFinding("protobuf", direction, rv, wv, f.name,
                                   f"number {n} / name '{f.name}' is reserved in {wv}: a reserved number or name is never reused"))
        w = wf.get(n)
        if w is None:
            continue
        if w.name != f.name and renamed.get(w.name) != f.name and renamed.get(f.name) != w.name:
            out.append(WireFinding("protobuf", direction, rv, wv, f.name,
                                   f"number {n} is '{w.name}' in {wv} and '{f.name}' in {rv}: a field number is reused"))
        if _WIRE.get(w.type) != _WIRE.get(f.type) or (w.type == 11 and w.type_name != f.type_name):
            out.append(WireFinding("protobuf", direction, rv, wv, f.name,
                                   f"number {n} changes type ({w.type_name or _TYPE_NAMES.get(w.type, w.type)} -> "
                                   f"{f.type_name or _TYPE_NAMES.get(f.type, f.type)}) outside its wire type"))
    for n, w in wf.items():
        if (n in r_res_n or w.name in r_res_names) and n not in rf:
            continue  # removed and reserved by the reader: the writer's value is skipped
    return out


_TYPE_NAMES = {1: "double", 2: "float", 3: "int64", 5: "int32", 8: "bool", 9: "string", 12: "bytes", 14: "enum"}


def _jsonschema(reader: Schemas, writer: Schemas, direction: str) -> list[WireFinding]:
    import jsonschema

    from tacit_gen.plan import plan
    from tacit_gen.sample import sample
    from tacit_gen.targets.jsonschema.engine import json_value

    data = sample(writer.contract, plan(writer.contract), rows=24, seed=7)
    names = list(data.columns)
    validator = jsonschema.Draft202012Validator(reader.jsonschema,
                                                format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    rv, wv = reader.contract.version, writer.contract.version
    seen: dict[str, WireFinding] = {}
    for i in range(len(data.columns[names[0]]) if names else 0):
        obj = {k: json_value(data.columns[k][i]) for k in names}
        for err in validator.iter_errors(obj):
            col = str(err.absolute_path[0]) if err.absolute_path else None
            if err.validator == "additionalProperties":
                # Seed 001 closes records (additionalProperties: false), so a consumer validating
                # with an older schema rejects a field added since, even a nullable one. The
                # evolution table calls that change compatible; said here, not failed.
                extra = sorted(k for k in obj if k not in (reader.jsonschema.get("properties") or {}))
                added = [k for k in extra if (f := writer.contract.field(k)) is not None and f.nullable]
                if added == extra:
                    key = "additional"
                    if key not in seen:
                        seen[key] = WireFinding(
                            "jsonschema", direction, rv, wv, ", ".join(extra),
                            f"{rv}'s closed schema (additionalProperties: false) rejects rows carrying "
                            f"{', '.join(extra)}, nullable in {wv} and not declared in {rv}: a consumer "
                            "validating with it must drop unknown keys first, or upgrade first",
                            severity="warning")
                    continue
            key = f"{col}:{err.validator}"
            if key not in seen:
                seen[key] = WireFinding("jsonschema", direction, rv, wv, col,
                                        f"{wv}'s sample rows fail {rv}'s schema: {err.message}")
    return list(seen.values())


def registry_compat(history: list[Contract], mode: str, out_dir: str | None = "generated") -> tuple[list[WireFinding], list[str]]:
    """What the Avro, Protobuf and JSON Schema resolvers say about the pairs `mode` compares.

    Returns:
        (findings, notes).
    """
    from tacit_gen.evolution.compat import dedupe

    versions = dedupe(history)
    mode = mode.upper()
    if len(versions) < 2 or mode == "NONE":
        return [], []
    newest, earlier = versions[-1], versions[:-1]
    if not mode.endswith("_TRANSITIVE"):
        earlier = earlier[-1:]
    base = mode.replace("_TRANSITIVE", "")
    sch = schemas_of([*earlier, newest], out_dir)
    notes = [n for s in sch.values() for n in s.notes]
    today = sch[newest.version]
    out: list[WireFinding] = []
    for old in earlier:
        o = sch[old.version]
        pairs = []
        if base in ("BACKWARD", "FULL"):
            pairs.append((today, o, "backward"))
        if base in ("FORWARD", "FULL"):
            pairs.append((o, today, "forward"))
        for reader, writer, direction in pairs:
            out += _avro(reader, writer, direction)
            out += _protobuf(reader, writer, direction)
            out += _jsonschema(reader, writer, direction)
    return out, notes


# ---------------------------------------------------------------------------------- replay
@dataclass
class WireReplay:
    """Stored rows of one earlier version through today's wire readers and runtime."""

    version: str
    rows: int
    findings: list[WireFinding]
    runtime_failures: list[tuple[str, str, int | None]]
    skipped: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"version": self.version, "rows": self.rows, "skipped": self.skipped,
                "findings": [f.as_json() for f in self.findings],
                "runtime_failures": [{"clause": c, "status": s, "rows": n} for c, s, n in self.runtime_failures]}


def _rows_as(contract: Contract, data: str, tmp: Path) -> tuple[list[dict[str, Any]] | None, str | None]:
    """The data's rows typed by `contract` (None, why: the data was not written under it)."""
    from tacit_gen.engines.load import load_data
    from tacit_gen.engines.wire import read_table

    db = tmp / f"{contract.version}.duckdb"
    rep = load_data(contract, data, str(db), table="data")
    if rep.missing or rep.failures:
        why = ", ".join([f"{c} missing" for c in rep.missing] + [f"{f.column} not {f.expected}" for f in rep.failures])
        return None, f"not written under {contract.version} ({why})"
    table = read_table(db, "data")
    extra = [c for c in table.columns if contract.field(c) is None]
    if extra:
        return None, f"not written under {contract.version} (columns it does not have: {', '.join(extra)})"
    return table.rows, None


def _avro_replay(writer: Schemas, today: Schemas, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[WireFinding]]:
    import fastavro

    from tacit_gen.targets.avro.engine import split_null, to_wire

    w = fastavro.parse_schema(json.loads(writer.avsc))
    r = fastavro.parse_schema(json.loads(today.avsc))
    wfields = json.loads(writer.avsc)["fields"]
    out: list[dict[str, Any]] = []
    wv, rv = writer.contract.version, today.contract.version
    for row in rows:
        rec = {f["name"]: to_wire(row.get(f["name"]), split_null(f["type"])[0]) for f in wfields}
        buf = io.BytesIO()
        fastavro.schemaless_writer(buf, w, rec)
        buf.seek(0)
        try:
            got = fastavro.schemaless_reader(buf, w, r)
            out.append(got if isinstance(got, dict) else {})
        except Exception as e:  # fastavro's SchemaResolutionError names the field
            text = str(e).splitlines()[0]
            name = next((f["name"] for f in json.loads(today.avsc)["fields"] if f"'{f['name']}'" in text
                         or f" {f['name']} " in f" {text} "), None)
            return out, [WireFinding("avro", "replay", rv, wv, name, f"Avro resolution: {text}")]
    return out, _dropped(writer, today, rows, out)


def _dropped(writer: Schemas, today: Schemas, rows: list[dict[str, Any]],
             decoded: list[dict[str, Any]]) -> list[WireFinding]:
    """A writer field with values that today's reader does not resolve (by name or alias), while a
    field of the same type that the writer lacks reads NULL: a rename without an alias."""
    wc, rc = writer.contract, today.contract
    resolved = {f.name for f in rc.fields} | {a for f in rc.fields for a in f.aliases}
    new = [f for f in rc.fields if wc.field(f.name) is None and not any(wc.field(a) for a in f.aliases)]
    out = []
    for wf in wc.fields:
        if wf.name in resolved:
            continue
        filled = sum(r.get(wf.name) is not None for r in rows)
        twins = [f for f in new if str(f.type) == str(wf.type)
                 and all(d.get(f.name) is None for d in decoded)]
        if filled and twins:
            out.append(WireFinding(
                "avro", "replay", rc.version, wc.version, twins[0].name,
                f"{filled} value(s) of '{wf.name}' written under {wc.version} are dropped and "
                f"'{twins[0].name}' reads NULL: a rename without an alias (declare "
                f"aliases: [{wf.name}] on '{twins[0].name}')"))
    return out


def _proto_replay(writer: Schemas, today: Schemas, rows: list[dict[str, Any]]) -> list[WireFinding]:
    from tacit_gen.targets.protobuf.compile import compile_proto, message_class
    from tacit_gen.targets.protobuf.engine import Refused, encode, enum_number, schema_of

    def cls_of(s: Schemas, name: str) -> tuple[Any, list[Any]]:
        fds = compile_proto(s.proto, name)
        fp, fields = schema_of(fds)
        return message_class(fds, (fp.package + "." if fp.package else "") + fp.message_type[0].name), fields

    wcls, wfields = cls_of(writer, "writer.proto")
    tcls, _ = cls_of(today, "today.proto")
    wv, rv = writer.contract.version, today.contract.version
    findings: list[WireFinding] = []
    by_number = {f.number: f for f in tcls.DESCRIPTOR.fields}
    renamed = _aliases(today.contract)
    for fd in wcls.DESCRIPTOR.fields:
        t = by_number.get(fd.number)
        if t is not None and t.name != fd.name and renamed.get(fd.name) != t.name:
            findings.append(WireFinding("protobuf", "replay", rv, wv, t.name,
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
            findings.append(WireFinding("protobuf", "replay", rv, wv, None, f"{wv} bytes do not parse as {rv}: {e}"))
            break
    return findings


def replay_wire(history: list[Contract], data: str, out_dir: str | None = "generated",
                catalog: str | None = None, now: datetime | None = None) -> list[WireReplay]:
    """Replay stored data of each earlier version that wrote it through today's wire readers, then
    today's runtime."""
    from tacit_gen.evolution.compat import dedupe
    from tacit_gen.evolution.replay import replay

    versions = dedupe(history)
    if len(versions) < 2:
        return []
    sch = schemas_of(versions, out_dir)
    today = sch[versions[-1].version]
    out: list[WireReplay] = []
    with tempfile.TemporaryDirectory(prefix="tacit-replay-") as tmp_name:
        tmp = Path(tmp_name)
        for old in versions[:-1]:
            rows, why = _rows_as(old, data, tmp)
            if rows is None:
                out.append(WireReplay(old.version, 0, [], [], skipped=why))
                continue
            writer = sch[old.version]
            decoded, findings = _avro_replay(writer, today, rows)
            findings += _proto_replay(writer, today, rows)
            failures: list[tuple[str, str, int | None]] = []
            if not findings:
                csv = tmp / f"decoded-{old.version}.csv"
                _write_csv(today.contract, decoded, csv)
                rep = replay(today.contract, csv, catalog_path=catalog, now=now)
                failures = rep.failures
            out.append(WireReplay(old.version, len(rows), findings, failures))
    return out


def _write_csv(contract: Contract, records: list[dict[str, Any]], path: Path) -> None:
    import csv

    from tacit_gen.targets.jsonschema.engine import json_value

    names = [f.name for f in contract.fields]
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        for rec in records:
            w.writerow(["" if rec.get(n) is None else _text(json_value(rec.get(n))) for n in names])


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
