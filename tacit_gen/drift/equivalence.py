"""Are two invariants the same statement? Decided by truth table under SQL CHECK semantics.

Hand-written artifacts say things their own way: the seed's dbt example writes
``value_degc is not null or quality = 'bad'`` where the contract says
``value_degc is null only when quality = bad``. Both reject exactly the same rows, so `check
--artifact` must not call that drift. Every combination of values that matter (NULL, each literal
of either expression and its neighbours) is evaluated with three-valued logic; a row violates an
invariant only when it is FALSE, and the two must agree on every row.
"""

from __future__ import annotations

import itertools
from decimal import Decimal
from typing import Any

from tacit_gen.contract.model import Contract
from tacit_gen.expr import nodes as n

MAX_ROWS = 20_000


def _literals(*nodes: n.Node) -> tuple[list[Decimal], list[str]]:
    nums: list[Decimal] = []
    texts: list[str] = []
    for root in nodes:
        for x in n.walk(root):
            if isinstance(x, n.Number) and Decimal(x.text) not in nums:
                nums.append(Decimal(x.text))
            elif isinstance(x, n.String | n.EnumLiteral):
                v = x.value
                if v not in texts:
                    texts.append(v)
    return nums, texts


def _domain(contract: Contract, column: str, nums: list[Decimal], texts: list[str]) -> list[Any] | None:
    f = contract.field(column)
    if f is None:
        return None
    t = f.type
    if t.is_numeric:
        vals: list[Any] = [None, Decimal(0)]
        for k in nums:
            for v in (k - 1, k, k + 1):
                if v not in vals:
                    vals.append(v)
        return vals
    if t.kind == "enum":
        return [None, *t.values]
    if t.kind == "string":
        return [None, *texts, "\x00other"]
    if t.kind == "bool":
        return [None, True, False]
    return None  # temporal columns: not decided here


def equivalent(contract: Contract, a: n.Node, b: n.Node) -> bool:
    """True when the two resolved invariants reject exactly the same rows."""
    from tacit_gen.semantics.evaluate import evaluate

    cols = sorted(set(n.columns(a)) | set(n.columns(b)))
    nums, texts = _literals(a, b)
    domains = []
    for c in cols:
        d = _domain(contract, c, nums, texts)
        if d is None:
            return False
        domains.append(d)
    size = 1
    for d in domains:
        size *= len(d)
    if size > MAX_ROWS:
        return False
    for combo in itertools.product(*domains):
        row = dict(zip(cols, combo, strict=True))
        try:
            if (evaluate(a, row) is False) != (evaluate(b, row) is False):
                return False
        except Exception:
            return False
    return True
