"""The jsonschema target: `render` (contract -> JSON Schema 2020-12), `read`, `engine` (verify)."""

from tacit_gen.targets.jsonschema.target import TARGET

__all__ = ["TARGET"]
