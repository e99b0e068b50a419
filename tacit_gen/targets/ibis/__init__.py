"""The ibis target: `render` (contract -> artifact), `read` (artifact -> clauses), `engine` (verify)."""

from tacit_gen.targets.ibis.render import TARGET

__all__ = ["TARGET"]
