"""Load a contract file into the typed model, reporting every problem with path:line:col.

Nothing downstream reads raw YAML. `load` raises `ContractError` with all error diagnostics of a
file; `load_report` returns the contract (or None) with every diagnostic, warnings included.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from tacit_gen.contract import names, yamlpos
from tacit_gen.contract.errors import ContractError, Diagnostic
from tacit_gen.contract.loader.base import (
    CALENDAR_KEYS,
    CATALOG_KEYS,
    COMPAT_MODES,
    EVOLUTION_KEYS,
    FIELD_KEYS,
    IDENT,
    IMPLIED_PROVENANCE,
    LINT_WAIVER_KEYS,
    PER_SERIES_CALENDAR,
    REVISION_KEYS,
    SEMVER,
    SEVERITY_KEYS,
    TIME_KEYS,
    TOP_KEYS,
    Ctx,
    check_keys,
    expect,
    key_node,
    misspelled,
    name_list,
    parse_duration,
    pos_of,
    positions,
    text_value,
    value_offset,
)
from tacit_gen.contract.loader.catalog import load_calendar, load_catalog, load_evolution
from tacit_gen.contract.loader.fields import PLAUSIBLE_SOURCES, load_field, plausible_series
from tacit_gen.contract.loader.paths import (
    canonical_data,
    display_path,
    portable_path,
    project_root,
    root_of,
)
from tacit_gen.contract.loader.revision import load_revision, load_severity
from tacit_gen.contract.loader.targets import load_targets
from tacit_gen.contract.loader.timing import load_time
from tacit_gen.contract.model import Contract, Evolution, Field, Invariant, Pos
from tacit_gen.contract.types import DataType
from tacit_gen.contract.yamlpos import YNode
from tacit_gen.diagnostics import close_matches

__all__ = [
    "CALENDAR_KEYS",
    "CATALOG_KEYS",
    "COMPAT_MODES",
    "EVOLUTION_KEYS",
    "FIELD_KEYS",
    "IDENT",
    "IMPLIED_PROVENANCE",
    "LINT_WAIVER_KEYS",
    "PER_SERIES_CALENDAR",
    "PLAUSIBLE_SOURCES",
    "REVISION_KEYS",
    "SEMVER",
    "SEVERITY_KEYS",
    "TIME_KEYS",
    "TOP_KEYS",
    "canonical_data",
    "display_path",
    "load",
    "load_report",
    "load_rooted",
    "parse_duration",
    "portable_path",
    "positions",
    "project_root",
]


def _hash(data: Any) -> str:
    blob = json.dumps(data, sort_keys=True, default=str, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _portable(ctx: Ctx) -> str:
    """`portable_path` of the file being loaded (its realpath already known); its project root
    is kept on `ctx`."""
    resolved = ctx.resolved or os.path.realpath(ctx.file)
    ctx.root = root_of(resolved)
    return Path(os.path.relpath(resolved, ctx.root)).as_posix()


def load_rooted(path: str | os.PathLike[str]) -> tuple[Contract, Path]:
    """`load`, with the contract's `project_root` (found while loading: the path is resolved,
    and its folders walked, once for both).

    Raises:
        ContractError: with every error diagnostic of the file.
    """
    contract, diags, root = _load(path, None)
    if contract is None:
        raise ContractError([d for d in diags if d.severity == "error"])
    return contract, Path(root if root is not None else root_of(os.path.realpath(path)))


def load_report(
    path: str | os.PathLike[str], text: str | None = None
) -> tuple[Contract | None, list[Diagnostic]]:
    """Load a contract and return it (None if it has errors) with every diagnostic.

    Args:
        path: the contract file (read unless `text` is given; `path` is then only for messages).
        text: the file's text, if already read.
    """
    contract, diags, _ = _load(path, text)
    return contract, diags


def _load(path: str | os.PathLike[str], text: str | None
          ) -> tuple[Contract | None, list[Diagnostic], str | None]:
    """`load_report`, and the project root when the contract was built (None before)."""
    resolved = os.path.realpath(path)
    shown = display_path(path, resolved)
    ctx = Ctx(shown, file=os.fspath(path), resolved=resolved)
    try:
        if text is None:
            text = yamlpos.read_text(path)
        root, dups, protected = yamlpos.compose(text)
    except yamlpos.YamlSyntaxError as e:
        at = f" at '{e.word}'" if e.word and e.code == "TG100" else ""
        ctx.diags.append(Diagnostic(shown, e.line, e.col, "error", e.code, f"{e}{at}", e.word))
        return None, ctx.diags, None
    ctx.protected = protected
    for dup, first in dups:
        ctx.error(
            dup,
            "TG101",
            f"duplicate key '{dup.raw}' (first at line {first.line}); YAML would silently keep the last",
            dup.raw,
        )
    if root is None or root.kind != "map":
        ctx.error(root, "TG103", "a contract is a mapping with 'contract', 'version', 'fields', ...",
                  root.raw if root is not None else "")
        return None, ctx.diags, None
    check_keys(ctx, root, TOP_KEYS, "the contract")
    contract = _build(ctx, root, text)
    if any(d.severity == "error" for d in ctx.diags):
        return None, ctx.sorted(), ctx.root
    return contract, ctx.sorted(), ctx.root


def load(path: str | os.PathLike[str], text: str | None = None) -> Contract:
    """Load a contract.

    Raises:
        ContractError: with every error diagnostic of the file.
    """
    contract, diags = load_report(path, text)
    if contract is None:
        raise ContractError([d for d in diags if d.severity == "error"])
    return contract


def _check_names(ctx: Ctx, root: YNode, name: str | None, name_node: YNode | None,
                 fields: list[Field], targets: tuple[Any, ...]) -> None:
    """Names across the contract: columns unique whatever the case, the class a contract name
    becomes, aliases and reserved names (TG115)."""
    seen: dict[str, Field] = {}
    for f in fields:
        first = seen.setdefault(f.name.lower(), f)
        if first is not f:
            ctx.error(f.pos, "TG115", f"column '{f.name}' differs from '{first.name}' (line {first.pos.line}) "
                      "only in case; warehouses fold unquoted names, so they would be one column", f.name)
    if name and name_node is not None:
        _target_checks(ctx, root, name, targets)
    fnode = root.get("fields")
    for k, v in fnode.value if fnode is not None and fnode.kind == "map" else ():
        alias_node = v.get("aliases") if v.kind == "map" else None
        for alias, an in name_list(ctx, alias_node, "aliases") if alias_node is not None else ():
            problem = names.name_problem(alias, f"alias of '{k.value}'")
            if problem is not None:
                ctx.error(an, "TG115", problem, alias)
    enode = root.get("evolution")
    rnode = enode.get("reserved") if enode is not None and enode.kind == "map" else None
    for reserved, rn in name_list(ctx, rnode, "reserved") if rnode is not None else ():
        problem = names.name_problem(reserved, "reserved name")
        if problem is not None:
            ctx.error(rn, "TG115", problem, reserved)


def _target_checks(ctx: Ctx, root: YNode, name: str, targets: tuple[Any, ...]) -> None:
    """The contract checks every registered target declares (`Target.check_contract`)."""
    from tacit_gen import registry

    keys = {t: dict(opts) for t, opts in targets}
    for t in registry.names():
        for problem in registry.get(t).check_contract(name, keys.get(t, {})):
            at = root.get(problem.at)
            ctx.error(at if at is not None else root, problem.code, problem.message, problem.word)


def _build(ctx: Ctx, root: YNode, text: str) -> Contract | None:
    name_node = root.get("contract")
    name = text_value(ctx, name_node, "'contract'")
    if name_node is None:
        if not misspelled(ctx, root, "contract"):
            ctx.error(root, "TG104", "the contract has no 'contract' name", "contract")
    elif name is not None and (problem := names.name_problem(name, "contract name")) is not None:
        ctx.error(name_node, "TG115", problem, name)
        name = None
    vnode = root.get("version")
    version = None
    if vnode is None:
        if not misspelled(ctx, root, "version"):
            ctx.error(root, "TG104", "the contract has no 'version'", "version")
    elif vnode.kind != "scalar" or not SEMVER.fullmatch(vnode.raw):
        ctx.error(vnode, "TG113", f"version '{vnode.raw}' is not semver (MAJOR.MINOR.PATCH)", vnode.raw)
    else:
        version = vnode.raw
    # key
    knode = root.get("key")
    key = name_list(ctx, knode, "'key'", once=True)
    key_cols = {k for k, _ in key}
    # fields
    fields: list[Field] = []
    broken: set[str] = set()  # fields whose definition has an error (reported already)
    fnode = root.get("fields")
    if fnode is None:
        if not misspelled(ctx, root, "fields"):
            ctx.error(root, "TG104", "the contract has no 'fields'", "fields")
    elif expect(ctx, fnode, "map", "'fields'"):
        if not fnode.value:  # `fields: {}`: a contract of no columns checks nothing
            ctx.error(fnode, "TG104", "'fields' is empty: a contract names at least one column",
                      fnode.raw or "fields")
        for k, v in fnode.value:
            f = load_field(ctx, k, v, key_cols)
            if f is not None:
                fields.append(f)
            elif k.kind == "scalar" and isinstance(k.value, str):
                broken.add(k.value)
    time = None
    tnode = root.get("time")
    if tnode is not None:
        time = load_time(ctx, tnode)
    # never-null columns beyond the key: time column, provenance
    prov_node = root.get("provenance_required")
    prov = name_list(ctx, prov_node, "'provenance_required'", once=True)
    never_null = set(key_cols) | {p for p, _ in prov}
    if time is not None:
        never_null.add(time.column)
    fixed: list[Field] = []
    for f in fields:
        if f.name in never_null and f.nullable:
            # declared nullable: true explicitly?
            spec = fnode.get(f.name) if fnode is not None else None
            nn = spec.get("nullable") if spec is not None and spec.kind == "map" else None
            if nn is not None and nn.value is True and f.name not in key_cols:
                why = "the time column" if time and f.name == time.column else "a provenance column"
                ctx.error(key_node(spec, "nullable") or nn, "TG112", f"'{f.name}' is {why} and is never null; 'nullable: true' contradicts it", "nullable")
            f = Field(**{**f.__dict__, "nullable": False})
        fixed.append(f)
    fields = fixed
    declared = {f.name for f in fields}
    prov_text = ctx.text_of(prov_node, None) if prov_node is not None else ""
    prov_key = None
    if prov_node is not None:
        for k in root.key_nodes():
            if k.value == "provenance_required":
                prov_key = k
        prov_text = ctx.text_of(prov_node, prov_key)
    for p, pn in prov:
        if p not in declared:
            problem = names.name_problem(p, "provenance column")
            if problem is not None:
                ctx.error(pn, "TG115", problem, p)
                continue
            fields.append(
                Field(
                    name=p,
                    type=DataType(IMPLIED_PROVENANCE.get(p, "string")),
                    nullable=False,
                    implied=True,
                    pos=pos_of(pn),
                    text=prov_text,
                )
            )
            declared.add(p)
    # revision policy / catalog / evolution / targets
    rev = None
    for k, v in root.value:
        if k.value == "revision_policy":
            rev = load_revision(ctx, k, v)
    catalog = None
    cnode = root.get("catalog")
    if cnode is not None:
        catalog = load_catalog(ctx, cnode)
    calendar = None
    calnode = root.get("calendar")
    if calnode is not None:
        calendar = load_calendar(ctx, calnode)
    evolution = Evolution()
    enode = root.get("evolution")
    if enode is not None:
        evolution = load_evolution(ctx, enode)
    severity: tuple[tuple[str, str], ...] = ()
    severity_pos: tuple[tuple[str, Pos], ...] = ()
    snode = root.get("severity")
    if snode is not None:
        severity, severity_pos = load_severity(ctx, snode)
    targets: tuple[Any, ...] = ()
    tgnode = root.get("targets")
    if tgnode is not None:
        targets = load_targets(ctx, tgnode)
    _check_names(ctx, root, name, name_node, fields, targets)
    # invariants (verbatim) and field constraints
    invariants: list[Invariant] = []
    inode = root.get("invariants")
    if inode is not None and expect(ctx, inode, "seq", "'invariants'"):
        for item in inode.value:
            if item.kind != "scalar" or not isinstance(item.value, str) or not item.value.strip():
                ctx.error(item, "TG103", "an invariant is a line of text such as 'low <= high'",
                          item.raw if item.kind == "scalar" else "")
                continue
            lead = len(item.value) - len(item.value.lstrip())
            invariants.append(
                Invariant(item.value.strip(), Pos(item.line, item.col + value_offset(item) + lead))
            )
    # a field's `constraint:` is an invariant with the subject left out
    if fnode is not None and fnode.kind == "map":
        for k, v in fnode.value:
            cn = v.get("constraint") if v.kind == "map" else None
            if cn is not None and cn.kind == "scalar" and isinstance(cn.value, str) and cn.value.strip():
                subject = f"{k.value} "
                invariants.append(
                    Invariant(
                        subject + cn.value.strip(),
                        Pos(cn.line, cn.col + value_offset(cn)),
                        source=f"fields.{k.value}.constraint",
                        prefix=len(subject),
                    )
                )
    # key columns must exist
    for k, kn in key:
        if k not in declared and k not in broken:
            close = close_matches(k, sorted(declared | broken), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            ctx.error(kn, "TG107", f"key column '{k}' is not a field{hint}", k)
    if time is not None and time.column not in declared and time.column not in broken:
        close = close_matches(time.column, sorted(declared), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        cn = tnode.get("column") if tnode is not None else None
        ctx.error(cn, "TG107", f"time column '{time.column}' is not a field{hint}", time.column)
    if time is not None and time.ingest_column and time.ingest_column not in declared:
        cn = tnode.get("ingest_column") if tnode is not None else None
        ctx.error(cn, "TG107", f"ingest column '{time.ingest_column}' is not a field", time.ingest_column)
    if rev is not None and rev.by_column and rev.by_column not in declared:
        rnode = root.get("revision_policy")
        bn = rnode.get("by_column") if rnode is not None and rnode.kind == "map" else None
        ctx.error(bn, "TG107", f"by_column '{rev.by_column}' is not a field", rev.by_column)
    plausible_series(ctx, fields, [k for k, _ in key], time, fnode)
    failed = any(d.severity == "error" for d in ctx.diags) or name is None or version is None
    kkey = next((k for k in root.key_nodes() if k.value == "key"), None)
    contract = Contract(
        name=name or "",
        version=version or "0.0.0",
        owner=text_value(ctx, root.get("owner"), "'owner'"),
        description=text_value(ctx, root.get("description"), "'description'"),
        key=tuple(k for k, _ in key),
        time=time,
        fields=tuple(fields),
        invariants=tuple(invariants),
        revision_policy=rev,
        provenance_required=tuple(p for p, _ in prov),
        catalog=catalog,
        evolution=evolution,
        targets=targets,
        meta=tuple((str(k.value), yamlpos.plain(v)) for k, v in root.value if str(k.value).startswith("x-")),
        calendar=calendar,
        severity=severity,
        severity_pos=severity_pos,
        path=_portable(ctx) if ctx.file else ctx.path,
        source=text,
        canonical_hash=_hash(canonical_data(root)),
        key_pos=pos_of(knode) if knode is not None else Pos(0, 0),
        key_text=ctx.text_of(knode, kkey) if knode is not None else "",
        provenance_pos=pos_of(prov_node) if prov_node is not None else Pos(0, 0),
        provenance_text=prov_text,
        version_pos=pos_of(vnode) if vnode is not None else Pos(0, 0),
        positions=positions(root),
        source_system=text_value(ctx, root.get("source"), "'source'"),
    )
    # Semantic checks that need the whole model: units, invariants, lint rules.
    from tacit_gen.contract import lint
    from tacit_gen.contract.semantics import check_expressions

    check_expressions(contract, ctx, broken)
    lint.check(contract, ctx)
    return None if failed else contract
