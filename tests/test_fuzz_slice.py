"""A short seeded slice of benchmarks/fuzz.py (issue 26): every entry point, through the real
command line, never exits 1, never hangs and never leaves half-written output. The full
campaign (1,000 cases per entry point) is `benchmarks/fuzz.py`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("entry,cases", [("pdf", 5), ("text", 8), ("apply", 8), ("index", 8)])
def test_a_seeded_slice_of_the_fuzzer_finds_nothing(entry, cases, tmp_path):
    run = tmp_path / "run"  # the user's runtime folder: the campaign's server must not live there
    run.mkdir(mode=0o700)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(run), CTXMILL_SERVER="1")
    p = subprocess.run([sys.executable, str(REPO / "benchmarks" / "fuzz.py"), "--cases", str(cases), "--seed", "11",
                        "--only", entry, "--scaling", "0", "--timeout", "90"],
                       capture_output=True, text=True, timeout=580, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    res = json.loads(p.stdout)[entry]
    outcomes = res["outcomes"]
    assert sum(outcomes.values()) - outcomes.get("half_written", 0) == cases
    bad = {k: v for k, v in outcomes.items() if k.endswith("exit_1") or k in ("timeout", "half_written")}
    assert not bad, res["failures"]
    # the index cases' background server was the campaign's own, and it was stopped: a user's
    # server left watching a thousand deleted folders held all of their inotify instances
    status = subprocess.run([sys.executable, "-c", "from ctxmill.entry import main; main()", "server", "status", "--json"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert json.loads(status.stdout) == {"running": False}, status.stdout
