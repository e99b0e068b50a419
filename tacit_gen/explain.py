"""`tacit-gen explain`: the clause plan as a table, and the per-target support matrix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.contract.model import Contract
from tacit_gen.plan_types import Clause

if TYPE_CHECKING:
    from tacit_gen.targets.base import RenderOptions


def render_plan(contract: Contract, clauses: tuple[Clause, ...], width: int | None = None) -> str:
    """The plan as a terminal table; within `width` columns (None: no limit) the id, columns and
    text columns wrap, never cut (`--format json` has every text verbatim)."""
    from tacit_gen.console import fit_table
    from tacit_gen.textsafe import printable

    def cell(text: str) -> str:
        return printable(" ".join(text.split()), None)

    # a warn clause is marked in its kind column (`range (warn)`): reported apart, fails nothing
    rows = [[cell(c.id), c.kind + (" (warn)" if c.warn else ""), ", ".join(c.columns),
             str(c.line or "-"), cell(c.text)]
            for c in clauses]
    from tacit_gen.plan import unenforced

    head = f"{contract.name} {contract.version} ({contract.path}): {len(clauses)} clauses"
    if width is not None and len(head) > width:  # a long path: the count on a line of its own
        import textwrap

        head = "\n".join(textwrap.wrap(head, max(width, 20), subsequent_indent="  ",
                                        break_long_words=False, break_on_hyphens=False))
    out = head + "\n" + "\n".join(fit_table(["id", "kind", "columns", "line", "text"], rows, width,
                                            wrap_cols=((2, 14), (0, 16), (4, 24))))
    extra = unenforced(contract)
    if extra:
        out += "\n\nstated but not checked by any clause:\n" + _notes(
            [f"line {line}: {text}: {why}" for line, text, why in extra], width)
    waived = [f for f in contract.fields if f.lint_allow]
    if waived:
        out += "\n\nlint waivers:\n" + _notes(
            [f"line {f.pos.line}: {f.name}: {', '.join(f.lint_allow)}: {f.lint_reason}"
             for f in waived], width)
    return out


def _notes(notes: list[str], width: int | None) -> str:
    """Note lines indented two columns; within `width` each wraps at word boundaries, the rest
    of a note indented four columns (a word longer than the width is kept whole, never cut)."""
    if width is None:
        return "\n".join(f"  {n}" for n in notes)
    import textwrap

    out: list[str] = []
    for n in notes:
        out += textwrap.wrap(n, max(width, 20), initial_indent="  ", subsequent_indent="    ",
                             break_long_words=False, break_on_hyphens=False) or ["  "]
    return "\n".join(out)


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


def render_matrix(matrix: dict[str, Any], width: int | None = None) -> str:
    """The support matrix as a table; within `width` the clause column wraps."""
    from tacit_gen.console import fit_table
    from tacit_gen.textsafe import printable

    targets = matrix["targets"]
    rows = []
    notes = []
    for row in matrix["clauses"]:
        cells = [printable(" ".join(row["id"].split()), None)]
        for t in targets:
            v = row[t]
            cells.append("yes" if v == "yes" else "NO")
            if v != "yes":
                notes.append(f"{t} / {row['id']}: {v}")
        rows.append(cells)
    out = "\n".join(fit_table(["clause", *targets], rows, width, wrap_cols=((0, 20),)))
    if notes:
        out += "\n\nnot expressible:\n" + _notes(notes, width)
    return out
