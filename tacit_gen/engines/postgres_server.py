"""A throwaway PostgreSQL server for `verify --engine postgres` and the tests.

``initdb`` and ``pg_ctl`` of the machine's PostgreSQL (``/usr/lib/postgresql/<v>/bin``, or
``pg_config --bindir``, or ``$PATH``) in a temporary folder, on a free port, listening on
127.0.0.1 only, trust authentication. ``initdb`` refuses to run as root: as root the folder is
given to the ``postgres`` user and both programs run through ``runuser -u postgres``. The server
is stopped (``pg_ctl stop -m immediate``) and its folder removed when the context exits, also on
an error or KeyboardInterrupt, and at interpreter exit should the context never exit.

Every session tacit-gen opens runs in UTC whatever the server's ``timezone`` setting
(`Server.dsn` carries ``options=-c TimeZone=UTC``); ``timezone=`` here sets the *server's*
default, which the tests use to prove that.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

__all__ = ["Server", "ServerError", "find_bin_dir", "throwaway_server", "utc_dsn"]

SERVICE_USER = "postgres"
_CANDIDATES = ("/usr/lib/postgresql/{v}/bin",)
_VERSIONS = ("17", "16", "15", "14", "13")


class ServerError(RuntimeError):
    """The throwaway server could not be created or started (the message says why)."""


@dataclass(frozen=True)
class Server:
    """A running PostgreSQL server: where it listens and how to connect as its superuser."""

    host: str
    port: int
    user: str = SERVICE_USER
    database: str = "postgres"
    password: str = ""

    @property
    def dsn(self) -> str:
        """A ``postgresql://`` URL whose sessions run in UTC."""
        auth = quote(self.user) + (":" + quote(self.password) if self.password else "")
        return utc_dsn(f"postgresql://{auth}@{self.host}:{self.port}/{quote(self.database)}")


def utc_dsn(url: str) -> str:
    """The URL with ``options=-c TimeZone=UTC`` added (kept if the URL already sets options)."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise ValueError(f"not a PostgreSQL URL (postgresql://...): {url}")
    query = parts.query
    if "options=" not in query:
        query = (query + "&" if query else "") + "options=-c%20TimeZone%3DUTC"
    return urlunsplit(parts._replace(query=query))


def find_bin_dir() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl``.

    Raises:
        ServerError: no PostgreSQL server programs on this machine.
    """
    env = os.environ.get("TACIT_PG_BIN")
    if env and (Path(env) / "initdb").is_file():
        return Path(env)
    for v in _VERSIONS:
        for c in _CANDIDATES:
            p = Path(c.format(v=v))
            if (p / "initdb").is_file() and (p / "pg_ctl").is_file():
                return p
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
        p = Path(out.stdout.strip())
        if (p / "initdb").is_file():
            return p
    which = shutil.which("initdb")
    if which:
        return Path(which).parent
    raise ServerError(
        "no PostgreSQL server programs found (initdb, pg_ctl): install the postgresql package "
        "(Debian: apt-get install postgresql-15), set TACIT_PG_BIN, or pass --dsn"
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_service(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    runuser = shutil.which("runuser")
    if runuser is None:
        raise ServerError("running as root needs runuser to start PostgreSQL as 'postgres'")
    return [runuser, "-u", SERVICE_USER, "--", *cmd]


def _run(cmd: list[str], what: str, log: Path | None = None) -> None:
    res = subprocess.run(_as_service(cmd), capture_output=True, text=True, check=False,
                         stdin=subprocess.DEVNULL)
    if res.returncode != 0:
        tail = ""
        if log is not None and log.is_file():
            tail = "\n" + "\n".join(log.read_text(errors="replace").splitlines()[-10:])
        raise ServerError(f"{what} failed ({res.returncode}): {res.stderr.strip()}{tail}")


def _stop(bin_dir: Path, data: Path, root: Path) -> None:
    with contextlib.suppress(Exception):
        if (data / "postmaster.pid").exists():
            subprocess.run(_as_service([str(bin_dir / "pg_ctl"), "-D", str(data), "-m",
                                        "immediate", "-w", "stop"]),
                           capture_output=True, check=False, timeout=60,
                           stdin=subprocess.DEVNULL)
    shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def throwaway_server(timezone: str | None = None, bin_dir: Path | None = None,
                     icu_locale: str | None = None) -> Iterator[Server]:
    """Start a private PostgreSQL server; stop it and delete its files on exit.

    Args:
        timezone: the server's default ``timezone`` setting (sessions opened through
            `Server.dsn` still run in UTC).
        bin_dir: the folder of ``initdb`` / ``pg_ctl``; found with `find_bin_dir` when None.
        icu_locale: the databases' default collation from ICU (``en-US``: strings order as in
            most users' databases, ``'B' < 'b'`` false); default the C locale (byte order).

    Yields:
        The running `Server` (127.0.0.1, a free port, user ``postgres``, trust auth).

    Raises:
        ServerError: the programs are missing or the server did not start (with its log's tail).
    """
    bins = bin_dir or find_bin_dir()
    root = Path(tempfile.mkdtemp(prefix="tacit-pg-"))
    data, log = root / "data", root / "server.log"
    stopper = lambda: _stop(bins, data, root)  # noqa: E731
    atexit.register(stopper)
    try:
        os.chmod(root, 0o700)
        if os.geteuid() == 0:
            shutil.chown(root, SERVICE_USER, SERVICE_USER)
        _run([str(bins / "initdb"), "-D", str(data), "-A", "trust", "-U", SERVICE_USER,
              "-E", "UTF8", "--locale=C", "--no-sync",
              *(["--locale-provider=icu", f"--icu-locale={icu_locale}"] if icu_locale else [])],
             "initdb")
        settings = ["-c listen_addresses=127.0.0.1", f"-k {root}", "-c fsync=off",
                    "-c synchronous_commit=off", "-c full_page_writes=off",
                    "-c max_connections=50"]
        if timezone:
            settings.append(f"-c timezone={timezone}")
        last: ServerError | None = None
        for _attempt in range(3):  # the free port may be taken between probe and bind
            port = _free_port()
            try:
                _run([str(bins / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60",
                      "-o", " ".join([f"-p {port}", *settings]), "start"], "pg_ctl start", log)
            except ServerError as e:
                last = e
                continue
            yield Server("127.0.0.1", port)
            return
        raise last or ServerError("pg_ctl start failed")
    finally:
        stopper()
        atexit.unregister(stopper)
