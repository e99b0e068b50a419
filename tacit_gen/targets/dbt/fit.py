"""The dbt engine's self-fit: a model whose enforced contract the data does not meet is fitted
to the data (its columns' types, its missing columns dropped with the tests that read them), so
the rest of the build still gives every other clause its verdict."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from tacit_gen.targets.dbt.render import jinja_unsafe

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause

__all__ = ["self_fit_contract"]


def self_fit_contract(
    model: dict[str, Any], rows: list[tuple[str, str, str, str]], clauses_by_id: dict[str, Clause]
) -> set[str]:
    """Fit the enforced contract of `model` (its properties entry) to the data so the rest of
    the build runs; return the missing columns."""
    missing: set[str] = set()
    cols = model.get("columns") or []
    by_name = {str(c.get("name")): c for c in cols}
    for col, defn, _want, reason in rows:
        if reason == "missing in definition":
            missing.add(col)
        elif reason == "missing in contract":
            cols.append({"name": col, "data_type": defn})
        elif col in by_name:
            by_name[col]["data_type"] = defn
    if missing:
        model["columns"] = [c for c in cols if str(c.get("name")) not in missing]
        kept = []
        for t in model.get("data_tests") or []:
            body = next(iter(t.values())) if isinstance(t, dict) and len(t) == 1 else t
            body = body if isinstance(body, dict) else {}
            cid = str(
                jinja_unsafe(((body.get("config") or {}).get("meta") or {}).get("tacit_clause", ""))
            )
            if cid in clauses_by_id:
                reads = set(clauses_by_id[cid].columns)
            else:
                text = json.dumps(body.get("arguments") or body, sort_keys=True, default=str)
                reads = {
                    m
                    for m in missing
                    if re.search(rf"(?<![A-Za-z0-9_]){re.escape(m)}(?![A-Za-z0-9_])", text)
                }
            if not reads & missing:
                kept.append(t)
        model["data_tests"] = kept
    return missing
