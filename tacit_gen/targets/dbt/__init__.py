"""The dbt target: `render` (contract -> artifact), `read` (artifact -> clauses), `engine` (verify)."""

from tacit_gen.targets.dbt.render import TARGET

__all__ = ["TARGET"]
