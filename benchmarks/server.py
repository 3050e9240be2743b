"""The background server as users meet it: `ctxmill search` and `ctxmill index` run as commands
(interpreter start included), warm server vs in-process, on one generated tree of 50,000 files
and 100,000 chunks, all in the same run.

    .venv/bin/python benchmarks/server.py [--files 50000] [--runs 100] [--keep DIR] [--root PATH]

The tree: ``--files`` Python files of two functions each, identifiers drawn from the standard
library's vocabulary (``search_latency.vocabulary``, so posting lists look like real code),
100 files a folder, committed to git (``git status`` is the peer of a no-op index). ``--root``
copies a real tree instead. ``--keep DIR`` builds the tree and its index once in DIR and
reuses them (the cold build takes minutes on a small machine).

Prints JSON, medians / p90 / p99 in seconds:
- ``search_warm_server``: ``ctxmill search`` answered by a warm server, ``--runs`` queries;
  beside it ``python_start`` (``python -c pass`` with the same interpreter: the floor any
  command pays), ``search_in_process_command`` (``CTXMILL_SERVER=0``: the command loads the
  index itself) and ``search_in_process_api`` (``ctxmill.index.search`` in one warm process:
  what the server spends per query); ``search_warm_cpu_ms``: CPU milliseconds per warm search
  (user + system) of the command's process, of ``python -c pass`` and of the server - on a
  shared 2-core machine the load stretches wall times several-fold, CPU time much less;
- ``first_search_with_server_start``: no server running, then one search (start included);
  ``server_warm_up_s``: then how long until the server had read ahead every file's naming
  terms (between searches; the warm loop below starts after it);
- ``noop_index_*``: ``ctxmill index ROOT -q`` with nothing changed, warm server (answered from
  the watcher's state) and in-process, and ``git status --porcelain`` on the same tree;
- ``edit3``: 3 files rewritten, seconds from the save until a search finds all three, and
  what the server's background sync did (files changed, chunks embedded).
Runs in a private runtime folder; stops its server at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_latency import make_queries, vocabulary  # noqa: E402

PY = Path(sys.executable)
CTXMILL = PY.with_name("ctxmill")

_API = """
import json, statistics, sys, time
from ctxmill.index import search
root, queries = sys.argv[1], json.loads(sys.argv[2])
for q in queries[:10]:
    search(q, root, k=10)
xs = []
for q in queries:
    t = time.perf_counter(); search(q, root, k=10); xs.append(time.perf_counter() - t)
print(json.dumps(xs))
"""


def make_tree(root: Path, files: int, vocab: list[str], rng: random.Random) -> None:
    for i in range(files):
        d = root / f"pkg{i // 1000:03d}" / f"mod{(i // 100) % 10}"
        if i % 100 == 0:
            d.mkdir(parents=True, exist_ok=True)
        funcs = []
        for j in range(2):
            w = [rng.choice(vocab) for _ in range(12)]
            funcs.append(
                f"def {w[0]}_{w[1]}_{i}_{j}({w[2]}, {w[3]}=None):\n"
                f'    """{w[4].capitalize()} the {w[5]} of {w[6]} with {w[7]}."""\n'
                f"    {w[8]} = {w[2]}.{w[9]}({w[3]})\n"
                f"    if {w[8]} is None:\n"
                f"        raise ValueError('{w[10]} {w[11]}')\n"
                f"    return {w[8]}\n"
            )
        (d / f"m{i}.py").write_text("\n\n".join(funcs))


def run(args, env, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(CTXMILL), *args], env=env, capture_output=True, text=True, timeout=600, **kw)


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], env, cpu: list | None = None) -> float:
    """Wall seconds of one command; its CPU seconds (user + system) go to ``cpu``."""
    c = children_cpu()
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, timeout=600)
    took = time.perf_counter() - t
    if cpu is not None:
        cpu.append(children_cpu() - c)
    if r.returncode != 0:
        raise SystemExit(f"{cmd} failed: {r.stderr.decode()[-2000:]}")
    return took


def stop_server(env) -> None:
    """Stop the server and wait until its process is gone: no server running at all."""
    r = run(["server", "status", "--json"], env)
    pid = json.loads(r.stdout).get("pid") if r.returncode == 0 else None
    run(["server", "stop"], env)
    deadline = time.monotonic() + 30
    while pid and time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def server_cpu(env) -> float:
    return json.loads(run(["server", "status", "--json"], env).stdout)["cpu_seconds"]


def stats(xs: list[float]) -> dict:
    xs = sorted(xs)
    q = lambda p: xs[min(len(xs) - 1, int(p * len(xs)))]  # noqa: E731
    return {"median": round(statistics.median(xs), 4), "p90": round(q(0.9), 4), "p99": round(q(0.99), 4), "n": len(xs)}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=50_000)
    ap.add_argument("--root", type=Path, help="copy this tree instead of generating one")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--in-process-runs", type=int, default=8)
    ap.add_argument("--keep", type=Path, help="build the tree and index in DIR once and reuse them")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ctxmill-server-bench-"))
    base = args.keep or tmp
    base.mkdir(parents=True, exist_ok=True)
    run_dir = tmp / "run"
    run_dir.mkdir(mode=0o700)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(run_dir), CTXMILL_INDEX_DIR=str(base / "index"), CTXMILL_SERVER="1")
    off = {**env, "CTXMILL_SERVER": "0"}
    root = base / "tree"
    vocab = vocabulary()
    out: dict = {"benchmark": "server"}
    try:
        if not root.exists():
            if args.root:
                shutil.copytree(args.root, root, symlinks=True)
            else:
                make_tree(root, args.files, vocab, random.Random(7))
            git(root, "init", "-q")
            git(root, "add", "-A")
            git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x")
        t = time.perf_counter()
        r = run(["index", str(root), "--json"], off)  # the cold build (or a check of a kept one)
        if r.returncode != 0:
            raise SystemExit(r.stderr)
        built = json.loads(r.stdout)
        out.update(tree=str(args.root or f"generated: {args.files} files x 2 functions"),
                   files=built["files_scanned"], chunks=built["chunks_total"],
                   index_build_seconds=round(time.perf_counter() - t, 1), index_reused=built["files_changed"] == 0)
        queries = make_queries(vocab, args.runs, seed=11)
        # bytecode as an installed package has it (pip compiles at install time): in a checkout
        # run with PYTHONDONTWRITEBYTECODE every command would compile each changed module again
        subprocess.run([str(PY), "-c", "import compileall, os, ctxmill.entry as e; "
                        "compileall.compile_dir(os.path.dirname(e.__file__), quiet=1)"],
                       env={**off, "PYTHONDONTWRITEBYTECODE": ""}, check=True, timeout=600)

        first = []
        for q in queries[:3]:
            stop_server(env)
            first.append(timed([str(CTXMILL), "search", q, "--root", str(root)], env))
        out["first_search_with_server_start"] = stats(first)

        # a warm server: it has read ahead what searches need (every file's naming terms) and
        # caught up with the tree (the sync it runs once it watches a root met by a search)
        t = time.perf_counter()
        while time.perf_counter() - t < 300:
            st = json.loads(run(["server", "status", "--json"], env).stdout)
            if all(r.get("names_ready") and r.get("in_sync") and not r.get("syncing") for r in st["roots"]):
                break
            time.sleep(1.0)  # each status is a full command (~0.3 CPU-s): polling must not slow the warm-up
        out["server_warm_up_s"] = round(time.perf_counter() - t, 2)
        warm, floor, warm_cpu, floor_cpu = [], [], [], []
        before = server_cpu(env)
        for q in queries:  # interleaved: both see the same machine load
            warm.append(timed([str(CTXMILL), "search", q, "--root", str(root)], env, warm_cpu))
            floor.append(timed([str(PY), "-c", "pass"], env, floor_cpu))
        out["search_warm_server"] = stats(warm)
        out["python_start"] = stats(floor)
        # CPU per search, which the load does not stretch as it does wall time: the command's
        # own process, and the server's share (its CPU time over the loop, status calls aside)
        out["search_warm_cpu_ms"] = {
            "command": round(1000 * statistics.mean(warm_cpu), 2),
            "python_start": round(1000 * statistics.mean(floor_cpu), 2),
            "server": round(1000 * (server_cpu(env) - before) / len(queries), 2)}
        cold = [timed([str(CTXMILL), "search", q, "--root", str(root)], off) for q in queries[:args.in_process_runs]]
        out["search_in_process_command"] = stats(cold)
        api = subprocess.run([str(PY), "-c", _API, str(root), json.dumps(queries)], env=off, capture_output=True,
                             text=True, timeout=1200, check=True)
        out["search_in_process_api"] = stats(json.loads(api.stdout))
        out["search_warm_vs_in_process_command"] = round(
            out["search_in_process_command"]["median"] / out["search_warm_server"]["median"], 1)

        git(root, "status", "--porcelain")  # git's index and the page cache warm alike
        run(["index", str(root), "-q"], env)  # the server's first sync of this root: a full walk
        idx_warm, idx_cold, gst = [], [], []
        for i in range(max(5, args.runs // 5)):
            idx_warm.append(timed([str(CTXMILL), "index", str(root), "-q"], env))
            gst.append(timed(["git", "-C", str(root), "status", "--porcelain"], env))
            if i < 5:
                idx_cold.append(timed([str(CTXMILL), "index", str(root), "-q"], off))
        out["noop_index_warm_server"] = stats(idx_warm)
        out["noop_index_in_process"] = stats(idx_cold)
        out["git_status_same_tree"] = stats(gst)
        out["noop_index_warm_vs_git_status"] = round(out["noop_index_warm_server"]["median"] / stats(gst)["median"], 2)
        out["noop_index_in_process_vs_git_status"] = round(
            out["noop_index_in_process"]["median"] / stats(gst)["median"], 2)

        rounds = []
        stamp = int(time.time())
        for rnd in range(3):
            names = [f"edited_{stamp}_{rnd}_{k}" for k in range(3)]
            paths = [root / "pkg000" / "mod0" / f"m{rnd * 3 + k}.py" for k in range(3)]
            t0 = time.perf_counter()
            for p, name in zip(paths, names, strict=True):
                p.write_text(p.read_text() + f"\n\ndef {name}(value):\n    return value\n")
            found: set[str] = set()
            while len(found) < 3 and time.perf_counter() - t0 < 30:
                for name in names:
                    if name not in found:
                        r = run(["search", name, "--root", str(root), "-k", "3", "--json"], env)
                        if any(h.get("symbol") == name for h in json.loads(r.stdout or "[]")):
                            found.add(name)
            delay = time.perf_counter() - t0
            st = json.loads(run(["server", "status", "--json"], env).stdout)
            counts = next(x for x in st["roots"] if x["root"] == str(root.resolve()))["last_sync_counts"]
            rounds.append({"save_to_all_three_searchable_s": round(delay, 3), "found": len(found), **counts})
        out["edit3"] = {"rounds": rounds,
                        "median_s": round(statistics.median(r["save_to_all_three_searchable_s"] for r in rounds), 3)}
        if args.keep:
            git(root, "checkout", "-q", "--", ".")  # the kept tree as it was
        out.update(cpus=os.cpu_count(), loadavg=[round(x, 2) for x in os.getloadavg()])
    finally:
        run(["server", "stop"], env)
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
