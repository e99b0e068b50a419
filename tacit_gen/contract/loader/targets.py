"""`targets:`: each target's options, as the target declares them."""

from __future__ import annotations

from typing import Any

from tacit_gen.contract import names, yamlpos
from tacit_gen.contract.loader.base import Ctx, check_keys, expect, kind_name
from tacit_gen.contract.yamlpos import YNode
from tacit_gen.diagnostics import close_matches


def _target_keys(name: str) -> dict[str, Any]:
    """The keys target `name` takes under `targets.<name>`: key -> its `ContractKey` (None: `enabled`)."""
    from tacit_gen import registry

    return {**{spec.key: spec for spec in registry.get(name).contract_keys}, "enabled": None}


def load_targets(ctx: Ctx, node: YNode) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    from tacit_gen import registry

    if not expect(ctx, node, "map", "'targets'"):
        return ()
    known = registry.names()
    out = []
    for k, v in node.value:
        name = str(k.value)
        if name not in known:
            close = close_matches(name, list(known), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            ctx.error(k, "TG102", f"unknown target '{name}'{hint}", name)
            continue
        if not expect(ctx, v, "map", f"'targets.{name}'"):
            continue
        keys = _target_keys(name)
        check_keys(ctx, v, tuple(keys), f"'targets.{name}'")
        opts = []
        for ok, ov in v.value:
            val = yamlpos.plain(ov)
            spec = keys.get(str(ok.value))
            kind = spec.kind if spec is not None else None
            if spec is not None and spec.kind == "choice" and val not in spec.choices:
                ctx.error(ov, "TG115", f"'targets.{name}.{ok.value}' must be one of "
                          f"{', '.join(spec.choices)}, found {val!r}", str(val))
                continue
            if kind in ("name", "class"):
                what = f"'targets.{name}.{ok.value}'"
                problem = (f"{what} must be a name, found {kind_name(ov) if ov.kind != 'scalar' else repr(ov.raw)}"
                           if not isinstance(val, str) else
                           names.class_problem(val, what) if kind == "class" else
                           names.name_problem(val, what))
                if problem is not None:
                    ctx.error(ov, "TG115", problem, str(val))
                    continue
            if kind in ("dotted", "text"):
                what = f"'targets.{name}.{ok.value}'"
                problem = (f"{what} must be text, found {kind_name(ov)}" if not isinstance(val, str) else
                           names.name_problem(val, what, names.RELATION) if kind == "dotted" else
                           None if val and not any(ch.isspace() for ch in val) else
                           f"{what} {val!r} is empty or has white space")
                if problem is not None:
                    ctx.error(ov, "TG115", problem, str(val))
                    continue
            if str(ok.value) == "dialect":
                from tacit_gen.sql.dialects import DIALECTS

                if val not in DIALECTS:
                    ctx.error(ov, "TG115", f"'targets.{name}.dialect' must be one of "
                              f"{', '.join(DIALECTS)}, found {val!r}", str(val))
                    continue
            opts.append((str(ok.value), val))
        out.append((name, tuple(sorted(opts))))
    return tuple(sorted(out))
