"""The gx target: `render` (contract -> artifact), `read` (artifact -> clauses), `engine` (verify); the package builds `TARGET`."""

from tacit_gen.targets.gx.render import GxTarget

TARGET = GxTarget()

__all__ = ["TARGET"]
