"""The avro target: `render` (contract -> .avsc), `read` (.avsc -> clauses), `engine` (verify)."""

from tacit_gen.targets.avro.render import TARGET

__all__ = ["TARGET"]
