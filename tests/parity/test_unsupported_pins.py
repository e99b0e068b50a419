"""The pins of `tests/parity/unsupported.py` hold: each parity contract's render declares exactly
the pinned clauses unsupported in every target with an engine, and a pin that does not match fails
(the parity suites then never accept an `n/a` the pins do not list)."""

from __future__ import annotations

import pytest

from tests.conftest import BUNDLED, engine_targets, record_targets, value_targets
from tests.parity import harness
from tests.parity.unsupported import UNSUPPORTED

NAMES = sorted({p.stem for p in BUNDLED} | set(harness.FIXTURES))


def test_every_parity_contract_is_pinned() -> None:
    assert sorted(UNSUPPORTED) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_the_render_declares_exactly_the_pins(name: str) -> None:
    got = harness.unsupported(name, engine_targets())
    assert set(got) == set(engine_targets())


def test_a_clause_newly_declared_unsupported_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """A renderer that started declaring a clause unsupported would turn its verdicts into n/a;
    the harness refuses it instead of passing."""
    from tests.parity import unsupported as pins

    name, checker, record = "fct_sensor_readings", value_targets()[0], record_targets()[0]
    real = harness.unsupported(name, (checker, record))
    assert real[checker] == set() and real[record]
    # the record schema's pin missing one clause: the render's declaration no longer matches
    table = {**pins.UNSUPPORTED, name: {**pins.UNSUPPORTED[name],
                                        record: tuple(sorted(real[record]))[1:]}}
    monkeypatch.setattr(pins, "UNSUPPORTED", table)
    with pytest.raises(AssertionError, match="differ from the pins"):
        harness.unsupported(name, (checker, record))
    monkeypatch.setattr(pins, "UNSUPPORTED", {name: {checker: ()}})
    with pytest.raises(AssertionError, match="no unsupported set pinned"):
        harness.unsupported(name, (checker, record))
