"""The pandera target: `render` (contract -> artifact), `read` (artifact -> clauses), `engine` (verify)."""

from tacit_gen.targets.pandera.render import TARGET

__all__ = ["TARGET"]
