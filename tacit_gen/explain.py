"""`tacit-gen explain`: the clause plan as a table, and the per-target support matrix."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any

from tacit_gen.contract.model import Contract
from tacit_gen.plan_types import Clause
from tacit_gen.textsafe import text_table

if TYPE_CHECKING:
    from tacit_gen.targets.base import RenderOptions


def _table(headers: list[str], rows: list[list[str]], max_last: int | None = None) -> str:
    return "\n".join(text_table(headers, rows, max_last))


def render_plan(contract: Contract, clauses: tuple[Clause, ...]) -> str:
    """The plan as a terminal table."""
    width = shutil.get_terminal_size((140, 20)).columns
    rows = [[c.id if len(c.id) <= 48 else c.id[:47] + "…", c.kind, ",".join(c.columns),
             str(c.line or "-"), c.text] for c in clauses]
    fixed = sum(max(len(h), *(len(r[i]) for r in rows)) + 2 for i, h in enumerate(["id", "kind", "columns", "line"]))
    from tacit_gen.plan import unenforced

    head = f"{contract.name} {contract.version} ({contract.path}): {len(clauses)} clauses"
    out = head + "\n" + _table(["id", "kind", "columns", "line", "text"], rows, width - fixed)
    extra = unenforced(contract)
    if extra:
        out += "\n\nstated but not checked by any clause:\n" + "\n".join(
            f"  line {line}: {text}: {why}" for line, text, why in extra)
    waived = [f for f in contract.fields if f.lint_allow]
    if waived:
        out += "\n\nlint waivers:\n" + "\n".join(
            f"  line {f.pos.line}: {f.name}: {', '.join(f.lint_allow)}: {f.lint_reason}"
            for f in waived)
    return out


def support_matrix(contract: Contract, clauses: tuple[Clause, ...],
                   options: RenderOptions | None = None) -> dict[str, Any]:
    """Render to every target in memory and record, per clause, whether each target expresses it
    (with `options`: the project's settings; default: every target's defaults)."""
    from tacit_gen import registry
    from tacit_gen.targets.base import RenderOptions

    options = options or RenderOptions()
    status: dict[str, dict[str, str]] = {c.id: {} for c in clauses}
    for name in registry.names():
        try:
            result = registry.get(name).render(contract, clauses, options)
        except Exception as e:  # a target that crashes is reported, not hidden
            for c in clauses:
                status[c.id][name] = f"error: {e}"
            continue
        missing = {u.clause_id: u.reason for u in result.unsupported}
        for c in clauses:
            status[c.id][name] = f"unsupported: {missing[c.id]}" if c.id in missing else "yes"
    return {"contract": contract.name, "targets": list(registry.names()),
            "clauses": [{"id": c.id, "kind": c.kind, **status[c.id]} for c in clauses]}


def render_matrix(matrix: dict[str, Any]) -> str:
    targets = matrix["targets"]
    rows = []
    notes = []
    for row in matrix["clauses"]:
        cells = [row["id"] if len(row["id"]) <= 48 else row["id"][:47] + "…"]
        for t in targets:
            v = row[t]
            cells.append("yes" if v == "yes" else "NO")
            if v != "yes":
                notes.append(f"  {t} / {row['id']}: {v}")
        rows.append(cells)
    out = _table(["clause", *targets], rows)
    if notes:
        out += "\n\nnot expressible:\n" + "\n".join(notes)
    return out
