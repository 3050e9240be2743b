"""Batch compile (issue 17), all figures from one run; prints one JSON object.

The 100-document batch: every ../shared/corpus paper, the sample PDF and its OCR text, the OCR
engines' texts, and copies of them (under new names) up to 100, compiled through the
`ctxmill compile DIR -o OUT` command as a user runs it:

- `--jobs 1` vs `--jobs 2` documents/s and pages/s, one after the other (`--groups 4`: the two
  take turns over 4 groups of the batch, so both meet the same load from other sessions), with
  the CPU seconds each used, and the pages per CPU second that docs/batch.md's estimate uses;
- every output folder against compiling that file alone (compile_document + write_outputs, what
  `ctxmill compile FILE -o DIR` runs; a few through the command itself), metrics.json aside;
- chunks.parquet read back with pyarrow against every document's chunks.jsonl;
- a resumed complete batch (`--resume`, nothing to do): its wall time;
- `--engine ray` on a local Ray cluster started before the clock (as an existing cluster is):
  outputs, manifest and time against the pool (`--jobs 2`, the whole batch, run just before);
- faults: 10 trials of SIGKILL to the driver at a random instant, then `--resume` (a 12-document
  subset, to keep the run short): every document done exactly once, nothing corrupt; a Ray
  worker SIGKILLed mid-batch; the poison documents of tests/test_batch.py (junk, a 1 GB
  decompression bomb, a PDF that never finishes parsing) in a batch of good ones.

Run it under the shared lock (the machine's cores are shared):

    flock /tmp/ctxmill-bench.lock .venv/bin/python benchmarks/batch.py
    .venv/bin/python benchmarks/batch.py --docs 30 --trials 3   # a quicker look
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
SHARED = Path(os.environ.get("CTXMILL_SHARED", REPO.parent / "shared"))
CTXMILL = Path(sys.executable).with_name("ctxmill")
SAME = ("input", "sha256", "status", "pages", "qa_score", "output", "size", "mtime_ns")


def unique_inputs() -> list[Path]:
    corpus = SHARED / "corpus"
    found = sorted((corpus / "papers").glob("*/paper.pdf"))
    found += [corpus / "dive-into-claude-code" / "paper.pdf", corpus / "dive-into-claude-code" / "ocr-pages-1-16.txt"]
    found += sorted(p for p in (corpus / "ocr").glob("*/source.*") if p.suffix in (".md", ".mmd", ".txt"))
    return [p for p in found if p.is_file()]


def build(root: Path, n: int) -> Path:
    """n inputs in root/docs: the unique ones (named by their folder), then copies round-robin."""
    docs = root / "docs"
    docs.mkdir(parents=True)
    uniq = unique_inputs()
    if not uniq:
        sys.exit("benchmarks/batch.py needs ../shared/corpus")
    for i in range(n):
        src = uniq[i % len(uniq)]
        tag = "" if i < len(uniq) else f"copy{i // len(uniq)}-"
        shutil.copyfile(src, docs / f"{tag}{src.parent.name}-{src.stem}{src.suffix}")
    return docs


def cli(*args, timeout=3600, env=None) -> tuple[dict, float, subprocess.CompletedProcess]:
    """One `ctxmill compile ... --json`; the summary gets the CPU seconds of the command and every
    process under it (workers, PDF parsers), so cores_used = CPU / wall says how much of the
    machine the run had (the cores are shared with other sessions)."""
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([str(CTXMILL), "compile", *map(str, args), "--json"], capture_output=True, text=True,
                       timeout=timeout, env={**os.environ, **(env or {})})
    seconds = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        summary = json.loads(r.stdout)
    except ValueError:
        summary = {"error": r.stderr.strip()[-500:], "exit": r.returncode}
    summary["cpu_seconds"] = round(cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime, 2)
    return summary, seconds, r


def records(out: Path) -> list[dict]:
    return [json.loads(ln) for ln in (out / "manifest.jsonl").read_text().splitlines() if ln.strip()]


def rate(summary: dict, seconds: float) -> dict:
    return {"seconds": round(seconds, 2), "documents": summary.get("compiled"), "pages": summary.get("pages"),
            "documents_per_second": round(summary.get("compiled", 0) / seconds, 3),
            "pages_per_second": round(summary.get("pages", 0) / seconds, 2),
            "done": summary.get("done"), "not_done": summary.get("not_done"),
            "cpu_seconds": summary.get("cpu_seconds"),
            "cores_used": round(summary.get("cpu_seconds", 0) / seconds, 2),
            "documents_per_cpu_second": round(summary.get("compiled", 0) / max(summary.get("cpu_seconds", 0), 1e-9), 3)}


def interleaved(root: Path, docs: Path, groups: int) -> tuple[dict, float, dict, float]:
    """The whole batch with --jobs 1 into j1/ and with --jobs 2 into j2/, group by group, the two
    taking turns; then one --resume over the folder (nothing to compile) exports all of it.
    Returns (summary, seconds) per jobs value, summed over the groups."""
    files = sorted(docs.iterdir())
    tot = {1: {"compiled": 0, "pages": 0, "done": 0, "cpu_seconds": 0.0, "not_done": []}, 2: None}
    tot[2] = json.loads(json.dumps(tot[1]))
    secs = {1: 0.0, 2: 0.0}
    for g in range(groups):
        lst = root / f"group-{g}.txt"
        lst.write_text("".join(f"{p}\n" for p in files[g::groups]))
        for jobs in ((1, 2) if g % 2 == 0 else (2, 1)):
            s, t, _ = cli(lst, "-o", root / f"j{jobs}", "--jobs", str(jobs), *(["--resume"] if g else []))
            secs[jobs] += t
            for k in ("compiled", "pages", "done", "cpu_seconds"):
                tot[jobs][k] += s.get(k, 0)
            tot[jobs]["not_done"] += s.get("not_done", [])
    for jobs in (1, 2):
        cli(docs, "-o", root / f"j{jobs}", "--resume")  # the export of all 100
        tot[jobs]["cpu_seconds"] = round(tot[jobs]["cpu_seconds"], 2)
    return tot[1], secs[1], tot[2], secs[2]


def compile_alone(docs: Path, out: Path) -> float:
    """Each input compiled alone, in one process (what `ctxmill compile FILE -o DIR` runs)."""
    from ctxmill.batch.inputs import expand
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document
    from ctxmill.render import write_outputs

    t0 = time.perf_counter()
    for inp in expand(str(docs)):
        options = CompileOptions()
        try:
            write_outputs(compile_document(inp.path, options, name=inp.name), out / inp.folder, options)
        except Exception:  # refused alone: the batch must say so too (no folder on either side)
            pass
    return time.perf_counter() - t0


def identical(a: Path, b: Path, recs: list[dict]) -> dict:
    from ctxmill.batch.compare import differences

    bad = {}
    for r in recs:
        if r["status"] == "done":
            d = differences(a / r["output"], b / r["output"])
            if d:
                bad[r["input"]] = d[:5]
        elif (b / (r.get("output") or "-")).exists():
            bad[r["input"]] = ["compiled alone but not in the batch"]
    return {"documents": len(recs), "identical": len(recs) - len(bad), "differing": bad}


def parquet_matches(out: Path, recs: list[dict]) -> dict:
    import pyarrow.parquet as pq

    rows = pq.read_table(out / "chunks.parquet").to_pylist()
    by: dict[str, list] = {}
    for row in rows:
        by.setdefault(row["document_id"], []).append(row)
    bad = []
    for r in recs:
        if r["status"] != "done":
            continue
        want = [json.loads(ln) for ln in (out / r["output"] / "chunks.jsonl").read_text().splitlines()]
        got = []
        for row in by.get(r["output"], []):
            c = {"id": row["chunk_id"], "text": row["text"], "tokens": row["tokens"], "kind": row["kind"],
                 "section_path": row["section_path"], "pages": [row["page_start"], row["page_end"]],
                 "char_span": [row["char_start"], row["char_end"]], "citations": row["citations"]}
            if row["context"] is not None:
                c["context"], c["context_llm"] = row["context"], row["context_llm"]
            got.append(c)
        if got != want:
            bad.append(r["input"])
    return {"rows": len(rows), "documents": len(by), "mismatched": bad,
            "bytes": (out / "chunks.parquet").stat().st_size}


def kill_trials(root: Path, docs: Path, trials: int, seed: int) -> dict:
    """SIGKILL of the driver at a random instant, then --resume; every document done once."""
    rng = random.Random(seed)
    _, full, _ = cli(docs, "-o", root / "kill-probe", "--jobs", "2")
    results = []
    for t in range(trials):
        out = root / f"kill-{t}"
        proc = subprocess.Popen([str(CTXMILL), "compile", str(docs), "-o", str(out), "--jobs", "2"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        at = rng.uniform(0.3, 0.9 * full)  # mostly mid-batch; the late ones hit the export
        time.sleep(at)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        before = len(records(out)) if (out / "manifest.jsonl").exists() else 0
        time.sleep(0.3)
        s, _, r = cli(docs, "-o", out, "--resume", "--jobs", "2")
        recs = records(out)
        done = [x["input"] for x in recs if x["status"] == "done"]
        leftovers = [p.name for p in out.iterdir() if ".tmp-" in p.name or ".old-" in p.name]
        intact = all((out / x["output"] / "bundle.zip").is_file()
                     and json.loads((out / x["output"] / "qa.json").read_text())["score"] == x["qa_score"]
                     for x in recs if x["status"] == "done")
        results.append({"killed_at_s": round(at, 2), "recorded_before_kill": before, "resumed_compiled":
                        s.get("compiled"), "exit": r.returncode, "done_once": sorted(done) == sorted(
                            str(p) for p in docs.iterdir()), "leftovers": leftovers, "intact": intact})
    return {"documents": len(list(docs.iterdir())), "batch_seconds": round(full, 2), "trials": results,
            "all_ok": all(x["done_once"] and not x["leftovers"] and x["intact"] and x["exit"] == 0
                          for x in results)}


def ray_worker_kill(docs: Path, out: Path) -> dict:
    """In this process's Ray: SIGKILL one worker while it compiles; the batch must finish."""
    from ctxmill.batch import run_batch

    me = os.getpid()

    def ours(pid: int) -> bool:
        while pid > 1:
            try:
                pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                return False
            if pid == me:
                return True
        return False

    result: dict = {}
    th = threading.Thread(target=lambda: result.update(run_batch(str(docs), out, engine="ray", jobs=2,
                                                                  show_progress=False)))
    th.start()
    killed = None
    while killed is None and th.is_alive():
        pids = subprocess.run(["pgrep", "-f", "ray::_remote_compile"], capture_output=True, text=True).stdout.split()
        busy = [int(p) for p in pids if ours(int(p))]
        if busy:
            killed = busy[0]
            os.kill(killed, signal.SIGKILL)
        time.sleep(0.05)
    th.join()
    return {"killed_worker": killed is not None, "done": result.get("done"), "inputs": result.get("inputs"),
            "failed": result.get("failed"), "finished": result.get("done") == result.get("inputs")}


def poison(root: Path) -> dict:
    from test_batch import _bomb, _endless, _notes

    docs = root / "poison"
    docs.mkdir()
    for i in range(4):
        _notes(docs / f"good{i}.md", f"good input {i}")
    (docs / "junk.txt").write_bytes(random.Random(7).randbytes(5000))
    _bomb(docs / "bomb.pdf")
    _endless(docs / "endless.pdf")
    s, seconds, r = cli(docs, "-o", root / "poison-out", "--jobs", "2", "--timeout", "20",
                        env={"CTXMILL_PDF_MEMORY_MB": "1024"})
    by = {Path(x["input"]).name: {"status": x["status"], "reason": x.get("reason")} for x in
          records(root / "poison-out")}
    return {"exit": r.returncode, "seconds": round(seconds, 2), "documents": by,
            "good_done": all(by[f"good{i}.md"]["status"] == "done" for i in range(4))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--kill-docs", type=int, default=12)
    ap.add_argument("--groups", type=int, default=1, help="turns of --jobs 1 / --jobs 2 (1: one after the other)")
    ap.add_argument("--keep", type=Path, help="keep the work folder here")
    args = ap.parse_args()
    # Ray (in this process) prints worker-death notices on stdout: stdout is for the JSON only
    real_stdout = os.dup(1)
    os.dup2(2, 1)
    root = Path(tempfile.mkdtemp(prefix="ctxmill-batch-bench-"))
    res: dict = {"machine_cores": os.cpu_count(), "load_average_at_start": os.getloadavg()}
    try:
        docs = build(root, args.docs)
        res["batch"] = {"documents": args.docs, "unique": len(unique_inputs()),
                        "bytes": sum(p.stat().st_size for p in docs.iterdir())}
        # --jobs 1 and --jobs 2 take turns over groups of the batch (list files; the order
        # alternates), so both meet the same load from the other sessions on the machine
        s1, t1, s2, t2 = interleaved(root, docs, args.groups)
        res["jobs1"] = rate(s1, t1)
        res["jobs2"] = rate(s2, t2)
        res["speedup_jobs2_vs_jobs1"] = round(t1 / t2, 3)
        res["pages_per_second_per_core"] = round(s1["pages"] / max(s1["cpu_seconds"], 1e-9), 2)
        recs = records(root / "j2")
        t_alone = compile_alone(docs, root / "alone")
        res["alone_in_one_process_seconds"] = round(t_alone, 2)
        res["identical_to_alone"] = {"jobs1": identical(root / "j1", root / "alone", records(root / "j1")),
                                     "jobs2": identical(root / "j2", root / "alone", recs)}
        via_cli = []
        for r in [x for x in recs if x["status"] == "done"][:: max(1, len(recs) // 4)]:
            subprocess.run([str(CTXMILL), "compile", r["input"], "-o", str(root / "cli" / r["output"])],
                           capture_output=True, timeout=600)
            from ctxmill.batch.compare import differences

            via_cli.append(not differences(root / "j2" / r["output"], root / "cli" / r["output"]))
        res["identical_to_ctxmill_compile_FILE"] = {"checked": len(via_cli), "identical": sum(via_cli)}
        res["parquet"] = parquet_matches(root / "j2", recs)
        res["output_bytes"] = sum(p.stat().st_size for p in (root / "j2").rglob("*") if p.is_file())
        times = []
        for _ in range(3):
            sr, tr, _ = cli(docs, "-o", root / "j2", "--resume")
            times.append(tr)
        res["resume_complete_seconds"] = {"median": round(sorted(times)[1], 3), "runs": [round(x, 3) for x in times],
                                          "compiled": sr.get("compiled"), "skipped": sr.get("skipped")}
        try:
            import ray

            t0 = time.perf_counter()
            ctx = ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
            res["ray_cluster_start_seconds"] = round(time.perf_counter() - t0, 2)
            # the peer: the pool on the whole batch in one command, right before Ray's run
            sp, tp, _ = cli(docs, "-o", root / "pool-full", "--jobs", "2")
            res["pool_jobs2_whole_batch"] = rate(sp, tp)
            sr, tr, _ = cli(docs, "-o", root / "ray", "--engine", "ray", "--address", ctx.address_info["address"])
            res["ray"] = rate(sr, tr)
            res["ray_overhead_vs_pool"] = round(tr / tp - 1, 3)

            def same(out):
                return sorted(({k: x.get(k) for k in SAME} for x in records(out)), key=lambda x: x["input"])

            res["ray_manifest_equals_pool"] = same(root / "ray") == same(root / "j2")
            res["identical_to_alone"]["ray"] = identical(root / "ray", root / "alone", records(root / "ray"))
            kd = root / "ray-kill-docs"
            kd.mkdir()
            for p in sorted(docs.iterdir())[: args.kill_docs]:
                shutil.copyfile(p, kd / p.name)
            res["ray_worker_kill"] = ray_worker_kill(kd, root / "ray-kill")
            ray.shutdown()
        except ImportError:
            res["ray"] = "ray is not installed (pip install 'ctxmill[ray]')"
        sub = root / "kill-docs"
        sub.mkdir()
        pick = [p for p in sorted(docs.iterdir()) if not p.name.startswith("copy")]
        pdfs = sorted((p for p in pick if p.suffix == ".pdf"), key=lambda p: p.stat().st_size)[: args.kill_docs // 3]
        texts = [p for p in pick if p.suffix != ".pdf"][: args.kill_docs - len(pdfs)]
        for p in pdfs + texts:
            shutil.copyfile(p, sub / p.name)
        res["driver_kill"] = kill_trials(root, sub, args.trials, seed=17)
        res["poison"] = poison(root)
    finally:
        if args.keep:
            shutil.copytree(root, args.keep, dirs_exist_ok=True)
        shutil.rmtree(root, ignore_errors=True)
    res["load_average_at_end"] = os.getloadavg()
    sys.stdout.flush()
    os.dup2(real_stdout, 1)
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
