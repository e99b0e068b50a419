"""dbt's Jinja texts compiled once per text (`tacit_gen.targets.dbt.jinja_cache`,
docs/engines/dbt.md): every rendering is the one dbt-common's own `get_template` gives, the
context and the node are never baked into the kept code, and a text is compiled once."""

from __future__ import annotations

from typing import Any

import pytest
from dbt.clients import jinja as dbt_jinja
from dbt_common.clients import jinja as common_jinja

from tacit_gen.targets.dbt.jinja_cache import compile_templates_once

TEXTS = [
    "select * from {{ relation }} where {{ column }} is not null",
    "{{ var_a | upper }}-{{ var_b | default('none') }}",
    "{% for c in columns %}{{ c }}{% if not loop.last %}, {% endif %}{% endfor %}",
    "{% set n = columns | length %}{{ n * 2 }}",
    "{% if var_b is defined %}{{ var_b }}{% else %}{{ var_a ~ '!' }}{% endif %}",
    "{{ [1, 2, 3] | sum }}",
]
CONTEXTS: list[dict[str, Any]] = [
    {"relation": "a", "column": "x", "var_a": "p", "var_b": "q", "columns": ["c1", "c2"]},
    {"relation": "b", "column": "y", "var_a": "r", "columns": ["d1", "d2", "d3"]},
]


def _patched() -> Any:
    compile_templates_once()
    patched = common_jinja.get_template
    assert getattr(patched, "_tacit_gen", False)
    return patched


def test_both_modules_render_through_one_replacement() -> None:
    patched = _patched()
    assert dbt_jinja.get_template is patched  # dbt-core imported the function by name
    compile_templates_once()  # twice: still the one replacement
    assert common_jinja.get_template is patched and dbt_jinja.get_template is patched


@pytest.mark.parametrize("native", [False, True])
@pytest.mark.parametrize("text", TEXTS)
def test_every_rendering_is_dbt_commons_own(text: str, native: bool) -> None:
    patched = _patched()
    original = patched._tacit_gen_original
    for ctx in CONTEXTS:
        want = original(text, dict(ctx), native=native).render(dict(ctx))
        assert patched(text, dict(ctx), native=native).render(dict(ctx)) == want
        # dbt's own entry point, as a node's SQL and a test's arguments are rendered
        assert dbt_jinja.get_rendered(text, dict(ctx), native=native) == want


def test_a_text_is_compiled_once_and_each_call_gets_its_own_context(
        monkeypatch: pytest.MonkeyPatch) -> None:
    patched = _patched()
    text = "{{ relation }}.{{ column }} -- compiled once " + __name__
    compiled: list[str] = []
    real = common_jinja.MacroFuzzEnvironment.compile

    def counting(self: Any, source: Any, *args: Any, **kwargs: Any) -> Any:
        compiled.append(source)
        return real(self, source, *args, **kwargs)

    monkeypatch.setattr(common_jinja.MacroFuzzEnvironment, "compile", counting)
    got = [dbt_jinja.get_rendered(text, dict(ctx)) for ctx in CONTEXTS]
    assert got == ["a.x -- compiled once " + __name__, "b.y -- compiled once " + __name__]
    assert compiled == [text]
    assert any(key[-1] == text for key in patched._tacit_gen_codes)


def test_a_nodes_undefined_still_captures_its_macros() -> None:
    """With ``capture_macros`` each call's environment carries the node's own ``undefined``:
    an unknown macro renders as dbt-common renders it, on every call."""
    patched = _patched()
    original = patched._tacit_gen_original
    text = "{{ some_unknown_macro('x') }} and {{ known }}"
    for ctx in ({"known": "k1"}, {"known": "k2"}):
        want = original(text, dict(ctx), capture_macros=True).render(dict(ctx))
        assert patched(text, dict(ctx), capture_macros=True).render(dict(ctx)) == want
        assert ctx["known"] in want


def test_a_syntax_error_is_dbts_compilation_error_every_time() -> None:
    from dbt_common.exceptions import CompilationError

    _patched()
    for _ in range(2):  # nothing is kept of a text that does not compile
        with pytest.raises(CompilationError):
            dbt_jinja.get_rendered("{{ unclosed ", {})
