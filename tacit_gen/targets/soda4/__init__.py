"""The soda4 target (Soda Core 4 data contract YAML): `render` (contract -> artifact), `read`
(artifact -> clauses), `engine` (verify, in Soda 4's own environment); the package builds `TARGET`."""

from tacit_gen.targets.soda4.render import Soda4Target

TARGET = Soda4Target()

__all__ = ["TARGET"]
