"""Project settings: ``tacit-gen.toml`` (or ``[tool.tacit-gen]`` in ``pyproject.toml``).

Found by walking up from the working directory to the top of the git work tree (the first folder
holding either file wins; ``tacit-gen.toml`` before ``pyproject.toml`` in one folder). Every
command reads them; a command-line flag overrides the setting. Paths in the file are relative to
the folder that holds it. Unknown keys and bad values are errors with ``file:line:col`` and a
did-you-mean, like contracts (exit 2).

    contracts = "contracts"          # a folder or file, or a list of them
    out = "generated"
    targets = ["dbt", "soda", "gx", "pandera", "ibis"]
    templates = "my-templates"       # optional template overrides

    [dbt]                            # one table per target, built from its options class
    adapter = "duckdb"               # (`tacit_gen.targets.base.flag` / `setting` field metadata):
    tests = "native"                 # a key per field, with its choices; see `tacit-gen render -h`
    macros = "generated/dbt_macros"  # a `path` key is relative to this file's folder
    project = "."                    # a settings-only key (no flag)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen.contract.errors import Diagnostic
from tacit_gen.diagnostics import close_matches

if TYPE_CHECKING:
    from collections.abc import Mapping

FILE_NAME = "tacit-gen.toml"
# The top-level keys; every registered target's name is also one (its `[<target>]` table).
TOP_KEYS = ("contracts", "out", "targets", "templates")


class SettingsError(Exception):
    """A settings file that does not load; carries every diagnostic (rendered: path:line:col)."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(d.render() for d in diagnostics))


@dataclass(frozen=True)
class Settings:
    """What a settings file says, with the folder its relative paths start from."""

    root: Path
    source: Path | None = None
    contracts: tuple[str, ...] | None = None
    out: str | None = None
    targets: tuple[str, ...] | None = None
    templates: str | None = None
    # target name -> key -> value of its `[<target>]` table (keys the target's options declare)
    sections: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def section(self, target: str) -> Mapping[str, str]:
        """The `[<target>]` table's values (empty when the file has none)."""
        return self.sections.get(target, {})

    def path(self, rel: str) -> str:
        """A settings path (relative to `root`) as the command shows it: relative to the
        working directory when under it, else absolute."""
        p = (self.root / rel).resolve()
        try:
            return p.relative_to(Path.cwd().resolve()).as_posix() or "."
        except ValueError:
            return p.as_posix()


def _git_top(start: Path) -> Path | None:
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return None


def find(start: str | os.PathLike[str] | None = None) -> tuple[Path, str] | None:
    """The settings file that applies in `start` (default: the working directory): (path, kind),
    kind ``"file"`` for tacit-gen.toml or ``"pyproject"``; None when there is none."""
    here = Path(start or Path.cwd()).resolve()
    top = _git_top(here)
    chain = [here, *here.parents]
    folders = chain[: chain.index(top) + 1] if top is not None else [here]
    for d in folders:
        if (d / FILE_NAME).is_file():
            return d / FILE_NAME, "file"
        py = d / "pyproject.toml"
        if py.is_file():
            try:
                text = py.read_text(encoding="utf-8")
            except OSError:
                continue
            if re.search(r"^\s*\[\s*tool\s*\.\s*(\"tacit-gen\"|tacit-gen)\s*[.\]]", text, re.M):
                return py, "pyproject"
    return None


def _positions(text: str, prefix: tuple[str, ...]) -> dict[tuple[str, ...], tuple[int, int]]:
    """(table path + key) -> (line, col) of each ``key =`` line and ``[table]`` header.

    tomllib keeps no positions; settings files are flat enough for a line scan (tables and
    ``key = value`` lines; dotted keys and inline tables are located by their first key).
    """
    pos: dict[tuple[str, ...], tuple[int, int]] = {}
    table: tuple[str, ...] = ()
    for i, line in enumerate(text.splitlines(), start=1):
        m = re.match(r"^(\s*)\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$", line)
        if m:
            table = tuple(part.strip().strip('"') for part in m.group(2).split("."))
            rel = table[len(prefix):] if table[: len(prefix)] == prefix else None
            if rel:
                pos.setdefault(rel, (i, len(m.group(1)) + 2))
            continue
        m = re.match(r'^(\s*)("?[A-Za-z0-9_\-]+"?)\s*=', line)
        if m and table[: len(prefix)] == prefix:
            key = m.group(2).strip('"')
            pos.setdefault((*table[len(prefix):], key), (i, len(m.group(1)) + 1))
    return pos


def load(path: str | os.PathLike[str], kind: str = "file") -> Settings:
    """Read one settings file.

    Raises:
        SettingsError: TOML syntax, unknown keys (with a did-you-mean) or bad values.
    """
    import tomllib  # only when a settings file applies (start-up, issue 16)

    p = Path(path)
    shown = display(p)
    text = p.read_text(encoding="utf-8")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        line, col = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        raise SettingsError([Diagnostic(shown, line, col, "error", "TG150",
                                        f"not valid TOML: {msg}")]) from None
    prefix: tuple[str, ...] = ()
    if kind == "pyproject":
        prefix = ("tool", "tacit-gen")
        doc = doc.get("tool", {}).get("tacit-gen", {})
    pos = _positions(text, prefix)
    diags: list[Diagnostic] = []

    def err(keys: tuple[str, ...], code: str, message: str) -> None:
        line, col = pos.get(keys, pos.get(keys[:1], (1, 1)))
        diags.append(Diagnostic(shown, line, col, "error", code, message, keys[-1] if keys else ""))

    def unknown(table: dict[str, Any], allowed: tuple[str, ...], where: tuple[str, ...]) -> None:
        for k in table:
            if k not in allowed:
                close = close_matches(k, allowed, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                name = ".".join((*prefix, *where)) or "the top level"
                err((*where, k), "TG151", f"unknown key '{k}' in {name}{hint}")

    def string(table: dict[str, Any], key: str, where: tuple[str, ...],
               choices: tuple[str, ...] | None = None) -> str | None:
        if key not in table:
            return None
        v = table[key]
        if not isinstance(v, str) or not v:
            err((*where, key), "TG152", f"'{'.'.join((*where, key))}' must be a non-empty string")
            return None
        if choices is not None and v not in choices:
            close = close_matches(v, choices, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            err((*where, key), "TG152",
                f"'{'.'.join((*where, key))}' is '{v}': expected one of {', '.join(choices)}{hint}")
            return None
        return v

    def strings(table: dict[str, Any], key: str) -> tuple[str, ...] | None:
        if key not in table:
            return None
        v = table[key]
        if isinstance(v, str) and v:
            return (v,)
        if isinstance(v, list) and v and all(isinstance(x, str) and x for x in v):
            return tuple(v)
        err((key,), "TG152", f"'{key}' must be a string or a list of strings")
        return None

    target_names: tuple[str, ...] = ()
    if any(k not in TOP_KEYS for k in doc):  # a target's table: the registry says which exist
        from tacit_gen import registry

        target_names = registry.names()
    unknown(doc, (*TOP_KEYS, *target_names), ())
    targets = strings(doc, "targets")
    if targets is not None:
        from tacit_gen import registry

        try:
            targets = registry.parse_targets(",".join(targets))
        except KeyError as e:
            err(("targets",), "TG152", str(e.args[0]))
            targets = None
    sections: dict[str, Mapping[str, str]] = {}
    for name in (k for k in doc if k in target_names):
        table = doc[name]
        if not isinstance(table, dict):
            err((name,), "TG152", f"'{name}' must be a table: [{name}]")
            continue
        from tacit_gen import registry
        from tacit_gen.targets.base import setting_keys

        keys = setting_keys(registry.get(name).options)
        unknown(table, tuple(keys), (name,))
        values: dict[str, str] = {}
        for key, spec in keys.items():
            raw = table.get(key)
            if spec.pattern is not None and raw is not None:
                text = str(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else raw
                if not isinstance(text, str) or not re.match(spec.pattern, text):
                    err((name, key), "TG152", f"'{name}.{key}' is {raw!r}: {spec.expected or 'a bad value'}")
                    continue
                values[key] = text
                continue
            value = string(table, key, (name,), spec.choices or None)
            if value is not None:
                values[key] = value
        sections[name] = values
    settings = Settings(
        root=p.resolve().parent,
        source=p,
        contracts=strings(doc, "contracts"),
        out=string(doc, "out", ()),
        targets=targets,
        templates=string(doc, "templates", ()),
        sections=sections,
    )
    if diags:
        raise SettingsError(diags)
    return settings


def display(p: Path) -> str:
    try:
        return p.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return p.as_posix()


def discover(start: str | os.PathLike[str] | None = None) -> Settings:
    """The settings that apply in `start` (default: the working directory); empty settings
    rooted at `start` when there is no file.

    Raises:
        SettingsError: the file found does not load.
    """
    found = find(start)
    if found is None:
        return Settings(root=Path(start or Path.cwd()).resolve())
    return load(*found)


def target_options(settings: Settings, flags: Mapping[str, Any], out: str) -> tuple[Any, ...]:
    """Each registered target's options object, for the targets whose options declare flags or
    settings keys: each field from its flag (`flags`, by the flag's name without dashes, ``-`` as
    ``_``; None is not given), else from the target's settings table, else its default; then
    settled against the project (`ProjectOptions.in_project`) for the output root `out`."""
    import dataclasses

    from tacit_gen import registry
    from tacit_gen.targets.base import ProjectOptions

    built: list[Any] = []
    for name in registry.names():
        cls = registry.get(name).options
        if not dataclasses.is_dataclass(cls):
            continue
        section = settings.section(name)
        kw: dict[str, Any] = {}
        declared = False
        for f in dataclasses.fields(cls):
            meta = f.metadata
            if "flag" not in meta and "setting" not in meta:
                continue
            declared = True
            given = flags.get(meta["flag"].lstrip("-").replace("-", "_")) if "flag" in meta else None
            if given is None and f.name in section:
                spec = meta.get("setting")
                given = settings.path(section[f.name]) if spec is not None and spec.path else section[f.name]
            if given is not None:
                kw[f.name] = given
        if not declared or any(type(o) is cls for o in built):
            continue
        opts = cls(**kw)
        if isinstance(opts, ProjectOptions):
            opts = opts.in_project(out, frozenset(kw))
        built.append(opts)
    return tuple(built)
