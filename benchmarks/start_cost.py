"""What `ctxmill compile` costs before the input's size matters: a 1 KB text, this tree vs a peer.

Every compile pays the interpreter, the imports, the engine sniffing and the tokenizer load
whatever the input's size (issue 26: on a 500 KB text that start is a third of the CPU time).
This times the command on a 1 KB text (--text, default: the first 1,000 bytes of an OCR corpus
text, cut at a line end), this tree and the peer alternating run by run (neither always meets
the warmer cache), and prints medians as JSON: wall and CPU seconds (user + system of the
command and its children), with the ratio this/peer.

    flock /tmp/ctxmill-bench.lock .venv/bin/python benchmarks/start_cost.py --peer-src /tmp/peer/src [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CTXMILL = Path(sys.executable).parent / "ctxmill"
SHARED = REPO.parent / "shared"
# the peer runs from its own src, with this tree's src out of sys.path (as benchmarks/fuzz.py does)
_PEER_MAIN = ("import sys; src = sys.argv.pop(1); here = sys.argv.pop(1); "
              "sys.path = [src] + [p for p in sys.path if p.rstrip('/') != here]; "
              "from ctxmill.entry import main; sys.argv[0] = 'ctxmill'; sys.exit(main())")


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _default_text() -> bytes:
    src = SHARED / "corpus" / "ocr" / "mistral-paper2llm-identifiability" / "source.md"
    data = src.read_bytes()[:1000]
    return data[: data.rfind(b"\n") + 1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer-src", required=True, help="the peer tree's src folder")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--text", type=Path, help="input (default: 1 KB of an OCR corpus text)")
    args = ap.parse_args()
    here = str(REPO / "src")
    peer = str(Path(args.peer_src).resolve())
    tmp = Path(tempfile.mkdtemp(prefix="ctxmill-start-"))
    try:
        f = tmp / "small.txt"
        f.write_bytes(args.text.read_bytes() if args.text else _default_text())
        # byte code written up front for both trees, as an installed package has it
        for src in (here, peer):
            subprocess.run([sys.executable, "-m", "compileall", "-q", src], capture_output=True, timeout=600)
        cmds = {"this": [str(CTXMILL)], "peer": [sys.executable, "-c", _PEER_MAIN, peer, here]}
        got: dict = {side: {"wall": [], "cpu": [], "exit": set()} for side in cmds}
        load0 = os.getloadavg()
        for r in range(args.runs + 1):  # run 0 warms the file cache, not counted
            for side in (list(cmds) if r % 2 == 0 else list(reversed(cmds))):
                out = tmp / f"o-{side}"
                shutil.rmtree(out, ignore_errors=True)
                t, c = time.perf_counter(), _child_cpu()
                p = subprocess.run([*cmds[side], "compile", str(f), "-o", str(out)], capture_output=True, timeout=120)
                wall, cpu = time.perf_counter() - t, _child_cpu() - c
                if r:
                    got[side]["wall"].append(wall)
                    got[side]["cpu"].append(cpu)
                    got[side]["exit"].add(p.returncode)
        res: dict = {"input_bytes": f.stat().st_size, "runs": args.runs,
                     "load_average": [round(x, 1) for x in load0],
                     "load_average_end": [round(x, 1) for x in os.getloadavg()]}
        for side, g in got.items():
            res[side] = {"wall_s": round(statistics.median(g["wall"]), 3),
                         "cpu_s": round(statistics.median(g["cpu"]), 3), "exit": sorted(g["exit"])}
        res["cpu_ratio"] = round(res["this"]["cpu_s"] / res["peer"]["cpu_s"], 3)
        res["wall_ratio"] = round(res["this"]["wall_s"] / res["peer"]["wall_s"], 3)
        print(json.dumps(res, indent=1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
