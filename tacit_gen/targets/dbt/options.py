"""The dbt target's options: the `--dbt-*` flags and the `[dbt]` settings table (one frozen
dataclass; `tacit_gen.targets.base.flag` / `setting` declare both)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from tacit_gen.targets.base import flag, setting
from tacit_gen.targets.dbt.text import ADAPTERS

TEST_STYLES = ("dbt_utils", "native")
NOT_NULL_MODES = ("constraint", "test", "both")


@dataclass(frozen=True)
class DbtOptions:
    """How the dbt properties are written: the `--dbt-*` flags, or `[dbt]` in tacit-gen.toml."""

    adapter: str = field(default="duckdb", metadata=flag(
        "--dbt-adapter", "The warehouse the model runs on (column data types, SQL dialect). "
        "[settings: dbt.adapter; default: duckdb]", ADAPTERS))
    tests: str = field(default="dbt_utils", metadata=flag(
        "--dbt-tests", "dbt_utils generic tests, or self-contained ones in the generated macros "
        "file. [settings: dbt.tests; default: dbt_utils]", TEST_STYLES))
    not_null: str = field(default="both", metadata=flag(
        "--dbt-not-null", "not_null as a model constraint (fails the build; dbt ignores it on a "
        "view), a test (failure counts), or both. [settings: dbt.not_null; default: both]",
        NOT_NULL_MODES))
    version: str | None = field(default=None, metadata=flag(
        "--dbt-version", "The dbt-core the YAML is for: 1.10+ data_tests with arguments:, 1.8-1.9 "
        "data_tests, 1.7 tests, arguments inline. [settings: dbt.version; default: the newest "
        "form, 1.10, whatever dbt-core is installed]", pattern=r"^1\.\d+(\.\d+)?$",
        expected='write a dbt-core version such as "1.8" or "1.10"'))
    macros: str = field(default="dbt_macros", metadata=flag(
        "--dbt-macros", "Folder of the generic-test macros (for macro-paths), relative to the "
        "output root. [settings: dbt.macros; default: OUT/dbt_macros]", path=True))
    # settings only: the folder holding the user's dbt_project.yml, which `render` and `check`
    # read (tacit_gen.targets.dbt.project); None: the settings file's folder
    project: str | None = field(default=None, metadata=setting(
        "The folder holding dbt_project.yml. [default: the settings file's folder]", path=True))

    @property
    def sql_dialect(self) -> str:
        """The SQL dialect of the adapter (also the default of targets that take `--dialect`)."""
        from tacit_gen.sql.dialects import ADAPTER_DIALECT

        return ADAPTER_DIALECT.get(self.adapter, "duckdb")

    def in_project(self, out: str, given: frozenset[str]) -> DbtOptions:
        """The macros folder given (by flag or settings) made relative to the output root, and the
        dbt-core version the YAML is for as given: when neither flag nor settings say, the newest
        form (`version_form`), never the installed dbt-core's, so every machine renders the same
        bytes (`tacit-gen init` pins the installed one in tacit-gen.toml)."""
        import os

        macros = self.macros
        if "macros" in given:
            macros = Path(os.path.relpath(Path(self.macros).resolve(), Path(out).resolve())).as_posix()
        return replace(self, macros=macros)

    def for_engine(self, backend: str) -> DbtOptions:
        """These options as `verify`'s engine on `backend` reads the artifacts: the macros at the
        default place and, on PostgreSQL and Spark, the backend's adapter (on DuckDB, the adapter
        set: its SQL runs there as written)."""
        adapter = backend if backend in ("postgres", "spark") else self.adapter
        return replace(self, adapter=adapter, macros="dbt_macros")


def installed_dbt_version() -> str | None:
    """The installed dbt-core's version (metadata only: dbt is not imported; remembered on disk
    until a distribution changes, see `tacit_gen.installed`), or None."""
    from tacit_gen import installed

    return installed.version("dbt-core")
