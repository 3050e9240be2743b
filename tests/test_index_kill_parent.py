"""SIGKILL to the `ctxmill index` process alone (as the OOM killer, systemd or `kill PID` do,
not its process group) must never leave parse workers holding the index lock: the next sync
finishes and equals a fresh index (issue 15)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from index_snapshot import snapshot
from test_index_kill import source

TRIALS = 8

CHILD = r"""
import sys
import ctxmill.index.sync as sync_mod
from ctxmill.index import sync_index
sync_mod.BATCH_FILES = 5
print("ready", flush=True)
sync_index(sys.argv[1], db_path=sys.argv[2], workers=2,
           progress=lambda done, total, path: print("file", flush=True))
print("done", flush=True)
"""

NEXT = r"""
import sys
from ctxmill.index import sync_index
r = sync_index(sys.argv[1], db_path=sys.argv[2], workers=1)
print(r.files_scanned)
"""


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(d.name))
    return out


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and PR_SET_PDEATHSIG are Linux's")
def test_killing_only_the_parent_never_hangs_the_next_sync(tmp_path: Path):
    rng = random.Random(15)
    root = tmp_path / "tree"
    for i in range(320):  # above PARALLEL_MIN_FILES: the parse pool runs
        d = root / f"pkg{i % 8}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"mod_{i}.py").write_text(source(i, 0))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    orphans_seen = 0
    for trial in range(TRIALS):
        db = tmp_path / f"index-{trial}.db"
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(root), str(db)], stdout=subprocess.PIPE,
                                 text=True, env=env)
        assert child.stdout.readline().strip() == "ready"
        for _ in range(rng.randrange(1, 120)):
            if child.stdout.readline().strip() != "file":
                break
        workers = _children(child.pid)
        orphans_seen += bool(workers)
        os.kill(child.pid, signal.SIGKILL)  # the parent alone
        child.wait(timeout=30)
        child.stdout.close()
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        alive = [w for w in workers if Path(f"/proc/{w}").exists()
                 and "Z" not in (Path(f"/proc/{w}/stat").read_text().rsplit(")", 1)[1].split()[0])]
        assert not alive, f"trial {trial}: workers {alive} outlived their killed parent"
        # the next sync must not wait on a lock (a hang guard, not a speed test)
        nxt = subprocess.run([sys.executable, "-c", NEXT, str(root), str(db)], capture_output=True, text=True,
                             env=env, timeout=120)
        assert nxt.returncode == 0, nxt.stderr
        fresh = tmp_path / f"fresh-{trial}.db"
        subprocess.run([sys.executable, "-c", NEXT, str(root), str(fresh)], check=True, env=env, timeout=120,
                       capture_output=True)
        got, want = snapshot(db, "request"), snapshot(fresh, "request")
        for key in want:
            assert got[key] == want[key], f"trial {trial}: {key} differs"
    assert orphans_seen >= TRIALS // 2  # the kills landed while the pool was running


def test_a_lock_held_by_orphans_of_a_dead_sync_is_an_error_naming_them(tmp_path: Path):
    """Simulate what an unfixed worker did: a process that is not the recorded holder keeps the
    lock after the holder died. The next sync says so instead of waiting forever."""
    from ctxmill.errors import CtxmillError
    from ctxmill.index import sync_index

    root = tmp_path / "tree"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    db = tmp_path / "index.db"
    holder = subprocess.Popen([sys.executable, "-c", "import sys; print(1)"], stdout=subprocess.DEVNULL)
    holder.wait()
    dead_pid = holder.pid
    lock = str(db) + ".lock"
    Path(lock).write_text(f"{dead_pid}\n")
    keeper = subprocess.Popen([sys.executable, "-c",
                               "import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); "
                               "print('locked', flush=True); time.sleep(60)", lock],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert keeper.stdout.readline().strip() == "locked"
        Path(lock).write_text(f"{dead_pid}\n")
        with pytest.raises(CtxmillError, match=str(keeper.pid)):
            sync_index(root, db_path=db)
    finally:
        keeper.kill()
        keeper.wait()
    assert sync_index(root, db_path=db).files_scanned == 1
