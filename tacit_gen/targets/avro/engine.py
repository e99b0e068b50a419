"""avro engine: every row encoded with the generated .avsc by fastavro and decoded back.

Per field, each non-null value goes through fastavro's writer and reader for the field's type
(``schemaless_writer`` / ``schemaless_reader`` on a one-field record of that type); a value the
writer refuses, or that comes back different, fails ``column:<c>`` (an instant must also carry a
time zone: Avro's timestamp types are UTC instants, and fastavro would read a naive value in the
machine's local zone, silently). Enum fields: a text outside the symbols fails ``accepted_values:<c>``, a non-text fails
``column:<c>``. A NULL where the type has no null branch fails ``not_null:<c>``; a column the
record has no field for fails ``no_unknown_columns`` (fastavro's strict validation). Then the
whole data is written to an Avro container file with the full schema and read back; a row that
changes on the way is reported as an engine note and an ``error``.

``timestamp-nanos`` (Avro 1.12) is not known to fastavro 1.13, which treats it as a plain long:
this engine converts instants to nanoseconds itself for such fields.
"""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from typing import Any

from tacit_gen.engines.base import EngineRun, VerifyInput
from tacit_gen.engines.wire import Tally, at_precision, error_run, read_table, same, verdicts

NAME = "avro"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def split_null(t: Any) -> tuple[Any, bool]:
    if isinstance(t, list):
        rest = [x for x in t if x != "null"]
        return (rest[0] if len(rest) == 1 else rest), len(rest) != len(t)
    return t, False


def _logical(t: Any) -> str | None:
    return t.get("logicalType") if isinstance(t, dict) else None


def to_wire(value: Any, t: Any) -> Any:
    """The value as fastavro takes it for type `t` (nanosecond instants converted here)."""
    if _logical(t) == "timestamp-nanos" and isinstance(value, datetime):
        delta = value - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000
    return value


def _same(a: Any, b: Any, t: Any) -> bool:
    if _logical(t) == "timestamp-nanos" and isinstance(a, datetime):
        return to_wire(a, t) == b
    if isinstance(t, str) and t == "float" and isinstance(a, float):
        import struct

        return same(struct.unpack("f", struct.pack("f", a))[0], b)
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return same(a, b)


def _type_problem(value: Any, t: Any) -> str | None:
    """Why `value` is not of Avro type `t` where fastavro would coerce it silently."""
    base = t.get("type") if isinstance(t, dict) else t
    logical = _logical(t)
    if logical and logical.startswith("timestamp-"):
        if not isinstance(value, datetime):
            return f"{type(value).__name__} is not an instant"
        if value.tzinfo is None:
            return "a timestamp without a time zone is not a UTC instant"
        return None
    if base in ("int", "long") and logical is None and (isinstance(value, bool) or not isinstance(value, int)):
        return f"{type(value).__name__} is not an integer"
    if base == "boolean" and not isinstance(value, bool):
        return f"{type(value).__name__} is not a boolean"
    if base == "string" and not isinstance(value, str):
        return f"{type(value).__name__} is not text"
    if base in ("float", "double") and (isinstance(value, bool) or not isinstance(value, int | float)):
        return f"{type(value).__name__} is not a number"
    if logical == "decimal":
        from decimal import Decimal

        if not isinstance(value, Decimal):
            return f"{type(value).__name__} is not a decimal"
        exp = value.as_tuple().exponent
        if isinstance(exp, int) and -exp > int(t.get("scale", 0)):
            return f"{value} has more than {t.get('scale', 0)} decimal places"
    return None


def run(inp: VerifyInput) -> EngineRun:
    """Encode and decode every row with `avro/<contract>.avsc`."""
    import fastavro
    from fastavro.validation import validate

    path = inp.artifact_dir / NAME / f"{inp.contract.name}.avsc"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        schema = fastavro.parse_schema(doc)
    except Exception as e:  # fastavro raises several exception types for a bad schema
        return error_run(NAME, inp.clauses, f"cannot load {path.name}: {str(e).splitlines()[0]}")
    table = read_table(inp.database, inp.table)
    tally = Tally()
    carried = {"no_unknown_columns"}
    fields = doc["fields"]
    names = [str(f["name"]) for f in fields]
    one: dict[str, Any] = {}
    for f in fields:
        name = str(f["name"])
        t, nullable = split_null(f["type"])
        carried.add(f"column:{name}")
        if not nullable:
            carried.add(f"not_null:{name}")
        if isinstance(t, dict) and t.get("type") == "enum":
            carried.add(f"accepted_values:{name}")
        named = dict(schema.get("__named_schemas", {})) if isinstance(schema, dict) else {}
        one[name] = fastavro.parse_schema({"type": "record", "name": f"tacit_one_{name}",
                                           "fields": [{"name": "v", "type": t}]},
                                          named_schemas=named)
    extra = [c for c in table.columns if c not in names]
    if extra:
        tally.fail("no_unknown_columns", f"columns the record has no field for: {', '.join(extra)}",
                   len(table.rows) or 1)
    for name in names:
        if name not in table.types:
            tally.fail(f"column:{name}", f"the data has no column '{name}'", len(table.rows) or 1)
    clean: list[dict[str, Any]] = []
    for row in table.rows:
        row = at_precision(row, inp.clauses)
        ok = not extra
        for f in fields:
            name = str(f["name"])
            if name not in row:
                ok = False
                continue
            value = row[name]
            t, nullable = split_null(f["type"])
            if value is None:
                if not nullable:
                    tally.fail(f"not_null:{name}", "NULL where the Avro type has no null branch")
                    ok = False
                continue
            if isinstance(t, dict) and t.get("type") == "enum":
                if not isinstance(value, str):
                    tally.fail(f"column:{name}", f"{type(value).__name__} is not an enum symbol")
                    ok = False
                elif value not in t.get("symbols", []):
                    tally.fail(f"accepted_values:{name}", f"'{value}' is not a symbol of {t.get('name')}")
                    ok = False
                continue
            problem = _type_problem(value, t)
            if problem is None:
                try:
                    buf = io.BytesIO()
                    fastavro.schemaless_writer(buf, one[name], {"v": to_wire(value, t)})
                    buf.seek(0)
                    back = fastavro.schemaless_reader(buf, one[name], one[name])
                    if not isinstance(back, dict) or not _same(value, back["v"], t):
                        problem = f"{value!r} came back as {back!r}"
                except Exception as e:  # fastavro raises ValueError, TypeError, OverflowError...
                    problem = f"fastavro cannot write {value!r}: {e}"
            if problem is not None:
                tally.fail(f"column:{name}", problem)
                ok = False
        if ok:
            clean.append({n: to_wire(row[n], split_null(f["type"])[0]) for n, f in zip(names, fields, strict=True)})
    notes: list[str] = []
    if clean:
        # the whole record, as a producer writes it: strict validation, then a container file
        try:
            for rec in clean:
                validate(rec, schema, strict=True)
            buf = io.BytesIO()
            fastavro.writer(buf, schema, clean)
            buf.seek(0)
            back = list(fastavro.reader(buf))
            if len(back) != len(clean):
                notes.append(f"{len(clean)} records written, {len(back)} read back")
        except Exception as e:
            notes.append(f"the container round trip failed: {str(e).splitlines()[0]}")
    run_ = verdicts(NAME, inp.clauses, carried, tally, tuple(notes))
    if notes:
        from tacit_gen.engines.base import Verdict

        return EngineRun(NAME, tuple(Verdict(v.clause_id, "error", None, notes[0]) if v.clause_id.startswith("column:")
                                     and v.status == "pass" else v for v in run_.verdicts), tuple(notes))
    return run_
