"""Great Expectations: the suite document (expectations with their clause meta), deterministic JSON.

What every expectation of a clause shares is said once, in the suite's ``meta``: the clause's
contract text (``tacit_clauses``: id -> text, as dbt's model meta) and the parameters a
custom-SQL clause is rendered from (``tacit_params``: id -> params, for the reader). An
expectation's own ``meta`` holds the clause id, and only what is about that expectation
(``tacit_type``, ``tacit_types``, ``tacit_now``). ``severity`` is written only for a warning:
``critical`` is GX's default.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen import jsontext
from tacit_gen.targets.base import Unsupported
from tacit_gen.targets.gx.compile import (
    NAME,
    NOW_TOKEN,
    WARN_SEVERITY,
    expectations_for,
    params_meta,
)
from tacit_gen.targets.gx.invariants import NoNative
from tacit_gen.targets.gx.queries import CUSTOM_SQL
from tacit_gen.targets.header import header_meta

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause


def _sorted(d: dict[str, Any]) -> dict[str, Any]:
    return {k: d[k] for k in sorted(d)}


def build_expectation(exp: dict[str, Any], clause: Clause) -> dict[str, Any]:
    meta: dict[str, Any] = {"tacit_clause": clause.id, **exp.get("meta", {})}
    if exp["type"] == CUSTOM_SQL and clause.kind == "freshness" \
            and NOW_TOKEN in exp["kwargs"]["unexpected_rows_query"].lower():
        meta["tacit_now"] = NOW_TOKEN
    out = {"type": exp["type"], "kwargs": _sorted(exp["kwargs"]), "meta": _sorted(meta)}
    if clause.warn:  # GX's default is critical
        out["severity"] = WARN_SEVERITY
    return out


def suite_document(contract: Contract, clauses: tuple[Clause, ...],
                   dialect: str = "duckdb") -> tuple[dict[str, Any], list[Unsupported]]:
    has_revision = contract.field("revision") is not None
    expectations: list[dict[str, Any]] = []
    unsupported: list[Unsupported] = []
    custom: list[str] = []
    texts: dict[str, str] = {}
    params: dict[str, Any] = {}
    for clause in clauses:
        try:
            exps = expectations_for(clause, has_revision, dialect)
        except (ValueError, NoNative) as e:
            unsupported.append(Unsupported(NAME, clause.id, str(e)))
            continue
        for exp in exps:
            expectations.append(build_expectation(exp, clause))
            texts[clause.id] = clause.text
            if exp["type"] == CUSTOM_SQL and clause.id not in custom:
                custom.append(clause.id)
                params[clause.id] = params_meta(clause)
    meta: dict[str, Any] = {
        "tacit_gen": header_meta(contract),
        "tacit_custom_sql": custom,
        "tacit_unsupported": [{"clause": u.clause_id, "reason": u.reason} for u in unsupported],
    }
    if dialect != "duckdb":
        meta["tacit_dialect"] = dialect
    meta["tacit_clauses"] = texts
    meta["tacit_params"] = params
    name = contract.target_option(NAME, "suite") or contract.name
    return {"name": str(name), "expectations": expectations, "meta": meta}, unsupported


def dump(doc: dict[str, Any]) -> str:
    """Deterministic JSON: key order as built, indent 2, an object or array that fits in 100
    columns on one line (``"kwargs": {"column": "symbol"}``), trailing newline."""
    return jsontext.dumps_fitted(doc) + "\n"

