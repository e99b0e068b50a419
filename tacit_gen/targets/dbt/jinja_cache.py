"""dbt's Jinja templates compiled once per text, not once per node (docs/engines/dbt.md).

Imports nothing of dbt's until called: the dbt engine calls it once it imports dbt.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from typing import Any

# the compiled code of this many distinct template texts is kept (least recently used dropped):
# a batch of 36 datasets of one contract renders a few hundred distinct texts
LIMIT = 4096


def compile_templates_once() -> None:
    """dbt-common renders every Jinja string with ``get_template``: a new environment, then
    ``env.from_string(text)``, which lexes, parses, generates and byte-compiles the text every
    time. A project renders the same few texts for each of its nodes (a generic test's
    ``{{ test_not_null(**_dbt_generic_test_kwargs) }}``, the same test arguments in every
    dataset of a batch): that compilation was a twentieth of a parity batch's CPU. The code a
    text compiles to depends only on the environment's class, its extensions and filters (the
    same for every environment `get_environment` makes of one ``native`` and
    ``capture_macros``), never on the context or the node, so it is kept per (class,
    ``native``, ``capture_macros``, text) and each call still gets a template of its own: a
    fresh environment (with the node's ``undefined``) and its own globals, as before. Applied
    once per process, where dbt-common defines the function and where dbt-core imported it
    (``dbt.clients.jinja``: its ``get_rendered`` renders most texts); left alone where
    dbt-common has no such function."""
    import importlib

    try:
        from dbt_common.clients import jinja
    except ImportError:
        return
    original = getattr(jinja, "get_template", None)
    if original is None or getattr(original, "_tacit_gen", False):
        return
    if not all(hasattr(jinja, n) for n in ("catch_jinja", "get_environment")):
        return
    users = [jinja]
    with contextlib.suppress(ImportError):
        users.append(importlib.import_module("dbt.clients.jinja"))
    codes: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
    lock = threading.Lock()

    def get_template(string: str, ctx: dict[str, Any], node: Any = None,
                     capture_macros: bool = False, native: bool = False) -> Any:
        with jinja.catch_jinja(node):
            env = jinja.get_environment(node, capture_macros, native=native)
            source = str(string)
            key = (type(env), capture_macros, native, source)
            with lock:
                code = codes.get(key)
                if code is not None:
                    codes.move_to_end(key)
            if code is None:
                code = env.compile(source)
                with lock:
                    codes[key] = code
                    if len(codes) > LIMIT:
                        codes.popitem(last=False)
            return env.template_class.from_code(env, code, env.make_globals(ctx), None)

    get_template._tacit_gen = True  # type: ignore[attr-defined]
    get_template._tacit_gen_original = original  # type: ignore[attr-defined]
    get_template._tacit_gen_codes = codes  # type: ignore[attr-defined]
    for module in users:
        if getattr(module, "get_template", None) is original:
            module.get_template = get_template  # type: ignore[attr-defined]
