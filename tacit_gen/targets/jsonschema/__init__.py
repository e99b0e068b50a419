"""The jsonschema target: `render` (contract -> JSON Schema 2020-12), `read`, `engine` (verify)."""

from tacit_gen.targets.jsonschema.render import JsonSchemaTarget

TARGET = JsonSchemaTarget()

__all__ = ["TARGET"]
