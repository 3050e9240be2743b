"""Apply speed: latency on 2,000-line files and throughput on typical files, with a peer.

    .venv/bin/python benchmarks/apply_speed.py [--files N] [--seed N] [--repeats N]

Inputs are real source files on this machine (the Python standard library, npm's
JavaScript). "Big" files are whole real files concatenated to at least 2,000 lines (still
valid code, so the parse check runs); "typical" files are real files of 50-400 lines as they
are. Each gets a seeded edit (insert/modify/delete a statement, add a function, first or last
line) written as a sketch with markers, as in benchmarks/apply_generated.py. The clock covers
apply_sketch() on in-memory text: merge, checks (tree-sitter parse included) and diff.
The peer is the copy-until-the-next-sketch-line merger plus difflib's unified diff, on the
same inputs in the same run. Typical-file rates are the median of several passes (--repeats),
ours and the peer's taking turns. Prints JSON.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import statistics
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from apply_continue import naive_merge  # noqa: E402
from apply_generated import make_sketch, synthetic  # noqa: E402
from ctxmill.apply import apply_sketch  # noqa: E402


def real_files() -> list[tuple[str, str]]:
    out = []
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    paths = sorted(stdlib.glob("*.py"))
    npm = Path("/usr/lib/node_modules/npm/node_modules")
    if npm.is_dir():
        paths += sorted(p for p in npm.rglob("*.js") if ".min." not in p.name)
    for p in paths:
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "\r" not in text and "\t" not in text and text.strip():
            out.append((str(p), text))
    return out


def cases(files: list[tuple[str, str]], rng: random.Random, n: int, big: bool) -> list[tuple[str, str, str]]:
    """(path, original, sketch) triples."""
    by_ext: dict[str, list[tuple[str, str]]] = {}
    for path, text in files:
        by_ext.setdefault(Path(path).suffix, []).append((path, text))
    out = []
    while len(out) < n:
        ext = rng.choice(sorted(by_ext))
        pool = by_ext[ext]
        if big:
            parts, lines = [], 0
            while lines < 2000:
                path, text = rng.choice(pool)
                parts.append(text if text.endswith("\n") else text + "\n")
                lines += text.count("\n") + 1
            path, text = f"big{ext}", "".join(parts)
        else:
            path, text = rng.choice(pool)
            if not 50 <= text.count("\n") <= 400:
                continue
        edits = synthetic(path, text, rng)
        if not edits:
            continue
        _, old, new = rng.choice(edits)
        sketch = make_sketch(old, new, ext, 2, rng)
        if sketch:
            out.append((path, old, sketch))
    return out


def timed(fn, items, clock=time.perf_counter) -> list[float]:
    out = []
    for item in items:
        t0 = clock()
        fn(*item)
        out.append(clock() - t0)
    return out


def ours(path: str, original: str, sketch: str) -> None:
    apply_sketch(original, sketch, path=path)


def peer(path: str, original: str, sketch: str) -> None:
    merged = naive_merge(original, sketch)
    "".join(difflib.unified_diff(original.splitlines(True), merged.splitlines(True), path, path))


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(len(xs) * q))] * 1000, 3)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=300, help="cases of each kind")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--repeats", type=int, default=5, help="passes over the typical files")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    files = real_files()
    big = cases(files, rng, max(20, args.files // 3), big=True)
    typical = cases(files, rng, args.files, big=False)
    for item in (big[:3] + typical[:3]):
        ours(*item)  # load the grammars once
    # CPU time of this process as well as wall time: the machine may be busy with other work,
    # which stretches wall time but not the work done.
    big_ours, big_peer = timed(ours, big), timed(peer, big)
    big_cpu = timed(ours, big, time.process_time)
    # Typical files: several passes, ours and the peer taking turns, and the median pass
    # reported (one pass is a fraction of a second: a burst of other work skews it).
    rates: dict[str, list[float]] = {"wall": [], "cpu": [], "peer_wall": [], "peer_cpu": []}
    per_file: list[float] = []
    for _ in range(max(1, args.repeats)):
        wall = timed(ours, typical)
        per_file += wall
        rates["wall"].append(len(typical) / sum(wall))
        rates["peer_wall"].append(len(typical) / sum(timed(peer, typical)))
        rates["cpu"].append(len(typical) / sum(timed(ours, typical, time.process_time)))
        rates["peer_cpu"].append(len(typical) / sum(timed(peer, typical, time.process_time)))
    med = {k: round(statistics.median(v), 1) for k, v in rates.items()}
    applied = sum(apply_sketch(o, s, path=p).applied for p, o, s in typical)
    print(json.dumps({
        "big_files": {"cases": len(big), "lines_median": statistics.median(o.count("\n") for _, o, _ in big),
                      "ctxmill_ms": {"p50": pct(big_ours, 0.5), "p99": pct(big_ours, 0.99), "max": pct(big_ours, 1)},
                      "ctxmill_cpu_ms": {"p50": pct(big_cpu, 0.5), "p99": pct(big_cpu, 0.99)},
                      "peer_ms": {"p50": pct(big_peer, 0.5), "p99": pct(big_peer, 0.99)}},
        "typical_files": {"cases": len(typical), "repeats": max(1, args.repeats),
                          "lines_median": statistics.median(o.count("\n") for _, o, _ in typical),
                          "applied": applied,
                          "ctxmill_files_per_s": med["wall"],
                          "ctxmill_files_per_cpu_s": med["cpu"],
                          "ctxmill_ms_p50": pct(per_file, 0.5),
                          "ctxmill_files_per_s_at_p50": round(1000 / pct(per_file, 0.5), 1),
                          "ctxmill_files_per_cpu_s_passes": [round(x, 1) for x in rates["cpu"]],
                          "peer_files_per_s": med["peer_wall"],
                          "peer_files_per_cpu_s": med["peer_cpu"]},
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpu_cores": os.cpu_count(),
        "note": "one process, wall clock; machine shared with other work, so treat as upper bounds",
    }, indent=2))


if __name__ == "__main__":
    main()
