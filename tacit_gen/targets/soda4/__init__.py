"""The soda4 target (Soda Core 4 data contract YAML): `render` (contract -> artifact), `read`
(artifact -> clauses), `engine` (verify, in Soda 4's own environment), bound together in `target`."""

from tacit_gen.targets.soda4.target import TARGET

__all__ = ["TARGET"]
