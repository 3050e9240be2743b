"""Wall-clock timeline of one ``ctxmill compile`` of a PDF (issue 13): when each process (the
command, its sandbox child, the child's page workers) starts, waits, works and exits, and what
each core runs meanwhile.

    python benchmarks/compile_timeline.py [--pdf PDF] [--src DIR] [--bin-ms 20] [--no-perf] [--text]

Markers: a ``sitecustomize`` module, written to a temporary folder put first on PYTHONPATH
(the child inherits it; the page workers are forked), wraps a few functions of each process
(the child's start, stage imports, the reply, each stage, the outputs, the exit) and writes
``monotonic-ns process-cpu-ns thread:event`` lines, one file per process. No product code
changes for it. Cores: ``perf sched record -k CLOCK_MONOTONIC`` around the command (skipped
when perf is missing or not allowed, or with --no-perf) gives every context switch, so each
``--bin-ms`` slice of each core is labelled with its main user: P the command, C the sandbox
child, 1/2/... its page workers, o anything else (other jobs), . idle.

One warm-up run first (bytecode in a per-tree cache under the temporary folder, the file in
the page cache), then the traced run. Prints JSON: the markers (ms since the command's
interpreter reached ``site``, with the process's CPU ms), the slices per core, CPU ms per
process in the window, and the phases that matter for the critical path.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PDF = REPO.parent / "shared" / "corpus" / "dive-into-claude-code" / "paper.pdf"
ENTRY = "import sys; from ctxmill.entry import main; sys.exit(main())"

TRACER = r'''
import os, sys, time
_dir = os.environ.get("CTXMILL_TIMELINE")
if _dir:
    import functools, importlib.abc, importlib.machinery, threading
    _state = {"fh": None, "pid": None}

    def _open():
        _state["pid"] = os.getpid()
        _state["fh"] = open(os.path.join(_dir, f"{os.getpid()}.log"), "a", buffering=1)
        _state["fh"].write(f"# {os.getppid()} {sys.argv!r}\n")

    def mark(ev):
        if _state["pid"] != os.getpid():
            _open()
        _state["fh"].write(f"{time.monotonic_ns()} {time.process_time_ns()} {threading.current_thread().name}:{ev}\n")

    _open()
    mark("site")

    def wrap(obj, name):
        fn = getattr(obj, name, None)
        if fn is None:
            return

        @functools.wraps(fn)
        def w(*a, **k):
            mark(f"{name}>")
            try:
                return fn(*a, **k)
            finally:
                mark(f"{name}<")
        setattr(obj, name, w)

    def _stages(m):
        orig = m._resolve

        def resolve(target):
            f = orig(target)
            nm = target.split(":")[0].rsplit(".", 1)[-1]

            def s(*a, **k):
                mark(f"stage {nm}>")
                try:
                    return f(*a, **k)
                finally:
                    mark(f"stage {nm}<")
            return s
        m._resolve = resolve

    HOOKS = {
        "ctxmill.entry": lambda m: [wrap(m, "_start_pdf_child"), wrap(m, "main")],
        "ctxmill.cli": lambda m: mark("cli imported"),
        "ctxmill.compile.pipeline": lambda m: [wrap(m, "import_stages"), wrap(m, "compile_document"), _stages(m)],
        "ctxmill.sources.sandbox": lambda m: [wrap(m._Reader, "first"), wrap(m, "decode_stream"),
                                              wrap(m._Reader, "second")],
        "ctxmill.render": lambda m: wrap(m, "write_outputs"),
        "ctxmill.tokens": lambda m: wrap(m, "get_tokenizer"),
        "ctxmill.sources.pdf": lambda m: [wrap(m, "extract"), wrap(m, "_range_worker")],
        "ctxmill.compile.figures": lambda m: wrap(m, "render"),
        "ctxmill.compile.refparse.model": lambda m: wrap(m, "load"),
        "numpy": lambda m: mark("numpy imported"),
    }

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name not in HOOKS:
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is None or spec.loader is None:
                return spec
            orig = spec.loader.exec_module

            def exec_module(module, _orig=orig, _name=name):
                _orig(module)
                HOOKS[_name](module)
            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, _Finder())
    import gc as _gc
    _freeze = _gc.freeze

    def freeze():
        mark("imports done")
        _freeze()
    _gc.freeze = freeze
    _exit = os._exit

    def exit_(code):
        mark("exit")
        _exit(code)
    os._exit = exit_
    import atexit
    atexit.register(lambda: mark("exit"))
    os.register_at_fork(after_in_child=lambda: mark("forked"))
'''

LINE = re.compile(r"^\s*(\d+\.\d+)\s+\[(\d+)\]\s+(.*?)\[(\d+)(?:/(\d+))?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")
LETTER = {"command": "P", "child": "C", "other": "o", "idle": "."}


def _perf_ok() -> bool:
    if not shutil.which("perf"):
        return False
    probe = subprocess.run(["perf", "sched", "record", "-k", "CLOCK_MONOTONIC", "-o", os.devnull, "--", "true"],
                           capture_output=True)
    return probe.returncode == 0


def _processes(folder: Path) -> dict[int, dict]:
    procs = {}
    for f in folder.glob("*.log"):
        lines = f.read_text().splitlines()
        head = next((x for x in lines if x.startswith("#")), "")
        events = [x.split(" ", 2) for x in lines if not x.startswith("#")]
        procs[int(f.stem)] = {"head": head, "events": [(int(a), int(b), c) for a, b, c in events]}
    workers = 0
    for pid in sorted(procs, key=lambda p: procs[p]["events"][0][0]):
        p = procs[pid]
        if any(e[2].endswith(":forked") for e in p["events"]):
            workers += 1
            p["role"] = f"worker{workers}"
        elif "'-c'" in p["head"]:
            p["role"] = "command"
        else:
            p["role"] = "child"
    return procs


def _first(procs, role: str, event: str, last: bool = False):
    times = [e[0] for p in procs.values() if p["role"] == role for e in p["events"] if e[2].endswith(":" + event)]
    return (max(times) if last else min(times)) if times else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pdf", type=Path, default=DEFAULT_PDF)
    ap.add_argument("--src", type=Path, default=REPO / "src")
    ap.add_argument("--bin-ms", type=float, default=20.0)
    ap.add_argument("--no-perf", action="store_true")
    ap.add_argument("--text", action="store_true", help="print a readable timeline instead of JSON")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ctxmill-timeline-"))
    try:
        (tmp / "tracer").mkdir()
        (tmp / "tracer" / "sitecustomize.py").write_text(TRACER)
        env = dict(os.environ, PYTHONPATH=f"{tmp / 'tracer'}{os.pathsep}{args.src}",
                   PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cmd = [sys.executable, "-c", ENTRY, "compile", str(args.pdf), "-o", str(tmp / "out"), "--json"]
        subprocess.run(cmd, env=env, check=True, capture_output=True)  # warm-up: bytecode, page cache
        logs = tmp / "logs"
        logs.mkdir()
        env["CTXMILL_TIMELINE"] = str(logs)
        use_perf = not args.no_perf and _perf_ok()
        data = tmp / "perf.data"
        run = (["perf", "sched", "record", "-k", "CLOCK_MONOTONIC", "-o", str(data), "--"] if use_perf else []) + cmd
        with open("/proc/loadavg") as fh:
            load_before = fh.read().split()[:3]
        subprocess.run(run, env=env, check=True, capture_output=True)
        procs = _processes(logs)
        t0 = _first(procs, "command", "site")
        end = max(e[0] for p in procs.values() for e in p["events"])
        span_ms = (end - t0) / 1e6

        def ms(t):
            return None if t is None else round((t - t0) / 1e6, 1)

        markers = sorted(((e[0] - t0) / 1e6, p["role"], e[1] / 1e6, e[2]) for p in procs.values() for e in p["events"])
        out: dict = {"pdf": str(args.pdf), "src": str(args.src), "load_average_before": load_before,
                     "wall_ms": round(span_ms, 1)}
        out["phases_ms"] = {
            "child_imports_done": ms(_first(procs, "child", "imports done")),
            "workers_start": ms(_first(procs, "worker1", "_range_worker>")),
            "workers_end": ms(max((e[0] for p in procs.values() if p["role"].startswith("worker")
                                   for e in p["events"] if e[2].endswith(":_range_worker<")), default=None)),
            "child_extract_end": ms(_first(procs, "child", "extract<")),
            "command_stage_imports_end": ms(_first(procs, "command", "import_stages<")),
            "command_has_reply": ms(_first(procs, "command", "first<")),
            "command_stages_end": ms(_first(procs, "command", "compile_document<")),
            "child_figures_end": ms(_first(procs, "child", "render<")),
            "command_outputs_written": ms(_first(procs, "command", "write_outputs<")),
            "command_exit": ms(_first(procs, "command", "exit", last=True)),
        }
        stages = {}
        for p in procs.values():
            if p["role"] == "command":
                open_at = {}
                for t, _, ev in p["events"]:
                    name = ev.split(":", 1)[1]
                    if name.startswith("stage ") and name.endswith(">"):
                        open_at[name[6:-1]] = t
                    elif name.startswith("stage ") and name.endswith("<") and name[6:-1] in open_at:
                        stages[name[6:-1]] = round((t - open_at.pop(name[6:-1])) / 1e6, 1)
        out["stages_ms"] = stages
        out["markers"] = [[round(t, 1), role, round(cpu, 1), ev] for t, role, cpu, ev in markers]
        if use_perf:
            hist = subprocess.run(["perf", "sched", "timehist", "-i", str(data)], capture_output=True, text=True).stdout
            roles = {pid: p["role"] for pid, p in procs.items()}
            n = int(span_ms // args.bin_ms) + 1
            cpus: dict[int, list[collections.Counter]] = {}
            used: collections.Counter = collections.Counter()
            for line in hist.splitlines():
                m = LINE.match(line)
                if not m:
                    continue
                t, cpu, name, tid, pid, _, _, run_ms = m.groups()
                stop = (float(t) * 1e9 - t0) / 1e6
                start = stop - float(run_ms)
                who = roles.get(int(pid or tid)) or ("idle" if "idle" in name else "other")
                bins = cpus.setdefault(int(cpu), [collections.Counter() for _ in range(n)])
                k = max(0, int(start // args.bin_ms))
                while k < n and k * args.bin_ms < stop:
                    a, b = max(start, k * args.bin_ms), min(stop, (k + 1) * args.bin_ms)
                    if b > a:
                        bins[k][who] += b - a
                        used[who] += b - a
                    k += 1
            out["cpu_ms_in_window"] = {k: round(v, 1) for k, v in used.most_common()}
            out["cores"] = {str(c): "".join(LETTER.get(max(b, key=b.get), max(b, key=b.get)[-1]) if b else "."
                                            for b in bins) for c, bins in sorted(cpus.items())}
            out["bin_ms"] = args.bin_ms
        if args.text:
            for t, role, cpu, ev in out["markers"]:
                print(f"{t:8.1f} ms  {role:8s} cpu {cpu:7.1f}  {ev}")
            for c, row in out.get("cores", {}).items():
                print(f"\ncore {c}, {args.bin_ms:g} ms a letter (P command, C child, 1/2 workers, o other, . idle):")
                for i in range(0, len(row), 60):
                    print(f"  {i * args.bin_ms:6.0f}  {row[i:i + 60]}")
            print(json.dumps({k: v for k, v in out.items() if k not in ("markers", "cores")}, indent=1))
        else:
            print(json.dumps(out, indent=1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
