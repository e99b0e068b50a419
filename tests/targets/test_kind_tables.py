"""Every clause-kind table of every registered target covers every kind of `KINDS`, or declares
the kind unsupported with a reason: a kind added to `KINDS` fails here until each table has its
entry (`tacit_gen.targets.kinds`).

The tables are found, not listed: each module of each registered target's package is imported
and its `KindTable` and `FormTable` instances collected.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tacit_gen import plan_types, registry
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.kinds import FormTable, KindTable

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "seed" / "ohlcv_1m.yaml"

# Targets whose renderer and reader do not compile through tables yet: strict, so converting
# one fails here until it leaves this set.
NOT_YET_TABLES: frozenset[str] = frozenset()


def _package(name: str) -> str:
    module = type(registry.get(name)).__module__
    return module.rsplit(".", 1)[0] if module.count(".") > 2 else module


def defined_tables(name: str) -> list[tuple[ModuleType, str, KindTable[Any] | FormTable[Any]]]:
    """(module, attribute, table) of each table the modules of target `name`'s package hold for
    that target (a table is defined where its functions are and imported nowhere else)."""
    package = importlib.import_module(_package(name))
    modules = [package]
    if hasattr(package, "__path__"):
        modules += [importlib.import_module(f"{package.__name__}.{m.name}")
                    for m in pkgutil.iter_modules(package.__path__)]
    found: dict[int, tuple[ModuleType, str, KindTable[Any] | FormTable[Any]]] = {}
    for module in modules:
        for attr, value in vars(module).items():
            if isinstance(value, KindTable | FormTable) and value.target == name:
                found.setdefault(id(value), (module, attr, value))
    return sorted(found.values(), key=lambda t: t[2].role)


def tables_of(name: str) -> list[KindTable[Any] | FormTable[Any]]:
    return [table for _, _, table in defined_tables(name)]


ALL_TABLES = [(t, table) for t in registry.names() for table in tables_of(t)]


def uncovered(table: KindTable[Any] | FormTable[Any]) -> tuple[str, ...]:
    """The kinds of `plan_types.KINDS` as it is now (not as the table's default saw it)."""
    return table.uncovered(plan_types.KINDS)


@pytest.mark.parametrize(("target", "table"), ALL_TABLES,
                         ids=[f"{t}-{table.role}" for t, table in ALL_TABLES])
def test_table_covers_every_kind(target: str, table: KindTable[Any] | FormTable[Any]) -> None:
    assert uncovered(table) == (), f"{target} {table.role}: no entry and no unsupported reason"
    named = table.covered | frozenset(table.unsupported)
    assert named <= set(plan_types.KINDS), f"{target} {table.role}: kinds that are not clause kinds"
    assert all(reason.strip() for reason in table.unsupported.values())


@pytest.mark.parametrize("target", registry.names())
def test_target_renders_and_reads_through_tables(target: str, request: pytest.FixtureRequest) -> None:
    if target in NOT_YET_TABLES:
        request.applymarker(pytest.mark.xfail(strict=True, reason="not converted to tables yet"))
    roles = {table.role for table in tables_of(target)}
    assert {"render", "read"} <= roles


def test_a_new_kind_is_reported_by_every_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan_types, "KINDS", (*plan_types.KINDS, "brand_new_kind"))
    assert ALL_TABLES
    for _target, table in ALL_TABLES:
        assert uncovered(table) == ("brand_new_kind",)


def test_a_kind_both_handled_and_unsupported_is_refused() -> None:
    with pytest.raises(ValueError, match="not_null both handled and declared unsupported"):
        KindTable("x", "render", {"not_null": print}, {"not_null": "no reason"})


RENDER_TABLES = [(t, module, attr) for t in registry.names()
                 for module, attr, table in defined_tables(t) if table.role == "render"]


@pytest.mark.parametrize(("target", "module", "attr"), RENDER_TABLES,
                         ids=[f"{t}-{m.__name__.rsplit('.', 1)[-1]}.{a}" for t, m, a in RENDER_TABLES])
def test_a_kind_declared_unsupported_is_reported_with_its_reason(
        target: str, module: ModuleType, attr: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A renderer goes by its table: a kind moved to `unsupported` is reported, with the
    table's reason, for each clause of that kind, and never dropped silently."""
    contract = load(FIXTURE)
    clauses = plan(contract)
    ids = {c.id for c in clauses if c.kind == "not_null"}
    assert ids
    table = getattr(module, attr)
    reason = "declared unsupported by this test"
    monkeypatch.setattr(module, attr, KindTable(
        table.target, table.role, {k: f for k, f in table.rules.items() if k != "not_null"},
        {**table.unsupported, "not_null": reason}))
    result = registry.get(target).render(contract, clauses, RenderOptions())
    assert {u.clause_id for u in result.unsupported if u.reason == reason} == ids
