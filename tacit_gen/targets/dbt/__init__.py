"""The dbt target: `render` (contract -> artifact), `read` (artifact -> clauses), `engine` (verify); the package builds `TARGET`."""

from tacit_gen.targets.dbt.render import DbtTarget

TARGET = DbtTarget()

__all__ = ["TARGET"]
