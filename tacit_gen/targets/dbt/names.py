"""A model's properties YAML renamed for a project it shares with other datasets of its contract.

See :mod:`tacit_gen.targets.dbt.batch`: the model, its explicitly named tests and every ``ref()`` of
its test arguments get the case's prefix.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from tacit_gen.targets.dbt.render import properties_yaml
from tacit_gen.targets.dbt.text import relation_ref

_REF = re.compile(r"""ref\(\s*(?P<q>['"])(?P<name>(?:\\.|(?!(?P=q)).)*)(?P=q)\s*\)""")


# libyaml's parser (the pure-Python one was a tenth of a batch's dbt CPU, with its emitter, which
# `properties_yaml` already takes from libyaml): the engine's own project files, never committed
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str) -> Any:
    """YAML text as plain data (the safe loader, libyaml's where installed)."""
    return yaml.load(text, Loader=_LOADER)


def _rename_refs(value: Any, prefix: str, found: set[str]) -> Any:
    """Every ``ref('x')`` in the strings of `value` names ``<prefix>x``; `found` collects x."""
    if isinstance(value, str):
        def sub(m: re.Match[str]) -> str:
            name = m.group("name")
            name = json.loads(f'"{name}"') if m.group("q") == '"' else name.replace("\\'", "'")
            found.add(name)
            return relation_ref(prefix + name)

        return _REF.sub(sub, value)
    if isinstance(value, list):
        return [_rename_refs(v, prefix, found) for v in value]
    if isinstance(value, dict):
        return {k: _rename_refs(v, prefix, found) for k, v in value.items()}
    return value


def _prefix_test_names(tests: list[Any], prefix: str) -> None:
    """Give every explicitly named test of a ``data_tests`` list the case's prefix."""
    for t in tests:
        body = next(iter(t.values())) if isinstance(t, dict) and len(t) == 1 else None
        if isinstance(body, dict) and isinstance(body.get("name"), str):
            body["name"] = prefix + body["name"]


def case_properties(text: str, prefix: str) -> tuple[str, set[str], str]:
    """A model's properties YAML renamed for a shared project.

    Returns:
        The YAML text, the relations its tests ``ref()``, and the model's original name.
    """
    doc = load_yaml(text)
    model = doc["models"][0]
    original = str(model["name"])
    model["name"] = prefix + original
    _prefix_test_names(model.get("data_tests") or model.get("tests") or [], prefix)
    for col in model.get("columns") or []:
        _prefix_test_names(col.get("data_tests") or col.get("tests") or [], prefix)
    refs: set[str] = set()
    doc = _rename_refs(doc, prefix, refs)
    return properties_yaml(doc), refs, original
