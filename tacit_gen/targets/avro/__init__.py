"""The avro target: `render` (contract -> .avsc), `read` (.avsc -> clauses), `engine` (verify)."""

from tacit_gen.targets.avro.render import AvroTarget

TARGET = AvroTarget()

__all__ = ["TARGET"]
