"""`tacit-gen import dbt`: dbt properties files (or a manifest) to one contract per model.

Types come from each column's `data_type`, else from dbt's `catalog.json` (`--catalog`), read
per adapter (`tacit_gen.adopt.types`); a column with neither is named and left out, never
guessed. `not_null` (test or constraint) and `primary_key` make a column non-null; the key is the
first of the model's primary key, `unique_combination_of_columns` and `unique` tests whose
columns are all non-null (a key is never null, so a unique test on a nullable column is not one);
`accepted_values` on a text column is an enum type, elsewhere an `in (...)` invariant;
`dbt_utils.accepted_range` a range; `dbt_utils.expression_is_true` and `check` constraints an
invariant when the expression parses in the contract language and names only the model's
columns. `relationships` to `ref('<model>')` becomes `references: <model>.<field>` (any other
form is kept as `x-dbt-relationships`).
Anything else is kept under an `x-dbt-*` key and listed.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tacit_gen.adopt.draft import KEPT, MAPPED, NOT_MAPPED, NOTE, Draft, Invariant, choose_key
from tacit_gen.adopt.types import contract_type
from tacit_gen.contract import units
from tacit_gen.sql.types import is_key_not_null
from tacit_gen.targets.dbt.text import strip_since_where

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_REF_ARG = re.compile(r"""\s*(?:\{\{\s*)?ref\(\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]\s*\)(?:\s*\}\})?\s*""")
_ENUM_VALUE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")
# Test config that makes a test weaker than the clause it would become (a clause always fails).
_WEAKENING = ("where", "severity", "warn_if", "error_if", "enabled", "condition")
# Keys of a test entry that are neither its arguments nor its config.
_ENTRY_KEYS = ("name", "description", "config", "arguments", "test_name", "column_name")
_CONFIG_KEYS = ("severity", "where", "warn_if", "error_if", "enabled", "limit", "tags", "meta",
                "store_failures", "store_failures_as", "alias", "schema", "database")
# Column keys the contract maps (the rest is kept under x-dbt-<key>).
_COLUMN_MAPPED = ("name", "description", "data_type", "constraints", "tests", "data_tests")
_MODEL_MAPPED = ("name", "description", "columns", "constraints", "tests", "data_tests", "config")


class DbtInputError(Exception):
    """Bad input (a file that is not YAML, a model not found): exit 2, naming the file."""


@dataclass
class Model:
    """One model as the properties say it, wherever it came from (a YAML file or a manifest)."""

    name: str
    origin: str
    spec: dict[str, Any]
    tests: list[tuple[str | None, Any]] = field(default_factory=list)  # (column, test entry)
    catalog_types: dict[str, str] = field(default_factory=dict)  # lower-case column -> type
    catalog_columns: list[str] = field(default_factory=list)  # as the warehouse names them
    in_catalog: bool = False


# ------------------------------------------------------------------------------------ reading


def _yaml_file(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise DbtInputError(f"{where}: not valid YAML: {e.problem}") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise DbtInputError(f"{path}: cannot read: {e}") from None


def _property_files(paths: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            files.extend(sorted(f for f in path.rglob("*") if f.suffix in (".yml", ".yaml")
                                and f.is_file() and "target" not in f.relative_to(path).parts
                                and "dbt_packages" not in f.relative_to(path).parts))
        else:
            files.append(path)
    return files


def _entry_tests(spec: dict[str, Any], column: str | None) -> list[tuple[str | None, Any]]:
    tests: list[tuple[str | None, Any]] = []
    for key in ("data_tests", "tests"):  # dbt 1.8+ and older; both are read
        value = spec.get(key)
        if isinstance(value, list):
            tests.extend((column, t) for t in value)
    return tests


def models_from_files(paths: tuple[str, ...]) -> list[Model]:
    """Every model of the properties files under `paths` (folders are walked)."""
    models: list[Model] = []
    for path in _property_files(paths):
        doc = _yaml_file(path)
        if not isinstance(doc, dict) or not isinstance(doc.get("models"), list):
            continue
        for m in doc["models"]:
            if not isinstance(m, dict) or "name" not in m:
                continue
            model = Model(str(m["name"]), path.as_posix(), m)
            model.tests = _entry_tests(m, None)
            for col in m.get("columns") or []:
                if isinstance(col, dict) and "name" in col:
                    model.tests.extend(_entry_tests(col, str(col["name"])))
            models.append(model)
    return models


def _json_file(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise DbtInputError(f"{path}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise DbtInputError(f"{path}: cannot read: {e}") from None


def _under(path: str, roots: tuple[str, ...]) -> bool:
    if not roots:
        return True
    p = os.path.normpath(path)
    for r in roots:
        r = os.path.normpath(r)
        if p == r or p.startswith(r.rstrip(os.sep) + os.sep) or p.endswith(os.sep + r) or \
                os.sep + r + os.sep in os.sep + p:
            return True
    return False


def models_from_manifest(manifest_path: str, paths: tuple[str, ...]) -> tuple[list[Model], str | None]:
    """The manifest's models (those whose properties file lies under one of `paths`, if given),
    their generic tests, and the manifest's adapter."""
    doc = _json_file(manifest_path)
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), dict):
        raise DbtInputError(f"{manifest_path}: not a dbt manifest (no 'nodes')")
    adapter = (doc.get("metadata") or {}).get("adapter_type")
    models: dict[str, Model] = {}
    for uid, node in sorted(doc["nodes"].items()):
        if not isinstance(node, dict) or node.get("resource_type") != "model":
            continue
        patch = str(node.get("patch_path") or "").split("://", 1)[-1]
        source = patch or str(node.get("original_file_path") or "")
        if not _under(source, paths) and not _under(str(node.get("original_file_path", "")), paths):
            continue
        spec = {k: v for k, v in node.items() if k in _MODEL_MAPPED}
        # the config as written (the manifest's `config` holds every default of dbt)
        spec["config"] = {**(node.get("unrendered_config") or {}),
                          "contract": (node.get("config") or {}).get("contract") or {}}
        spec["columns"] = []
        for col in (node.get("columns") or {}).values():
            if isinstance(col, dict):  # doc_blocks: the description is already rendered
                spec["columns"].append({k: v for k, v in col.items() if k != "doc_blocks"})
        models[uid] = Model(str(node["name"]), f"{manifest_path} ({uid})", spec)
    for _uid, node in sorted(doc["nodes"].items()):
        if not isinstance(node, dict) or node.get("resource_type") != "test":
            continue
        target = node.get("attached_node") or next(
            (d for d in (node.get("depends_on") or {}).get("nodes", []) if d in models), None)
        if target not in models:
            continue
        meta = node.get("test_metadata")
        if not meta:  # a singular test: SQL of its own
            models[target].tests.append((None, {"singular": {"name": node.get("name"),
                                                             "path": node.get("original_file_path")}}))
            continue
        kwargs = {k: v for k, v in (meta.get("kwargs") or {}).items() if k != "model"}
        column = kwargs.pop("column_name", None) or node.get("column_name")
        ns = meta.get("namespace")
        ttype = f"{ns}.{meta['name']}" if ns else str(meta["name"])
        cfg = {k: v for k, v in (node.get("config") or {}).items()
               if k in ("where", "warn_if", "error_if", "limit")
               and v not in (None, "!= 0")}
        sev = str((node.get("config") or {}).get("severity", "ERROR")).lower()
        if sev != "error":
            cfg["severity"] = sev
        if (node.get("config") or {}).get("enabled") is False:
            cfg["enabled"] = False
        models[target].tests.append((column, {ttype: {"arguments": kwargs, "config": cfg}}))
    return list(models.values()), adapter


def apply_catalog(models: list[Model], catalog_path: str) -> None:
    """Column types from dbt's catalog.json, matched by unique id, else by model name."""
    doc = _json_file(catalog_path)
    nodes = doc.get("nodes") if isinstance(doc, dict) else None
    if not isinstance(nodes, dict):
        raise DbtInputError(f"{catalog_path}: not a dbt catalog (no 'nodes')")
    by_name: dict[str, dict[str, Any]] = {}
    for uid, node in nodes.items():
        if isinstance(node, dict) and uid.startswith("model."):
            by_name.setdefault(uid.rsplit(".", 1)[-1], node)
    for m in models:
        uid = m.origin.rsplit("(", 1)[-1].rstrip(")") if m.origin.endswith(")") else None
        node = nodes.get(uid) if uid else None
        node = node or by_name.get(m.name)
        if not isinstance(node, dict):
            continue
        m.in_catalog = True
        cols = [(c.get("index", 0), str(n), c) for n, c in (node.get("columns") or {}).items()
                if isinstance(c, dict)]
        for _, cname, col in sorted(cols, key=lambda t: (t[0] if isinstance(t[0], int) else 0, t[1])):
            m.catalog_columns.append(cname)
            if col.get("type"):
                m.catalog_types[cname.lower()] = str(col["type"])


# ----------------------------------------------------------------------------------- mapping


def _test_parts(entry: Any) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]] | None:
    """(test type, arguments, config, other keys) of one test entry in any of dbt's forms."""
    if isinstance(entry, str):
        return entry, {}, {}, {}
    if not isinstance(entry, dict):
        return None
    if "test_name" in entry:
        ttype, body = str(entry["test_name"]), entry
    elif len(entry) == 1:
        ttype, raw = next(iter(entry.items()))
        body = raw if isinstance(raw, dict) else {}
    else:
        return None
    args = dict(body.get("arguments") or {})
    config = dict(body.get("config") or {})
    other: dict[str, Any] = {}
    for k, v in body.items():
        if k in ("arguments", "config", "test_name"):
            continue
        if k in ("name", "description"):
            other[k] = v
        elif k in _CONFIG_KEYS:
            config.setdefault(k, v)
        else:
            args.setdefault(k, v)
    return str(ttype), args, config, other


def _test_meta(entry: Any) -> dict[str, Any]:
    parts = _test_parts(entry)
    meta = parts[2].get("meta") if parts else None
    return meta if isinstance(meta, dict) else {}


def _number(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    text = str(value).strip()
    return text if _NUMBER.match(text) else None


def _literal(value: Any) -> str | None:
    """A value as a literal of the invariant language (strings single-quoted)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    n = _number(value) if not isinstance(value, str) else None
    if n is not None:
        return n
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return None


class _Importer:
    """Maps one model onto a Draft."""

    def __init__(self, model: Model, adapter: str) -> None:
        self.m = model
        self.adapter = adapter
        self.d = Draft(model.name, "dbt", f"dbt model {model.name} ({model.origin})")
        self.not_null: set[str] = set()
        self.key_candidates: list[tuple[tuple[str, ...], str, Any]] = []  # (cols, what, entry)
        self.columns: dict[str, dict[str, Any]] = {}
        self.untyped: list[str] = []
        self.warn_ids: list[str] = []  # severity.warn (invariants are added when they load)
        self.warn_keys: set[int] = set()  # indexes of key candidates from warn tests
        self.warn_not_null: set[str] = set()

    def where(self, column: str | None) -> str:
        return f"{self.m.name}.{column}" if column else self.m.name

    # -- columns --------------------------------------------------------------------------

    def run(self) -> Draft:
        spec, d = self.m.spec, self.d
        if isinstance(spec.get("description"), str) and spec["description"].strip():
            d.description = spec["description"].strip()
        config: dict[str, Any] = spec["config"] if isinstance(spec.get("config"), dict) else {}
        meta = {**(spec.get("meta") or {}), **(config.get("meta") or {})}
        if isinstance(meta.get("owner"), str):
            d.owner = meta["owner"]
            d.item(MAPPED, self.where(None), "meta.owner", "owner")
        contract: dict[str, Any] = (config["contract"] if isinstance(config.get("contract"), dict)
                                    else {})
        if not contract.get("enforced"):
            d.item(NOTE, self.where(None), "contract not enforced in dbt",
                   "the contract is strict (no_unknown_columns): the columns listed are all of them")
        rest = _pruned({k: v for k, v in config.items() if k != "contract"})
        if rest:
            d.meta["x-dbt-config"] = rest
            d.item(KEPT, self.where(None), "config: " + ", ".join(sorted(rest)), "x-dbt-config")
        for k in sorted(spec):
            if k not in _MODEL_MAPPED and _pruned(spec[k]) not in (None, [], {}, ""):
                d.meta[f"x-dbt-{k}"] = _pruned(spec[k])
                d.item(KEPT, self.where(None), k, f"x-dbt-{k}")
        documented: set[str] = set()
        for col in spec.get("columns") or []:
            if isinstance(col, dict) and "name" in col:
                documented.add(str(col["name"]).lower())
                self.column(col)
        for cname in self.m.catalog_columns:  # in the warehouse, not in the properties
            if cname.lower() not in documented:
                self.column({"name": cname}, from_catalog=True)
        for c in spec.get("constraints") or []:
            self.constraint(c, None)
        for column, entry in self.m.tests:
            self.test(column, entry)
        self.choose_key()
        return d

    def column(self, col: dict[str, Any], from_catalog: bool = False) -> None:
        name = str(col["name"])
        d, where = self.d, self.where(name)
        if not _IDENT.match(name):
            d.keep(d.meta, "x-dbt-columns", [col])
            d.item(NOT_MAPPED, where, "column", "kept under x-dbt-columns: a contract column name "
                   "is an identifier ([A-Za-z_][A-Za-z0-9_]*)")
            self.untyped.append(name)
            return
        cmeta = {**(col.get("meta") or {}), **((col.get("config") or {}).get("meta") or {})}
        declared = col.get("data_type")
        hint = cmeta.get("tacit_type")  # a file tacit-gen rendered: the exact type it meant
        ctype, why = contract_type(declared, self.adapter) if declared else (None, "")
        src = f"data_type {declared}"
        if from_catalog:
            src = "column of catalog.json not in the properties, type"
        if declared is None and name.lower() in self.m.catalog_types:
            declared = self.m.catalog_types[name.lower()]
            ctype, why = contract_type(declared, self.adapter)
            src = f"{src if from_catalog else 'catalog type'} {declared}"
        if ctype is not None and isinstance(hint, str):
            ctype = _refine(ctype, hint)
        if ctype is None:
            d.keep(d.meta, "x-dbt-columns", [col])
            reason = why if declared else "no data_type and no catalog type: never guessed"
            if not declared and self.m.in_catalog:
                reason = ("no data_type, and catalog.json has no such column in the model: it is "
                          "not in the warehouse")
            d.item(NOT_MAPPED, where, "untyped column" if not declared else src,
                   f"kept under x-dbt-columns: {reason}")
            self.untyped.append(name)
            return
        spec: dict[str, Any] = {"type": ctype}
        d.item(MAPPED, where, src, f"column:{name} ({ctype})")
        if isinstance(cmeta.get("tacit_unit"), str):
            spec["unit"] = cmeta["tacit_unit"]
            if isinstance(cmeta.get("tacit_dimension"), str):
                spec["dimension"] = cmeta["tacit_dimension"]
        numeric = ctype.startswith(("int", "float", "decimal"))
        if numeric and "unit" not in spec and units.suffix_unit(name):
            spec["unit"] = units.suffix_unit(name)  # the one unit lint accepts (TG205)
            d.item(MAPPED, where, "column name suffix", f"unit {spec['unit']}")
        if isinstance(col.get("description"), str) and col["description"].strip():
            spec["description"] = col["description"].strip()
        for k in sorted(col):
            value = _pruned(col[k])
            if k not in _COLUMN_MAPPED and value not in (None, [], {}, ""):
                if k == "meta" and set(col[k]) <= {"tacit_type", "tacit_unit", "tacit_dimension",
                                                   "tacit_clauses"}:
                    continue
                spec[f"x-dbt-{k}"] = value
                d.item(KEPT, where, k, f"fields.{name}.x-dbt-{k}")
        self.columns[name] = spec
        d.fields[name] = spec
        for c in col.get("constraints") or []:
            self.constraint(c, name)

    def constraint(self, c: Any, column: str | None) -> None:
        d = self.d
        ctype = c.get("type") if isinstance(c, dict) else None
        cols = [column] if column else [str(x) for x in (c.get("columns") or [])] \
            if isinstance(c, dict) else []
        where = self.where(column)
        if ctype == "not_null" and cols:
            self.not_null.update(cols)
            d.item(MAPPED, where, "constraint not_null", ", ".join(f"not_null:{x}" for x in cols))
        elif ctype == "primary_key" and cols:
            self.not_null.update(cols)
            self.key_candidates.insert(0, (tuple(cols), "constraint primary_key", c))
        elif ctype == "unique" and cols:
            self.key_candidates.append((tuple(cols), "constraint unique", c))
        elif ctype == "check" and isinstance(c.get("expression"), str):
            self.expression(c["expression"], None, where, "constraint check", c)
        else:
            holder = self.columns.get(column, d.meta) if column else d.meta
            d.keep(holder, "x-dbt-constraints", [c])
            d.item(KEPT if ctype == "foreign_key" else NOT_MAPPED, where,
                   f"constraint {ctype}", "kept under x-dbt-constraints")

    # -- tests ----------------------------------------------------------------------------

    def unmapped(self, column: str | None, entry: Any, what: str, why: str) -> None:
        holder = self.columns.get(column, self.d.meta) if column else self.d.meta
        self.d.keep(holder, "x-dbt-tests", [entry])
        where = f"fields.{column}.x-dbt-tests" if column in self.columns else "x-dbt-tests"
        self.d.item(NOT_MAPPED, self.where(column), what, f"kept under {where}: {why}")

    def test(self, column: str | None, entry: Any) -> None:
        parts = _test_parts(entry)
        if parts is None:
            self.unmapped(column, entry, "test", "not a test entry dbt reads")
            return
        ttype, args, config, other = parts
        short = ttype.split(".")[-1]
        column = str(args.pop("column_name", None) or column or "") or None
        what = f"test {ttype}"
        if column is not None and column not in self.columns and short != "relationships":
            self.unmapped(column, entry, what, f"column {column} is not in the contract")
            return
        warn = str(config.get("severity", "error")).lower() == "warn"  # a clause can warn
        if "where" in config:  # var('tacit_since') selecting the increment (tacit-gen's own render)
            rest = strip_since_where(config["where"])
            config = {k: v for k, v in config.items() if k != "where"}
            if rest is not None:
                config["where"] = rest
        if (short in ("unique_combination_of_columns", "tacit_unique_combination_of_columns")
                and "where" in config
                and is_key_not_null(config["where"], [str(c) for c in args.get("combination_of_columns") or ()])):
            config = {k: v for k, v in config.items() if k != "where"}  # the key's own: SQL UNIQUE
        weak = [k for k in _WEAKENING if k in config
                and not (k == "severity" and str(config[k]).lower() in ("error", "warn"))
                and not (k == "enabled" and config[k] is not False)]
        if weak:
            self.unmapped(column, entry, what, "a clause always fails on a violation; this test "
                          f"has {', '.join(f'{k}: {config[k]}' for k in weak)}")
            return
        handler = getattr(self, f"t_{short}", None)
        if handler is None or (ttype.count(".") and ttype.split(".")[0] not in ("dbt_utils", "dbt")):
            self.unmapped(column, entry, what, "no contract clause for this test")
            return
        n_inv, n_keys = len(self.d.invariants), len(self.key_candidates)
        if handler(column, args, entry, what) is False:
            return
        if warn:
            self.warned(short, column, n_inv, n_keys)
        extra = {k: v for k, v in config.items() if k not in ("severity", "enabled")}
        extra.update(other)
        if extra:
            holder = self.columns.get(column, self.d.meta) if column else self.d.meta
            self.d.keep(holder, "x-dbt-test-config", [{ttype: extra}])
            self.d.item(KEPT, self.where(column), f"{what}: " + ", ".join(sorted(extra)),
                        "x-dbt-test-config")

    def warned(self, short: str, column: str | None, n_inv: int, n_keys: int) -> None:
        """The test just mapped has `severity: warn`: its clause goes in `severity.warn`."""
        for inv in self.d.invariants[n_inv:]:
            inv.warn = True
        self.warn_keys.update(range(n_keys, len(self.key_candidates)))
        if short == "not_null" and column:
            self.not_null.discard(column)
            self.warn_not_null.add(column)
        elif short == "accepted_values" and column and len(self.d.invariants) == n_inv:
            kind = "fixed_value" if "value" in self.columns[column] else "accepted_values"
            self.warn_ids.append(f"{kind}:{column}")

    def t_not_null(self, column: str | None, args: dict[str, Any], entry: Any, what: str) -> bool:
        if column is None:
            self.unmapped(column, entry, what, "not_null without a column")
            return False
        self.not_null.add(column)
        self.d.item(MAPPED, self.where(column), what, f"not_null:{column}")
        return True

    def t_unique(self, column: str | None, args: dict[str, Any], entry: Any, what: str) -> bool:
        if column is None:
            self.unmapped(column, entry, what, "unique without a column")
            return False
        self.key_candidates.append(((column,), what, entry))
        return True

    def t_unique_combination_of_columns(self, column: str | None, args: dict[str, Any],
                                        entry: Any, what: str) -> bool:
        cols = args.get("combination_of_columns")
        if not isinstance(cols, list) or not cols:
            self.unmapped(column, entry, what, "no combination_of_columns")
            return False
        self.key_candidates.append((tuple(str(c) for c in cols), what, entry))
        return True

    def t_accepted_values(self, column: str | None, args: dict[str, Any], entry: Any,
                          what: str) -> bool:
        values = args.get("values")
        if column is None or not isinstance(values, list) or not values:
            self.unmapped(column, entry, what, "accepted_values without a column or values")
            return False
        spec = self.columns[column]
        quoted = args.get("quote", True) is not False
        texts = [str(v) for v in values]
        meta = _test_meta(entry)
        if str(meta.get("tacit_clause", "")).startswith("fixed_value:") and len(values) == 1:
            spec["value"] = values[0]  # tacit-gen's own render of a fixed value
            self.d.item(MAPPED, self.where(column), what, f"fixed_value:{column}")
            return True
        if (spec["type"] == "string" and quoted and all(isinstance(v, str) for v in values)
                and all(_ENUM_VALUE.match(v) for v in texts) and len(set(texts)) == len(texts)):
            spec["type"] = "enum[" + ", ".join(texts) + "]"
            self.d.item(MAPPED, self.where(column), what,
                        f"accepted_values:{column} (type {spec['type']})")
            return True
        if not quoted:
            self.unmapped(column, entry, what, "quote: false values are SQL text")
            return False
        lits = [_literal(v) for v in values]
        if any(x is None for x in lits):
            self.unmapped(column, entry, what, "values that are not literals")
            return False
        text = f"{column} in ({', '.join(str(x) for x in lits)})"
        self.d.invariants.append(Invariant(text, self.where(column), what, "x-dbt-tests", entry))
        return True

    def t_accepted_range(self, column: str | None, args: dict[str, Any], entry: Any,
                         what: str) -> bool:
        lo, hi = _number(args.get("min_value")), _number(args.get("max_value"))
        if column is None or (lo is None and hi is None):
            self.unmapped(column, entry, what, "accepted_range without a column or numeric bounds")
            return False
        inclusive = args.get("inclusive", True) is not False
        op = "<=" if inclusive else "<"
        if lo is not None and hi is not None:
            text = f"{lo} {op} {column} {op} {hi}"
        elif lo is not None:
            text = f"{column} {'>=' if inclusive else '>'} {lo}"
        else:
            text = f"{column} {op} {hi}"
        self.d.invariants.append(Invariant(text, self.where(column), what, "x-dbt-tests", entry))
        return True

    def t_expression_is_true(self, column: str | None, args: dict[str, Any], entry: Any,
                             what: str) -> bool:
        expr = args.get("expression")
        if not isinstance(expr, str) or not expr.strip():
            self.unmapped(column, entry, what, "no expression")
            return False
        if args.get("condition") not in (None, "1=1", "1 = 1"):
            self.unmapped(column, entry, what, f"condition: {args['condition']}")
            return False
        text = f"{column} {expr.strip()}" if column else expr.strip()
        self.expression(text, column, self.where(column), what, entry)
        return True

    def expression(self, text: str, column: str | None, where: str, what: str, entry: Any) -> None:
        if "{{" in text or "{%" in text:
            self.unmapped(column, entry, what, "the expression is Jinja")
            return
        self.d.invariants.append(Invariant(" ".join(text.split()), where, what, "x-dbt-tests",
                                           entry))

    def t_relationships(self, column: str | None, args: dict[str, Any], entry: Any,
                        what: str) -> bool:
        m = _REF_ARG.fullmatch(str(args.get("to", "")))
        field = str(args.get("field", ""))
        if (column in self.columns and m is not None and _IDENT.fullmatch(field)
                and "references" not in self.columns[column] and set(args) <= {"to", "field"}):
            self.columns[column]["references"] = f"{m.group(1)}.{field}"  # a foreign key clause
            self.d.item(MAPPED, self.where(column), what, f"references:{column}")
            return True
        holder = self.columns.get(column, self.d.meta) if column else self.d.meta
        self.d.keep(holder, "x-dbt-relationships", [{k: args[k] for k in sorted(args)}])
        where = f"fields.{column}.x-dbt-relationships" if column in self.columns \
            else "x-dbt-relationships"
        why = (f"column {column} is not in the contract" if column and column not in self.columns
               else "not ref('<model>') with one field")
        self.d.item(KEPT, self.where(column), what, f"{where} ({why}: not checked)")
        return True

    # -- key ------------------------------------------------------------------------------

    def choose_key(self) -> None:
        d = self.d
        chosen = choose_key(d, self.key_candidates, present=lambda c: c in self.columns,
                            never_null=lambda c: c in self.not_null, where=self.where,
                            unmapped=self.unmapped,
                            nullable_hint=" (add not_null to make it the key)")
        for name in sorted(self.not_null | self.warn_not_null):
            if name in self.columns and name not in d.key:
                self.columns[name]["nullable"] = False
        warn = list(self.warn_ids)
        warn += [f"not_null:{c}" for c in sorted(self.warn_not_null - self.not_null)
                 if c in self.columns and c not in d.key]
        same = [i for i, (cols, _, _) in enumerate(self.key_candidates) if cols == chosen]
        if same and all(i in self.warn_keys for i in same):  # only warn tests made it the key
            warn.append("unique:" + ",".join(chosen or ()))
        if warn:
            d.sections["severity"] = {"warn": warn}


def _pruned(value: Any) -> Any:
    """`value` without empty mappings, lists and nulls (dbt writes many): what a person wrote."""
    if isinstance(value, dict):
        out = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, [], {})}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def _refine(ctype: str, hint: str) -> str:
    """A lossy warehouse type made exact by tacit-gen's own meta (timestamp precision, enum)."""
    if ctype.startswith("timestamp_") and hint.startswith("timestamp_"):
        return hint
    if ctype == "string" and hint.startswith("enum["):
        return hint
    return ctype


def import_models(models: list[Model], adapter: str) -> list[tuple[Draft, list[str]]]:
    """A draft per model with its untyped columns."""
    out: list[tuple[Draft, list[str]]] = []
    for m in models:
        imp = _Importer(m, adapter)
        draft = imp.run()
        out.append((draft, imp.untyped))
    return out


def import_dbt(paths: tuple[str, ...], names: tuple[str, ...], manifest: str | None,
               catalog: str | None, adapter: str | None, out: Path) -> Any:
    """Import dbt models: the `tacit-gen import dbt` command without its printing.

    Args:
        paths: properties files or folders (with `manifest`: which models to take, by file).
        names: only these models (all when empty).
        manifest: dbt's target/manifest.json, read instead of the files.
        catalog: dbt's target/catalog.json, for the types the properties do not declare.
        adapter: the warehouse the types are read for (default: the manifest's, else duckdb).
        out: the folder the contracts go to (`out/<model>.yaml`).

    Returns:
        An `ImportReport` (nothing written yet).

    Raises:
        DbtInputError: a file that cannot be read, or a model asked for that is not there.
    """
    from tacit_gen.adopt.report import ImportReport, complete

    manifest_adapter = None
    if manifest:
        models, manifest_adapter = models_from_manifest(manifest, paths)
    else:
        models = models_from_files(paths)
    if names:
        missing = sorted(set(names) - {m.name for m in models})
        if missing:
            raise DbtInputError(f"no model named {', '.join(missing)} in "
                                f"{manifest or ', '.join(paths)}")
        models = [m for m in models if m.name in names]
    if not models:
        raise DbtInputError(f"no dbt models in {manifest or ', '.join(paths)}")
    if catalog:
        apply_catalog(models, catalog)
    adapter = adapter or manifest_adapter or "duckdb"
    report = ImportReport(source="dbt")
    for draft, untyped in import_models(models, adapter):
        report.contracts.append(complete(draft, untyped, out))
    return report
