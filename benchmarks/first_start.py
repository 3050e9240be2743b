"""Time to the web page's URL with `bash scripts/run.sh`, as a newcomer meets it.

A fresh clone of this repository in a temporary folder (no .venv, nothing beside it) is
started once -- the first start creates .venv and pip-installs ctxmill -- and then again with
nothing changed, which must install nothing (README: <= 3 s). The peer in the same run is
`ctxmill serve` started directly from the clone's .venv: the floor a second start can reach.
Each time is from the command's start to the first HTTP 200 from the URL it prints.

    .venv/bin/python benchmarks/first_start.py [--runs 3] [--repo PATH]

Prints JSON (seconds; second starts and the peer as medians of --runs). The clone is of the
committed HEAD: uncommitted changes are not measured.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]


def time_to_url(cmd: list[str], cwd: Path, timeout: float = 600.0) -> tuple[float, list[str]]:
    """Run cmd (its own process group), wait for 'serving on URL', then for the URL to answer 200;
    stop it; return the seconds taken and the lines it printed on the way."""
    env = dict(os.environ, PORT="0", PYTHONUNBUFFERED="1")
    env.pop("VIRTUAL_ENV", None)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    lines: list[str] = []
    try:
        url = None
        while url is None:
            if time.perf_counter() - t0 > timeout:
                raise SystemExit(f"no URL after {timeout} s: {lines[-5:]}")
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if not ready:
                continue
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"{cmd} exited ({proc.wait()}): {lines[-5:]}")
            lines.append(line.rstrip())
            if "serving on " in line:
                url = line.split("serving on ", 1)[1].split()[0]
        while True:
            try:
                if httpx.get(url, timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.02)
        return time.perf_counter() - t0, lines
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        proc.stdout.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repo", type=Path, default=REPO)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctxmill-first-start-") as tmp:
        clone = Path(tmp) / "ctxmill"
        subprocess.run(["git", "clone", "-q", str(args.repo), str(clone)], check=True)
        run = ["bash", "scripts/run.sh"]
        first, first_lines = time_to_url(run, clone)
        second, second_lines = [], []
        for _ in range(args.runs):
            s, second_lines = time_to_url(run, clone)
            second.append(s)
        peer = [time_to_url([str(clone / ".venv/bin/ctxmill"), "serve", "--port", "0"], clone)[0]
                for _ in range(args.runs)]
    print(json.dumps({
        "first_start_seconds": round(first, 2),
        "second_start_seconds": round(statistics.median(second), 2),
        "second_start_runs": [round(s, 2) for s in second],
        "peer_ctxmill_serve_seconds": round(statistics.median(peer), 2),
        "second_start_budget_seconds": 3.0,
        "first_start_steps": [ln for ln in first_lines if ln.startswith("ctxmill")],
        "second_start_steps": [ln for ln in second_lines if ln.startswith("ctxmill")],
    }, indent=2))


if __name__ == "__main__":
    main()
