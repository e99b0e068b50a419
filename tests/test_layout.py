"""The layering holds: no module imports another module's private name, and the import-linter
contracts (run by `nox -s lint`) carry no exception list."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _private_imports(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("tacit_gen"):
                continue
            module_parts = (node.module or "").split(".")
            names = [a.name for a in node.names]
            private = [x for x in [*module_parts, *names] if x.startswith("_") and not x.startswith("__")]
            if private:
                found.append(f"{path.relative_to(folder)}:{node.lineno}: {node.module} {', '.join(private)}")
    return found


def test_no_module_imports_a_private_name_of_another() -> None:
    assert _private_imports(ROOT / "tacit_gen") == []
    assert _private_imports(ROOT / "tests") == []


def test_the_check_sees_a_private_import(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("from tacit_gen.targets.dbt.read import _Hidden\n", encoding="utf-8")
    assert _private_imports(tmp_path) == ["m.py:1: tacit_gen.targets.dbt.read _Hidden"]


def test_import_contracts_have_no_exceptions() -> None:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    kinds = {c["type"] for c in conf["contracts"]}
    assert {"layers", "forbidden", "acyclic_siblings"} <= kinds
    assert all("ignore_imports" not in c for c in conf["contracts"])


# Modules outside the target packages that still import a target's package or name a target,
# by path -> why. Each entry is work pending elsewhere (or a reason it stays): remove the entry
# when its module is clean; `test_the_allow_list_only_lists_modules_that_name_a_target` fails on a
# stale entry, so the list only shrinks.
NAMES_A_TARGET = {
    # the registry line of every built-in target ("dbt": "tacit_gen.targets.dbt:TARGET"): stays
    "tacit_gen/registry.py": "the registry",
    # which pyproject extra installs which package (the extras are named like the targets)
    "tacit_gen/extras.py": "the package-to-extra table",
    # the documented user entry point `tacit_gen.gx.duckdb_datasource`: a thin re-export, stays
    "tacit_gen/gx.py": "public re-export",
    # `tacit-gen import dbt` names the dbt tool whose projects adopt reads, not the dbt target
    "tacit_gen/cli/adopt.py": "the dbt importer command",
    # adopt's dbt importer reads the dbt tool's projects ("dbt" is its source and dbt's own test
    # namespace); it imports nothing of the dbt target (the key's not-null filter and the type
    # names are `tacit_gen.sql.types`): with no dbt target it would work the same
    "tacit_gen/adopt/dbt.py": "the dbt tool's importer",
}


def _names_a_target(root: Path, targets: tuple[str, ...]) -> dict[str, list[str]]:
    """Per module (posix path under `root`) outside `tacit_gen/targets/<target>/`: each import
    of a target's package and each string literal that is a target's name or a module path in a
    target's package (``"tacit_gen.targets.dbt.engine"``); docstrings aside."""
    import re

    alternatives = "|".join(map(re.escape, targets))
    in_package = re.compile(rf"^tacit_gen\.targets\.({alternatives})(\.|:|$)")
    found: dict[str, list[str]] = {}
    for path in sorted((root / "tacit_gen").rglob("*.py")):
        parts = path.relative_to(root / "tacit_gen").parts
        if len(parts) > 2 and parts[0] == "targets" and parts[1] in targets:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        hits = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in docstrings and (node.value in targets or in_package.match(node.value))):
                hits.append(f"{node.lineno}: {node.value!r}")
                continue
            else:
                continue
            hits += [f"{node.lineno}: import {m}" for m in modules if in_package.match(m)][:1]
        if hits:
            found[path.relative_to(root).as_posix()] = hits
    return found


def test_no_module_outside_the_target_packages_names_a_target() -> None:
    from tacit_gen import registry

    found = _names_a_target(ROOT, tuple(registry.BUILTIN))
    assert {p: h for p, h in found.items() if p not in NAMES_A_TARGET} == {}


def test_the_allow_list_only_lists_modules_that_name_a_target() -> None:
    from tacit_gen import registry

    found = _names_a_target(ROOT, tuple(registry.BUILTIN))
    assert [p for p in NAMES_A_TARGET if p not in found] == []


def test_the_target_check_sees_imports_and_names(tmp_path: Path) -> None:
    (tmp_path / "tacit_gen" / "targets" / "dbt").mkdir(parents=True)
    (tmp_path / "tacit_gen" / "m.py").write_text(
        '"""dbt"""\nfrom tacit_gen.targets import dbt\nimport tacit_gen.targets.soda.render\n'
        'X = ("dbt", "dbt_utils", "tacit_gen.targets.gx.engine", "tacit_gen.targets.base")\n', encoding="utf-8")
    (tmp_path / "tacit_gen" / "targets" / "dbt" / "render.py").write_text('NAME = "dbt"\n', encoding="utf-8")
    assert _names_a_target(tmp_path, ("dbt", "soda", "gx")) == {"tacit_gen/m.py": [
        "2: import tacit_gen.targets.dbt", "3: import tacit_gen.targets.soda.render", "4: 'dbt'",
        "4: 'tacit_gen.targets.gx.engine'"]}


def test_optional_capabilities_are_declared_not_probed() -> None:
    """The protocol declares `render_inputs` (with a default) and `DialectOptions.sql_dialect`:
    no module asks an object whether it has them."""
    for path in sorted((ROOT / "tacit_gen").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for name in ("render_inputs", "sql_dialect", "check_contract", "check_project", "render_warnings"):
            assert f'attr(target, "{name}"' not in text and f', "{name}"' not in text, (path, name)


MAX_LINES = 800
# Modules still over MAX_LINES, each split on its own branch: delete the entry when it lands.
OVER_MAX_PENDING: set[str] = set()


def _long_modules(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in (root / "tacit_gen").rglob("*.py")
            if len(p.read_text(encoding="utf-8").splitlines()) > MAX_LINES}


def test_no_module_exceeds_the_line_limit() -> None:
    over = _long_modules(ROOT)
    assert over - OVER_MAX_PENDING == set(), f"split these modules (at most {MAX_LINES} lines)"
    assert OVER_MAX_PENDING - over == set(), "these are split now: remove them from OVER_MAX_PENDING"


def test_the_line_limit_sees_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "tacit_gen" / "sub").mkdir(parents=True)
    (tmp_path / "tacit_gen" / "sub" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    (tmp_path / "tacit_gen" / "short.py").write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    assert _long_modules(tmp_path) == {"tacit_gen/sub/long.py"}
