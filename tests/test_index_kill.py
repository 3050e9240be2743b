"""SIGKILL the indexer at random points; the next sync must converge to a fresh index.

Each trial changes the tree (edits, new files, deletions, a rename), starts a sync in a child
process, kills it with SIGKILL at a random moment once it has started, then syncs to the end
in this process and compares the whole index with a fresh index of the same tree.
"""

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
from index_snapshot import snapshot

TRIALS = 20

CHILD = r"""
import sys, time
import ctxmill.index.sync as sync_mod
from ctxmill.index import sync_index
sync_mod.BATCH_FILES = 3  # many commits per sync, so kills land between them
print("ready", flush=True)
sync_index(sys.argv[1], db_path=sys.argv[2], workers=int(sys.argv[3]),
           progress=lambda done, total, path: print("file", flush=True))
print("done", flush=True)
"""


def source(i: int, rev: int) -> str:
    funcs = "\n\n".join(
        f"def handler_{i}_{j}(request, limit={rev}):\n"
        f"    '''Handle request kind {j} of module {i} (revision {rev}).'''\n"
        f"    total = sum(range(limit + {j}))\n"
        f"    return {{'module': {i}, 'kind': {j}, 'total': total}}\n"
        for j in range(6)
    )
    return f'"""Module {i}."""\n\nimport os\n\n\n{funcs}\n'


def mutate(root: Path, rng: random.Random, trial: int) -> None:
    files = sorted(root.rglob("*.py"))
    for p in rng.sample(files, min(25, len(files))):
        i = int(p.stem.split("_")[1])
        p.write_text(source(i, trial + 1))
    for p in rng.sample(files, 4):
        if p.exists():
            p.unlink()
    for k in range(6):
        i = 1000 + trial * 10 + k
        d = root / f"pkg{rng.randrange(8)}"
        d.mkdir(exist_ok=True)
        (d / f"mod_{i}.py").write_text(source(i, 0))
    survivors = sorted(root.rglob("*.py"))
    victim = rng.choice(survivors)
    victim.rename(victim.with_name(f"mod_{5000 + trial}.py"))


@pytest.mark.slow
def test_sigkill_at_random_points_then_sync_equals_fresh_index(tmp_path: Path):
    rng = random.Random(20261130)
    root = tmp_path / "tree"
    for i in range(240):
        d = root / f"pkg{i % 8}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"mod_{i}.py").write_text(source(i, 0))
    db = tmp_path / "index.db"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    killed_mid_sync = 0
    for trial in range(TRIALS):
        mutate(root, rng, trial)
        workers = 2 if trial % 4 == 3 else 1  # sometimes with the parse pool
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(root), str(db), str(workers)],
                                 stdout=subprocess.PIPE, text=True, env=env, start_new_session=True)
        assert child.stdout.readline().strip() == "ready"
        # Kill after a random number of files (0: during the walk), a little later still.
        for _ in range(rng.randrange(0, 40)):
            if child.stdout.readline().strip() != "file":
                break
        time.sleep(rng.uniform(0.0, 0.05))
        os.killpg(child.pid, signal.SIGKILL)  # the child and any pool workers
        child.wait(timeout=30)
        rest = child.stdout.read()
        child.stdout.close()
        if "done" not in rest:
            killed_mid_sync += 1
        report = sync_index(root, db_path=db, workers=1)
        assert report.files_scanned == len(list(root.rglob("*.py")))
        fresh = tmp_path / f"fresh-{trial}.db"
        sync_index(root, db_path=fresh, workers=1)
        got, want = snapshot(db, "request"), snapshot(fresh, "request")
        assert got["dirty"] == "0"
        for key in want:
            assert got[key] == want[key], f"trial {trial}: {key} differs after SIGKILL"
        for p in tmp_path.glob(f"fresh-{trial}.db*"):
            p.unlink()
    # The kills must really have landed inside syncs most of the time.
    assert killed_mid_sync >= TRIALS // 2, killed_mid_sync
