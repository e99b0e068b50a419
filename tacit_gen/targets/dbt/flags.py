"""dbt-common's behavior flags, named without reading the stack's source (docs/engines/dbt.md).

Imports nothing of dbt's until called: the dbt engine calls it once it imports dbt.
"""

from __future__ import annotations


def flag_source_from_frames() -> None:
    """dbt-common names where each behavior flag was declared (``BehaviorFlagRendered
    ._default_source``, a string in a log event) by walking ``inspect.stack()``, which reads
    the source lines of EVERY frame of the stack, every time an adapter is made (several times
    per invocation). Under a deep stack in a process with many modules (a test worker that has
    imported every engine) that was most of a dbt invocation's CPU: a frame whose file is no
    module's (a jinja template, code run by ``exec``) makes ``inspect.getmodule`` scan all of
    ``sys.modules``. The same answer, the first frame's module that is not dbt-common's own,
    is found walking the frames without reading sources (docs/engines/dbt.md). Applied once
    per process; left alone where dbt-common has no such method."""
    import inspect
    import sys

    try:
        from dbt_common import behavior_flags
    except ImportError:
        return
    cls = getattr(behavior_flags, "BehaviorFlagRendered", None)
    if cls is None or not hasattr(cls, "_default_source") or getattr(cls, "_tacit_gen", False):
        return
    own = behavior_flags.__name__

    def _default_source() -> str:
        frame = sys._getframe(1)
        while frame is not None:
            module = inspect.getmodule(frame)
            if module is not None and module.__name__ != own:
                return module.__name__
            frame = frame.f_back  # type: ignore[assignment]
        return "Unknown"

    cls._tacit_gen_original = cls._default_source  # dbt-common's own, for the tests to compare
    cls._default_source = staticmethod(_default_source)
    cls._tacit_gen = True
