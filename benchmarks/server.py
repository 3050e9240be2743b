"""The background server as users meet it: `ctxmill search` and `ctxmill index` through the
command line, warm server vs in-process, in the same run.

    .venv/bin/python benchmarks/server.py [--root PATH] [--runs 30]

Prints JSON: per mode the median / p90 / p99 seconds of `ctxmill search` (interpreter start
included), the first search of a session (server start included), a no-op `ctxmill index`,
and the delay from saving a new file to a search that finds it (the server's watcher).
Runs in a private runtime folder and index folder; stops its server at the end.
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

REPO = Path(__file__).resolve().parents[1]
CTXMILL = Path(sys.executable).with_name("ctxmill")
QUERIES = ["merge a sketched edit", "parse a pdf page", "reciprocal rank fusion", "citation callout",
           "stat walk ignore rules", "token budget chunk"]


def timed(args, env) -> float:
    t = time.perf_counter()
    subprocess.run([str(CTXMILL), *args], env=env, capture_output=True, check=True, timeout=300)
    return time.perf_counter() - t


def stats(xs: list[float]) -> dict:
    xs = sorted(xs)
    q = lambda p: xs[min(len(xs) - 1, int(p * len(xs)))]  # noqa: E731
    return {"median": round(statistics.median(xs), 4), "p90": round(q(0.9), 4), "p99": round(q(0.99), 4), "n": len(xs)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, default=REPO / "src")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ctxmill-server-bench-"))
    run = tmp / "run"
    run.mkdir(mode=0o700)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(run), CTXMILL_INDEX_DIR=str(tmp / "index"), CTXMILL_SERVER="1")
    off = {**env, "CTXMILL_SERVER": "0"}
    root = tmp / "tree"
    subprocess.run(["cp", "-r", str(args.root), str(root)], check=True)
    # git status over the same files is the peer for a no-op index
    for cmd in (["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"]):
        subprocess.run(["git", "-C", str(root), *cmd], check=True, capture_output=True)
    out: dict = {"root": str(args.root), "files": sum(1 for p in root.rglob("*") if p.is_file())}
    try:
        timed(["index", str(root), "-q"], off)  # the first build, in the command
        out["first_search_with_server_start"] = round(timed(["search", QUERIES[0], "--root", str(root)], env), 4)
        warm, cold = [], []
        for i in range(args.runs):
            q = QUERIES[i % len(QUERIES)]
            warm.append(timed(["search", q, "--root", str(root)], env))
            cold.append(timed(["search", q, "--root", str(root)], off))
        out["search_warm_server"] = stats(warm)
        out["search_in_process"] = stats(cold)
        out["search_speedup"] = round(out["search_in_process"]["median"] / out["search_warm_server"]["median"], 2)
        idx_warm = [timed(["index", str(root), "-q"], env) for _ in range(max(5, args.runs // 3))]
        idx_cold = [timed(["index", str(root), "-q"], off) for _ in range(max(5, args.runs // 3))]
        git = []
        for _ in range(max(5, args.runs // 3)):
            t = time.perf_counter()
            subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, check=False)
            git.append(time.perf_counter() - t)
        out["noop_index_warm_server"] = stats(idx_warm)
        out["noop_index_in_process"] = stats(idx_cold)
        out["git_status_same_tree"] = stats(git)
        out["noop_index_warm_vs_git_status"] = round(out["noop_index_warm_server"]["median"] / stats(git)["median"], 2)
        delays = []
        for i in range(5):
            name = f"saved_{i}.py"
            t0 = time.perf_counter()
            (root / name).write_text(f"def freshly_saved_function_{i}():\n    return {i}\n")
            while time.perf_counter() - t0 < 30:
                r = subprocess.run([str(CTXMILL), "search", f"freshly_saved_function_{i}", "--root", str(root), "-k",
                                    "5", "--json"], env=env, capture_output=True, text=True, timeout=60)
                if name in r.stdout:
                    break
            delays.append(time.perf_counter() - t0)
        out["save_to_searchable_seconds"] = stats(delays)
    finally:
        subprocess.run([str(CTXMILL), "server", "stop"], env=env, capture_output=True, timeout=30)
        subprocess.run(["rm", "-rf", str(tmp)], check=False)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
