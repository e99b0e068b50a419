"""`sample` and `profile`: synthetic data from a contract, bounds from history."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tacit_gen.cli.base import echo_json, exit_codes, fail_usage, load_or_exit, main


@main.command(epilog=exit_codes(missing=True))
@click.argument("contract", type=click.Path(exists=True, dir_okay=False))
@click.option("--rows", default=100, show_default=True, type=click.IntRange(1, 10_000_000))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--violate", default=None, help="A clause id to break (and nothing else).")
@click.option("--now", default=None, help="Pin 'now' (ISO-8601 with offset); default: fixed epoch.")
@click.option("--out", "out_path", default=None, type=click.Path(dir_okay=False),
              help="CSV or Parquet file (by extension); the catalog goes beside it. Default: CSV on stdout.")
@click.option("--format", "out_format", type=click.Choice(["text", "json"]), default="text",
              help="json (with --out): the files written, the rows, the seed, 'now' and the "
                   "clauses the data breaks, on stdout.")
def sample(contract: str, rows: int, seed: int, violate: str | None, now: str | None,
           out_path: str | None, out_format: str) -> None:
    """Deterministic synthetic data that satisfies every clause, or breaks exactly one."""
    from tacit_gen import sample as s
    from tacit_gen.plan import plan
    from tacit_gen.verify import parse_now

    c = load_or_exit(contract)
    clauses = plan(c)
    if violate is not None and violate not in {cl.id for cl in clauses}:
        from tacit_gen.diagnostics import close_matches

        close = close_matches(violate, [cl.id for cl in clauses], n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        fail_usage(f"'{violate}' is not a clause of {c.name}{hint} (see `tacit-gen explain`)")
    try:
        pinned = parse_now(now) if now else None
    except ValueError as e:
        fail_usage(str(e))
    if out_path is not None and Path(out_path).suffix.lower() not in (".csv", ".parquet", ".pq"):
        fail_usage(f"--out {out_path}: write a .csv or .parquet file")
    if out_format == "json" and out_path is None:
        fail_usage("--format json describes the files written: give --out FILE (without it, "
                   "stdout is the CSV)")
    from tacit_gen.console import Progress, ticking

    shown = Progress(label="sample ", enabled=None if rows >= 100_000 else False)
    try:
        with ticking(f"{rows} rows", shown):
            data = s.sample(c, clauses, rows=rows, seed=seed, violate=violate, now=pinned)
    except s.SampleError as e:
        fail_usage(str(e))
    if violate is not None:
        click.echo(f"{violate}: {data.description}", err=True)
        if any(cl.warn for cl in clauses if cl.id == violate):  # plausible:, severity: warn
            click.echo(f"expected verdict: WARN ({violate} is severity warn: verify reports it "
                       "apart and exits 0 on it)", err=True)
        extra = [v for v in data.violated if v != violate]
        if extra:
            click.echo("warning: this violation also breaks " + ", ".join(extra)
                       + " (they cannot be separated in this contract)", err=True)
    click.echo(f"now: {data.now.isoformat()} (pass it to verify --now)", err=True)
    if out_path is None:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            csv_path, cat_path = s.write(data, Path(tmp) / f"{c.name}.csv")
            sys.stdout.write(csv_path.read_text(encoding="utf-8"))
            if cat_path is not None:
                click.echo("note: this contract has a catalog; use --out FILE to write it beside the data", err=True)
            if data.refs:
                click.echo("note: this contract references " + ", ".join(sorted(data.refs))
                           + "; use --out FILE to write each beside the data", err=True)
        return
    try:
        with ticking(f"write {Path(out_path).name}", shown):
            data_path, catalog_path = s.write(data, out_path)
    except s.SampleError as e:
        fail_usage(str(e))
    written = [data_path.as_posix()]
    if catalog_path is not None:
        written.append(catalog_path.as_posix())
    # `references:` relations, beside the data
    written += [s.ref_path_for(data_path, rel).as_posix() for rel in sorted(data.refs)]
    if out_format == "json":
        echo_json({"contract": c.name, "rows": rows, "seed": seed, "now": data.now.isoformat(),
                   "violate": violate, "violated": list(data.violated),
                   "description": data.description if violate is not None else None,
                   "data": written[0], "catalog": catalog_path.as_posix() if catalog_path else None,
                   "written": written})
        return
    for w in written:
        click.echo(f"wrote {w}", err=True)


@main.command(epilog=exit_codes(missing=True))
@click.argument("contract", type=click.Path(exists=True, dir_okay=False))
@click.option("--data", "data_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="History: CSV or Parquet, as verify reads it.")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False),
              help="Catalog CSV: created, or merged into (plausible_min/plausible_max set per series).")
@click.option("--column", default=None, help="The measurement (default: the catalog-bounded one).")
@click.option("--min-count", default=20, show_default=True, type=click.IntRange(1),
              help="Fewer values than this: no bounds for the series.")
@click.option("--method", default="quantiles", show_default=True,
              type=click.Choice(["quantiles", "mean-sd"]),
              help="quantiles: the 1st and 99th percentiles; mean-sd: the mean -/+ --sigmas sample "
                   "standard deviations.")
@click.option("--sigmas", default=None, help="With --method mean-sd: how many standard deviations "
              "(default 3).")
@click.option("--window", default=None, help="Only each series' last DURATION of history, up to its "
              "newest reading (30d, 12h, 2 weeks); default: all of it.")
@click.option("--format", "out_format", type=click.Choice(["text", "json"]), default="text",
              help="json: the catalog written, the method, and each series' count and bounds.")
def profile(contract: str, data_path: str, out_path: str, column: str | None, min_count: int,
            method: str, sigmas: str | None, window: str | None, out_format: str) -> None:
    """Propose plausibility bounds per series from history: by default the 1st and 99th
    percentiles of each series' values (or the mean -/+ K standard deviations, over a trailing
    window if given), widened to the column's scale, written to the catalog as plausible_min /
    plausible_max; the method is stated on stderr (see docs/contract-language.md)."""
    from tacit_gen import atomic
    from tacit_gen import profile as prof

    c = load_or_exit(contract)
    out = Path(out_path)
    try:
        how = prof.parse_method(method, sigmas, window)
        result = prof.profile(c, Path(data_path), column, min_count, how)
        text = prof.catalog_text(result, out.read_text(encoding="utf-8") if out.exists() else None)
    except (prof.ProfileError, OSError) as e:
        fail_usage(str(e))
    atomic.write(out, text.encode("utf-8"))
    judged = sum(1 for b in result.bounds if b.low is not None)
    if out_format == "json":  # bounds as decimal strings: exact, as the catalog holds them
        echo_json({"contract": c.name, "catalog": out.as_posix(), "key": result.key,
                   "column": result.column, "method": result.method.describe(),
                   "min_count": min_count, "bounded": judged,
                   "series": [{"series": b.series, "count": b.count,
                               "plausible_min": None if b.low is None else str(b.low),
                               "plausible_max": None if b.high is None else str(b.high)}
                              for b in result.bounds]})
        return
    click.echo(f"wrote {out.as_posix()}: {result.column} bounds for {judged} of "
               f"{len(result.bounds)} series ({result.method.describe()}; fewer than "
               f"{min_count} values: no bounds)", err=True)
