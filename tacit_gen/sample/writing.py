"""Writing sample data: CSV or Parquet, with the catalog beside it, atomically."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from tacit_gen import atomic
from tacit_gen.contract.types import parse_type
from tacit_gen.sample.model import SampleData, SampleError


def cell_text(v: Any, type_text: str) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Decimal):
        return format(v, "f")
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, datetime):
        unit = type_text.split("_")[1] if type_text.startswith("timestamp_") else "us"
        spec = {"s": "seconds", "ms": "milliseconds"}.get(unit, "microseconds")
        if v.microsecond % {"s": 1_000_000, "ms": 1_000}.get(unit, 1):
            spec = "microseconds"  # finer digits than the type's (a `precision:` violation): kept
        if v.tzinfo is not None:
            v = v.astimezone(UTC)
        return v.isoformat(timespec=spec)
    if isinstance(v, date):
        return v.isoformat()
    return str(v)


def csv_bytes(names: Sequence[str], types: Mapping[str, str], columns: Mapping[str, list[Any]]
               ) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(names)
    for vals in zip(*(columns[c] for c in names), strict=True):
        w.writerow([cell_text(v, types[c]) for c, v in zip(names, vals, strict=True)])
    return buf.getvalue().encode("utf-8")


def arrow_type(type_text: str) -> Any:
    import pyarrow as pa

    if type_text.startswith("timestamp_"):
        parts = type_text.split("_")
        return pa.timestamp(parts[1], tz="UTC" if len(parts) == 3 else None)
    t = parse_type(type_text)
    if t.kind == "decimal":
        return pa.decimal128(t.precision or 38, t.scale or 0)
    return {
        "string": pa.string(), "enum": pa.string(), "bool": pa.bool_(), "int32": pa.int32(),
        "int64": pa.int64(), "float32": pa.float32(), "float64": pa.float64(),
        "date": pa.date32(),
    }[t.kind]


def parquet_bytes(names: Sequence[str], types: Mapping[str, str],
                   columns: Mapping[str, list[Any]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays, fields = [], []
    for c in names:
        at = arrow_type(types[c])
        vals = columns[c]
        if pa.types.is_floating(at):
            vals = [None if v is None else float(v) for v in vals]
        arrays.append(pa.array(vals, type=at))
        fields.append(pa.field(c, at))
    table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="snappy")
    return bytes(sink.getvalue().to_pybytes())


def catalog_path_for(path: Path | str) -> Path:
    """Where ``write`` puts the catalog by default: ``<stem>.catalog<suffix>`` beside the data."""
    p = Path(path)
    return p.with_name(f"{p.stem}.catalog{p.suffix}")


def ref_path_for(data_path: Path | str, relation: str) -> Path:
    """Where a referenced relation lives: ``<relation><suffix>`` beside the data file (``sample``
    writes it there, ``verify`` reads it from there)."""
    p = Path(data_path)
    return p.with_name(relation + p.suffix)


def write_refs(data: SampleData, path: Path) -> list[Path]:
    """Each relation `references:` clauses read, beside the data, typed as the referencing column."""
    out = []
    for rel, cols in sorted(data.refs.items()):
        rp = ref_path_for(path, rel)
        if rp.resolve() == path.resolve():
            raise SampleError(f"{path}: the data file is named as the referenced relation {rel!r}")
        ref_types = {c: data.ref_types.get(rel, {}).get(c, "string") for c in cols}
        enc = csv_bytes if rp.suffix.lower() == ".csv" else parquet_bytes
        atomic.write(rp, enc(list(cols), ref_types, cols))
        out.append(rp)
    return out


def write(data: SampleData, path: Path | str, catalog_path: Path | str | None = None
          ) -> tuple[Path, Path | None]:
    """Write the data (``.csv`` or ``.parquet`` by extension) and its catalog, atomically.

    CSV: stdlib csv, a header row, ISO-8601 timestamps with ``+00:00`` at the column precision
    (naive timestamps without offset), decimals as exact text, bools as ``true``/``false``, NULL
    as an empty field. Parquet: pyarrow with exact types (``decimal128(p,s)``,
    ``timestamp(unit, tz='UTC')``). The catalog goes to ``catalog_path`` or
    ``<stem>.catalog.<ext>`` in the same format. Returns (data path, catalog path or None).
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise SampleError(f"{p}: write .csv or .parquet")
    encode = csv_bytes if suffix == ".csv" else parquet_bytes
    names = list(data.columns)
    atomic.write(p, encode(names, data.types, data.columns))
    write_refs(data, p)
    if data.catalog is None:
        return p, None
    cp = Path(catalog_path) if catalog_path is not None else catalog_path_for(p)
    cat = data.catalog
    cat_cols = {c: [r[i] for r in cat.rows] for i, c in enumerate(cat.spec.columns)}
    cenc = csv_bytes if cp.suffix.lower() == ".csv" else parquet_bytes
    atomic.write(cp, cenc(list(cat.spec.columns), cat.types(), cat_cols))
    return p, cp
