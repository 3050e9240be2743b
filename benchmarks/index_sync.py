"""No-op and 3-file syncs of a generated git repository of small files, next to `git status`.

Prints JSON: medians of a no-op sync and of `git status` measured in the same run, their
ratio (target <= 2), and rounds of editing 3 files then syncing: exactly those files
re-chunked and only their new chunk contents embedded, median time against 2x the median
`git status` plus embedding time. The cold index is built in a separate process first (as
an earlier `ctxmill index` run would); the re-syncs are timed in this one.

    .venv/bin/python benchmarks/index_sync.py [--files 50000] [--repeat 5]

This times the sync inside one warm Python process. `benchmarks/server.py` times the no-op
`ctxmill index` of 50,000 files as users run it, through the command, with the background
server warm and in-process, beside `git status` in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ctxmill.index import sync_index
from ctxmill.index.store import Store

_COLD = """
import json, sys
from ctxmill.index import sync_index
r = sync_index(sys.argv[1], db_path=sys.argv[2])
print(json.dumps({**r.to_dict(), "embed_seconds": round(r.embed_seconds, 3),
                  "stages": {k: round(v, 3) for k, v in r.stages.items()}}))
"""


def source(i: int, rev: int = 0) -> str:
    return (f'"""Module {i}."""\n\n\ndef handler_{i}(request, retries={rev}):\n'
            f'    """Handle request {i}."""\n    return request.get("id_{i}", retries)\n')


def git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)


def timed(fn, repeat: int) -> tuple[float, list[float], object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=50_000)
    ap.add_argument("--per-dir", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        for i in range(args.files):
            d = root / f"pkg{i // (args.per_dir * 10):03d}" / f"sub{(i // args.per_dir) % 10}"
            if i % args.per_dir == 0:
                d.mkdir(parents=True, exist_ok=True)
            (d / f"mod_{i}.py").write_text(source(i))
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "init")
        db = Path(tmp) / "index.db"

        # The cold index runs in its own process, as an earlier `ctxmill index` would: the
        # timed re-syncs then run in a process that has not just held 100,000 chunks (whose
        # left-over heap would make this process's forks for the stat walk dearer).
        cold = json.loads(subprocess.run(
            [sys.executable, "-c", _COLD, str(root), str(db)], capture_output=True, text=True,
            check=True).stdout)
        git(root, "status", "--porcelain")  # warm git's index and the page cache alike

        def status():
            return git(root, "status", "--porcelain").stdout

        def noop():
            return sync_index(root, db_path=db)

        # Interleave so both see the same machine load.
        git_times, sync_times, reports = [], [], []
        for _ in range(args.repeat):
            g, _, _ = timed(status, 1)
            s, _, r = timed(noop, 1)
            git_times.append(g)
            sync_times.append(s)
            reports.append(r)
        git_s, sync_s = statistics.median(git_times), statistics.median(sync_times)
        assert all(r.files_changed == 0 and r.chunks_embedded == 0 for r in reports)

        # Edit 3 files per round (new ones each round); only their chunks may be re-embedded.
        rounds = []
        for rnd in range(args.repeat):
            edited = [f"pkg000/sub{rnd % 10}/mod_{(rnd % 10) * args.per_dir + k}.py" for k in (0, 1, 2)]
            for rel in edited:
                i = int(rel.rsplit("_", 1)[1].split(".")[0])
                (root / rel).write_text(source(i, rev=rnd + 1))
            with Store(db) as s:
                before = {h for (h,) in s.conn.execute(
                    "SELECT hash FROM chunks WHERE path IN (?,?,?)", edited)}
            git_after, _, porcelain = timed(status, 1)
            t = time.perf_counter()
            r3 = sync_index(root, db_path=db)
            touch_s = time.perf_counter() - t
            with Store(db) as s:
                after = {h for (h,) in s.conn.execute(
                    "SELECT hash FROM chunks WHERE path IN (?,?,?)", edited)}
            rounds.append({
                "files_changed": r3.files_changed, "chunks_embedded": r3.chunks_embedded,
                "new_chunk_contents": len(after - before),
                "exact": r3.files_changed == 3 and r3.chunks_embedded == len(after - before),
                "git_status_reports": len(porcelain.splitlines()),
                "sync_s": touch_s, "embed_s": r3.embed_seconds, "git_status_s": git_after,
            })
        touch_med = statistics.median(r["sync_s"] for r in rounds)
        git_touch_med = statistics.median(r["git_status_s"] for r in rounds)
        embed_med = statistics.median(r["embed_s"] for r in rounds)
        budget = 2 * git_touch_med + embed_med
        print(json.dumps({
            "benchmark": "index_sync",
            "files": args.files,
            "cold_index": cold,
            "noop": {"sync_median_s": round(sync_s, 4), "git_status_median_s": round(git_s, 4),
                     "ratio": round(sync_s / git_s, 2), "target_ratio": 2.0, "meets_target": sync_s <= 2 * git_s,
                     "sync_runs_s": [round(x, 4) for x in sync_times],
                     "git_status_runs_s": [round(x, 4) for x in git_times],
                     "stages": {k: round(v, 4) for k, v in reports[-1].stages.items()}},
            "touch3": {"rounds": len(rounds),
                       "exactly_those_reembedded_every_round": all(r["exact"] for r in rounds),
                       "chunks_embedded_per_round": [r["chunks_embedded"] for r in rounds],
                       "sync_median_s": round(touch_med, 4), "embed_median_s": round(embed_med, 4),
                       "git_status_median_s": round(git_touch_med, 4), "budget_s": round(budget, 4),
                       "meets_target": touch_med <= budget,
                       "sync_runs_s": [round(r["sync_s"], 4) for r in rounds],
                       "git_status_runs_s": [round(r["git_status_s"], 4) for r in rounds]},
            "cpus": os.cpu_count(), "loadavg": os.getloadavg(),
        }, indent=2))


if __name__ == "__main__":
    main()
