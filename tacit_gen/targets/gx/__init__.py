"""The gx target: `render` (contract -> artifact), `read` (artifact -> clauses), `engine` (verify),
bound together in `target`."""

from tacit_gen.targets.gx.target import TARGET

__all__ = ["TARGET"]
