"""The gx target: `render` (contract -> artifact), `read` (artifact -> clauses), `engine` (verify)."""

from tacit_gen.targets.gx.render import TARGET

__all__ = ["TARGET"]
