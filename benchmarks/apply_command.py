"""`ctxmill apply` through the command on Continue's 27 lazy-edit fixtures, this tree vs a peer.

    flock /tmp/ctxmill-bench.lock .venv/bin/python benchmarks/apply_command.py --peer-src /work/peer-s16/src [--runs 7]

Each fixture's original and sketch are written to files (named as benchmarks/apply_continue.py
names them, so the grammar is the same) and `ctxmill apply FILE SKETCH --json` runs on them,
this tree and the peer taking turns run by run (neither always meets the warmer cache). A run
0 warms the file cache and is not counted. Per fixture: the least CPU of the runs (user +
system of the command and of every process it started, the grammar child of
ctxmill.parse_guard included: this process is made their subreaper, so a child that outlives
the command is still waited for and counted) and the median wall time (the command's own, as a
user sees it). Printed as JSON: per-fixture numbers, their sums, the ratios this/peer, the load,
and whether both trees printed the same output (exit code and JSON) on every fixture.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from apply_continue import DEFAULT, guess_path  # noqa: E402

CTXMILL = Path(sys.executable).parent / "ctxmill"
# the peer runs from its own src, with this tree's src out of sys.path (as benchmarks/start_cost.py does)
_PEER_MAIN = ("import sys; src = sys.argv.pop(1); here = sys.argv.pop(1); "
              "sys.path = [src] + [p for p in sys.path if p.rstrip('/') != here]; "
              "from ctxmill.entry import main; sys.argv[0] = 'ctxmill'; sys.exit(main())")
PR_SET_CHILD_SUBREAPER = 36


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _reap_orphans() -> None:
    """Wait for every descendant re-parented to us (the grammar child ends when it sees its
    parent's pipe close), so that its CPU lands in RUSAGE_CHILDREN."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer-src", required=True, help="the peer tree's src folder")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--triples", type=Path, default=DEFAULT)
    args = ap.parse_args()
    if not args.triples.is_file():
        print(json.dumps({"skipped": f"{args.triples} not found"}))
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        subreaper = True
    except (OSError, AttributeError):
        subreaper = False  # the grammar child's CPU is then not counted (the peer's side loses it)
    here = str(REPO / "src")
    peer = str(Path(args.peer_src).resolve())
    cmds = {"this": [str(CTXMILL)], "peer": [sys.executable, "-c", _PEER_MAIN, peer, here]}
    triples = [json.loads(line) for line in args.triples.read_text().splitlines() if line.strip()]
    with tempfile.TemporaryDirectory(prefix="ctxmill-apply-cmd-") as tmp:
        cases = []
        for i, t in enumerate(triples):
            d = Path(tmp) / str(i)
            d.mkdir()
            f = d / guess_path(t)
            f.write_text(t["original"])
            s = d / "sketch.txt"
            s.write_text(t["sketch"])
            cases.append((t["name"], f, s, len(t["original"].encode())))
        load0 = os.getloadavg()
        per: dict = {name: {side: {"wall": [], "cpu": []} for side in cmds} for name, *_ in cases}
        outputs: dict = {name: {} for name, *_ in cases}
        for r in range(args.runs + 1):
            for side in (list(cmds) if r % 2 == 0 else list(reversed(cmds))):
                for name, f, s, _ in cases:
                    t0, c0 = time.perf_counter(), _child_cpu()
                    p = subprocess.run([*cmds[side], "apply", str(f), str(s), "--json"],
                                       capture_output=True, timeout=120)
                    wall = time.perf_counter() - t0
                    if subreaper:
                        _reap_orphans()
                    cpu = _child_cpu() - c0
                    if r:
                        per[name][side]["wall"].append(wall)
                        per[name][side]["cpu"].append(cpu)
                    else:
                        outputs[name][side] = (p.returncode, p.stdout)
        rows = []
        sums = {side: {"cpu_min_s": 0.0, "wall_median_s": 0.0} for side in cmds}
        for name, _, _, size in cases:
            row = {"name": name, "bytes": size}
            for side in cmds:
                cpu, wall = min(per[name][side]["cpu"]), statistics.median(per[name][side]["wall"])
                row[side] = {"cpu_min_ms": round(cpu * 1000, 1), "wall_median_ms": round(wall * 1000, 1)}
                sums[side]["cpu_min_s"] += cpu
                sums[side]["wall_median_s"] += wall
            row["same_output"] = outputs[name]["this"] == outputs[name]["peer"]
            rows.append(row)
        res = {
            "fixtures": len(cases), "runs": args.runs, "grammar_child_cpu_counted": subreaper,
            "load_average": [round(x, 1) for x in load0],
            "load_average_end": [round(x, 1) for x in os.getloadavg()],
            "same_output_all": all(r["same_output"] for r in rows),
            "exit_codes": {side: sorted({outputs[n][side][0] for n, *_ in cases}) for side in cmds},
            "sum": {side: {k: round(v, 3) for k, v in d.items()} for side, d in sums.items()},
            "cpu_ratio": round(sums["this"]["cpu_min_s"] / sums["peer"]["cpu_min_s"], 3),
            "wall_ratio": round(sums["this"]["wall_median_s"] / sums["peer"]["wall_median_s"], 3),
            "cases": rows,
        }
        print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
