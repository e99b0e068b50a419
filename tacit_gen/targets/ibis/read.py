"""Read a generated ibis module back into clauses, with `ast` only (the module is never imported).

What the runtime checks is what the reader returns:

- ``column:<c>`` and ``no_unknown_columns`` come from the annotations (``Annotated[T, Column(...)]``),
  which `cast()` checks; their text and line from the ``Column(text=..., line=...)`` keywords
  or a matching ``__clauses__`` entry.
- every other clause comes from ``__clauses__`` (``clause(...)`` in keyword form, or a full
  ``Clause(...)`` literal); a ``Column(nullable=False)`` without a ``not_null:`` entry, or an
  ``enum[...]`` column without ``accepted_values:``, still yields the clause the runtime derives
  from it (with the column's text and line).
- ``__strict__ = False`` drops ``no_unknown_columns``.

A ``__clauses__`` column entry that contradicts its annotation makes the module fail at import
(`SchemaDefinitionError`); it is reported as a `PARAM_CHANGED` finding.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tacit_gen.contract.types import TypeSyntaxError, parse_type
from tacit_gen.drift.base import PARAM_CHANGED, UNREADABLE, Finding, ReadResult
from tacit_gen.plan_types import KINDS, Clause, clause, make_params
from tacit_gen.targets.header import parse_header
from tacit_gen.targets.kinds import Form, FormTable

_COLUMN_KEYS = ("column", "type", "unit", "dimension")


class _Unreadable(ValueError):
    pass


def _call_kwargs(node: ast.AST, func: str | tuple[str, ...]) -> dict[str, Any]:
    funcs = (func,) if isinstance(func, str) else func
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in funcs):
        raise _Unreadable(f"expected a {' or '.join(f + '(...)' for f in funcs)} call, found "
                          f"{ast.unparse(node)[:80]!r}")
    func = node.func.id
    if node.args:
        raise _Unreadable(f"{func}(...) must use keyword arguments only")
    out: dict[str, Any] = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise _Unreadable(f"{func}(**...) is not readable")
        try:
            out[kw.arg] = ast.literal_eval(kw.value)
        except ValueError as e:
            raise _Unreadable(f"{func}({kw.arg}=...) is not a literal: {e}") from None
    return out


def _column_of(annotation: ast.AST) -> dict[str, Any] | None:
    """Column(...) kwargs of ``Annotated[T, Column(...)]``, else None."""
    if not (isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name)):
        return None
    if annotation.value.id != "Annotated" or not isinstance(annotation.slice, ast.Tuple):
        return None
    for meta in annotation.slice.elts[1:]:
        if isinstance(meta, ast.Call) and isinstance(meta.func, ast.Name) and meta.func.id == "Column":
            return _call_kwargs(meta, "Column")
    return None


def _schema_class(tree: ast.Module) -> ast.ClassDef:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
            (isinstance(b, ast.Name) and b.id == "Schema")
            or (isinstance(b, ast.Attribute) and b.attr == "Schema")
            for b in node.bases
        ):
            return node
    raise _Unreadable("no Schema subclass in the module")


def _rank(c: Clause) -> int:
    return KINDS.index(c.kind) if c.kind in KINDS else len(KINDS)


def read_module(path: Path, text: str) -> ReadResult:
    """Clauses (as the runtime would check them) and findings from one generated module."""
    p = str(path)
    header = parse_header(text)
    hc, hv, hh = header if header else (None, None, None)
    try:
        tree = ast.parse(text)
        cls = _schema_class(tree)
        clauses, findings = _read_class(cls, p)
    except (SyntaxError, _Unreadable, TypeSyntaxError) as e:
        return ReadResult(
            clauses=(),
            findings=(Finding(UNREADABLE, p, f"cannot read the ibis module: {e}"),),
            header_contract=hc,
            header_version=hv,
            header_hash=hh,
        )
    return ReadResult(
        clauses=clauses,
        findings=tuple(findings),
        header_contract=hc,
        header_version=hv,
        header_hash=hh,
    )


def _clause_entry(kw: dict[str, Any]) -> Clause:
    """A ``__clauses__`` entry's ``Clause(...)`` keywords as the clause."""
    return Clause(
        id=str(kw["id"]),
        kind=str(kw["kind"]),
        columns=tuple(kw.get("columns", ())),
        params=tuple(tuple(p) for p in kw.get("params", ())),
        text=str(kw.get("text", "")),
        line=int(kw.get("line", 0)),
        severity=str(kw.get("severity", "error")),
    )


def _keyword_entry(kw: dict[str, Any]) -> Clause:
    """A ``clause(...)`` entry (`tacit_gen.runtime.clause`) as the clause it makes."""
    try:
        return clause(**kw)
    except (TypeError, KeyError, ValueError) as e:
        raise _Unreadable(f"clause(...) is not a clause: {e}") from None


# A ``__clauses__`` entry states a clause of any kind as the runtime evaluates it; the
# annotations restate the structural ones (`_read_class`).
READ: FormTable[Callable[[dict[str, Any]], Clause]] = FormTable("ibis", {
    "Clause": Form(tuple(KINDS), _clause_entry),
    "clause": Form(tuple(KINDS), _keyword_entry),
}, elsewhere={
    "column": "an Annotated[T, Column(...)] attribute",
    "not_null": "Column(nullable=False)",
    "accepted_values": "an enum[...] Column type",
    "no_unknown_columns": "the annotations, unless __strict__ = False",
})


def _read_class(cls: ast.ClassDef, path: str) -> tuple[tuple[Clause, ...], list[Finding]]:
    columns: list[tuple[str, dict[str, Any]]] = []
    explicit: list[Clause] = []
    strict = True
    time: str | None = None  # __time__: the time column since= selects on
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            attr = stmt.target.id
            if attr.startswith("_"):
                continue
            col = _column_of(stmt.annotation)
            if col is None:
                raise _Unreadable(f"column {attr!r} has no Annotated[..., Column(...)]")
            columns.append((str(col.get("name") or attr), col))
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if not isinstance(target, ast.Name):
                continue
            if target.id == "__clauses__":
                if not isinstance(stmt.value, ast.Tuple | ast.List):
                    raise _Unreadable("__clauses__ is not a tuple of Clause(...)")
                for el in stmt.value.elts:
                    kw = _call_kwargs(el, tuple(READ.rules))
                    assert isinstance(el, ast.Call) and isinstance(el.func, ast.Name)
                    form = READ.get(el.func.id)
                    assert form is not None
                    explicit.append(form.read(kw))
            elif target.id == "__strict__":
                strict = bool(ast.literal_eval(stmt.value))
            elif target.id == "__time__":
                value = ast.literal_eval(stmt.value)
                time = str(value) if value is not None else None

    findings: list[Finding] = []
    by_id = {c.id: c for c in explicit}
    out: dict[str, Clause] = {}
    for c in explicit:
        if c.kind == "no_unknown_columns" and not strict:
            continue
        out[c.id] = c
    for name, col in columns:
        type_text = str(parse_type(str(col.get("type"))))
        params = make_params(
            column=name, type=type_text, unit=col.get("unit"), dimension=col.get("dimension"),
            time=name == time,
        )
        cid = f"column:{name}"
        have = by_id.get(cid)
        if have is not None:
            listed = {k: have.param(k) for k in _COLUMN_KEYS}
            operative = dict(params)
            if listed != {k: operative.get(k) for k in _COLUMN_KEYS}:
                findings.append(
                    Finding(
                        PARAM_CHANGED, path,
                        "the annotation and its __clauses__ entry disagree (the module fails "
                        "at import)",
                        clause_id=cid, expected=repr(listed), found=repr(operative),
                    )
                )
        text, line = col.get("text"), int(col.get("line", 0))
        out[cid] = Clause(cid, "column", (name,), params,
                          have.text if have else str(text or f"{name}: {type_text}"),
                          have.line if have else line)
        if col.get("nullable") is False and f"not_null:{name}" not in out:
            out[f"not_null:{name}"] = Clause(
                f"not_null:{name}", "not_null", (name,), make_params(column=name),
                str(text or f"{name}: nullable: false"), line,
            )
        dtype = parse_type(type_text)
        if dtype.kind == "enum" and f"accepted_values:{name}" not in out:
            out[f"accepted_values:{name}"] = Clause(
                f"accepted_values:{name}", "accepted_values", (name,),
                make_params(column=name, values=dtype.values), f"{name}: {dtype}",
            )
    for cid in [c for c in out if out[c].kind == "column" and c.split(":", 1)[1] not in
                {n for n, _ in columns}]:
        del out[cid]  # a __clauses__ column entry without an annotation is not checked
    if strict:
        names = tuple(n for n, _ in columns)
        have = by_id.get("no_unknown_columns")
        out["no_unknown_columns"] = Clause(
            "no_unknown_columns", "no_unknown_columns", names, make_params(columns=names),
            have.text if have else "columns: " + ", ".join(names), have.line if have else 0,
        )
    return tuple(sorted(out.values(), key=_rank)), findings
