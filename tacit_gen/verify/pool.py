"""The engines' processes: each engine forked from this process once for all its datasets,
as many at once as the CPUs allow, the costliest first (`run_engines`); the costliest one started
before the data loads (`WarmEngine`)."""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tacit_gen import registry
from tacit_gen.engines.base import EngineRun, VerifyInput
from tacit_gen.extras import MissingExtra, missing
from tacit_gen.targets.base import Engine
from tacit_gen.verify.cases import Prepared, engine_input


def declared(target: str, backend: str) -> Engine:
    """How `target` runs on `backend` (its `Target.engines` entry).

    Raises:
        ValueError: the target has no engine on that backend.
    """
    engine = registry.get(target).engines.get(backend)
    if engine is None:
        raise ValueError(f"target '{target}' has no engine on {backend}")
    return engine


def _engine(target: str, backend: str) -> tuple[Engine, Any]:
    """The engine `target` declares on `backend`, and its module imported.

    Raises:
        MissingExtra: the module, or a library it imports, is not installed.
    """
    engine = declared(target, backend)
    try:
        return engine, importlib.import_module(engine.module)
    except ModuleNotFoundError as e:
        raise _missing(target, engine, e) from None


def _missing(target: str, engine: Engine, error: ModuleNotFoundError) -> BaseException:
    """An engine's import that failed as what it is: its extra not installed (a module of
    tacit-gen's own that is absent stays the error it is)."""
    name = error.name or ""
    if not name or name.split(".")[0] == "tacit_gen":
        return error
    return MissingExtra(f"the {target} engine", name, engine.extra)


def unavailable(target: str, backend: str) -> str | None:
    """Why `target`'s engine on `backend` cannot run here, found before it is started: a library
    it declares (`Engine.libraries`) is not installed (`tacit_gen.extras`). None: it may run."""
    engine = declared(target, backend)
    absent = missing(engine.libraries)
    return None if absent is None else failure_text(MissingExtra(f"the {target} engine", absent,
                                                                 engine.extra))


def engine_order(targets: list[str], backend: str = "duckdb") -> list[str]:
    """`targets` in the order verify starts their engines on `backend`: the costliest first
    (`Engine.cost`), then in the targets' order. verify runs them side by side, as many at once
    as the CPUs allow, so the longest starts first (dbt builds a project; GX imports for seconds)
    and the quick ones fill the other processes."""
    cost = {t: declared(t, backend).cost for t in targets}
    return sorted(targets, key=lambda t: (-cost[t], targets.index(t)))


# The drivers verify itself loads the data with (DuckDB; psycopg2 for PostgreSQL): it closes
# their connections before it forks, and each engine opens its own, so loading them never stops
# the forks (`engine_libraries` leaves them out).
LOADER_DRIVERS = frozenset(("duckdb", "psycopg2"))


@functools.cache
def engine_libraries() -> frozenset[str]:
    """The engines' own libraries: every `Engine.libraries` the registered targets declare, but
    the loader's drivers (`LOADER_DRIVERS`). A process that has imported one has run it (or can):
    its state (a pooled connection, a cached engine, a data context, a thread pool it started) is
    copied into every forked child, where it belongs to no one. A GX child forked from a test
    worker that had run GX in process died of that state (a native crash in GX's metric graph,
    then the run stalled)."""
    return frozenset(lib for t in registry.names() for e in registry.get(t).engines.values()
                     for lib in e.libraries) - LOADER_DRIVERS


def single_threaded() -> bool:
    """Whether this process runs one Python thread: forking a process with other threads can
    leave locks held in the child (a library that ran in this process earlier, as in a test
    session), so the engine then runs in-process, without crash isolation. (DuckDB's native
    worker threads, idle after the data is loaded, are not counted: measured safe.)"""
    import threading

    return threading.active_count() == 1


def fork_safe() -> bool:
    """Whether engines may run in processes forked from this one: fork exists, this process runs
    one Python thread (`single_threaded`), and it has not loaded an engine's library itself
    (`engine_libraries`), which the CLI never does; else they run here, one after another."""
    import multiprocessing

    return ("fork" in multiprocessing.get_all_start_methods() and single_threaded()
            and not any(name in sys.modules for name in engine_libraries()))


def _answer(conn: Any, compute: Callable[[], Any]) -> None:
    """In an engine's own process: send back what `compute` returns, or why it failed."""
    try:
        result: Any = compute()
    except BaseException as e:
        result = failure_text(e)
    try:
        conn.send(result)
    except Exception as e:  # a result that does not pickle
        conn.send(failure_text(e))
    conn.close()
    # Done: leave now. A normal exit joins every thread the engine left running (multiprocessing
    # runs threading._shutdown), and one that never ends (a pool, a telemetry flusher) would keep
    # this process, and the parent's join, waiting for ever; its atexit work is not ours either.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def _reap(proc: Any) -> None:
    """Wait for an engine's process that has answered, died or been told to end; one that has
    not ended 30 s later is killed, so no engine can keep verify waiting."""
    proc.join(timeout=30)
    if proc.is_alive():
        proc.kill()
        proc.join()


def failure_text(e: BaseException) -> str:
    """Why an engine could not run, in one line: a missing extra as what is missing and its
    install line, else the exception's type and message."""
    if isinstance(e, MissingExtra):
        return f"{e.why} ({e.hint})"
    return (f"{type(e).__name__}: {e}".splitlines() or [type(e).__name__])[0][:500]


def _engine_child(target: str, inp: VerifyInput, conn: Any) -> None:
    """In the engine's own process: import it, run it, send back its run or why it failed."""
    from tacit_gen.console import engine_output

    def run() -> Any:
        with engine_output(inp.workdir / "engine.log"):  # its logging is not the user's business
            return _run_one(target, inp)

    _answer(conn, run)


def _run_one(target: str, inp: VerifyInput) -> EngineRun:
    """The engine's `run` on one input, in this process (a library it lacks: `MissingExtra`)."""
    engine, module = _engine(target, inp.engine)
    try:
        result: EngineRun = module.run(inp)
    except ModuleNotFoundError as e:
        raise _missing(target, engine, e) from None
    return result


def run_engine(target: str, inp: VerifyInput) -> EngineRun:
    """Run one engine in a process of its own (forked, so nothing is imported twice here).

    An engine that cannot run (its import fails, it raises, it crashes the interpreter, as a
    native library does under a memory limit) returns `EngineRun.failure` and no verdict; the
    other engines and this process go on. Where fork is unavailable or unsafe (other threads),
    the engine runs in-process: an exception is still a failure, a native crash is not isolated.
    """
    import multiprocessing

    why = unavailable(target, inp.engine)
    if why is not None:
        return EngineRun(target, (), failure=why)
    if not fork_safe():
        from tacit_gen.console import engine_output

        try:
            with engine_output(inp.workdir / "engine.log"):
                result: EngineRun = _run_one(target, inp)
            return result
        except Exception as e:
            return EngineRun(target, (), (traceback.format_exc(limit=3),), failure=failure_text(e))
    ctx = multiprocessing.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_engine_child, args=(target, inp, sender), name=f"tacit-{target}")
    proc.start()
    sender.close()
    got: Any = None
    from tacit_gen.console import progress

    try:
        while not receiver.poll(0.25):  # also true at EOF: the process died without answering
            progress().tick()
        got = receiver.recv()
    except (EOFError, OSError):
        pass  # the process died before it could answer
    finally:
        receiver.close()
    _reap(proc)
    if isinstance(got, EngineRun):
        return got
    if isinstance(got, str):
        return EngineRun(target, (), failure=got)
    code = proc.exitcode
    if code is not None and code < 0:
        import signal

        try:
            why = f"the engine's process died of {signal.Signals(-code).name}"
        except ValueError:
            why = f"the engine's process died of signal {-code}"
    else:
        why = f"the engine's process exited with code {code} without a result"
    return EngineRun(target, (), failure=why)


def run_reported(target: str, inp: VerifyInput) -> EngineRun:
    """`run_engine`, reported on the terminal's progress line (tacit_gen.console): the engine,
    its elapsed time, done or failed."""
    from tacit_gen.console import progress

    progress().start(target)
    result = run_engine(target, inp)
    _report_done(result)
    return result


def _report_done(result: EngineRun) -> None:
    from tacit_gen.console import progress

    counts = [(sum(v.status == s for v in result.verdicts), word)
              for s, word in (("fail", "violated"), ("error", "errored"))]
    progress().finish(result.failure is None, result.failure or ", ".join(
        f"{n} clause(s) {word}" for n, word in counts if n))


def default_jobs() -> int:
    """Engine processes at once: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _batch(target: str, inputs: list[VerifyInput], log: Path) -> list[EngineRun]:
    """One engine on every input, in this process: `run_cases` when the engine declares it
    (`Engine.batch`) and there are several, else `run` input after input (an exception is that
    input's failure; the others go on; one input's engine log is ``engine.log`` in its work
    folder, as for one contract)."""
    from tacit_gen.console import engine_output
    engine, module = _engine(target, inputs[0].engine if inputs else "duckdb")
    if engine.batch and len(inputs) > 1:
        try:
            with engine_output(log):
                runs: list[EngineRun] = list(module.run_cases(inputs))
        except ModuleNotFoundError as e:
            raise _missing(target, engine, e) from None
        return runs
    out = []
    for inp in inputs:
        try:
            with engine_output(inp.workdir / "engine.log"):
                out.append(module.run(inp))
        except ModuleNotFoundError as e:
            out.append(EngineRun(target, (), failure=failure_text(_missing(target, engine, e))))
        except Exception as e:
            out.append(EngineRun(target, (), failure=failure_text(e)))
    return out


def _child(target: str, inputs: list[VerifyInput], log: Path, conn: Any) -> None:
    _answer(conn, lambda: _batch(target, inputs, log))


def _died(target: str, code: int | None) -> str:
    if code is not None and code < 0:
        import signal

        try:
            return f"the {target} engine's process died of {signal.Signals(-code).name}"
        except ValueError:
            return f"the {target} engine's process died of signal {-code}"
    return f"the {target} engine's process exited with code {code} without a result"


def _warm_child(target: str, backend: str, log: Path, inputs_r: Any, inputs_w: Any,
                result_w: Any) -> None:
    """A started engine's process: import the engine (and what its `warm()` names; what that
    prints goes to `log`) while the parent loads the data, then run the inputs it is sent, or
    end when told to (None, EOF)."""
    from tacit_gen.console import engine_output

    inputs_w.close()  # the parent's end: only the parent may write, so its exit is an EOF here
    # an import that fails fails again, named, in `_batch`
    with contextlib.suppress(Exception), engine_output(log):
        engine, module = _engine(target, backend)
        if engine.warm:
            module.warm()
    try:
        msg = inputs_r.recv()
    except (EOFError, OSError):
        return
    if msg is not None:
        inputs, log = msg
        _child(target, inputs, log, result_w)


class WarmEngine:
    """The costliest engine's process, forked before the data is loaded and the artifacts are
    rendered, so that its import (dbt: about 2.5 s) runs on the CPU this process leaves idle
    meanwhile; `run_engines` then sends it its inputs instead of forking it anew. `close()` ends
    it if it was never sent anything (the load failed, an interrupt)."""

    def __init__(self, target: str, log: Path, backend: str = "duckdb") -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self.target = target
        inputs_r, self._inputs_w = ctx.Pipe(duplex=False)
        self.results, result_w = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_warm_child, name=f"tacit-{target}",
                                args=(target, backend, log, inputs_r, self._inputs_w, result_w))
        self.proc.start()
        inputs_r.close()
        result_w.close()
        self.sent = False

    @classmethod
    def start(cls, targets: list[str], parallel: int, root: Path,
              backend: str = "duckdb") -> WarmEngine | None:
        """The costliest of `targets` on `backend` started (what its import prints goes to
        ``root/<target>.engine.log``), when engines run in forked processes, more than one at a
        time (this process's own work takes the other CPU); else None."""
        targets = [t for t in targets if unavailable(t, backend) is None]
        if parallel < 2 or not targets or not fork_safe():
            return None
        target = engine_order(targets, backend)[0]
        return cls(target, root / f"{target}.engine.log", backend)

    def send(self, inputs: list[VerifyInput], log: Path) -> None:
        self._inputs_w.send((inputs, log))
        self._inputs_w.close()
        self.sent = True

    def close(self) -> None:
        """End the process: at once if it was never sent its inputs (it has only imported)."""
        if not self.sent:
            self.proc.terminate()
            with contextlib.suppress(OSError):
                self._inputs_w.close()
            self.sent = True
        _reap(self.proc)
        with contextlib.suppress(OSError):
            self.results.close()


def run_engines(jobs: list[tuple[str, list[VerifyInput]]], root: Path,
                parallel: int, warm: WarmEngine | None = None) -> dict[str, list[EngineRun]]:
    """Each (target, inputs) job in a forked process of its own, `parallel` at a time (`warm`: an
    engine's process already started, used for its job); a job that fails as a whole (its
    import, a crash) gives every one of its inputs that failure. Where fork is unavailable or
    unsafe (other threads in this process), the jobs run here one by one."""
    import multiprocessing
    from multiprocessing.connection import Connection, wait

    from tacit_gen.console import progress

    def whole(target: str, n: int, why: str) -> list[EngineRun]:
        return [EngineRun(target, (), failure=why) for _ in range(n)]

    def checked(target: str, n: int, got: Any) -> list[EngineRun]:
        if isinstance(got, list) and len(got) == n and all(isinstance(r, EngineRun) for r in got):
            return got
        return whole(target, n, got if isinstance(got, str) else f"the {target} engine returned "
                     f"{type(got).__name__} for {n} dataset(s)")

    results: dict[str, list[EngineRun]] = {}
    p = progress()

    def done(target: str) -> None:  # the engine's line: done, or failed with why
        runs = results[target]
        why = next((r.failure for r in runs if r.failure), None)
        counts = [(sum(v.status == s for r in runs for v in r.verdicts), word)
                  for s, word in (("fail", "violated"), ("error", "errored"))]
        p.end(target, why is None, why or ", ".join(f"{n} clause(s) {word}"
                                                     for n, word in counts if n))

    startable = []
    for target, inputs in jobs:  # an engine whose library is not installed is never started
        why = unavailable(target, inputs[0].engine) if inputs else None
        if why is None:
            startable.append((target, inputs))
            continue
        p.begin(target)
        results[target] = whole(target, len(inputs), why)
        done(target)
    jobs = startable
    if not fork_safe():
        for target, inputs in jobs:
            p.begin(target)
            try:
                results[target] = checked(target, len(inputs),
                                          _batch(target, inputs, root / f"{target}.engine.log"))
            except Exception as e:
                results[target] = whole(target, len(inputs), failure_text(e))
            done(target)
        return results
    ctx = multiprocessing.get_context("fork")
    pending = list(jobs)
    running: dict[Any, tuple[str, int, Any]] = {}
    try:
        while pending or running:
            while pending and len(running) < parallel:
                target, inputs = pending.pop(0)
                if warm is not None and warm.target == target and not warm.sent:
                    warm.send(inputs, root / f"{target}.engine.log")
                    running[warm.results] = (target, len(inputs), warm.proc)
                    p.begin(target)
                    continue
                receiver, sender = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, name=f"tacit-{target}",
                                   args=(target, inputs, root / f"{target}.engine.log", sender))
                proc.start()
                sender.close()
                running[receiver] = (target, len(inputs), proc)
                p.begin(target)
            for ready in wait(list(running), timeout=0.25):  # an answer, or EOF (it died)
                conn = ready if isinstance(ready, Connection) else None
                if conn is None:
                    continue
                target, n, proc = running.pop(conn)
                got: Any = None
                try:
                    got = conn.recv()
                except (EOFError, OSError):
                    pass
                finally:
                    conn.close()
                _reap(proc)
                results[target] = (checked(target, n, got) if got is not None
                                   else whole(target, n, _died(target, proc.exitcode)))
                done(target)
            p.tick()
    finally:
        for conn, (_t, _n, proc) in running.items():  # interrupted: stop what was started
            proc.terminate()
            proc.join()
            conn.close()
    return results


def batched_runs(prepared: list[Prepared], root: Path, parallel: int | None = None,
                  warm: WarmEngine | None = None) -> list[dict[str, EngineRun]]:
    """Every case on DuckDB: each engine in a process of its own, once for all the cases
    (`run_engines`), `parallel` at a time (default: the CPUs), the costliest
    first; results back in case order and target order."""
    order: list[str] = []
    for p in prepared:
        order.extend(t for t in p.targets if t not in order)
    backend = "postgres" if prepared and prepared[0].postgres is not None else "duckdb"
    work = [(t, [i for i, p in enumerate(prepared) if t in p.targets])
            for t in engine_order(order, backend)]
    results = run_engines([(t, [engine_input(prepared[i], t) for i in idx]) for t, idx in work],
                          root, parallel or default_jobs(), warm)
    out: list[dict[str, EngineRun]] = [{} for _ in prepared]
    for t, idx in work:
        for i, run in zip(idx, results[t], strict=True):
            out[i][t] = run
    return [{t: o[t] for t in p.targets} for p, o in zip(prepared, out, strict=True)]


def duckdb_runs(p: Prepared, targets: tuple[str, ...] | None = None) -> dict[str, EngineRun]:
    runs: dict[str, EngineRun] = {}
    for t in p.targets if targets is None else targets:
        runs[t] = run_reported(t, engine_input(p, t))
    return runs
