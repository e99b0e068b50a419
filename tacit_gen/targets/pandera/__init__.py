"""The pandera target: `render` (contract -> artifact), `read` (artifact -> clauses), `engine` (verify); the package builds `TARGET`."""

from tacit_gen.targets.pandera.render import PanderaTarget

TARGET = PanderaTarget()

__all__ = ["TARGET"]
