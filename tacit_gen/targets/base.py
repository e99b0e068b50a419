"""What every target shares: the `Target` protocol, artifacts, options, unsupported-clause reports."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from tacit_gen.contract.model import Contract
    from tacit_gen.drift.base import Finding, ReadResult
    from tacit_gen.plan_types import Clause
    from tacit_gen.targets.compat import WireCompat


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


@dataclass(frozen=True)
class SettingKey:
    """How one field of a target's options is written in the settings file's ``[<target>]`` table
    (``tacit-gen.toml``, or ``[tool.tacit-gen.<target>]`` in ``pyproject.toml``); the key is the
    field's name.

    Attributes:
        help: one line saying what the key sets.
        choices: the allowed values (empty: any non-empty string).
        path: the value is a path relative to the settings file's folder; the options get it as
            the commands show paths (relative to the working directory when under it).
        pattern: a regular expression a value must match (a number is taken as its text, so
            ``version = 1.8`` is ``"1.8"``).
        expected: what the error says when a value does not match `pattern`.
    """

    help: str
    choices: tuple[str, ...] = ()
    path: bool = False
    pattern: str | None = None
    expected: str = ""


def flag(name: str, help: str, choices: tuple[str, ...] = (), *, path: bool = False,
         pattern: str | None = None, expected: str = "") -> dict[str, Any]:
    """Field metadata declaring a CLI flag of a target's options class, and its settings key.

    ``adapter: str = field(default="duckdb", metadata=flag("--dbt-adapter", "...", ADAPTERS))``
    makes `render` and `check` take ``--dbt-adapter`` and put its value in that field, and makes
    ``adapter`` a key of the ``[dbt]`` settings table with the same choices (see `SettingKey` for
    `path`, `pattern` and `expected`, which apply to the settings value).
    """
    return {"flag": name, "help": help, "choices": choices,
            "setting": SettingKey(help, choices, path, pattern, expected)}


def setting(help: str, choices: tuple[str, ...] = (), *, path: bool = False,
            pattern: str | None = None, expected: str = "") -> dict[str, Any]:
    """Field metadata declaring a settings-only key of a target's options class (no CLI flag):
    ``project: str | None = field(default=None, metadata=setting("...", path=True))``."""
    return {"setting": SettingKey(help, choices, path, pattern, expected)}


def setting_keys(options: type[Any]) -> dict[str, SettingKey]:
    """The keys of a target's settings table: its options' fields declared with `flag` or
    `setting`, by field name."""
    import dataclasses

    if not dataclasses.is_dataclass(options):
        return {}
    return {f.name: f.metadata["setting"] for f in dataclasses.fields(options) if "setting" in f.metadata}


@runtime_checkable
class ProjectOptions(Protocol):
    """An options class that settles its values against the project once the flags and the
    settings are in (dbt: the macros folder relative to the output root)."""

    def in_project(self, out: str, given: frozenset[str]) -> Any:
        """These options as `render` uses them when writing to `out`; `given` names the fields a
        flag or the settings set (a `path` field given is relative to the working directory)."""
        ...


OptionsT = TypeVar("OptionsT")


@runtime_checkable
class DialectOptions(Protocol):
    """An options class that implies the SQL dialect of the targets taking one (dbt: its
    adapter's); `RenderOptions.dialect_for` falls back to it after ``--dialect``."""

    @property
    def sql_dialect(self) -> str:
        """The SQL dialect these options imply (a name of `tacit_gen.sql.dialects.DIALECTS`)."""
        ...


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
        implied = [o.sql_dialect for o in self.targets if isinstance(o, DialectOptions)]
        return implied[0] if implied else "duckdb"


@dataclass(frozen=True)
class ContractProblem:
    """A problem a target's contract check (`Target.check_contract`) finds when a contract loads,
    reported as an error at the value of the top-level key `at` (``contract``: the name).

    Attributes:
        code: the diagnostic code (``TG115``).
        message: the message, naming the offending word and what to do.
        word: the offending word (the diagnostic's snippet).
        at: the top-level key of the contract the error points at.
    """

    code: str
    message: str
    word: str
    at: str = "contract"


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

    A target class subclasses this protocol (``class DbtTarget(Target)``) and so takes the defaults
    of what it does not declare; its package builds the one object the registry names
    (``TARGET = DbtTarget()`` in ``tacit_gen/targets/dbt/__init__.py``).

    Attributes:
        name: the target's name (`--target NAME`, `targets.NAME` in a contract, `generated/NAME/`).
        options: a frozen dataclass of the options `render` reads, default-constructible; fields
            carrying `flag(...)` metadata are CLI flags of `render` and `check`; it may implement
            `EngineOptions.for_engine` when `verify` reads the artifacts differently on a backend.
        contract_keys: the keys the target takes under `targets.<name>` in a contract (every target
            also takes `enabled`).
        artifact_name_option: the contract key naming the artifact (`model`, `dataset`...), or None;
            `diff` reports a change of it as a rename.
        reader: ``"module:function"`` of the reader, ``function(path, text) -> ReadResult``;
            imported by the default `read` on first use, so render never pays for the reader.
        engines: how `verify` runs the artifact on each backend of `BACKENDS` it supports
            (`Engine`); a backend left out is one the target cannot be verified on, and a target
            without engines (a document) is never run.
        templates: True when `--templates DIR/<name>/` can override this target's templates; a
            target without templates refuses such a folder.
        increments: True when its engines check an increment given `VerifyInput.since` (the
            rows at or after it and their boundary, docs/how-to/incremental-dbt.md); `verify
            --since` runs only such targets.
        compat: ``"module:object"`` of the target's wire compatibility (a
            `tacit_gen.targets.compat.WireCompat`: how the registry that keeps its artifact judges
            two versions), run by `compat`; empty: the target has none. Imported by `wire_compat`.
        replays: True when `compat --replay` reads stored data through this target's engine
            (the runtime a consumer parses records with: ibis).
    """

    name: str
    options: type[Any]
    contract_keys: tuple[ContractKey, ...]
    artifact_name_option: str | None
    reader: str = ""
    engines: ClassVar[Mapping[str, Engine]]
    templates: bool
    increments: ClassVar[bool] = False
    compat: str = ""
    replays: bool = False

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
        """Clauses read back from one artifact (its operative parts), plus reader findings.

        The default calls the function `reader` names, imported here on first use."""
        import importlib

        module, _, attr = self.reader.partition(":")
        function = getattr(importlib.import_module(module), attr or "read")
        return function(path, text)  # type: ignore[no-any-return]

    def wire_compat(self) -> WireCompat[Any] | None:
        """The object `compat` names, imported here on first use; None without one."""
        if not self.compat:
            return None
        import importlib

        module, _, attr = self.compat.partition(":")
        return getattr(importlib.import_module(module), attr or "COMPAT")  # type: ignore[no-any-return]

    def project(self, contract: Contract, clause: Clause, options: RenderOptions) -> Clause | None:
        """The clause as this target's reader recovers it from a faithful artifact (the params the
        artifact can carry, SQL as rendered), or None when the target declares it unsupported."""
        ...

    def render_inputs(self, contract: Contract, options: RenderOptions) -> tuple[Path, ...]:
        """The files `render` reads besides the contract and its templates (protobuf's
        field-number lock): the render cache (`tacit_gen.rendercache`) keys on their bytes, and
        ``tests/cli/test_render_cache.py`` fails when a built-in target's render opens a file it
        does not declare here. Default: none."""
        return ()

    def render_warnings(self, artifacts: Sequence[Artifact], root: Path,
                        options: RenderOptions) -> tuple[str, ...]:
        """Warnings `render` prints (``warning: <text>``) about the project the artifacts go into
        (dbt: a dbt_utils test without the package): `artifacts` are the whole run's, `root` the
        settings file's folder (the project root). Default: none."""
        return ()

    def check_project(self, out: Path, root: Path,
                      options: RenderOptions) -> tuple[Sequence[Finding], Sequence[str]]:
        """What `check` finds beyond comparing each artifact with its contract: findings about the
        project the artifacts under `out` live in (dbt: a model described twice, project configs
        weakening the generated tests), and notes. Default: nothing."""
        return (), ()

    def check_contract(self, name: str, keys: Mapping[str, Any]) -> tuple[ContractProblem, ...]:
        """What this target refuses in a contract when it loads, for every contract whether or not
        it renders this target (the loader runs every registered target's check): `name` is the
        contract's name, `keys` its ``targets.<name>`` keys. Default: nothing."""
        return ()

    def init_settings(self) -> tuple[str, str]:
        """What `init` writes for this target in a new project's settings: the body of its
        ``[<name>]`` table (TOML lines, comments included; empty: no table) and one line `init`
        prints about it (empty: none). dbt: its YAML form pinned. Default: nothing."""
        return "", ""


def as_target(obj: Any) -> Target:
    """`obj` as a `Target`: an object whose class does not subclass the protocol (an outside
    target) gets the protocol's defaults for what it does not declare, through a subclass of its
    class and the protocol (its own attributes win)."""
    if Target in type(obj).__mro__:
        return obj  # type: ignore[no-any-return]
    cls = type(type(obj).__name__, (type(obj), Target), {"__module__": type(obj).__module__})
    completed: Any = object.__new__(cls)
    completed.__dict__.update(vars(obj))
    return completed  # type: ignore[no-any-return]


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
