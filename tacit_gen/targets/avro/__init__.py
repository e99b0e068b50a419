"""The avro target: `render` (contract -> .avsc), `read` (.avsc -> clauses), `engine` (verify)."""

from tacit_gen.targets.avro.target import TARGET

__all__ = ["TARGET"]
