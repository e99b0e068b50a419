"""`tacit-gen fmt`: rewrite a contract into canonical form, comments kept.

Canonical form is plain YAML that any YAML parser reads as meant: every field `type` is a
single-quoted scalar (`type: 'decimal(18,8)'`, never the seed's unquoted flow notation), the
top-level keys come in the canonical order (`loader.TOP_KEYS`, then `x-*` keys in their order),
the keys of the sections `time`, `revision_policy`, `catalog` and `evolution` in their documented
order (a field's keys stay as written), indentation is two spaces, lines are never wrapped.

The text is parsed through `yamlpos.protect` (so the seed's notation reads as meant) with
ruamel.yaml's round-trip loader, which keeps comments; the output is unprotected.
"""

from __future__ import annotations

import io
from typing import Any

from tacit_gen.contract import loader, yamlpos
from tacit_gen.contract.errors import ContractError, Diagnostic

# Sections whose keys have a documented order (unknown and `x-*` keys follow, in their order).
SECTION_KEYS: dict[str, tuple[str, ...]] = {
    "time": loader.TIME_KEYS,
    "revision_policy": loader.REVISION_KEYS,
    "catalog": loader.CATALOG_KEYS,
    "calendar": loader.CALENDAR_KEYS,
    "evolution": loader.EVOLUTION_KEYS,
}


def _yaml() -> Any:
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.indent(mapping=2, sequence=4, offset=2)
    y.width = 1_000_000
    y.allow_duplicate_keys = False
    return y


def _syntax_check(text: str, path: str) -> None:
    """Refuse text that is not one well-formed YAML mapping without duplicate keys."""
    try:
        root, dups, _ = yamlpos.compose(text)
    except yamlpos.YamlSyntaxError as e:
        raise ContractError(
            [Diagnostic(path, e.line, e.col, "error", e.code,
                        f"{e} at '{e.word}'" if e.word and e.code == "TG100" else str(e), e.word)]
        ) from None
    diags = [
        Diagnostic(path, d.line, d.col, "error", "TG101",
                   f"duplicate key '{d.raw}' (first at line {f.line}); fmt cannot choose", d.raw)
        for d, f in dups
    ]
    if root is None or root.kind != "map":
        diags.append(Diagnostic(path, 1, 1, "error", "TG103",
                                "a contract is a mapping with 'contract', 'version', 'fields', ...", ""))
    if diags:
        raise ContractError(diags)


def _reorder(cmap: Any, order: tuple[str, ...]) -> None:
    """Reorder a ruamel CommentedMap in place: keys of `order` first, the rest as they were."""
    keys = list(cmap.keys())
    wanted = [k for k in order if k in cmap] + [k for k in keys if k not in order]
    if wanted == keys:
        return
    items = [(k, cmap[k], cmap.ca.items.get(k)) for k in wanted]
    # The comment after the last key of the map (e.g. a trailing comment) belongs to that key;
    # comments stay with the key they follow, which is what a reader expects when sections move.
    for k in keys:
        del cmap[k]
    for k, v, c in items:
        cmap[k] = v
        if c is not None:
            cmap.ca.items[k] = c


def _unprotect_tree(node: Any) -> Any:
    """Swap the protected characters back in every string of the tree (keys and values)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import ScalarString

    if isinstance(node, CommentedMap):
        for k in list(node.keys()):
            node[k] = _unprotect_tree(node[k])
        return node
    if isinstance(node, CommentedSeq):
        for i, v in enumerate(node):
            node[i] = _unprotect_tree(v)
        return node
    if isinstance(node, str):
        plain = yamlpos.unprotect(str(node))
        if plain == str(node):
            return node
        if isinstance(node, ScalarString):
            return type(node)(plain)
        return plain
    return node


def _quote_types(fields: Any) -> None:
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.scalarstring import SingleQuotedScalarString

    if not isinstance(fields, CommentedMap):
        return
    for name in list(fields.keys()):
        spec = fields[name]
        if isinstance(spec, CommentedMap):
            t = spec.get("type")
            if isinstance(t, str):
                spec["type"] = SingleQuotedScalarString(str(t))
        elif isinstance(spec, str):
            # `a: string` shorthand: keep the shorthand, quoted
            fields[name] = SingleQuotedScalarString(str(spec))


def format_text(text: str, path: str) -> str:
    """Rewrite a contract's text into canonical form.

    Args:
        text: the contract file's text.
        path: its path, for messages.

    Returns:
        The canonical text (ending with one newline). Formatting it again returns it unchanged.

    Raises:
        ContractError: when the text is not well-formed YAML (TG100), has duplicate keys (TG101),
            or is not a mapping (TG103).
    """
    from ruamel.yaml.comments import CommentedMap

    _syntax_check(text, path)
    y = _yaml()
    try:
        data = y.load(yamlpos.protect(text))
    except Exception as e:  # the positioned parser accepted it; ruamel should too
        raise ContractError(
            [Diagnostic(path, 1, 1, "error", "TG100", f"cannot format: {e}".splitlines()[0], "")]
        ) from None
    data = _unprotect_tree(data)
    if isinstance(data, CommentedMap):
        _reorder(data, loader.TOP_KEYS)
        for key, order in SECTION_KEYS.items():
            if isinstance(data.get(key), CommentedMap):
                _reorder(data[key], order)
        _quote_types(data.get("fields"))
    out = io.StringIO()
    y.dump(data, out)
    result = out.getvalue()
    return result.rstrip("\n") + "\n"
