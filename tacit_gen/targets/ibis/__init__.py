"""The ibis target: `render` (contract -> artifact), `read` (artifact -> clauses), `engine` (verify); the package builds `TARGET`."""

from tacit_gen.targets.ibis.render import IbisTarget

TARGET = IbisTarget()

__all__ = ["TARGET"]
