"""What every target shares: the `Target` protocol, artifacts, options, unsupported-clause reports."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from tacit_gen.contract.model import Contract
    from tacit_gen.drift.base import ReadResult
    from tacit_gen.plan_types import Clause


@dataclass(frozen=True)
class Artifact:
    """One generated file: its path relative to the output root (``dbt/ohlcv_1m.yml``) and text."""

    path: str
    content: str


@dataclass(frozen=True)
class Unsupported:
    """A clause a target cannot express; reported by `render` and listed in the artifact."""

    target: str
    clause_id: str
    reason: str
    contract: str = ""  # the contract's file, set by `render_all` (a target leaves it empty)


@dataclass(frozen=True)
class RenderResult:
    """What a target produced for one contract."""

    artifacts: tuple[Artifact, ...]
    unsupported: tuple[Unsupported, ...] = ()


@dataclass(frozen=True)
class NoOptions:
    """The options of a target that takes none beyond the contract's `targets.<name>` keys."""


@dataclass(frozen=True)
class ContractKey:
    """A key a target takes under `targets.<name>` in a contract (besides `enabled`).

    Attributes:
        key: the key (`model`, `dataset`...).
        description: one line, shown in the contract's JSON Schema.
        kind: how the loader validates the value: ``name`` (an identifier, TG115), ``class``
            (a Python class name that shadows nothing the generated module uses), ``choice``
            (one of `choices`), ``dotted`` (identifiers joined by dots: a namespace or package)
            or ``text`` (any text without white space: a URI prefix).
        choices: the allowed values of a ``choice`` key.
    """

    key: str
    description: str
    kind: Literal["name", "class", "choice", "dotted", "text"] = "name"
    choices: tuple[str, ...] = ()


def dialect_key() -> ContractKey:
    """The `targets.<name>.dialect` key of the targets that write SQL of a chosen dialect."""
    from tacit_gen.sql.dialects import DIALECTS

    return ContractKey("dialect", "SQL dialect of the target's queries and type names (default: "
                       "the --dialect option, else the dbt adapter's, else duckdb)", kind="choice",
                       choices=DIALECTS)


def flag(name: str, help: str, choices: tuple[str, ...] = ()) -> dict[str, Any]:
    """Field metadata declaring a CLI flag of a target's options class.

    ``adapter: str = field(default="duckdb", metadata=flag("--dbt-adapter", "...", ADAPTERS))``
    makes `render` and `check` take ``--dbt-adapter`` and put its value in that field.
    """
    return {"flag": name, "help": help, "choices": choices}


OptionsT = TypeVar("OptionsT")


@dataclass(frozen=True)
class RenderOptions:
    """What every target shares (the template override folder, the SQL dialect of `--dialect`)
    plus one frozen options object per target (`DbtOptions(adapter=...)`); a target without one
    here gets its defaults."""

    templates_dir: str | None = None  # user override folder (one subfolder per target)
    # The output root being rendered into (`--out`): a target that keeps state there (protobuf's
    # field-number lock) reads it from this folder; None renders as if the folder were empty.
    out_dir: str | None = None
    dialect: str | None = None  # --dialect: SQL of the targets that take one (None: see dialect_for)
    # verify --engine: the SQL dialect of the engine the artifacts run on, which wins over a
    # contract's own `targets.<t>.dialect` (verify notes the override).
    engine_dialect: str | None = None
    targets: tuple[Any, ...] = field(default=())  # per-target options objects, one per class

    def get(self, cls: type[OptionsT]) -> OptionsT:
        """The options object of class `cls` given here, else `cls()` (its defaults)."""
        for o in self.targets:
            if type(o) is cls:
                return o  # type: ignore[no-any-return]
        return cls()

    def dialect_for(self, target: str, contract: Contract | None = None) -> str:
        """The SQL dialect `target` writes for `contract`: the engine's (`engine_dialect`, under
        ``verify --engine``), else ``targets.<target>.dialect`` in the contract, else `dialect`
        (``--dialect``), else the dialect an options object here implies (`sql_dialect`: the dbt
        adapter's), else ``duckdb``."""
        from tacit_gen.sql.dialects import check_dialect

        if self.engine_dialect:
            return check_dialect(self.engine_dialect)
        if contract is not None:
            own = contract.target_option(target, "dialect")
            if own:
                return check_dialect(str(own))
        if self.dialect:
            return check_dialect(self.dialect)
        implied = [d for o in self.targets if (d := getattr(o, "sql_dialect", None))]
        return implied[0] if implied else "duckdb"


# The backends `verify` runs engines on: an embedded DuckDB, a PostgreSQL server, Spark local.
BACKENDS = ("duckdb", "postgres", "spark")


@dataclass(frozen=True)
class Engine:
    """How `verify` runs one target's artifacts on one backend (a value of `Target.engines`).

    Attributes:
        module: the engine module. It defines ``run(VerifyInput) -> EngineRun``; with `batch`,
            also ``run_cases(list[VerifyInput]) -> list[EngineRun]`` (many datasets in one call);
            with `warm`, ``warm() -> None`` (the imports worth starting while the data loads).
            An engine run in the Spark worker's session (`session`) defines
            ``run_cases(spark, cases) -> dict[str, EngineRun]`` instead.
        libraries: the top-level modules the engine imports. A process that has loaded one is
            not forked for another engine; one that cannot be imported means the engine cannot
            run (exit 4, naming `extra`).
        extra: the pip extra that installs `libraries` (``pip install 'tacit-gen[<extra>]'``).
        cost: the engine's relative cost on this backend; `verify` starts the costliest first.
        batch: `module` has ``run_cases`` for many datasets at once.
        warm: `module` has ``warm()``.
        session: Spark only: runs inside the Spark worker's one session; False runs in verify's
            own process pool on the loaded copy of the data (the wire schemas check records,
            not a table).
        environment: the module whose ``ENV`` (a `tacit_gen.engines.envs.LockedEnv`) the engine
            runs in, built by ``tacit-gen engines setup <target>``; None: verify's environment.
    """

    module: str
    libraries: tuple[str, ...] = ()
    extra: str | None = None
    cost: int = 0
    batch: bool = False
    warm: bool = False
    session: bool = False
    environment: str | None = None


@runtime_checkable
class EngineOptions(Protocol):
    """An options class whose engine reads the artifacts with other options than the user's
    render (dbt: the backend's adapter, the macros at their default place under the artifacts
    root). `verify` calls it on every registered target's options, given or default."""

    def for_engine(self, backend: str) -> Any:
        """These options as `verify`'s engine on `backend` (of `BACKENDS`) reads the artifacts."""
        ...


class Target(Protocol):
    """Everything about one target: options, render, read back, projection, engine.

    Attributes:
        name: the target's name (`--target NAME`, `targets.NAME` in a contract, `generated/NAME/`).
        options: a frozen dataclass of the options `render` reads, default-constructible; fields
            carrying `flag(...)` metadata are CLI flags of `render` and `check`; it may implement
            `EngineOptions.for_engine` when `verify` reads the artifacts differently on a backend.
        contract_keys: the keys the target takes under `targets.<name>` in a contract (every target
            also takes `enabled`).
        artifact_name_option: the contract key naming the artifact (`model`, `dataset`...), or None;
            `diff` reports a change of it as a rename.
        engines: how `verify` runs the artifact on each backend of `BACKENDS` it supports
            (`Engine`); a backend left out is one the target cannot be verified on, and a target
            without engines (a document) is never run.
        templates: True when `--templates DIR/<name>/` can override this target's templates; a
            target without templates refuses such a folder.

    A target whose `render` reads a file besides the contract and its templates declares it with
    an optional method ``render_inputs(contract, options) -> tuple[Path, ...]`` (protobuf's
    field-number lock): the render cache (`tacit_gen.rendercache`) keys on those files' bytes.
    ``tests/cli/test_render_cache.py`` fails when a built-in target's render opens an undeclared
    file.
    """

    name: str
    options: type[Any]
    contract_keys: tuple[ContractKey, ...]
    artifact_name_option: str | None
    engines: Mapping[str, Engine]
    templates: bool

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        """Relative paths (under the output root) this target writes for a contract; the first is
        the one `check` reads back."""
        ...

    def render(
        self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions
    ) -> RenderResult:
        """The artifacts of one contract, and the clauses the target cannot express."""
        ...

    def read(self, path: Path, text: str) -> ReadResult:
        """Clauses read back from one artifact (its operative parts), plus reader findings."""
        ...

    def project(self, contract: Contract, clause: Clause, options: RenderOptions) -> Clause | None:
        """The clause as this target's reader recovers it from a faithful artifact (the params the
        artifact can carry, SQL as rendered), or None when the target declares it unsupported."""
        ...


def float_text(value: float) -> str:
    """A float read back from an artifact as decimal text without an exponent or trailing zeros
    (``0.5``, ``100``, ``0.00001``)."""
    from decimal import Decimal

    text = format(Decimal(repr(value)), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def float_fixed(clause: Clause) -> Clause:
    """A float column's fixed value as the float an artifact carries reads back (`float_text`):
    GX's value set and the JSON Schema's ``const`` hold a number for it, so ``0.50`` reads as
    ``0.5``. Any other clause as it is."""
    if clause.kind != "fixed_value":
        return clause
    value = clause.param("value")
    if not isinstance(value, str) or clause.column_type(str(clause.param("column"))) not in ("float32", "float64"):
        return clause
    params = {**clause.params_dict, "value": float_text(float(value))}
    return replace(clause, params=tuple(sorted(params.items())))


def sql_projection(clause: Clause, dialect: str = "duckdb") -> Clause:
    """The default projection: the plan's params plus, for invariants and ranges, their ``sql``
    in `dialect` (what a reader of SQL-carrying artifacts returns)."""
    params = dict(clause.params)
    if clause.expr is not None and clause.kind in ("invariant", "range"):
        from tacit_gen.sql import to_sql

        with contextlib.suppress(ValueError):
            params["sql"] = to_sql(clause.expr, dialect, clause.integers, clause.strings, clause.singles)
    return replace(clause, params=tuple(sorted(params.items())))
