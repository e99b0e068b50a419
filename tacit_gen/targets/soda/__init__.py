"""The soda target: `render` (contract -> artifact), `read` (artifact -> clauses), `engine` (verify)."""

from tacit_gen.targets.soda.render import TARGET

__all__ = ["TARGET"]
