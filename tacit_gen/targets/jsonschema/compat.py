"""JSON Schema's judgement of two contract versions (`Target.compat`): the writer's sample rows
(`tacit-gen sample`), as the JSON objects a producer sends, validated against the reader's schema.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tacit_gen.targets.compat import History, Schemas, Versioned, WireCompat, WireFinding

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract

NAME = "jsonschema"


class JsonSchemaCompat(WireCompat[dict[str, Any]]):
    """The schema of a version is its JSON Schema document."""

    def schemas(self, versions: Sequence[Contract], history: History) -> Schemas[dict[str, Any]]:
        from tacit_gen.plan import plan
        from tacit_gen.targets.base import RenderOptions
        from tacit_gen.targets.jsonschema.render import JsonSchemaTarget

        options = RenderOptions(out_dir=history.out_dir)
        target = JsonSchemaTarget()
        return Schemas({c.version: Versioned(c, json.loads(target.render(c, plan(c), options).artifacts[0].content))
                        for c in versions})

    def compare(self, reader: Versioned[dict[str, Any]], writer: Versioned[dict[str, Any]], direction: str,
                history: History) -> list[WireFinding]:
        import jsonschema

        from tacit_gen.engines.wire import json_value

        validator = jsonschema.Draft202012Validator(reader.schema,
                                                    format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        rv, wv = reader.version, writer.version
        seen: dict[str, WireFinding] = {}
        for row in history.sample(writer.contract):
            obj = {k: json_value(v) for k, v in row.items()}
            for err in validator.iter_errors(obj):
                col = str(err.absolute_path[0]) if err.absolute_path else None
                if err.validator == "additionalProperties":
                    # Seed 001 closes records (additionalProperties: false), so a consumer validating
                    # with an older schema rejects a field added since, even a nullable one. The
                    # evolution table calls that change compatible; said here, not failed.
                    extra = sorted(k for k in obj if k not in (reader.schema.get("properties") or {}))
                    added = [k for k in extra if (f := writer.contract.field(k)) is not None and f.nullable]
                    if added == extra:
                        key = "additional"
                        if key not in seen:
                            seen[key] = WireFinding(
                                NAME, direction, rv, wv, ", ".join(extra),
                                f"{rv}'s closed schema (additionalProperties: false) rejects rows carrying "
                                f"{', '.join(extra)}, nullable in {wv} and not declared in {rv}: a consumer "
                                "validating with it must drop unknown keys first, or upgrade first",
                                severity="warning")
                        continue
                key = f"{col}:{err.validator}"
                if key not in seen:
                    seen[key] = WireFinding(NAME, direction, rv, wv, col,
                                            f"{wv}'s sample rows fail {rv}'s schema: {err.message}")
        return list(seen.values())


COMPAT = JsonSchemaCompat()
