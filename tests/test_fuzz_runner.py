"""benchmarks/fuzz.py's verdict on a slow case (issue 26): a case is a timeout when it has used
more than ``--timeout`` CPU seconds (its worker and the worker's children), not when a loaded
machine gave it too little of a core; a case that waits without using the CPU is still stopped
at the wall-clock limit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import fuzz  # noqa: E402

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def test_tree_cpu_counts_the_children_of_a_process():
    code = ("import subprocess, sys; subprocess.run([sys.executable, '-c', "
            "'import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.6: pass']); "
            "import time; time.sleep(30)")
    p = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 20
        got = 0.0
        while time.monotonic() < deadline and got < 0.6:
            time.sleep(0.2)
            got = fuzz.tree_cpu(p.pid) or 0.0
        assert got >= 0.6  # the grandchild's 0.6 s, reaped by the child, are counted
    finally:
        p.kill()
        p.wait()


@pytest.mark.timeout(120)
def test_a_case_starved_of_cpu_is_no_timeout_and_a_busy_one_is(tmp_path):
    runner = fuzz.Runner(timeout=1.0, wall_timeout=60)
    try:
        assert runner.run(["--version"])[0] == "exit_0"  # the worker is up, ctxmill imported
        pid = runner.proc.pid
        # the worker gets no CPU at all for 3 s, as a nice-19 process on a machine at load 30
        os.kill(pid, signal.SIGSTOP)
        threading.Timer(3.0, os.kill, (pid, signal.SIGCONT)).start()
        outcome, _, wall, cpu = runner.run(["--version"])
        assert outcome == "exit_0" and wall >= 2.5 and cpu < 1.0
        # a case that needs more CPU than it is given is one
        big = tmp_path / "big.txt"
        big.write_bytes(fuzz.text_shape(fuzz.random.Random(0), "ocr_lines", 3_000_000))
        runner.timeout = 0.3
        outcome, err, wall, cpu = runner.run(["compile", str(big), "-o", str(tmp_path / "out")])
        assert outcome == "timeout" and cpu > 0.3, err
    finally:
        runner.close()


def test_a_source_file_changed_during_a_campaign_is_named(tmp_path):
    pkg = tmp_path / "ctxmill"
    (pkg / "compile").mkdir(parents=True)
    (pkg / "compile" / "a.py").write_text("x = 1\n")
    (pkg / "b.py").write_text("y = 2\n")
    before = fuzz.source_state(pkg)
    assert fuzz.changed_files(before, fuzz.source_state(pkg)) == []
    (pkg / "compile" / "a.py").write_text("x = 10\n")
    (pkg / "c.py").write_text("")
    assert fuzz.changed_files(before, fuzz.source_state(pkg)) == ["c.py", "compile/a.py"]
    assert "compile/pipeline.py" in fuzz.source_state()  # the ctxmill a case runs, found on sys.path


@pytest.mark.skipif(not fuzz.CORPUS.is_dir(), reason="needs ../shared/corpus")
def test_the_real_text_shapes_double_in_bytes_and_set_the_ordinary_ratio():
    # --scaling's real-text references: twice the size is twice the bytes (the doubling ratio
    # reads seconds only), cut at a line end, and every shape's row is put beside ocr_sample
    for shape in fuzz.REAL_SHAPES:
        small, big = (fuzz.text_shape(fuzz.random.Random(0), shape, n) for n in (300_000, 600_000))
        assert small.endswith(b"\n") and big.startswith(small[:1000])
        assert 0.99 < len(big) / len(small) / 2 < 1.01
    rows = {name: {"x1": {"cpu_seconds": 1.0}, "x2": {"mb_per_s": mb, "mb_per_cpu_s": mb, "cpu_seconds": 2.0}}
            for name, mb in (("prose", 4.0), ("ocr_sample", 1.6), ("refs", 0.9))}
    fuzz._ratios(rows)
    assert rows["refs"]["cpu_vs_ocr_sample"] == 0.56 and rows["refs"]["cpu_vs_prose"] == 0.23
