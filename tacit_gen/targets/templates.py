"""Where templates come from: the user's `--templates DIR` first, then the wheel's `_templates`,
then the repository's `templates/` (an editable install). One lookup for every target."""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Any

from tacit_gen.targets.base import RenderOptions

_PACKAGE = Path(__file__).resolve().parents[1]


def roots(target: str, options: RenderOptions) -> list[Path]:
    """The template folders of a target, in lookup order (existing folders only)."""
    if options.templates_dir:
        user = Path(options.templates_dir) / target
        if user.is_dir():  # asked each time: a user's folder may come and go
            return [user, *_shipped(target)]
    return list(_shipped(target))


@lru_cache(maxsize=64)
def _shipped(target: str) -> tuple[Path, ...]:
    """The target's folders of tacit-gen itself: the wheel's, then the repository's (an editable
    install). Looked up once a process: a render asks for them for every contract."""
    found = [_PACKAGE / "_templates" / target, _PACKAGE.parent / "templates" / target]
    return tuple(r for r in found if r.is_dir())


# A shipped template file's text by path, with the (modification time, change time, size) it was
# read at: a render asks for the same few files for every contract, and one `stat` tells whether
# the text still holds. A user's template (`--templates`) is read each time.
_TEXTS: dict[str, tuple[int, int, int, str]] = {}


def packaged_root(target: str) -> Path:
    """The shipped (not user-overridden) template folder of a target."""
    return roots(target, RenderOptions())[0]


def read_template(target: str, name: str, options: RenderOptions) -> str:
    """A template file's text, from the first folder that has it."""
    shipped = _shipped(target)
    for root in roots(target, options):
        p = root / name
        try:
            st = os.stat(p)
        except (OSError, ValueError):
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        if root not in shipped:
            return p.read_text(encoding="utf-8")
        key = str(p)
        known = _TEXTS.get(key)
        if known is not None and known[:3] == (st.st_mtime_ns, st.st_ctime_ns, st.st_size):
            return known[3]
        text = p.read_text(encoding="utf-8")
        _TEXTS[key] = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, text)
        return text
    raise FileNotFoundError(f"template {target}/{name} not found in {roots(target, options)}")


@lru_cache(maxsize=32)
def _environment(folders: tuple[str, ...]) -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(list(folders)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        bytecode_cache=_bytecode_cache(),
    )


def _bytecode_cache() -> Any:
    """Compiled templates kept in the cache folder (``jinja/``), as Python keeps ``.pyc`` files:
    jinja2 stores each template's code with its source's checksum and its own and Python's
    version, and compiles again whenever one differs. A folder that cannot be made, read or
    written is no cache: the template compiles as before, never an error."""
    import jinja2

    from tacit_gen import diskcache

    class _Quiet(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket: Any) -> None:
            try:
                super().load_bytecode(bucket)
            except (OSError, ValueError, EOFError):
                bucket.reset()

        def dump_bytecode(self, bucket: Any) -> None:
            import contextlib

            with contextlib.suppress(OSError):
                super().dump_bytecode(bucket)

    folder = diskcache.cache_dir() / "jinja"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return _Quiet(str(folder))


def jinja_template(target: str, name: str, options: RenderOptions) -> Any:
    """A compiled jinja2 template (StrictUndefined); environments are cached per folder list."""
    return _environment(tuple(str(r) for r in roots(target, options))).get_template(name)


class TemplateFolderError(ValueError):
    """A `--templates DIR` subfolder that would be silently ignored."""


def check_overrides(options: RenderOptions, targets: tuple[str, ...]) -> None:
    """`--templates DIR` is honest: a subfolder for a target without templates (its YAML or JSON is
    built as data and written by one deterministic writer), or one that names no target, is an
    error naming the folder, never silently ignored.

    Raises:
        TemplateFolderError: naming the first such folder.
    """
    from tacit_gen import registry

    if not options.templates_dir:
        return
    root = Path(options.templates_dir)
    known = registry.names()
    for sub in sorted(p for p in root.iterdir() if p.is_dir()):
        shown = sub.as_posix()
        if sub.name not in known:
            raise TemplateFolderError(f"template folder {shown} names no target (known: {', '.join(known)})")
        if sub.name in targets and not registry.get(sub.name).templates:
            with_templates = [t for t in known if registry.get(t).templates]
            raise TemplateFolderError(
                f"template folder {shown}: the {sub.name} target has no templates (its artifact is "
                f"built as data and written by one writer); targets with templates: "
                f"{', '.join(with_templates)}")
