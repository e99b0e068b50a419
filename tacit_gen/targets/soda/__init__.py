"""The soda target: `render` (contract -> artifact), `read` (artifact -> clauses), `engine` (verify); the package builds `TARGET`."""

from tacit_gen.targets.soda.render import SodaTarget

TARGET = SodaTarget()

__all__ = ["TARGET"]
