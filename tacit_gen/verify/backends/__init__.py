"""Where `verify` loads the data and runs every engine: one module per backend (DuckDB,
PostgreSQL, Spark) behind one small protocol, `Backend`, as ibis has one package per backend.

A backend loads each case (`tacit_gen.verify.cases.prepare_case`: DuckDB always types the data
first) and hands it to the engines the targets declare on it (`Target.engines[<backend>]`); the
comparison of their verdicts is the same everywhere (`tacit_gen.verify.cases.compare`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

from tacit_gen.targets.base import BACKENDS

if TYPE_CHECKING:
    import contextlib
    from pathlib import Path

    from tacit_gen.engines.base import EngineRun
    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.verify.cases import Prepared, VerifyCase


class Backend(Protocol):
    """One backend: its name (of `BACKENDS`) and how it runs a batch of cases."""

    name: str
    # the modules the backend loads the data with, each with the extra installing it: verify
    # checks them before anything starts (`tacit_gen.extras.require`)
    drivers: tuple[tuple[str, str], ...]

    def runs(self, cases: list[VerifyCase], root: Path, options: RenderOptions,
             artifacts: Path | None, jobs: int | None, dsn: str | None,
             stack: contextlib.ExitStack) -> tuple[list[Prepared], list[dict[str, EngineRun]]]:
        """Every case loaded (its work folder under `root`) and every engine's run on it, per
        case, per target; `stack` closes what the backend opened (a server, a started engine)
        when the reports are made."""
        ...


def require_drivers(backend: Backend) -> None:
    """Raise `MissingExtra` when a module `backend` loads the data with is not installed.

    Raises:
        MissingExtra: naming the module and the extra that installs it.
    """
    from tacit_gen.extras import require

    for module, extra in backend.drivers:
        require(f"verify --engine {backend.name} (it loads the data with {module})", (module,), extra)


def get(name: str) -> Backend:
    """The backend called `name`.

    Raises:
        ValueError: an unknown backend (the message lists the known ones).
    """
    if name not in BACKENDS:
        raise ValueError(f"unknown engine {name!r}: expected one of {', '.join(BACKENDS)}")
    backend: Backend = importlib.import_module(f"tacit_gen.verify.backends.{name}").BACKEND
    return backend
