"""The batch on a real local Ray cluster (127.0.0.1, 2 CPUs, started once here): the same outputs
and manifest as the process pool, through `ctxmill compile --engine ray --address`; a Ray worker
killed with SIGKILL mid-document is retried and the batch finishes. Skips without ray."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from _pdfgen import blank_pages_pdf, make_pdf  # noqa: E402
from ctxmill.batch import run_batch  # noqa: E402
from ctxmill.batch.compare import differences  # noqa: E402

CTXMILL = Path(sys.executable).with_name("ctxmill")
SAMPLE = Path(__file__).resolve().parents[1] / "src" / "ctxmill" / "samples" / "tidal-caching.txt"
SAME = ("input", "sha256", "status", "pages", "qa_score", "output", "size", "mtime_ns")


@pytest.fixture(scope="module")
def cluster():
    ctx = ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ctx.address_info["address"]
    finally:
        ray.shutdown()


def _docs(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    make_pdf(docs / "paper.pdf", [[("Rivers and Their Deltas", 72, 80, 20, "Helvetica-Bold"),
                                   ("1 Introduction", 72, 140, 13, "Helvetica-Bold"),
                                   ("Deltas form where rivers meet the sea and drop what they carry along.", 72, 170, 10)]])
    shutil.copy(SAMPLE, docs / "tidal-caching.txt")
    (docs / "notes.md").write_text("# Field notes\n\n## Day one\n\nThe delta was wider than the maps said.\n")
    return docs


def test_ray_gives_the_pool_outputs_and_manifest(cluster, tmp_path):
    docs = _docs(tmp_path)
    pool = run_batch(str(docs), tmp_path / "pool", jobs=2, show_progress=False)
    assert pool["done"] == 3
    r = subprocess.run([str(CTXMILL), "compile", str(docs), "-o", str(tmp_path / "ray"), "--engine", "ray",
                        "--address", cluster, "--json"], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert (s["engine"], s["done"], s["inputs"]) == ("ray", 3, 3)

    def records(out):
        return sorted(({k: x.get(k) for k in SAME} for x in map(json.loads, (out / "manifest.jsonl").open())),
                      key=lambda x: x["input"])

    assert records(tmp_path / "ray") == records(tmp_path / "pool")
    for rec in records(tmp_path / "pool"):
        assert differences(tmp_path / "pool" / rec["output"], tmp_path / "ray" / rec["output"]) == []
    pq = pytest.importorskip("pyarrow.parquet")
    assert pq.read_table(tmp_path / "ray" / "chunks.parquet").to_pylist() == \
        pq.read_table(tmp_path / "pool" / "chunks.parquet").to_pylist()


def _descends_from_us(pid: int) -> bool:
    """Only a worker of the cluster this test started (a child of its raylet, a child of us)."""
    me = os.getpid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
        if pid == me:
            return True
    return False


def _busy_workers() -> list[int]:
    out = subprocess.run(["pgrep", "-f", "ray::_remote_compile"], capture_output=True, text=True).stdout
    return [int(p) for p in out.split() if _descends_from_us(int(p))]


def test_a_killed_ray_worker_does_not_stop_the_batch(cluster, tmp_path):
    docs = _docs(tmp_path)
    blank_pages_pdf(docs / "long.pdf", 800, text="A line of body text on this page, one of very many pages")
    out = tmp_path / "out"
    result: dict = {}
    t = threading.Thread(target=lambda: result.update(run_batch(str(docs), out, engine="ray", jobs=2,
                                                                 show_progress=False)))
    t.start()
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and t.is_alive() and time.monotonic() < deadline:
        busy = _busy_workers()
        if busy:  # the largest input goes first: this is the long PDF, mid-compile
            killed = busy[0]
            os.kill(killed, signal.SIGKILL)
        time.sleep(0.05)
    t.join(timeout=240)
    assert killed is not None, "never saw a Ray worker compiling"
    assert result["done"] == 4 and result["failed"] == 0, result["not_done"]
    recs = [json.loads(ln) for ln in (out / "manifest.jsonl").open()]
    assert sorted(Path(x["input"]).name for x in recs) == ["long.pdf", "notes.md", "paper.pdf", "tidal-caching.txt"]
    long = next(x for x in recs if x["input"].endswith("long.pdf"))
    assert long["pages"] == 800 and (out / long["output"] / "document.md").is_file()
