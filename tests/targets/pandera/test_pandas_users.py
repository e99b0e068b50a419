"""A pandas user's frames: each bundled contract's sample data written to CSV, read back with
``pd.read_csv(path, parse_dates=[...])`` as a pandas user reads it (numpy-backed: text as
``str``/``object``, decimals as ``float64``, an integer column with nulls as ``float64``,
instants as ``datetime64[ns, UTC]``), validated with the committed generated module, give the
verdict the other engines give: clean data passes, data breaking one clause fails it alone.
"The other engines" are the ibis runtime on DuckDB here (the parity suites hold every engine to
each other on the same data)."""

from __future__ import annotations

import importlib.util
import warnings
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.targets.pandera.engine import failures_by_clause
from tacit_gen.verify import run_verify
from tests.conftest import ROOT

BUNDLED = sorted(p.stem for p in (ROOT / "contracts").glob("*.yaml"))
OTHER = "ibis"


def _module(name: str) -> Any:
    path = ROOT / "generated" / "pandera" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"tacit_users_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read_csv(path: Path, time_columns: list[str]) -> Any:
    """What a pandas user writes: pandas' defaults, the time columns parsed."""
    import pandas as pd

    header = pd.read_csv(path, nrows=0).columns
    return pd.read_csv(path, parse_dates=[c for c in time_columns if c in header])


def _time_columns(name: str) -> list[str]:
    contract = load(ROOT / "contracts" / f"{name}.yaml")
    return [f.name for f in contract.fields if f.type.kind in ("timestamp", "date")]


def _user_verdicts(name: str, data: Path, catalog: Path | None, sessions: Path | None,
                   now: datetime) -> tuple[set[str], set[str], Any]:
    """(clauses failed, clauses warned, the frame) as a pandas user's validation reports them."""
    import pandas as pd
    import pandera.errors

    module = _module(name)
    df = _read_csv(data, _time_columns(name))
    kwargs: dict[str, Any] = {"now": now}
    if catalog is not None and catalog.exists():
        kwargs["catalog"] = pd.read_csv(catalog)
    if sessions is not None and sessions.exists():
        kwargs["sessions"] = pd.read_csv(sessions, parse_dates=["session", "open", "close"])
    schema = module.schema(**kwargs)
    failed: set[str] = set()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            schema.validate(df, lazy=True)
        except pandera.errors.SchemaErrors as errors:
            rows, scalar, notes = failures_by_clause(errors, schema)
            assert notes == [], notes
            failed = set(rows) | scalar
    names = {c.name for c in schema.checks} | {c.name for col in schema.columns.values() for c in col.checks}
    warned = {n for n in names if n and any(n in str(w.message) for w in caught)}
    return failed, warned, df


def _case(name: str, violate: str | None, tmp_path: Path) -> tuple[set[str], set[str], dict[str, str], Any]:
    contract = load(ROOT / "contracts" / f"{name}.yaml")
    data = sample(contract, plan(contract), rows=24, seed=7, violate=violate)
    data_path, catalog_path = write(data, tmp_path / f"{name}.csv")
    report = run_verify(contract, data_path, catalog_path, (OTHER,), data.now, keep=tmp_path / "work")
    other = {row.clause.id: row.verdicts[OTHER].status for row in report.rows}
    sessions = tmp_path / "work" / "data_sessions.csv"
    failed, warned, df = _user_verdicts(name, data_path, catalog_path, sessions, data.now)
    return failed, warned, other, df


@pytest.mark.engine
@pytest.mark.parametrize("name", BUNDLED)
def test_clean_csv_read_by_pandas_passes(name: str, tmp_path: Path) -> None:
    import pandas as pd

    failed, warned, other, df = _case(name, None, tmp_path)
    assert set(other.values()) <= {"pass", "n/a"}, other
    assert failed == set() and warned == set()
    assert not any(isinstance(t, pd.ArrowDtype) for t in df.dtypes)  # numpy-backed, as read
    kinds = {str(t) for t in df.dtypes}
    assert any(k.startswith("datetime64[") and k.endswith(", UTC]") for k in kinds), kinds


def _clauses(name: str) -> list[str]:
    return [c.id for c in plan(load(ROOT / "contracts" / f"{name}.yaml"))]


@pytest.mark.engine
@pytest.mark.parametrize(("name", "clause"), [(n, c) for n in BUNDLED for c in _clauses(n)])
def test_violation_in_csv_read_by_pandas_fails_that_clause(name: str, clause: str, tmp_path: Path) -> None:
    failed, warned, other, _ = _case(name, clause, tmp_path)
    # a column of the wrong type makes verify's other clauses on it n/a in every engine (the
    # loader could not type it); the pandas user's schema judges them anyway: not compared
    judged = {c for c, s in other.items() if s != "n/a"}
    assert failed & judged == {c for c, s in other.items() if s == "fail"}, other
    assert warned & judged == {c for c, s in other.items() if s == "warn"}, other
    assert clause in failed | warned or other[clause] == "n/a", other


def test_mistyped_pandas_columns_fail_by_name(tmp_path: Path) -> None:
    """Coercion stays off: a naive or non-UTC timestamp, text where a number belongs and an
    unknown column each fail, named by the column's clause."""
    import pandas as pd
    import pandera.errors

    name = "fct_sensor_readings"
    contract = load(ROOT / "contracts" / f"{name}.yaml")
    data = sample(contract, plan(contract), rows=24, seed=7)
    data_path, catalog_path = write(data, tmp_path / f"{name}.csv")
    catalog = pd.read_csv(catalog_path) if catalog_path is not None else None
    schema = _module(name).schema(catalog=catalog, now=data.now)
    clean = _read_csv(data_path, _time_columns(name))
    schema.validate(clean, lazy=True)
    time_column = next(c for c in _time_columns(name) if c in clean.columns)
    number = next(f.name for f in contract.fields if f.type.kind == "decimal")
    cases = {
        f"column:{time_column}": clean.assign(**{time_column: clean[time_column].dt.tz_localize(None)}),
        f"column:{time_column} ": clean.assign(**{time_column: clean[time_column].dt.tz_convert("Europe/Paris")}),
        f"column:{number}": clean.assign(**{number: clean[number].astype(str)}),
        "no_unknown_columns": clean.assign(extra=1),
    }
    for want, frame in cases.items():
        with pytest.raises(pandera.errors.SchemaErrors) as info:
            schema.validate(frame, lazy=True)
        rows, scalar, _ = failures_by_clause(info.value, schema)
        assert want.strip() in set(rows) | scalar, (want, set(rows) | scalar)


def test_pattern_is_re2_on_every_kind_of_text_column() -> None:
    """`pattern:` is a whole-value RE2 match on object, `str` and Arrow text alike (pandera's
    `str_matches` on an object column is Python's `re`, whose `$` accepts a final newline)."""
    import pandas as pd
    import pyarrow

    from tacit_gen.pandera_checks import matches

    regex = "^([a-z][a-z0-9_]{0,62}[0-9])$"
    assert f"matches(s, {regex!r})" in (ROOT / "generated" / "pandera" / "plant_sensor_reading.py").read_text()
    for dtype in (object, "str", pd.ArrowDtype(pyarrow.string())):
        s = pd.Series(["ab1", "ab1\n", "Ab1", None], dtype=dtype)
        assert list(matches(s, regex)) == [True, False, False, True], dtype
