"""dbt-common's behavior flags name their source without reading the stack's source
(`tacit_gen.targets.dbt.flags.flag_source_from_frames`, docs/engines/dbt.md): the same module
dbt-common's own `inspect.stack()` walk names, and `inspect.stack` is never called."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from dbt_common import behavior_flags

from tacit_gen.targets.dbt.flags import flag_source_from_frames


def _flag_source() -> str:
    flags = behavior_flags.Behavior([{"name": "tacit_probe", "default": False, "description": "d"}], {})
    return str(flags.tacit_probe._behavior_change_event.flag_source)


def test_the_source_is_the_module_that_made_the_flags_and_no_source_is_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    flag_source_from_frames()
    cls: Any = behavior_flags.BehaviorFlagRendered
    assert cls._tacit_gen is True

    def no_stack(*_: object, **__: object) -> None:
        raise AssertionError("inspect.stack() called")

    with monkeypatch.context() as m:
        m.setattr(inspect, "stack", no_stack)
        got = _flag_source()
    assert got == __name__
    flag_source_from_frames()  # twice: still one replacement, the same answer
    assert _flag_source() == __name__


def test_dbt_commons_own_method_names_the_same_module() -> None:
    flag_source_from_frames()
    cls: Any = behavior_flags.BehaviorFlagRendered
    assert cls._default_source() == cls._tacit_gen_original() == __name__
