"""Deterministic synthetic data for a contract: clean data, or data that breaks exactly one clause.

``sample(contract, clauses)`` builds rows that satisfy every clause of the plan; with
``violate="<clause id>"`` it changes the data as little as possible so that this one clause fails
and every other clause still passes. Both are proved by the reference verdicts of
``tacit_gen.sample.verdicts`` (``check_sample``): SQL three-valued logic over the resolved invariant AST, and the semantics of
``docs/architecture.md`` for every other clause kind. ``write()`` stores the data as CSV or Parquet,
with the catalog next to it.

Determinism: one ``random.Random(seed)`` (string seeds are hashed with SHA-512 by ``random``, never
with ``hash()``), integer arithmetic for every generated number, no set iteration. The same
contract, seed, rows and ``now`` give byte-identical files on any machine and any hash seed.
See docs/sample.md.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import localcontext
from typing import TYPE_CHECKING

from tacit_gen.sample.generate import Context, clean_rows
from tacit_gen.sample.model import (
    DEFAULT_NOW,
    DEFAULT_ROWS,
    ClauseCheck,
    SampleData,
    SampleError,
    from_rows,
)
from tacit_gen.sample.verdicts import check_sample, violated_clauses
from tacit_gen.sample.violations import candidates
from tacit_gen.sample.writing import catalog_path_for, ref_path_for, write
from tacit_gen.semantics.catalog import CatalogData, CatalogSpec, catalog_spec
from tacit_gen.semantics.evaluate import evaluate
from tacit_gen.semantics.references import point_at_own_rows, relation_columns

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause

__all__ = [
    "DEFAULT_NOW",
    "DEFAULT_ROWS",
    "CatalogData",
    "CatalogSpec",
    "ClauseCheck",
    "SampleData",
    "SampleError",
    "catalog_path_for",
    "catalog_spec",
    "check_sample",
    "evaluate",
    "ref_path_for",
    "sample",
    "violated_clauses",
    "write",
]


def sample(
    contract: Contract,
    clauses: Sequence[Clause],
    rows: int = DEFAULT_ROWS,
    seed: int = 0,
    violate: str | None = None,
    now: datetime | None = None,
) -> SampleData:
    """Synthetic data for a contract: valid for every clause, or breaking exactly ``violate``.

    Args:
        contract, clauses: the loaded contract and its plan.
        rows: data rows of the clean data (a violation may add one row).
        seed: the random seed; same inputs, same data, byte for byte.
        violate: a clause id of the plan to break, or None for clean data.
        now: the "now" the data is fresh for (timezone-aware); default 2024-01-02T15:00:00Z.

    Raises:
        SampleError: unknown clause id, rows < 1, or a violation the data cannot carry.
    """
    # DECIMAL(38) values and their bounds need more than the default 28 digits: with them every
    # quantize and scaleb is exact, so a bound at the edge of a type is never InvalidOperation.
    with localcontext() as dctx:
        dctx.prec = 120
        dctx.Emax, dctx.Emin = 999_999, -999_999
        return _sample(contract, clauses, rows, seed, violate, now)


def _sample(contract: Contract, clauses: Sequence[Clause], rows: int, seed: int,
            violate: str | None, now: datetime | None) -> SampleData:
    if rows < 1:
        raise SampleError("rows must be at least 1")
    if now is None:
        now = DEFAULT_NOW
    if now.tzinfo is None:
        raise SampleError("now must be timezone-aware")
    now = now.astimezone(UTC)
    ctx = Context(contract, clauses)
    data_rows, catalog = clean_rows(ctx, rows, seed, now)
    types = {name: str(ctx.cols[name].type) for name in ctx.names}
    point_at_own_rows(clauses, data_rows, contract.name)  # a self reference: parents in the data
    refs = relation_columns(clauses, data_rows, contract.name)  # what `references:` reads
    others = [c for c in clauses if c.kind == "references" and c.param("to_relation") != contract.name]
    ref_types: dict[str, dict[str, str]] = {str(c.param("to_relation")): {} for c in others}
    for c in others:
        ref_types[str(c.param("to_relation"))][str(c.param("to_column"))] = types[str(c.param("column"))]
    clean = SampleData(contract.name, from_rows(ctx.names, data_rows), types, now, catalog, refs=refs,
                       ref_types=ref_types)
    bad = violated_clauses(clean, clauses)
    if bad:
        raise SampleError(f"{contract.name}: generated data violates {', '.join(bad)} (a bug)")
    if violate is None:
        return clean
    if violate not in ctx.by_id:
        raise SampleError(f"unknown clause {violate!r}; the plan has: "
                          + ", ".join(c.id for c in ctx.clauses))
    clause = ctx.by_id[violate]
    best: SampleData | None = None
    for cand in candidates(ctx, clause, data_rows, types, catalog, seed):
        data = SampleData(contract.name, from_rows(cand.names, cand.rows), cand.types, now,
                          cand.catalog or catalog, violate=violate, description=cand.description,
                          refs=refs, ref_types=ref_types)
        got = violated_clauses(data, clauses)
        if violate not in got:
            continue
        data = replace(data, violated=got)
        if got == (violate,):
            return data
        if best is None or len(got) < len(best.violated):
            best = data
    if best is None:
        raise SampleError(f"cannot build data that violates {violate!r} "
                          f"with {rows} rows; try more rows")
    return best
