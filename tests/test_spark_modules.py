"""The `spark` nox session collects only the modules `noxfile.SPARK_MODULES` lists (collecting the
whole suite to select the Spark tests cost about 8 s of CPU a run): every test module that marks a
test `spark` must be listed, and every listed module must exist and mark one."""

from __future__ import annotations

import ast
import re

from tests.conftest import ROOT

MARK = re.compile(r"\bpytest\.mark\.spark\b")


def _listed() -> set[str]:
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "SPARK_MODULES" for t in node.targets):
            value = ast.literal_eval(node.value)
            assert isinstance(value, tuple) and all(isinstance(v, str) for v in value)
            return set(value)
    raise AssertionError("noxfile.py defines no SPARK_MODULES")


def test_every_module_with_a_spark_test_is_collected_by_the_spark_session() -> None:
    marking = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("*.py")
               if p.name != "test_spark_modules.py" and MARK.search(p.read_text(encoding="utf-8"))}
    assert marking, "no module marks a test spark: the pattern is wrong"
    assert marking == _listed(), (sorted(marking - _listed()), sorted(_listed() - marking))
