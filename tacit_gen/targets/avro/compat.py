"""Avro's judgement of two contract versions (`Target.compat`): the `avro` package's
`ReaderWriterCompatibilityChecker` (Avro's schema resolution rules: defaults, aliases, promotions),
reader = the version that reads, writer = the one that wrote; under ``--replay``, stored rows
encoded with the writer's schema and decoded through fastavro's schema resolution with today's.
"""

from __future__ import annotations

import io
import json
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tacit_gen.targets.compat import (
    History,
    Replayed,
    Row,
    Schemas,
    Versioned,
    WireCompat,
    WireFinding,
)

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract

NAME = "avro"


class AvroCompat(WireCompat[str]):
    """The schema of a version is its .avsc text."""

    def schemas(self, versions: Sequence[Contract], history: History) -> Schemas[str]:
        from tacit_gen.plan import plan
        from tacit_gen.targets.avro.render import AvroTarget
        from tacit_gen.targets.base import RenderOptions

        options = RenderOptions(out_dir=history.out_dir)
        return Schemas({c.version: Versioned(c, AvroTarget().render(c, plan(c), options).artifacts[0].content)
                        for c in versions})

    def compare(self, reader: Versioned[str], writer: Versioned[str], direction: str,
                history: History) -> list[WireFinding]:
        import avro.schema
        from avro.compatibility import ReaderWriterCompatibilityChecker, SchemaCompatibilityType

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Unknown timestamp-nanos, using long"
            r, w = avro.schema.parse(reader.schema), avro.schema.parse(writer.schema)
        result = ReaderWriterCompatibilityChecker().get_compatibility(r, w)
        if result.compatibility is SchemaCompatibilityType.compatible:
            return []
        rv, wv = reader.version, writer.version
        names = [f["name"] for f in json.loads(reader.schema)["fields"]]
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
            out.append(WireFinding(NAME, direction, rv, wv, fname,
                                   f"Avro schema resolution: {why} ({detail}; at {loc} of {rv}'s schema)"))
        return out

    def replay(self, writer: Versioned[str], today: Versioned[str], rows: list[Row]) -> Replayed:
        import fastavro

        from tacit_gen.targets.avro.engine import split_null, to_wire

        w = fastavro.parse_schema(json.loads(writer.schema))
        r = fastavro.parse_schema(json.loads(today.schema))
        wfields = json.loads(writer.schema)["fields"]
        out: list[Row] = []
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
                name = next((f["name"] for f in json.loads(today.schema)["fields"] if f"'{f['name']}'" in text
                             or f" {f['name']} " in f" {text} "), None)
                return Replayed(out, [WireFinding(NAME, "replay", today.version, writer.version, name,
                                                  f"Avro resolution: {text}")])
        return Replayed(out, _dropped(writer.contract, today.contract, rows, out))


def _dropped(wc: Contract, rc: Contract, rows: list[Row], decoded: list[Row]) -> list[WireFinding]:
    """A writer field with values that today's reader does not resolve (by name or alias), while a
    field of the same type that the writer lacks reads NULL: a rename without an alias."""
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
                NAME, "replay", rc.version, wc.version, twins[0].name,
                f"{filled} value(s) of '{wf.name}' written under {wc.version} are dropped and "
                f"'{twins[0].name}' reads NULL: a rename without an alias (declare "
                f"aliases: [{wf.name}] on '{twins[0].name}')"))
    return out


COMPAT = AvroCompat()
