"""dbt target: a properties YAML per contract (enforced model contract + data tests) and a shared
macros file of generic tests for the clauses dbt has no built-in test for.

Layout under the output root (dbt takes both folders as they are: ``dbt/`` in `model-paths`,
``dbt_macros/`` in `macro-paths`)::

    dbt/<contract>.yml             model properties: contract, columns, constraints, data_tests
    dbt_macros/tacit_tests.sql     generic tests (time series, catalog, native replacements)

The macros file does not depend on the contract: every contract renders it byte-identical. Test
names carry the model (``orders__range_amount``). The YAML form follows the dbt version: from
1.10, ``data_tests:`` with ``arguments:``; 1.8-1.9 ``data_tests:`` and 1.7 ``tests:``, with the
arguments inline.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import yaml

from tacit_gen.plan_types import make_params, uses_sessions
from tacit_gen.targets.base import (
    Artifact,
    ContractKey,
    Engine,
    RenderOptions,
    RenderResult,
    Target,
    float_fixed,
    sql_projection,
)
from tacit_gen.targets.dbt.options import NOT_NULL_MODES, DbtOptions
from tacit_gen.targets.dbt.properties import Properties
from tacit_gen.targets.dbt.text import (  # the spelling helpers, also imported from here
    ADAPTERS,
    NAME,
    completeness_relations,
    completeness_sql,
    data_type,
    dbt_name,
    description_safe,
    ident,
    is_unique_where,
    jinja_safe,
    jinja_unsafe,
    relation_ref,
    unident,
)
from tacit_gen.targets.header import GENERATED_MARK, comment_header
from tacit_gen.yamltext import BlockWriter

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tacit_gen.contract.model import Contract
    from tacit_gen.drift.base import Finding
    from tacit_gen.plan_types import Clause

__all__ = [
    "ADAPTERS", "LEGACY_MACROS_PATH", "MACROS_PATH", "NAME", "DbtOptions", "DbtTarget", "completeness_sql",
    "data_type", "dbt_name", "description_safe", "ident", "is_unique_where", "jinja_safe", "jinja_unsafe",
    "macros_path", "macros_text", "model_name", "properties_yaml", "relation_ref", "templates_root", "unident",
    "version_form",
]

MACROS_FILE = "tacit_tests.sql"
MACROS_PATH = "dbt_macros/" + MACROS_FILE  # the default, under the output root
LEGACY_MACROS_PATH = "dbt/macros/" + MACROS_FILE  # earlier releases: inside dbt/ (a model folder)
NEWEST_FORM = (1, 10)


def properties_yaml(data: Any) -> str:
    """The properties file's YAML through PyYAML (libyaml's emitter where installed)."""
    return yaml.dump(
        data,
        Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),  # libyaml's emitter: same text, faster
        sort_keys=False,
        allow_unicode=True,
        width=10**9,
        default_flow_style=False,
    )


# The same text written directly where it can (the representer was a tenth of a render).
_WRITER = BlockWriter(properties_yaml, indentless=True)


def version_form(version: str | None) -> tuple[int, int]:
    """(major, minor) of a dbt version text (None: the newest form)."""
    if not version:
        return NEWEST_FORM
    m = re.match(r"^(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else NEWEST_FORM


def macros_path(options: RenderOptions) -> str:
    """Where the macros file goes, relative to the output root."""
    return f"{options.get(DbtOptions).macros.rstrip('/')}/{MACROS_FILE}"


def model_name(contract: Contract) -> str:
    """The dbt model the properties describe."""
    name = contract.target_option("dbt", "model")
    return str(name) if name else contract.name


def _template(name: str, options: RenderOptions) -> str:
    """A template file (see `tacit_gen.targets.templates` for the lookup order)."""
    from tacit_gen.targets.templates import read_template

    return read_template(NAME, name, options)


def templates_root() -> Path:
    """The folder holding the shipped dbt templates (wheel `_templates`, else repo `templates`)."""
    from tacit_gen.targets.templates import packaged_root

    return packaged_root(NAME)


def macros_text(options: RenderOptions) -> str:
    """The shared macros file: a contract-free header plus the generic tests."""
    head = (
        f"-- {GENERATED_MARK}: generic tests shared by every tacit-gen dbt model.\n"
        "-- Do not edit: re-render with tacit-gen.\n"
    )
    return head + _template("tacit_tests.sql", options)


# ---------------------------------------------------------------------------------------------
# rendering


class DbtTarget(Target):
    """Renderer and reader of dbt model properties."""

    name = NAME
    options = DbtOptions
    contract_keys = (ContractKey("model", "dbt model name"),)
    artifact_name_option = "model"
    reader = "tacit_gen.targets.dbt.read:read"
    engines: ClassVar[Mapping[str, Engine]] = {
        "duckdb": Engine("tacit_gen.targets.dbt.engine", ("dbt",), "dbt", cost=60, batch=True, warm=True),
        "postgres": Engine("tacit_gen.targets.dbt.engine", ("dbt", "psycopg2"), "postgres", cost=60,
                           batch=True, warm=True),
        "spark": Engine("tacit_gen.targets.dbt.spark", ("dbt", "pyspark"), cost=60, session=True),
    }
    templates = True

    def render_warnings(self, artifacts: Sequence[Artifact], root: Path,
                        options: RenderOptions) -> tuple[str, ...]:
        """dbt_utils tests rendered while the user's dbt project does not list the package."""
        from tacit_gen.targets.dbt.project import dbt_utils_warning

        warning = dbt_utils_warning(list(artifacts), root, options.get(DbtOptions).project)
        return (warning,) if warning else ()

    def check_project(self, out: Path, root: Path,
                      options: RenderOptions) -> tuple[Sequence[Finding], Sequence[str]]:
        """The user's dbt project (`tacit_gen.targets.dbt.project`): a generated model described
        twice, project-level configs weakening the generated tests, model-paths missing them; and
        a note when the installed dbt-core cannot read the form the committed YAML is in."""
        from tacit_gen.targets.dbt.options import installed_dbt_version
        from tacit_gen.targets.dbt.project import findings, form_note

        found, notes = findings(out, root, options.get(DbtOptions).project)
        note = form_note(out, installed_dbt_version())
        return found, [*notes, note] if note else notes

    def init_settings(self) -> tuple[str, str]:
        """The adapter, and the YAML form pinned: the installed dbt-core's major.minor, else the
        newest form this renderer knows (so upgrading dbt never changes render's output unasked)."""
        from tacit_gen.targets.dbt.options import installed_dbt_version

        installed = installed_dbt_version()
        if installed:
            form, why, said = ".".join(installed.split(".")[:2]), "the installed dbt-core's", ""
        else:
            form = f"{NEWEST_FORM[0]}.{NEWEST_FORM[1]}"
            why = said = "no dbt-core installed: the newest form"
        body = ('adapter = "duckdb"               # duckdb, postgres, snowflake, bigquery, databricks\n'
                f"# the dbt YAML form render writes ({why}), pinned: upgrading dbt\n"
                "# never changes render's output unasked\n"
                f'version = "{form}"\n')
        return body, f"dbt YAML form pinned to {form}" + (f" ({said})" if said else "")

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (f"dbt/{contract.name}.yml", MACROS_PATH)  # the macros path with default options

    def project(self, contract: Contract, clause: Clause, options: RenderOptions) -> Clause | None:
        """The plan's clause, invariant SQL in the adapter's dialect (what the reader returns)."""
        if clause.kind in ("cadence", "revision_window") and (
                clause.param("calendar_catalog") is not None
                or (clause.kind == "cadence" and clause.param("from_catalog")
                    and uses_sessions(clause))):
            return None
        if clause.kind == "completeness":  # the test carries its SQL (tacit_gen.sql.completeness)
            return replace(clause, params=make_params(
                sql=completeness_sql(clause, options.get(DbtOptions).sql_dialect),
                **completeness_relations(clause.params_dict)))
        # a float's fixed value is a YAML number in accepted_values (`0.50` reads back as 0.5)
        return float_fixed(sql_projection(clause, options.get(DbtOptions).sql_dialect))

    def render(
        self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions
    ) -> RenderResult:
        opts = options.get(DbtOptions)
        adapter = opts.adapter
        if adapter not in ADAPTERS:
            raise ValueError(
                f"unknown dbt adapter {adapter!r}: expected one of {', '.join(ADAPTERS)}"
            )
        if opts.not_null not in NOT_NULL_MODES:
            raise ValueError(f"unknown dbt not_null mode {opts.not_null!r}: "
                             "expected constraint, test or both")
        form = version_form(opts.version)
        inline = form < (1, 10)
        tests_key = "tests" if form < (1, 8) else "data_tests"
        model = model_name(contract)

        props = Properties(contract, model, opts, inline)
        for cl in clauses:
            props.add(cl)
        doc = props.document(tests_key)
        body = _WRITER.write(doc)
        if body is None:
            body = properties_yaml(doc)
        text = comment_header(contract) + body
        artifacts = (
            Artifact(f"dbt/{contract.name}.yml", text),
            Artifact(macros_path(options), macros_text(options)),
        )
        return RenderResult(artifacts=artifacts, unsupported=tuple(props.unsupported))
