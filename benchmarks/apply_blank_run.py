"""CPU seconds of the next-edit / apply readers and the index's rerank on a file holding a run of
N blank lines, at N and 2N (round33_fuzz_rule.md C2): a whole-file `^\\s*X` under re.M is tried at
every line start of the run and reads the rest of it each time (x4 per doubling); a line's own
blanks (`^[^\\S\\n]*X`) read each character once (x2 or less). C3: next_signature's DEF patterns and
declared_type, through ctxmill.linescan.finditer_lines (the first line start of a blank run only).

    .venv/bin/python benchmarks/apply_blank_run.py --peer ../peer/src --this src --size 20000

Each side runs in its own process (PYTHONPATH=<side>), each call timed with time.process_time,
``--repeat`` times (the minimum kept). Prints JSON."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

_WORKER = r"""
import json, re, sys, time
from ctxmill.apply import next_edit, next_import, next_signature
from ctxmill.index import rank
size, repeat = int(sys.argv[1]), int(sys.argv[2])
calls = {
    "next_import._module_of (java package)": lambda t: next_import._module_of("A.java", "java", t),
    "next_import._defines (java)": lambda t: next_import._defines(t, "Zq", "java"),
    "next_import._defines (kotlin)": lambda t: next_import._defines(t, "Zq", "kotlin"),
    "next_import._star_covers (import a.b.C;)": lambda t: next_import._star_covers("import a.b.C;", t),
    "next_import._star_covers (use a::b;)": lambda t: next_import._star_covers("use a::b;", t),
    "next_import._rust_root": lambda t: next_import._rust_root("use std::io::Read;", t),
    "next_import._prose_dropped (python)": lambda t: next_import._prose_dropped(t, "python"),
    "next_edit._DEFINES search": lambda t: re.search(next_edit._DEFINES.format("zq"), t, re.M),
    "next_edit._SIBLING_DEFINES search": lambda t: re.search(next_edit._SIBLING_DEFINES.format("zq"), t, re.M),
    "rank._reexport_pattern search": lambda t: rank._reexport_pattern("zq").search(t),
    # C3: next_signature's DEF patterns (every definition of the file) and declared_type
    "next_signature.defs_all (java)": lambda t: list(next_signature.defs_all(t, "java")),
    "next_signature.defs_all (c)": lambda t: list(next_signature.defs_all(t, "c")),
    "next_signature.defs_all (javascript)": lambda t: list(next_signature.defs_all(t, "javascript")),
    "next_signature.defs_all (typescript)": lambda t: list(next_signature.defs_all(t, "typescript")),
    "next_signature.declared_type (java)": lambda t: next_signature.declared_type(t, "zq", 1, "java"),
    "next_signature.declared_type (go)": lambda t: next_signature.declared_type(t, "zq", 1, "go"),
    "next_signature.declared_type (rust)": lambda t: next_signature.declared_type(t, "zq", 1, "rust"),
}
out = {}
for n in (size, 2 * size):
    # the run between two lines, the pattern's word after it (X fails there: no match ends the scan)
    text = "x = 1\n" + "\n" * n + "zq_end = 2\n"
    for name, f in calls.items():
        best = None
        for _ in range(repeat):
            t0 = time.process_time()
            f(text)
            dt = time.process_time() - t0
            best = dt if best is None else min(best, dt)
        out.setdefault(name, {})[str(n)] = round(best, 4)
for row in out.values():
    a, b = row[str(size)], row[str(2 * size)]
    row["x2"] = round(b / a, 2) if a > 0.0005 else None
print(json.dumps(out))
"""


def side(src: str, size: int, repeat: int, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    p = subprocess.run([sys.executable, "-c", _WORKER, str(size), str(repeat)], env=env,
                       capture_output=True, text=True, timeout=timeout)
    if p.returncode:
        return {"error": p.stderr[-2000:]}
    return json.loads(p.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--this", default="src")
    ap.add_argument("--peer")
    ap.add_argument("--size", type=int, default=20000, help="N: the run's blank lines (then 2N)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    out = {"size": a.size, "repeat": a.repeat, "stat": "min CPU s of one call"}
    if a.peer:
        out["peer"] = {"src": a.peer, "calls": side(a.peer, a.size, a.repeat, a.timeout)}
    out["this"] = {"src": a.this, "calls": side(a.this, a.size, a.repeat, a.timeout)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
