"""Sessions: tests, spark, lint, typecheck, demo (the main job on the bundled contracts), docs, build,
bench, package."""

from __future__ import annotations

import os

import nox

nox.options.default_venv_backend = "uv"
nox.options.sessions = ["lint", "typecheck", "tests"]
nox.options.reuse_existing_virtualenvs = True
# uv installs without compiling bytecode, and a machine that sets PYTHONDONTWRITEBYTECODE (this one
# does) then compiles GX, scipy, pandas, dbt and sqlalchemy from source in every process that
# imports them: importing GX took 13.9 s of CPU instead of 6.5 s, in every verify engine process
# of the suite. Compiled once at install, as pip does by default.
os.environ.setdefault("UV_COMPILE_BYTECODE", "1")

# Every engine's telemetry off; nothing waits on the network.
OFFLINE = {
    "DO_NOT_TRACK": "1",
    "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    "GX_ANALYTICS_ENABLED": "false",
    "SCARF_NO_ANALYTICS": "true",
    "HF_HUB_OFFLINE": "1",
}


# mkdocs-material 9.7+ prints a banner about MkDocs 2 on every build
DOCS_ENV = {"NO_MKDOCS_2_WARNING": "1"}


def _git_ok(*args: str) -> bool:
    import subprocess

    return subprocess.run(["git", *args], capture_output=True).returncode == 0


def _compile_package(session: nox.Session) -> None:
    """The package's own bytecode, once: an editable install is compiled by no installer, and
    where PYTHONDONTWRITEBYTECODE is set (the CI machines) every process the suite starts (a
    `tacit-gen` command, an engine worker) would compile each module it imports from source
    again. py_compile writes the .pyc files whatever that variable says (docs/ci.md)."""
    session.run("python", "-m", "compileall", "-q", "tacit_gen")


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    """The whole test suite, real engines included."""
    import time

    session.install("-e", ".[dev]")
    _compile_package(session)
    session.run("tacit-gen", "lint", "contracts/", env=OFFLINE)
    session.run("tacit-gen", "render", "--check", env=OFFLINE)
    # byte + semantic drift, orphans, version gate. Under CI=true the gate's base is the merge base
    # with origin/HEAD; a checkout made without a remote (or without origin/HEAD) gates against the
    # previous commit instead, never against nothing.
    base = [] if _git_ok("rev-parse", "--verify", "-q", "origin/HEAD") else ["--base", "HEAD~1"]
    session.run("tacit-gen", "check", *base, env=OFFLINE)
    # the documentation site, --strict (a broken link or a page outside the navigation fails);
    # tests/site/test_docs_site.py opens it in a browser
    site = os.path.join(session.virtualenv.location, "site")
    session.run("mkdocs", "build", "--strict", "--site-dir", site, env={**OFFLINE, **DOCS_ENV})
    # the soda4 engine's own environment (soda-core 4 cannot share this one), built from the
    # shipped lock into the session's folder before the tests use it (docs/engines/soda4.md)
    env = {**OFFLINE, "TACIT_GEN_SODA4_ENV": os.path.join(session.virtualenv.location, "soda4-env"),
           "TACIT_DOCS_SITE": site}
    start = time.monotonic()
    session.run("tacit-gen", "engines", "setup", "soda4", env=env)
    session.log(f"Soda 4 environment ready in {time.monotonic() - start:.0f} s")
    # the Spark suite has a session of its own (one Spark session for all its cases). loadfile:
    # a module's batch fixtures (parity_batch, the hardening batch) verify its cases at once, so
    # the module stays on one worker; in collection order, which puts the costliest files first
    # (tests/conftest.py: COSTLIEST_FIRST), not xdist's order by number of tests, which left a
    # file of one long test for the end. The slowest tests by wall and by CPU close the log, and
    # any skip is listed with its reason (-rs).
    session.run("pytest", "-n", "2", "--dist", "loadfile", "--no-loadscope-reorder", "-m", "not spark",
                "-rs", "--durations=25", "-p", "tests.cputime", *session.posargs,
                env={**env, "TACIT_CPUTIME_TOP": "25"})


# Every module holding a test marked `spark` (tests/test_spark_modules.py keeps the list whole):
# what the `spark` session collects.
SPARK_MODULES = ("tests/calendar/test_calendar_spark.py", "tests/parity/test_parity_spark.py",
                 "tests/since/test_howto_spark.py", "tests/since/test_verify_since_spark.py")

SPARK_SMALL_DATA = ('{"spark.driver.extraJavaOptions": '
                    '"-Duser.timezone=UTC -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}')


@nox.session(python="3.11")
def spark(session: nox.Session) -> None:
    """The Spark suite (`-m spark`): verify's Spark environment is created from the shipped lock
    (cached in .nox/ for the run, timed), then every case of the Spark modules (parity, `since`,
    calendar: tests/spark_batch.py) runs in ONE worker and ONE Spark session on the machine's
    Java 17."""
    import time

    # the engines run in the Spark environment's one worker; this one runs pytest, verify's loading
    # and the wire schemas in one process, which compiles what it imports: the whole
    # environment's bytecode at install was 12 s of CPU for nothing (the worker's environment
    # is still compiled at install, as `tacit-gen engines setup` does for users)
    session.install("-e", ".[dev]", env={"UV_COMPILE_BYTECODE": "0"})
    _compile_package(session)
    env = {**OFFLINE, "TACIT_GEN_SPARK_ENV": os.path.join(session.virtualenv.location, "spark-env"),
           # the suite's JVM runs minutes, on small data: C1 alone compiles (C2's compiler threads
           # cost about 40 % of the JVM's CPU here) and one GC thread; Spark's own settings
           # (codegen, AQE) stay its defaults (docs/engines/spark.md)
           "TACIT_GEN_SPARK_CONF": os.environ.get("TACIT_GEN_SPARK_CONF", SPARK_SMALL_DATA)}
    start = time.monotonic()
    session.run("tacit-gen", "engines", "setup", "spark", env=env)
    session.log(f"Spark environment ready in {time.monotonic() - start:.0f} s")
    # the whole tier is one batch (one test's fixture): the smoke tier takes minutes; the kinds
    # and full tiers take 10 to 60 (docs/engines/spark.md), so they run without pytest-timeout's
    # limit
    tier = os.environ.get("TACIT_SPARK_PARITY", "smoke")
    limit = "1800" if tier == "smoke" else "0"
    # the Spark modules only (SPARK_MODULES): collecting the whole suite to select them cost
    # about 8 s of CPU; arguments given to the session select instead
    session.run("pytest", "-p", "no:xdist", "-m", "spark", "-o", f"timeout={limit}",
                *(session.posargs or SPARK_MODULES), env=env)


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff over the package and tests; import-linter over the layering (pyproject.toml)."""
    session.install("ruff>=0.6", "import-linter>=2.1")
    session.install("--no-deps", "-e", ".")  # lint-imports reads the package, imports none of it
    session.run("ruff", "check", "tacit_gen", "tests", "noxfile.py")
    session.run("lint-imports", env=OFFLINE)


@nox.session(python="3.11")
def typecheck(session: nox.Session) -> None:
    """mypy and pyright over the package and the typed pipeline API, side by side (each takes
    one core for about a minute); each one's output is printed whole when both are done."""
    import subprocess

    # neither checker imports what it reads: the environment's bytecode (UV_COMPILE_BYTECODE,
    # set above for the sessions that run the engines) would be compiled for nothing
    session.install("-e", ".[dev]", env={"UV_COMPILE_BYTECODE": "0"})
    env = {**os.environ, **OFFLINE, "VIRTUAL_ENV": session.virtualenv.location,
           "PATH": os.pathsep.join((session.bin, os.environ.get("PATH", "")))}
    # pyright over the package and the typed API users write pipelines against
    commands = {"mypy": ["mypy", "tacit_gen"],
                "pyright": ["pyright", "tacit_gen", "tests/typing/pipeline_ok.py"]}
    running = {name: subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True) for name, cmd in commands.items()}
    failed = []
    for name, proc in running.items():
        out, _ = proc.communicate()
        session.log(" ".join(commands[name]))
        print(out, end="", flush=True)
        if proc.returncode != 0:
            failed.append(f"{name} (exit {proc.returncode})")
    if failed:
        session.error("failed: " + ", ".join(failed))


@nox.session(python="3.11")
def demo(session: nox.Session) -> None:
    """The main job on the bundled contracts: lint, render, check, explain, then verify a sample
    of each contract in every real engine (an embedded DuckDB, nothing to start)."""
    session.install("-e", ".[all]")
    session.run("tacit-gen", "lint", "contracts/", env=OFFLINE)
    session.run("tacit-gen", "render", env=OFFLINE)
    session.run("tacit-gen", "check", "--no-bump-gate", env=OFFLINE)
    session.run("tacit-gen", "explain", "contracts/plant_sensor_reading.yaml", env=OFFLINE)
    tmp = session.create_tmp()
    for name in ("fct_sensor_readings", "plant_sensor_reading", "ohlcv_1m"):
        data = f"{tmp}/{name}.csv"
        session.run("tacit-gen", "sample", f"contracts/{name}.yaml", "--rows", "200",
                    "--now", "2024-01-01T12:00:00Z", "--out", data, env=OFFLINE)
        args = ["tacit-gen", "verify", f"contracts/{name}.yaml", "--data", data,
                "--now", "2024-01-01T12:00:00Z"]
        catalog = f"{tmp}/{name}.catalog.csv"

        if os.path.exists(catalog):
            args += ["--catalog", catalog]
        session.run(*args, env=OFFLINE)
    # Seed 001's second incident: halfway through, a feed switches to kPa. Every engine must flag
    # catalog_unit:unit, and verify exits 1 ("violations found, all engines agree").
    data = f"{tmp}/kpa_incident.csv"
    session.run("tacit-gen", "sample", "contracts/plant_sensor_reading.yaml", "--rows", "200",
                "--now", "2024-01-01T12:00:00Z", "--violate", "catalog_unit:unit", "--out", data,
                env=OFFLINE)
    session.run("tacit-gen", "verify", "contracts/plant_sensor_reading.yaml", "--data", data,
                "--catalog", f"{tmp}/kpa_incident.catalog.csv", "--now", "2024-01-01T12:00:00Z",
                env=OFFLINE, success_codes=[1])


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """Benchmarks, as ratios against a baseline run in the same process (never timed tests).

    `nox -s bench -- --json FILE` also writes every row (measure, baseline, ratio, goal, met,
    machine load) to FILE as one JSON list; other posargs go to the runtime benchmark, e.g.
    `nox -s bench -- --rows 2000000 --no-pandas`.
    """

    session.install("-e", ".[dev]")
    args = list(session.posargs)
    env = dict(OFFLINE)
    if "--json" in args:
        i = args.index("--json")
        target = os.path.abspath(args[i + 1])
        del args[i : i + 2]
        if os.path.exists(target):
            os.remove(target)
        env["TACIT_BENCH_JSON"] = target  # every bench script appends its rows there
    session.run("python", "tests/benchmarks/bench_render.py", "501", env=env)
    # start-up of lint / render / check of each bundled contract vs `python -c "import yaml, jinja2, click"`
    session.run("python", "tests/benchmarks/bench_startup.py", env=env, success_codes=[0, 1])
    # verify of the three bundled contracts in one run vs three separate verify runs
    session.run("python", "tests/benchmarks/bench_verify_many.py", env=env, success_codes=[0, 1])
    session.run("python", "tests/benchmarks/bench_runtime.py", *args, env=env)
    # parse(since=) on a 1% increment vs parse() of the increment alone and of the whole table:
    # DuckDB at 10 M rows, PostgreSQL at 1 M (TACIT_BENCH_SINCE_ROWS: a smaller DuckDB table)
    since_rows = os.environ.get("TACIT_BENCH_SINCE_ROWS", "10000000")
    session.run("python", "tests/benchmarks/bench_since.py", "--rows", since_rows, env=env)
    # Spark local: parse(since=) on a table partitioned by day (Parquet) vs the increment as its
    # own table, and the partitions its scans read (TACIT_BENCH_SINCE_SPARK_ROWS, default 1 M)
    spark_since = os.environ.get("TACIT_BENCH_SINCE_SPARK_ROWS", "1000000")
    session.run("python", "tests/benchmarks/bench_since.py", "--no-duckdb", "--no-postgres",
                "--spark", "--spark-rows", spark_since, env=env, success_codes=[0, 1])
    # parse() on PostgreSQL at 1e6 rows vs one hand-written query and pandera.ibis; verify wall
    # time per engine
    session.run("python", "tests/benchmarks/bench_postgres.py", env=env)
    # Spark local: verify's wall time (200 rows), then parse() vs hand-written Spark SQL at
    # TACIT_BENCH_SPARK_ROWS rows (default 10 million) in the Spark environment
    rows = os.environ.get("TACIT_BENCH_SPARK_ROWS", "10000000")
    session.run("python", "tests/benchmarks/bench_spark.py", "--rows", rows, env=env)


@nox.session(python="3.11")
def docs(session: nox.Session) -> None:
    """The documentation site into site/, built with --strict: no broken link or anchor, every page
    in the navigation. `nox -s docs -- serve` serves it with live reload instead."""
    session.install("-e", ".[docs]")
    if session.posargs[:1] == ["serve"]:
        session.run("mkdocs", "serve", *session.posargs[1:], env={**OFFLINE, **DOCS_ENV})
    else:
        session.run("mkdocs", "build", "--strict", *session.posargs, env={**OFFLINE, **DOCS_ENV})


@nox.session(python="3.11")
def build(session: nox.Session) -> None:
    """The sdist and the wheel (built from the sdist, so the sdist is proved complete) into dist/;
    tests/package/test_build.py installs both into clean environments and runs them."""
    import shutil

    shutil.rmtree("dist", ignore_errors=True)
    session.run("uv", "build", "--out-dir", "dist", external=True)


@nox.session(python="3.11")
def package(session: nox.Session) -> None:
    """The wheel, installed alone (core dependencies only), renders generated/ byte for byte:
    the templates ship inside it."""
    tmp = session.create_tmp()
    session.run("uv", "build", "--wheel", "-o", tmp, external=True)
    import glob

    session.install(*glob.glob(f"{tmp}/tacit_gen-*.whl"))
    session.run("tacit-gen", "render", "contracts", "--out", f"{tmp}/gen", env=OFFLINE)
    session.run("diff", "-r", f"{tmp}/gen", "generated", external=True)
