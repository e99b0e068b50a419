"""The soda target: `SodaTarget` of `render.py` bound to the reader of `read.py`; `engine.py` is what
`verify` runs. The registry finds `TARGET` through the package."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tacit_gen.targets.soda.render import SodaTarget

if TYPE_CHECKING:
    from pathlib import Path

    from tacit_gen.drift.base import ReadResult


class Target(SodaTarget):
    """Everything about the soda target (see `tacit_gen.targets.base.Target`)."""

    def read(self, path: Path, text: str) -> ReadResult:
        # imported here, not at the top: render never pays for the reader (issue 16)
        from tacit_gen.targets.soda.read import read as read_artifact

        return read_artifact(path, text)


TARGET = Target()
