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
import gc, json, statistics, sys, time
from ctxmill.index import search
try:
    from ctxmill.index.search import PHASES
except ImportError:  # a peer from before the phase marks
    PHASES = None
root, queries = sys.argv[1], json.loads(sys.argv[2])
for q in queries[:10]:
    search(q, root, k=10)
gct = [0.0, 0.0]
def clock(phase, info):
    if phase == "start":
        gct[1] = time.perf_counter()
    else:
        gct[0] += time.perf_counter() - gct[1]
gc.callbacks.append(clock)
xs, recs = [], []
for q in queries:
    phases = {}
    token = PHASES.set(phases) if PHASES is not None else None
    g = gct[0]
    t = time.perf_counter(); c = time.thread_time(); search(q, root, k=10)
    xs.append(time.perf_counter() - t)
    recs.append({"total": xs[-1], "search_cpu": time.thread_time() - c, "gc": gct[0] - g, "phases": phases})
    if token is not None:
        PHASES.reset(token)
print(json.dumps({"walls": xs, "records": recs}))
"""

_TIMINGS = """
import json
from ctxmill import server
try:
    print(json.dumps(server.call("timings", start=False, clear=True)["timings"]))
except server.ServerError:  # a server from before the timings op
    print("[]")
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


def server_timings(env) -> list[dict]:
    """The server's own record of each request since the last call: phases, GC, faults."""
    r = subprocess.run([str(PY), "-c", _TIMINGS], env=env, capture_output=True, text=True, timeout=60)
    return json.loads(r.stdout) if r.returncode == 0 and r.stdout.strip() else []


def _ms(x) -> float | None:
    return None if x is None else round(1000 * x, 1)


def tail(walls: list[float], recs: list[dict], share: float = 0.02) -> dict:
    """What the slowest requests waited on: each of the slowest ``share`` of ``walls`` beside
    the matching record (``recs[i]`` is the request of ``walls[i]``; for the command the
    server's record, whose ``total`` is the time from its accept to its reply sent, so
    ``outside_server`` is the client's own start, imports, connect and print), and the
    median of each phase over all requests."""
    order = sorted(range(len(walls)), key=lambda i: -walls[i])[:max(2, int(share * len(walls)))]
    slow = []
    for i in order:
        r = recs[i] if i < len(recs) else {}
        item = {"i": i, "wall_ms": _ms(walls[i]), "inside_ms": _ms(r.get("total")),
                "outside_server_ms": _ms(walls[i] - r["total"]) if "total" in r else None,
                "search_ms": _ms(r.get("search")), "search_cpu_ms": _ms(r.get("search_cpu")),
                "gc_ms": _ms(r.get("gc")), "background_ms": _ms(r.get("background")),
                "phases_ms": {k: _ms(v) for k, v in sorted((r.get("phases") or {}).items(), key=lambda kv: -kv[1])}}
        for k in ("read", "pre", "queued", "handoff", "format", "send"):
            if k in r:
                item[k + "_ms"] = _ms(r[k])
        for k in ("minflt", "majflt", "nvcsw", "nivcsw", "gc_collections", "syncing"):
            if k in r:
                item[k] = r[k]
        slow.append(item)
    names = sorted({k for r in recs for k in (r.get("phases") or {})})
    med = {k: _ms(statistics.median((r.get("phases") or {}).get(k, 0.0) for r in recs)) for k in names}
    for k in ("total", "search", "search_cpu", "read", "queued", "format", "send", "gc"):
        got = [r[k] for r in recs if k in r]
        if got:
            med[k] = _ms(statistics.median(got))
    inside = [r["total"] for r in recs if "total" in r]
    return {"slowest": slow, "median_ms": med,
            "inside_p99_ms": _ms(sorted(inside)[min(len(inside) - 1, int(0.99 * len(inside)))]) if inside else None}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=50_000)
    ap.add_argument("--root", type=Path, help="copy this tree instead of generating one")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--in-process-runs", type=int, default=8)
    ap.add_argument("--keep", type=Path, help="build the tree and index in DIR once and reuse them")
    ap.add_argument("--parts", default="first,warm,index,edit",
                    help="what to measure (comma-separated): first, warm (with the in-process peers), index, edit")
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
    out: dict = {"benchmark": "server", "loadavg_start": [round(x, 2) for x in os.getloadavg()]}
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

        parts = set(args.parts.split(","))
        first, first_inside, early, early_recs = [], [], [], []
        for n, q in enumerate(queries[:3] if "first" in parts else []):
            stop_server(env)
            first.append(timed([str(CTXMILL), "search", q, "--root", str(root)], env))
            # the session's next searches, at once: the server is still catching up (its
            # sync of the root it now watches) and reading ahead; none may wait behind that
            for q2 in queries[50 + 5 * n: 55 + 5 * n]:
                early.append(timed([str(CTXMILL), "search", q2, "--root", str(root)], env))
            got = [r for r in server_timings(env) if r.get("op") == "search"]
            early_recs += got[1:]
            if got:  # the server's side of it: what the first answer waited for
                first_inside.append({"wall_ms": _ms(first[-1]), "inside_ms": _ms(got[0]["total"]),
                                     "server_age_ms": _ms(got[0].get("server_age")),
                                     "phases_ms": {k: _ms(v) for k, v in got[0]["phases"].items()}})
        if first:
            out["first_search_with_server_start"] = stats(first)
        if first_inside:
            out["first_search_inside"] = first_inside
        if early:
            out["next_searches_after_start"] = stats(early)
            if len(early_recs) == len(early):
                out["next_searches_tail"] = tail(early, early_recs, share=0.2)

        if "warm" in parts:
            warm_loop(out, env, off, root, queries, args)
        if "index" in parts:
            noop_index(out, env, off, root, args)
        if "edit" in parts:
            edit3(out, env, root)
        if args.keep:
            git(root, "checkout", "-q", "--", ".")  # the kept tree as it was
        out.update(cpus=os.cpu_count(), loadavg=[round(x, 2) for x in os.getloadavg()])
    finally:
        run(["server", "stop"], env)
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out, indent=1))


def warm_loop(out, env, off, root, queries, args) -> None:
    # a warm server: it has read ahead what searches need (every file's naming terms) and
    # caught up with the tree (the sync it runs once it watches a root met by a search)
    run(["search", queries[0], "--root", str(root)], env)  # a server for this root, if none runs yet
    t = time.perf_counter()
    while time.perf_counter() - t < 300:
        st = json.loads(run(["server", "status", "--json"], env).stdout)
        if all(r.get("names_ready") and r.get("in_sync") and not r.get("syncing") for r in st["roots"]):
            break
        time.sleep(1.0)  # each status is a full command (~0.3 CPU-s): polling must not slow the warm-up
    out["server_warm_up_s"] = round(time.perf_counter() - t, 2)
    warm, floor, warm_cpu, floor_cpu = [], [], [], []
    before = server_cpu(env)
    server_timings(env)  # from here on: the warm loop's requests only
    for q in queries:  # interleaved: both see the same machine load
        warm.append(timed([str(CTXMILL), "search", q, "--root", str(root)], env, warm_cpu))
        floor.append(timed([str(PY), "-c", "pass"], env, floor_cpu))
    recs = [r for r in server_timings(env) if r.get("op") == "search"]
    out["search_warm_server"] = stats(warm)
    if len(recs) == len(warm):
        out["search_warm_server_inside"] = stats([r["total"] for r in recs])
        out["search_warm_tail"] = tail(warm, recs)
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
    got = json.loads(api.stdout)
    if isinstance(got, list):  # a peer's script: walls only
        got = {"walls": got, "records": []}
    out["search_in_process_api"] = stats(got["walls"])
    out["search_in_process_api_tail"] = tail(got["walls"], got["records"])
    out["search_warm_vs_in_process_command"] = round(
        out["search_in_process_command"]["median"] / out["search_warm_server"]["median"], 1)


def noop_index(out, env, off, root, args) -> None:
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


def edit3(out, env, root) -> None:
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


if __name__ == "__main__":
    main()
