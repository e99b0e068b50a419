"""Property: any valid contract -> render -> read back -> the same clauses, for every target.

Hypothesis writes random contracts (types, units, keys, enums, fixed values, ranges, invariants,
time sections); each must load, and every target's artifact, read back by its reader, must give
exactly the plan (drift `compare` finds nothing), so a reader or renderer that loses a clause or a
parameter on some shape of contract is caught without anyone writing that contract by hand.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tacit_gen import registry
from tacit_gen.compare import compare
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions

NAMES = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
UNITS = ["degC", "kPa", "bar", "USD", "m", "kg", "s"]


@st.composite
def contracts(draw: st.DrawFn) -> str:
    n = draw(st.integers(2, 6))
    names = draw(st.permutations(NAMES))[:n]
    fields: dict[str, str] = {}
    numeric: dict[str, str] = {}  # name -> unit
    enums: dict[str, list[str]] = {}
    floats: set[str] = set()
    for name in names:
        kind = draw(st.sampled_from(["string", "int64", "int32", "decimal", "float64", "float32", "bool",
                                     "enum"]))
        nullable = draw(st.booleans())
        if kind == "decimal":
            p = draw(st.integers(4, 20))
            s = draw(st.integers(0, min(p - 1, 6)))
            unit = draw(st.sampled_from(UNITS))
            fields[name] = f"{{type: decimal({p},{s}), unit: {unit}, nullable: {str(nullable).lower()}}}"
            numeric[name] = unit
        elif kind in ("float64", "float32"):
            unit = draw(st.sampled_from([u for u in UNITS if u != "USD"]))
            if draw(st.integers(0, 3)) == 0:  # a fixed value (float32: one it holds, TG114)
                fixed = draw(st.sampled_from(["0.5", "0.25", "-1.5", "0.50"] + (["0.1"] if kind == "float64" else [])))
                fields[name] = f"{{type: {kind}, unit: {unit}, value: {fixed}}}"
                continue
            fields[name] = f"{{type: {kind}, unit: {unit}, nullable: {str(nullable).lower()}}}"
            numeric[name] = unit
            floats.add(name)
        elif kind == "enum":
            values = draw(st.lists(st.sampled_from(["good", "bad", "suspect", "na", "x1"]), min_size=1,
                                   max_size=4, unique=True))
            enums[name] = values
            fields[name] = f"{{type: enum[{', '.join(values)}], nullable: {str(nullable).lower()}}}"
        elif kind in ("int64", "int32"):
            fields[name] = f"{{type: {kind}, nullable: {str(nullable).lower()}}}"
            numeric[name] = ""
        elif kind == "bool" and draw(st.booleans()):
            fields[name] = f"{{type: bool, value: {str(draw(st.booleans())).lower()}}}"
        else:
            fields[name] = f"{{type: {kind}, nullable: {str(nullable).lower()}}}"
    has_time = draw(st.booleans())
    lines = ["contract: prop_contract", "version: 1.2.3", "owner: props@example"]
    key = [k for k in names if fields[k].startswith("{type: string") or fields[k].startswith("{type: int")][:2]
    key = [k for k in key if "nullable: true" not in fields[k]] or []
    if has_time:
        key.append("ts")
        lines += ["time:", "  column: ts", "  precision: ms", "  timezone: UTC instant"]
        if draw(st.booleans()):
            lines.append(f"  freshness: {draw(st.sampled_from(['15m', '2h', '30s']))}")
        if draw(st.booleans()):
            tol = draw(st.sampled_from(["", "; tolerance +/-5% of interval", "; gaps allowed"]))
            lines.append(f"  cadence: {draw(st.sampled_from(['60s', '5m']))}{tol}")
    if key:
        lines.append(f"key: [{', '.join(key)}]")
    lines.append("fields:")
    for name in names:
        lines.append(f"  {name}: {fields[name]}")
    if has_time:
        lines.append("  ts: {type: timestamp_ms_utc}")
    invariants: list[str] = []
    for name in numeric:
        if draw(st.booleans()):
            # integral bounds, and fractional ones float32 does not hold (0.1: a float32 range is
            # then compared as a double, dbt's as_double and Soda's expressions)
            fractions = name in floats
            lo = draw(st.sampled_from([str(draw(st.integers(-100, 0))), *(["-0.1", "0.5"] if fractions else [])]))
            hi = draw(st.sampled_from([str(draw(st.integers(1, 1000))), *(["0.7", "2.5"] if fractions else [])]))
            invariants += draw(st.sampled_from([[f"{name} >= {lo}"], [f"{lo} <= {name} <= {hi}"],
                                                [f"{name} < {hi}"], [f"{name} is null or {name} > {lo}"],
                                                [f"{name} > {lo}", f"{name} < {hi}"]]))
    same_unit = [(a, b) for a in numeric for b in numeric if a < b and numeric[a] == numeric[b] and numeric[a]]
    if same_unit and draw(st.booleans()):
        a, b = draw(st.sampled_from(same_unit))
        invariants.append(f"{a} <= {b}")
    if enums and numeric and draw(st.booleans()):
        e = draw(st.sampled_from(sorted(enums)))
        v = draw(st.sampled_from(enums[e]))
        m = draw(st.sampled_from(sorted(numeric)))
        invariants.append(f"{m} is null only when {e} = {v}")
    if invariants:
        lines.append("invariants:")
        lines += [f"  - {i}" for i in invariants]
    return "\n".join(lines) + "\n"


@settings(max_examples=int(os.environ.get("TACIT_PROPERTY_EXAMPLES", "100")), deadline=None,
          derandomize=os.environ.get("TACIT_PROPERTY_EXAMPLES") is None,
          suppress_health_check=[HealthCheck.too_slow])
@given(contracts())
def test_every_target_reads_back_its_own_render(text: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "prop_contract.yaml"
        path.write_text(text)
        contract = load(path)
        clauses = plan(contract)
        for name in registry.names():
            target = registry.get(name)
            result = target.render(contract, clauses, RenderOptions())
            primary = target.artifact_paths(contract)[0]
            art = next(a for a in result.artifacts if a.path == primary)
            out = Path(d) / art.path
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(art.content)
            read = target.read(out, art.content)
            findings = compare(contract, clauses, read, art.path, name)
            assert findings == [], (name, [f.render() for f in findings], text)
