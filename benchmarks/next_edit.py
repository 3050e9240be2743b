"""Next-edit suggestions on the shared tab cases (../shared/tab: 524 cases cut from real commits),
scored by that folder's own scorer, with its naive rename-only control in the same run.

    .venv/bin/python benchmarks/next_edit.py [--classes rename,signature] [--jobs 2]
    .venv/bin/python benchmarks/next_edit.py --in-process [--half a|b] [--by language] [--hand]
    .venv/bin/python benchmarks/next_edit.py --in-process --train [--classes signature]   # the training cases
    .venv/bin/python benchmarks/next_edit.py --latency 100 --peer-src /path/to/other/src

Prints JSON: overall and per-class precision@1, recall@5, wrong-suggestion rate and
suggestions per negative case for `ctxmill next-edit` (through the command line, interpreter
start included) and for the control. `--in-process` calls ctxmill.apply.next_edit.suggest
directly on each case (the scorer's own case folders and matching, no process start: the quick
loop for tuning); `--half a|b` keeps the repositories of one half (sorted names, alternating),
so thresholds tuned on one half can be reported on the other. `--latency N` times only the
command on N cases spread over the set, this tree and `--peer-src` alternating case by case (a
machine shared with other work slows both alike), and prints both medians and their ratio.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TAB = REPO.parent / "shared" / "tab"
CTXMILL = Path(sys.executable).with_name("ctxmill")
KEYS = ("precision_at_1", "precision_at_1_answered", "recall_at_5", "recall_at_5_micro", "suggestions_per_negative",
        "wrong_suggestion_rate", "latency_p50_ms")
SHORT = ("precision_at_1", "recall_at_5", "suggestions_per_negative", "wrong_suggestion_rate")


def score(cases: Path, extra: list[str], jobs: int, by: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        subprocess.run([sys.executable, str(TAB / "score_next_edits.py"), "--cases", str(cases), "--jobs", str(jobs),
                        "--report", str(report), *extra], check=True, capture_output=True, timeout=3600,
                       env=bytecode_env(str(Path(tmp) / "pyc")))
        d = json.loads(report.read_text())
    return summary(d, by)


def summary(d: dict, by: list[str]) -> dict:
    out = {"overall": {k: d["overall"].get(k) for k in KEYS}}
    for key in by:
        out["by_" + key] = {c: {k: v.get(k) for k in SHORT} for c, v in d["by_" + key].items()}
    return out


def _scorer():
    spec = importlib.util.spec_from_file_location("score_next_edits", TAB / "score_next_edits.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def in_process(cases: list[dict], by: list[str], rows_out: str | None, threshold: float | None,
               learned: bool | None = None) -> dict:
    """The scorer's metrics with suggest() called in this process (no interpreter start per case)."""
    from ctxmill.apply.next_edit import suggest

    sc = _scorer()
    rows = []
    for case in cases:
        tmp = tempfile.mkdtemp(prefix="nextedit-")
        try:
            files, targets = sc.write_case_dir(case, tmp)
            patch = Path(tmp, "trigger.diff").read_text(encoding="utf-8")
            t0 = time.perf_counter()
            kw = {} if threshold is None else {"threshold": threshold}
            if learned is not None:
                kw["learned"] = learned
            sugs = [s.to_dict() for s in suggest(tmp, patch, limit=50, **kw)]
            dt = time.perf_counter() - t0
            row = sc.evaluate(case, files, targets, sugs, dt, None)
            row["reasons"] = [s["reason"] for s in sugs[:5]]
            row["confidences"] = [s["confidence"] for s in sugs]
            rows.append(row)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    rep = {"overall": sc.aggregate(rows)}
    for key in ("class", "language", "repo"):
        groups = defaultdict(list)
        for r in rows:
            groups[r[key]].append(r)
        rep["by_" + key] = {k: sc.aggregate(v) for k, v in sorted(groups.items())}
    if rows_out:
        with open(rows_out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    return summary(rep, by)


def fit(cases: list[dict]) -> dict:
    """Logistic weights per propagator: each candidate suggestion is labelled by whether it matches
    one of its case's targets (the scorer's own test), then fitted by Newton steps with an L2 pull
    towards zero (small data: a few hundred candidates per kind)."""
    import numpy as np

    from ctxmill.apply.next_edit import candidates

    sc = _scorer()
    data: dict[str, list] = defaultdict(list)
    for case in cases:
        tmp = tempfile.mkdtemp(prefix="nextedit-")
        try:
            files, targets = sc.write_case_dir(case, tmp)
            found, _ = candidates(tmp, Path(tmp, "trigger.diff").read_text(encoding="utf-8"))
            for s in found:
                hit = sc.match(s.to_dict(), targets, files, set(), {}) is not None
                data[s.kind].append((s.features, hit))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    out = {}
    for kind, rows in data.items():
        names = sorted({k for f, _ in rows for k in f})
        X = np.array([[1.0] + [float(f.get(k, 0.0)) for k in names] for f, _ in rows])
        y = np.array([1.0 if h else 0.0 for _, h in rows])
        w = np.zeros(X.shape[1])
        lam = np.full(X.shape[1], 1.0)
        lam[0] = 0.0
        for _ in range(50):
            p = 1 / (1 + np.exp(-X @ w))
            g = X.T @ (p - y) + lam * w
            H = (X * (p * (1 - p))[:, None]).T @ X + np.diag(lam + 1e-6)
            w -= np.linalg.solve(H, g)
        out[kind] = {"n": len(rows), "positive": int(y.sum()),
                     "weights": {"bias": round(float(w[0]), 3), **{k: round(float(v), 3) for k, v in zip(names, w[1:], strict=True)}}}
    return out


def bytecode_env(cache: str, **extra: str) -> dict:
    """The environment with Python's bytecode cache written (under ``cache``), as an installed
    package has it. Without it (PYTHONDONTWRITEBYTECODE set, a source tree nobody imported, a
    module edited since its .pyc) every run compiles those modules again: 104 ms of the peer's
    221 ms of CPU per command at the start of this round, on both trees unequally."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache  # each tree its own, and nothing written into the trees
    env.update(extra)
    return env


def _children_cpu() -> float:
    import resource

    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def latency(cases: list[dict], peer_src: str | None, rounds: int) -> dict:
    """Time the command (interpreter start included) per case, this tree and the peer's source
    (``PYTHONPATH=<peer src>``) alternating case by case, so a loaded machine slows both alike:
    medians per tree and their ratio, the same case folders for both. Both run with their
    bytecode cached (bytecode_env; one untimed run each first)."""
    import statistics

    sc = _scorer()
    caches = tempfile.mkdtemp(prefix="nextedit-pyc-")
    env_now = bytecode_env(os.path.join(caches, "ctxmill"))
    env_peer = bytecode_env(os.path.join(caches, "peer"), PYTHONPATH=peer_src) if peer_src else None
    times: dict[str, list[float]] = {"ctxmill": [], "peer": []}
    cpu: dict[str, list[float]] = {"ctxmill": [], "peer": []}  # the command's own CPU seconds (load-proof)
    for n, case in enumerate(cases):
        tmp = tempfile.mkdtemp(prefix="nextedit-")
        try:
            sc.write_case_dir(case, tmp)
            cmd = [str(CTXMILL), "next-edit", "--root", tmp, "--diff", str(Path(tmp, "trigger.diff")), "--json"]
            order = (("ctxmill", env_now), ("peer", env_peer))
            if n == 0:  # the bytecode caches written, untimed
                for _, env in order:
                    if env is not None:
                        subprocess.run(cmd, capture_output=True, timeout=120, env=env)
            for r in range(rounds):
                for who, env in order[::-1] if (n + r) % 2 else order:  # who goes first alternates
                    if who == "peer" and env is None:
                        continue
                    c0 = _children_cpu()
                    t0 = time.perf_counter()
                    subprocess.run(cmd, capture_output=True, check=True, timeout=120, env=env)
                    times[who].append(time.perf_counter() - t0)
                    cpu[who].append(_children_cpu() - c0)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(caches, ignore_errors=True)
    out = {w: {"runs": len(t), "p50_ms": round(1000 * statistics.median(t), 1),
               "p95_ms": round(1000 * sc.pct(t, 0.95), 1), "cpu_p50_ms": round(1000 * statistics.median(cpu[w]), 1)}
           for w, t in times.items() if t}
    if peer_src:
        out["p50_ratio_ctxmill_over_peer"] = round(out["ctxmill"]["p50_ms"] / out["peer"]["p50_ms"], 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--classes", help="comma-separated: rename, signature, repeated, import, negative")
    ap.add_argument("--half", choices=["a", "b"], help="only the repositories of one half (for tuning on one, reporting the other)")
    ap.add_argument("--train", action="store_true",
                    help="the training cases (benchmarks/.cache/next_edit_train.jsonl, see next_edit_train.py) instead of dev")
    ap.add_argument("--by", default="class", help="comma-separated breakdowns: class, language, repo")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--in-process", action="store_true", help="call suggest() directly; no control, no process start")
    ap.add_argument("--threshold", type=float, help="suggest()'s confidence threshold (with --in-process)")
    ap.add_argument("--learned", action="store_true", help="with --in-process: suggest(learned=True) (the default)")
    ap.add_argument("--hand", action="store_true", help="with --in-process: suggest(learned=False), the hand-set ranking alone")
    ap.add_argument("--fit", action="store_true", help="fit the confidence weights on the chosen cases; print them")
    ap.add_argument("--rows", help="write per-case rows (JSONL) here (with --in-process)")
    ap.add_argument("--latency", type=int, metavar="N",
                    help="only time the command on every k-th case (N cases), alternating with --peer-src")
    ap.add_argument("--peer-src", help="with --latency: the src folder of the tree to compare with")
    ap.add_argument("--rounds", type=int, default=1, help="with --latency: runs per case and tree")
    args = ap.parse_args()
    if not (TAB / "dev.jsonl").exists():
        print(json.dumps({"skipped": f"{TAB} not present"}))
        return
    by = [b for b in args.by.split(",") if b]
    keep = set(args.classes.split(",")) if args.classes else None
    cases = []
    with (REPO / "benchmarks" / ".cache" / "next_edit_train.jsonl" if args.train else TAB / "dev.jsonl").open() as f:
        for line in f:
            # (the training file is 340 MB: a case of another class is not parsed)
            if line.strip() and (keep is None or any(f'"class": "{k}"' in line for k in keep)):
                cases.append(json.loads(line))
    if keep:
        cases = [c for c in cases if c["class"] in keep]
    if args.half:
        repos = sorted({c["repo"] for c in cases})
        half = set(repos[0 if args.half == "a" else 1::2])
        cases = [c for c in cases if c["repo"] in half]
    if args.latency:
        step = max(1, len(cases) // args.latency)
        picked = cases[::step][:args.latency]
        print(json.dumps({"cases": len(picked), "half": args.half, "load_average": os.getloadavg(),
                          "latency": latency(picked, args.peer_src, args.rounds)}, indent=1))
        return
    if args.fit:
        print(json.dumps({"cases": len(cases), "half": args.half, "fit": fit(cases)}, indent=1))
        return
    if args.in_process:
        learned = True if args.learned else False if args.hand else None
        print(json.dumps({"cases": len(cases), "half": args.half,
                          "ctxmill_in_process": in_process(cases, by, args.rows, args.threshold, learned)}, indent=1))
        return
    with tempfile.TemporaryDirectory() as tmp:
        sub = Path(tmp) / "cases.jsonl"
        sub.write_text("".join(json.dumps(c) + "\n" for c in cases))
        cmd = f"{CTXMILL} next-edit --root {{case}} --diff {{case}}/trigger.diff --json"
        out = {"cases": len(cases), "half": args.half, "ctxmill": score(sub, ["--cmd", cmd], args.jobs, by),
               "control_rename_only": score(sub, ["--control", "rename-only"], args.jobs, by)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
