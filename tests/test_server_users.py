"""Two users on one machine cannot use or read each other's server: the socket's folder is
private (0700, the client refuses a folder it does not own), and the server answers only
callers of its own uid (SO_PEERCRED), which root - whom file modes do not stop - shows."""

from __future__ import annotations

import marshal
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_PEERCRED is Linux's"),
    pytest.mark.skipif(os.geteuid() != 0, reason="running a second user's server needs root"),
]
CTXMILL = Path(sys.executable).with_name("ctxmill")


def _nobody() -> int:
    try:
        return pwd.getpwnam("nobody").pw_uid
    except KeyError:
        pytest.skip("no 'nobody' user")


def _as(uid: int, cmd: list[str]) -> list[str]:
    """``cmd`` run as ``uid`` with no groups and no capabilities (util-linux's setpriv)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv is not installed")
    prefix = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    probe = subprocess.run([*prefix, sys.executable, "-c", "import ctxmill.server"], capture_output=True,
                           timeout=60, cwd="/")
    if probe.returncode != 0:  # an interpreter or checkout only root can read (CI containers)
        pytest.skip(f"user {uid} cannot run this interpreter and ctxmill")
    return [*prefix, *cmd]


@pytest.fixture
def base():
    d = Path(tempfile.mkdtemp(prefix="ctxmill-users-"))  # not under pytest's 0700 tmp: nobody must enter it
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _wait_socket(folder: Path, proc: subprocess.Popen) -> Path:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        socks = list(folder.glob("ctxmill/server-*.sock"))
        if socks:
            return socks[0]
        time.sleep(0.05)
    raise AssertionError(f"no server socket (exit {proc.poll()})")


def test_another_users_server_refuses_us_and_its_folder_is_not_used(base):
    uid = _nobody()
    theirs = base / "nobody"
    theirs.mkdir()
    os.chown(theirs, uid, uid)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(theirs), "HOME": str(theirs), "CTXMILL_SERVER": "1",
           "CTXMILL_INDEX_DIR": str(theirs / "index")}
    proc = subprocess.Popen(_as(uid, [sys.executable, "-m", "ctxmill.server.daemon"]), env=env, cwd=theirs, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        sock_path = _wait_socket(theirs, proc)
        assert sock_path.stat().st_uid == uid and (sock_path.parent.stat().st_mode & 0o777) == 0o700
        # our client does not use a folder someone else owns...
        probe = subprocess.run([sys.executable, "-c", "from ctxmill import server\ntry:\n    server.call('status', "
                                "start=False)\nexcept server.ServerUnavailable as e:\n    print('unavailable:', e)"],
                               env=env, capture_output=True, text=True, timeout=60)
        assert probe.stdout.startswith("unavailable:") and "not a private folder" in probe.stdout, probe.stderr
        # ...and connecting anyway (root passes the file modes) gets nothing but a refusal
        from ctxmill.server import PROTOCOL, recv_frame, send_frame

        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(str(sock_path))
        send_frame(s, {"op": "status", "protocol": PROTOCOL})
        reply = recv_frame(s)
        s.close()
        assert reply == {"ok": False, "error": "this server serves its own user only"}
        assert marshal.dumps(reply)  # a plain frame, no status of theirs in it
        # a caller slower to send than the server to refuse still gets the refusal, not EPIPE
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(str(sock_path))
        time.sleep(0.5)
        send_frame(s, {"op": "status", "protocol": PROTOCOL})
        assert recv_frame(s) == reply
        s.close()
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_another_user_cannot_reach_our_server(base):
    uid = _nobody()
    ours = base / "root"
    ours.mkdir(mode=0o755)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(ours), "CTXMILL_SERVER": "1", "CTXMILL_INDEX_DIR": str(ours / "index")}
    try:
        assert subprocess.run([str(CTXMILL), "server", "start"], env=env, capture_output=True,
                              timeout=60).returncode == 0
        [sock_path] = ours.glob("ctxmill/server-*.sock")
        assert (sock_path.stat().st_mode & 0o777) == 0o600
        attempt = subprocess.run(_as(uid, [
            sys.executable, "-c", "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ntry:\n    "
            "s.connect(sys.argv[1])\nexcept PermissionError:\n    print('denied')\nelse:\n    print('connected')",
            str(sock_path)]), capture_output=True, text=True, timeout=60, cwd="/")
        assert attempt.stdout.strip() == "denied", attempt.stderr
    finally:
        subprocess.run([str(CTXMILL), "server", "stop"], env=env, capture_output=True, timeout=60)
