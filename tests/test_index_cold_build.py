"""The first build of an empty index runs in rollback-journal mode (pages written once) and
hands the database back in WAL mode; killed half-way, the next sync still converges to what a
fresh index holds."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ctxmill.index import sync_index
from ctxmill.index.store import Store
from index_snapshot import snapshot

CHILD = r"""
import sys, time
import ctxmill.index.sync as sync_mod
from ctxmill.index import sync_index
from ctxmill.index.store import Store
sync_mod.BATCH_FILES = 4  # many commits, so kills land between and inside them
write = Store.replace_files
def slow_write(self, files):  # linger inside the transaction: kills land there too
    n = write(self, files)
    time.sleep(0.01)
    return n
Store.replace_files = slow_write
print("ready", flush=True)
sync_index(sys.argv[1], db_path=sys.argv[2], workers=int(sys.argv[3]),
           progress=lambda done, total, path: print("file", flush=True))
print("done", flush=True)
"""


def _tree(root: Path, n: int = 120) -> None:
    for i in range(n):
        d = root / f"pkg{i % 6}"
        d.mkdir(parents=True, exist_ok=True)
        funcs = "\n\n".join(
            f"def op_{i}_{j}(value, scale={j}):\n    '''Operation {j} of module {i}.'''\n"
            f"    result = value * scale + {i}\n    return result\n" for j in range(5))
        (d / f"mod_{i}.py").write_text(f'"""Module {i}."""\n\n{funcs}\n')


def _journal_mode(db: Path) -> str:
    import sqlean

    c = sqlean.connect(str(db))
    try:
        return c.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        c.close()


def test_first_build_ends_in_wal_mode(tmp_path: Path):
    _tree(tmp_path / "tree", 20)
    db = tmp_path / "i.db"
    sync_index(tmp_path / "tree", db_path=db, workers=1)
    assert _journal_mode(db) == "wal"
    assert not Path(str(db) + "-journal").exists()
    # a second sync (not a first build) leaves the mode alone
    (tmp_path / "tree" / "pkg0" / "mod_0.py").write_text("def changed():\n    return 1\n")
    sync_index(tmp_path / "tree", db_path=db, workers=1)
    assert _journal_mode(db) == "wal"


def test_first_build_with_another_connection_open_stays_in_wal(tmp_path: Path, monkeypatch):
    _tree(tmp_path / "tree", 20)
    db = tmp_path / "i.db"
    answers = []
    real = Store.build_journal

    def spy(self, on):
        answers.append((on, real(self, on)))
        return answers[-1][1]

    monkeypatch.setattr(Store, "build_journal", spy)
    with Store(db) as other:  # e.g. a reader that opened the new, empty index
        other.conn.execute("SELECT count(*) FROM chunks").fetchone()
        sync_index(tmp_path / "tree", db_path=db, workers=1)
        assert answers[0] == (True, False)  # the mode could not change: built in WAL mode
        assert _journal_mode(db) == "wal"
    answers.clear()
    fresh = tmp_path / "fresh.db"
    sync_index(tmp_path / "tree", db_path=fresh, workers=1)
    assert answers == [(True, True), (False, True)]  # alone, the build ran in rollback mode
    assert snapshot(db, "scale") == snapshot(fresh, "scale")


@pytest.mark.slow
def test_killed_first_builds_converge_to_a_fresh_index(tmp_path: Path):
    rng = random.Random(7)
    root = tmp_path / "tree"
    _tree(root)
    fresh = tmp_path / "fresh.db"
    sync_index(root, db_path=fresh, workers=1)
    want = snapshot(fresh, "scale")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    killed = hot = 0
    for trial in range(8):
        db = tmp_path / f"cold-{trial}.db"
        workers = 2 if trial % 2 else 1
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(root), str(db), str(workers)],
                                 stdout=subprocess.PIPE, text=True, env=env, start_new_session=True)
        assert child.stdout.readline().strip() == "ready"
        for _ in range(rng.randrange(1, 110)):
            if child.stdout.readline().strip() != "file":
                break
        time.sleep(rng.uniform(0.0, 0.02))
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        rest = child.stdout.read()
        child.stdout.close()
        if "done" not in rest:
            killed += 1
        hot += Path(str(db) + "-journal").exists()  # killed inside a rollback-mode commit
        sync_index(root, db_path=db, workers=1)
        got = snapshot(db, "scale")
        assert got["dirty"] == "0"
        assert got == want, f"trial {trial}: differs from a fresh index after SIGKILL"
        assert _journal_mode(db) == "wal"
    assert killed >= 4, killed
    assert hot >= 1, "no kill landed inside a transaction of a first build"


def test_a_reader_can_open_the_index_while_a_first_build_writes(tmp_path: Path):
    db = tmp_path / "i.db"
    builder = Store(db)
    try:
        assert builder.build_journal(True)
        builder.conn.execute("BEGIN IMMEDIATE")  # the build is writing: no switch to WAL now
        builder.set_meta("probe", "uncommitted")
        with Store(db, create=False) as reader:  # before: "not a ctxmill index (database is locked)"
            assert reader.get_meta("probe") is None  # sees the last commit, not the open one
            assert reader.conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0
        builder.conn.execute("COMMIT")
        assert builder.build_journal(False)
    finally:
        builder.close()
    assert _journal_mode(db) == "wal"
    with Store(db, create=False) as reader:
        assert reader.get_meta("probe") == "uncommitted"
