"""Issue 16, fast start: the render cache (`tacit_gen.rendercache`).

What it must never do: return bytes a fresh render would not write. So: the output is the same
with and without it for every bundled contract; a change of the contract, a setting, a template,
a target's input file or tacit-gen's own source is a miss; a damaged entry is ignored and
rewritten; `render --check` still writes nothing to the project; and a render opens no file and
imports no library that the key does not cover."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tacit_gen import render as render_mod
from tacit_gen import rendercache
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.registry import BUILTIN
from tacit_gen.render import render_all, render_contract
from tacit_gen.rendercache import RenderCache
from tacit_gen.sql.dialects import DIALECTS
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.dbt.render import DbtOptions
from tests.cli.test_fast_start import imported
from tests.conftest import BUNDLED, ROOT

TARGETS = tuple(BUILTIN)
CONTRACT = ROOT / "contracts" / "ohlcv_1m.yaml"


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _render(path: Path, options: RenderOptions, cache: RenderCache | None) -> dict[str, str]:
    contract = load(path)
    arts, unsupported = render_contract(contract, TARGETS, options, plan(contract), cache)
    return {a.path: a.content for a in arts} | {f"unsupported:{i}": repr(u) for i, u in enumerate(unsupported)}


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*" + rendercache.SUFFIX))


# ------------------------------------------------------------------------------ same bytes
OPTION_SETS = [
    RenderOptions(out_dir=str(ROOT / "generated")),
    RenderOptions(out_dir=str(ROOT / "generated"), dialect="postgres"),
    RenderOptions(targets=(DbtOptions(adapter="snowflake", tests="dbt_utils", not_null="both"),)),
    *[RenderOptions(dialect=d) for d in DIALECTS],
]


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_cached_render_is_the_fresh_render_for_every_bundled_contract(path: Path, tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "render")
    for options in OPTION_SETS:
        fresh = _render(path, options, None)
        cold = _render(path, options, cache)  # a miss: rendered, then stored
        warm = _render(path, options, cache)  # a hit
        assert cold == fresh and warm == fresh, options
    # one entry per distinct (contract, options): the settings are in the key
    assert len(_entries(tmp_path / "render")) == len({repr(o) for o in OPTION_SETS})


def test_cli_output_is_byte_identical_with_and_without_the_cache(tmp_path: Path) -> None:
    """Every bundled contract through the CLI: --no-cache, a cold cache and a warm one write the
    same files, equal to the committed generated/; the warm run imports no sqlglot."""
    env = {"TACIT_GEN_CACHE_DIR": str(tmp_path / "cache")}
    outs = {}
    out = tmp_path / "out"  # one folder: the output root is a setting, in the key
    for name, extra in (("none", ["--no-cache"]), ("cold", []), ("warm", [])):
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(ROOT / "generated", out)  # the protobuf locks are read from the output root
        got, res = imported("render", "contracts", "--out", str(out), "--verbose", *extra, env=env)
        assert res.returncode == 0, res.stdout + res.stderr
        assert res.stdout.rstrip().endswith(" 0 written"), res.stdout
        warnings = [x for x in res.stderr.splitlines() if not x.startswith("IMPORTED:")]
        outs[name] = (_tree(out), got, warnings)
    assert outs["none"][0] == outs["cold"][0] == outs["warm"][0] == _tree(ROOT / "generated")
    assert outs["none"][2] == outs["cold"][2] == outs["warm"][2]  # the same warnings (unsupported)
    assert any(" cannot express " in x for x in outs["warm"][2]), outs["warm"][2]
    assert "sqlglot" in outs["cold"][1] and outs["warm"][1] == set()
    assert not list(out.rglob(".*.tmp"))
    assert len(_entries(tmp_path / "cache" / "render")) == len(BUNDLED)


def test_no_cache_neither_reads_nor_writes_it(tmp_path: Path) -> None:
    env = {"TACIT_GEN_CACHE_DIR": str(tmp_path / "cache")}
    got, res = imported("render", str(CONTRACT), "--out", str(tmp_path / "gen"), "--no-cache", env=env)
    assert res.returncode == 0 and "sqlglot" in got
    got, res = imported("check", str(CONTRACT), "--no-bump-gate", "--no-cache", env=env)
    assert res.returncode == 0 and "sqlglot" in got, res.stdout + res.stderr
    assert not (tmp_path / "cache" / "render").exists()


# ------------------------------------------------------------------------------ misses
def test_an_edited_contract_is_a_miss(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "render")
    path = tmp_path / "contracts" / "ohlcv_1m.yaml"
    path.parent.mkdir()
    shutil.copy(CONTRACT, path)
    before = _render(path, RenderOptions(), cache)
    text = path.read_text(encoding="utf-8")
    edited = text.replace("  - volume >= 0\n", "  - volume >= 1\n", 1)
    assert edited != text
    path.write_text(edited, encoding="utf-8")
    after = _render(path, RenderOptions(), cache)
    assert after == _render(path, RenderOptions(), None) and after != before
    assert len(_entries(tmp_path / "render")) == 2


def test_a_setting_is_in_the_key(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "render")
    contract = load(CONTRACT)
    keys = {cache.key(contract, TARGETS, o) for o in [
        RenderOptions(), RenderOptions(dialect="postgres"), RenderOptions(out_dir="elsewhere"),
        RenderOptions(targets=(DbtOptions(adapter="postgres"),)),
        RenderOptions(targets=(DbtOptions(version="1.8"),)),
        RenderOptions(targets=(DbtOptions(macros="../macros"),)),
    ]}
    assert len(keys) == 6
    assert cache.key(contract, ("dbt",), RenderOptions()) != cache.key(contract, TARGETS, RenderOptions())


def test_an_edited_template_override_is_a_miss(tmp_path: Path) -> None:
    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates" / "pandera", templates / "pandera")
    options = RenderOptions(templates_dir=str(templates))
    cache = RenderCache(tmp_path / "render")
    before = _render(CONTRACT, options, cache)
    one = sorted((templates / "pandera").glob("*.j2"))[0]
    one.write_text(one.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    after = _render(CONTRACT, options, cache)
    assert after == _render(CONTRACT, options, None) and after != before
    assert any(c.endswith("# edited\n") for c in after.values())


def test_an_edited_protobuf_lock_is_a_miss(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    (out / "protobuf").mkdir(parents=True)
    lock = out / "protobuf" / "ohlcv_1m.lock.json"
    shutil.copy(ROOT / "generated" / "protobuf" / "ohlcv_1m.lock.json", lock)
    options = RenderOptions(out_dir=str(out))
    cache = RenderCache(tmp_path / "render")
    before = _render(CONTRACT, options, cache)
    data = json.loads(lock.read_text(encoding="utf-8"))
    data["reserved"] = [*data.get("reserved", []), {"number": 99, "name": "gone_field"}]
    lock.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    after = _render(CONTRACT, options, cache)
    assert after == _render(CONTRACT, options, None) and after != before
    assert "gone_field" in after["protobuf/ohlcv_1m.proto"]


def _copy_of_the_package(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "tacit_gen", pkg / "tacit_gen", ignore=ignore)
    shutil.copytree(ROOT / "templates", pkg / "templates", ignore=ignore)
    return pkg


def _run_copy(pkg: Path, cwd: Path, env: dict[str, str], out: Path) -> tuple[set[str], dict[str, bytes]]:
    got, res = imported("render", str(CONTRACT), "--out", str(out), cwd=cwd,
                        env={**env, "PYTHONPATH": str(pkg)})
    assert res.returncode == 0, res.stdout + res.stderr
    return got, _tree(out)


def test_an_edit_of_tacit_gen_itself_is_a_miss(tmp_path: Path) -> None:
    """A copy of the package (its code and templates): warm runs hit; after an edit of a packaged
    template, then of a target's code, the next run renders anew and shows the edit."""
    pkg = _copy_of_the_package(tmp_path)
    cwd = tmp_path / "cwd"  # not the repository: the copy is imported, not the checkout
    cwd.mkdir()
    env = {"TACIT_GEN_CACHE_DIR": str(tmp_path / "cache")}
    check = subprocess.run([sys.executable, "-c", "import tacit_gen; print(tacit_gen.__file__)"],
                           cwd=cwd, env={**os.environ, "PYTHONPATH": str(pkg)}, capture_output=True,
                           text=True, check=True)
    assert check.stdout.strip() == str(pkg / "tacit_gen" / "__init__.py")
    time.sleep(rendercache.RACY_SECONDS + 0.2)  # the copy is older than the racy window
    out = tmp_path / "gen"
    first, base_tree = _run_copy(pkg, cwd, env, out)
    warm, warm_tree = _run_copy(pkg, cwd, env, out)  # the lock now exists: stored again
    warm, warm_tree = _run_copy(pkg, cwd, env, out)
    assert "sqlglot" in first and warm == set() and warm_tree == base_tree

    template = pkg / "templates" / "pandera" / "module.py.j2"
    assert template.is_file(), sorted(p.name for p in template.parent.iterdir())
    template.write_text(template.read_text(encoding="utf-8") + "# edited template\n", encoding="utf-8")
    got, tree = _run_copy(pkg, cwd, env, out)
    assert "sqlglot" in got  # rendered anew
    assert tree["pandera/ohlcv_1m.py"].endswith(b"# edited template\n")

    code = pkg / "tacit_gen" / "targets" / "jsonschema" / "render.py"
    text = code.read_text(encoding="utf-8")
    edited = text.replace("Generated by tacit-gen from", "Made by tacit-gen from", 1)
    assert edited != text
    code.write_text(edited, encoding="utf-8")
    got, tree = _run_copy(pkg, cwd, env, out)
    assert "sqlglot" in got
    assert b"Made by tacit-gen from" in tree["jsonschema/ohlcv_1m.schema.json"]
    # an edit less than RACY_SECONDS before the run is not stored: the next run renders again
    got, _ = _run_copy(pkg, cwd, env, out)
    assert "sqlglot" in got


def test_nothing_is_stored_while_a_file_of_tacit_gen_is_racily_new(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _, newest = rendercache.source_fingerprint()
    monkeypatch.setattr(rendercache, "STARTED", newest + 1.0)  # a file written 1 s before the start
    cache = RenderCache(tmp_path / "render")
    assert _render(CONTRACT, RenderOptions(), cache) == _render(CONTRACT, RenderOptions(), None)
    assert _entries(tmp_path / "render") == []


# ------------------------------------------------------------------------------ damage
def _corruptions(entry: bytes) -> list[bytes]:
    """Damaged copies of an entry (a JSON line, an index line, the artifacts' texts)."""
    head, index, body = entry.split(b"\n", 2)
    meta = json.loads(head)
    assert meta["key"] in entry.decode() and b"not_null" in body
    changed_body = body.replace(b"not_null", b"unique__", 1)  # same length, digest left as it was
    shifted = json.loads(index)
    name, arts, uns = shifted[0]
    shifted[0] = [name, [[arts[0][0], arts[0][1] - 1], [arts[1][0], arts[1][1] + 1], *arts[2:]], uns]
    return [b"", entry[: len(entry) // 2], b"\xff\xfe garbage", b"[]", b'{"format": 1}',
            head + b"\n" + index + b"\n" + changed_body,
            json.dumps(dict(meta, key="0" * 64), separators=(",", ":")).encode() + b"\n" + index + b"\n" + body,
            json.dumps(dict(meta, format="x"), separators=(",", ":")).encode() + b"\n" + index + b"\n" + body,
            head + b"\n" + json.dumps(shifted, separators=(",", ":")).encode() + b"\n" + body,
            head + b"\n" + index + b"\n" + body + b"x",
            head + b"\n" + index + b"\n" + body[:-1],
            head + index + body,
            entry.replace(b"render cache", b"render cachE")]


def test_a_damaged_entry_is_ignored_and_rewritten(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "render")
    fresh = _render(CONTRACT, RenderOptions(), None)
    assert _render(CONTRACT, RenderOptions(), cache) == fresh
    (entry,) = _entries(tmp_path / "render")
    good = entry.read_bytes()
    for bad in _corruptions(good):
        entry.write_bytes(bad)
        assert _render(CONTRACT, RenderOptions(), cache) == fresh, bad[:80]
        assert entry.read_bytes() == good  # healed


def test_a_damaged_entry_does_not_change_what_the_cli_writes(tmp_path: Path) -> None:
    env = {"TACIT_GEN_CACHE_DIR": str(tmp_path / "cache")}
    out = tmp_path / "gen"
    _, res = imported("render", str(CONTRACT), "--out", str(out), env=env)
    assert res.returncode == 0
    shutil.rmtree(out)
    (entry,) = _entries(tmp_path / "cache" / "render")
    head, index, body = entry.read_bytes().split(b"\n", 2)
    # every artifact's text changed (same lengths), the digest left as it was
    entry.write_bytes(head + b"\n" + index + b"\n" + body.replace(b"ohlcv", b"OHLCV"))
    got, res = imported("render", str(CONTRACT), "--out", str(out), env=env)
    # a miss: rendered anew (its SQL from the templates the first run compiled: no sqlglot)
    assert res.returncode == 0 and "sqlglot" not in got
    fresh = tmp_path / "fresh"
    _, res = imported("render", str(CONTRACT), "--out", str(fresh), "--no-cache", env=env)
    assert _tree(out) == _tree(fresh)
    assert "OHLCV" not in entry.read_text(encoding="utf-8")


def test_an_unwritable_cache_is_no_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    cache = RenderCache(blocker / "render")
    assert _render(CONTRACT, RenderOptions(), cache) == _render(CONTRACT, RenderOptions(), None)


def test_the_folder_keeps_at_most_max_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rendercache, "MAX_ENTRIES", 4)
    cache = RenderCache(tmp_path / "render")
    for d in DIALECTS:
        _render(CONTRACT, RenderOptions(dialect=d), cache)
    assert 1 <= len(_entries(tmp_path / "render")) <= 4
    assert len(DIALECTS) > 4


def test_a_run_of_more_contracts_than_max_entries_keeps_its_own(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A repository larger than the folder's bound keeps every one of its entries (pruning
    evicts only what an earlier run used): its next run renders nothing."""
    monkeypatch.setattr(rendercache, "MAX_ENTRIES", 4)
    folder = tmp_path / "contracts"
    folder.mkdir()
    text = CONTRACT.read_text(encoding="utf-8")
    first = text.split("contract: ", 1)[1].split("\n", 1)[0].strip()
    paths = []
    for i in range(7):
        p = folder / f"c{i}.yaml"
        p.write_text(text.replace(f"contract: {first}", f"contract: {first}_{i}", 1), encoding="utf-8")
        paths.append(p)
    older = tmp_path / "render" / "old.json"  # an earlier format's entry
    older.parent.mkdir()
    older.write_text("{}", encoding="utf-8")
    os.utime(older, (1, 1))
    cache = RenderCache(tmp_path / "render")
    first_run = render_all(paths, TARGETS, RenderOptions(), cache)
    assert not first_run.errors
    kept = _entries(tmp_path / "render")
    assert len(kept) == 7 and not older.exists()  # the old entry went; this run's seven stayed
    rendered: list[str] = []
    for name in TARGETS:  # a hit renders no target
        monkeypatch.setattr(render_mod.registry.get(name), "render",
                            lambda *a, _name=name, **k: rendered.append(_name))
    second = render_all(paths, TARGETS, RenderOptions(), RenderCache(tmp_path / "render"))
    assert rendered == [] and not second.errors
    assert [(a.path, a.content) for a in second.artifacts] == [(a.path, a.content) for a in first_run.artifacts]


def test_nothing_is_stored_when_tacit_gen_changes_during_a_run(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The check that the code did not change runs once, when the run's entries are written."""
    cache = RenderCache(tmp_path / "render")
    real = rendercache.RenderCache._code
    calls: list[int] = []

    def code(self: RenderCache) -> tuple[str, bool]:
        base, storable = real(self)
        calls.append(1)
        return (base if len(calls) == 1 else base + "changed"), storable

    monkeypatch.setattr(rendercache.RenderCache, "_code", code)
    run = render_all(list(BUNDLED), TARGETS, RenderOptions(), cache)
    assert not run.errors and len(calls) == 2
    assert _entries(tmp_path / "render") == []


# ------------------------------------------------------------------------------ --check
def test_render_check_writes_nothing_to_the_project(tmp_path: Path) -> None:
    """Cold and warm, clean and stale: the output tree is untouched (bytes and times); only the
    cache folder gains an entry."""
    out = tmp_path / "gen"
    shutil.copytree(ROOT / "generated", out)
    stale = out / "dbt" / "ohlcv_1m.yml"
    stale.write_text(stale.read_text(encoding="utf-8") + "# hand edit\n", encoding="utf-8")
    def snapshot() -> dict[Path, tuple[bytes | None, int]]:  # folders too: nothing created in them
        return {p: (None if p.is_dir() else p.read_bytes(), p.stat().st_mtime_ns) for p in out.rglob("*")}

    before = snapshot()
    env = {"TACIT_GEN_CACHE_DIR": str(tmp_path / "cache")}
    for run in ("cold", "warm"):
        got, res = imported("render", "contracts", "--out", str(out), "--check", env=env)
        assert res.returncode == 1, res.stdout + res.stderr
        assert "1 stale" in res.stdout and "# hand edit" in res.stdout, res.stdout
        assert ("sqlglot" in got) == (run == "cold")
        assert snapshot() == before
    assert len(_entries(tmp_path / "cache" / "render")) == len(BUNDLED)


# ------------------------------------------------------------------------------ the key is complete
AUDIT = r"""
import json, os, sys
from pathlib import Path
from importlib import metadata
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.registry import BUILTIN, get
from tacit_gen.targets.base import RenderOptions

out, templates, *paths = sys.argv[1:]
options = RenderOptions(out_dir=out, templates_dir=templates)
contracts = [(load(p), p) for p in paths]
planned = [(c, plan(c)) for c, _ in contracts]
for name in BUILTIN:  # the target modules, as the CLI imports them for its flags
    get(name)
before = set(sys.modules)
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)) else None)
declared = []
for c, clauses in planned:
    for name in BUILTIN:
        target = get(name)
        target.render(c, clauses, options)
        declared += [str(p) for p in target.render_inputs(c, options)]
new = sorted({m.split(".")[0] for m in set(sys.modules) - before})
dists = metadata.packages_distributions()
print(json.dumps({"opened": sorted(set(opened)), "declared": declared, "modules": new,
                  "dists": {m: dists.get(m, []) for m in new}}))
"""


def test_a_render_reads_only_what_the_key_covers(tmp_path: Path) -> None:
    """Every built-in target renders every bundled contract (locks and template overrides
    present): each file opened is tacit-gen's own (package or templates), a file of the override
    folder, a declared `render_inputs` file, or a module of the Python standard library or of a
    library in `DISTRIBUTIONS`; and every library imported is one of `DISTRIBUTIONS`."""
    out = tmp_path / "gen"
    shutil.copytree(ROOT / "generated", out)
    templates = tmp_path / "templates"
    for name in BUILTIN:
        if (ROOT / "templates" / name).is_dir():
            shutil.copytree(ROOT / "templates" / name, templates / name)
    cache = tmp_path / "cache"
    res = subprocess.run([sys.executable, "-c", AUDIT, str(out), str(templates), *map(str, BUNDLED)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env={**os.environ, "TACIT_GEN_CACHE_DIR": str(cache)})
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    allowed_dists = {d.lower() for d in rendercache.DISTRIBUTIONS}
    for module, dists in data["dists"].items():
        if dists:  # not the standard library
            assert {d.lower() for d in dists} & allowed_dists, (module, dists)
    lib_roots = [Path(sys.base_prefix).resolve() / "lib"]
    for module, dists in data["dists"].items():
        if dists:
            spec = __import__(module)
            lib_roots.append(Path(spec.__file__).resolve().parent)
    # compiled templates (tacit_gen.targets.templates): jinja2 keeps each with its template's
    # source checksum and compiles again when the source differs, and the source is in the key
    own = [(ROOT / "tacit_gen").resolve(), (ROOT / "templates").resolve(), templates.resolve(),
           (cache / "jinja").resolve()]
    declared = {Path(p).resolve() for p in data["declared"]}
    assert any(p.name.endswith(".lock.json") for p in declared)
    for opened in data["opened"]:
        p = Path(opened).resolve()
        if p in declared or any(p.is_relative_to(r) for r in own + lib_roots):
            continue
        raise AssertionError(f"a render opened {opened}, which the render cache's key does not cover")


def test_the_key_takes_built_in_targets_only(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="built-in targets only"):
        RenderCache(tmp_path).key(load(CONTRACT), ("markdown",), RenderOptions())


def test_options_repr_is_complete() -> None:
    """The key holds `repr(options)`: every field of the options objects shows in it."""
    for cls in (RenderOptions, DbtOptions):
        assert all(f.repr for f in dataclasses.fields(cls)), cls


def test_the_top_cache_folder_keeps_its_newest_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One answer per environment (entry points, units, sessions): a machine that made a fresh
    virtual environment per CI run does not keep every one of them."""
    from tacit_gen import diskcache

    monkeypatch.setenv("TACIT_GEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(diskcache, "MAX_TOP", 8)
    for i in range(20):
        assert diskcache.store(f"installed-{i:02d}.json", {"i": i})
        os.utime(tmp_path / f"installed-{i:02d}.json", (1000 + i, 1000 + i))
    kept = sorted(p.name for p in tmp_path.glob("*.json"))
    assert 1 <= len(kept) <= 8 and "installed-19.json" in kept and "installed-00.json" not in kept
    assert diskcache.load("installed-19.json") == {"i": 19}
    (tmp_path / "render").mkdir()  # another folder's entries are not the top folder's
    assert diskcache.store("x.json", {}, folder=tmp_path / "render")


def test_an_entry_keeps_any_text_exactly(tmp_path: Path) -> None:
    """An entry holds the artifacts' texts as they are (format 3): non-ASCII, line breaks of
    every kind, a NUL, a lone surrogate, an empty artifact and an empty target read back equal."""
    from tacit_gen.targets.base import Artifact, RenderResult, Unsupported

    contract = load(CONTRACT)
    targets = ("dbt", "soda", "gx")
    texts = ["°C ≤ 1e3 … 温度\r\n", "a\nb\x00c\u2028d\x85", "", "\ud800 lone", "{\"k\": \"\\n\"}\n"]
    results = {
        "dbt": RenderResult(tuple(Artifact(f"dbt/{i}.yml", t) for i, t in enumerate(texts)),
                            (Unsupported("dbt", "clause:x", "why ✓"),)),
        "soda": RenderResult((), ()),
        "gx": RenderResult((Artifact("gx/é.json", texts[0] * 3),), ()),
    }
    cache = RenderCache(tmp_path / "render")
    key = cache.key(contract, targets, RenderOptions())
    assert cache.put(key, contract, targets, RenderOptions(), results)
    assert RenderCache(tmp_path / "render").get(key) == results
