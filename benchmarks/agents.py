"""Costs of the agent surfaces (issue 8), printed as JSON.

- redaction: throughput of ctxmill.redact over real source files (a slice of the running
  interpreter's Lib/), and its share of a cold index sync of the same files — the peer is the
  same sync with redaction switched off, measured in the same run;
- MCP over stdio: p50 round trip of `read` and `search` through the official SDK client and a
  real `ctxmill mcp` subprocess; the peer is the same tool method called in-process;
- ask: p50 of an extractive answer (retrieve + passage pick) next to a bare search.

    .venv/bin/python benchmarks/agents.py [--files 300] [--calls 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def copy_lib_slice(dst: Path, n_files: int) -> int:
    lib = Path(sysconfig.get_paths()["stdlib"])
    total = 0
    files = sorted(p for p in lib.rglob("*.py") if "test" not in p.parts and "site-packages" not in p.parts)
    for p in files[:n_files]:
        rel = p.relative_to(lib)
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, dst / rel)
        total += p.stat().st_size
    return total


def bench_redaction(root: Path, total_bytes: int, runs: int = 3) -> dict:
    import ctxmill.index.sync as sync_mod
    import ctxmill.redact as redact_mod
    from ctxmill.index import sync_index

    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.rglob("*.py"))]
    scan = []
    for _ in range(runs):
        t = time.perf_counter()
        found = sum(len(redact_mod.redact(x).findings) for x in texts)
        scan.append(time.perf_counter() - t)
    with_r, without_r = [], []
    real = redact_mod.redact
    for i in range(runs):
        for off in (False, True):
            db = root.parent / f"idx-{i}-{off}.db"
            if off:  # the peer: identical sync, redaction replaced by the identity
                redact_mod.redact = lambda text, path=None: redact_mod.Redacted(text)
            try:
                report = sync_index(root, db_path=db)
            finally:
                redact_mod.redact = real
            (without_r if off else with_r).append(report.seconds)
    del sync_mod
    return {
        "files": len(texts),
        "megabytes": round(total_bytes / 1e6, 3),
        "findings": found,
        "redact_mb_per_s": round(total_bytes / 1e6 / statistics.median(scan), 2),
        # the direct cost; the with/without sync pair below is noisy on a shared machine
        "redact_seconds_all_files": round(statistics.median(scan), 4),
        "cold_sync_seconds_with_redaction": round(statistics.median(with_r), 4),
        "cold_sync_seconds_without_redaction": round(statistics.median(without_r), 4),
        "redaction_share_of_sync": round(1 - statistics.median(without_r) / statistics.median(with_r), 4),
    }


async def bench_mcp(root: Path, calls: int, env: dict) -> dict:
    from mcp import Client, StdioServerParameters

    from ctxmill.mcp import Tools

    tools = Tools([root])
    first = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))[0]
    direct_read, direct_search = [], []
    tools.search("parse json", k=10)  # first search syncs
    for _ in range(calls):
        t = time.perf_counter()
        tools.read(first, 1, 60)
        direct_read.append(time.perf_counter() - t)
        t = time.perf_counter()
        tools.search("parse json decoder error", k=10)
        direct_search.append(time.perf_counter() - t)

    params = StdioServerParameters(command=sys.executable, args=["-m", "ctxmill.cli", "mcp", "--root", str(root)],
                                   env=env)
    rt_read, rt_search, rt_list = [], [], []
    t0 = time.perf_counter()
    async with Client(params, read_timeout_seconds=300) as client:
        startup = time.perf_counter() - t0
        await client.call_tool("search", {"query": "parse json", "k": 10})
        tokens = await result_tokens(client, first)
        for _ in range(calls):
            t = time.perf_counter()
            await client.list_tools()
            rt_list.append(time.perf_counter() - t)
            t = time.perf_counter()
            r = await client.call_tool("read", {"path": first, "start_line": 1, "end_line": 60})
            rt_read.append(time.perf_counter() - t)
            assert not r.is_error
            t = time.perf_counter()
            r = await client.call_tool("search", {"query": "parse json decoder error", "k": 10})
            rt_search.append(time.perf_counter() - t)
            assert not r.is_error
    return {
        "calls": calls,
        "stdio_startup_seconds": round(startup, 3),
        "read_p50_ms_stdio": median_ms(rt_read),
        "read_p50_ms_in_process": median_ms(direct_read),
        "search_p50_ms_stdio": median_ms(rt_search),
        "search_p50_ms_in_process": median_ms(direct_search),
        "tools_list_p50_ms_stdio": median_ms(rt_list),
        "result_tokens": tokens,
    }


async def result_tokens(client, first: str) -> dict:
    """Tokens an agent pays for each tool's text result: what we send (compact JSON) beside
    the SDK's default (the same JSON indented by 2) and, for `read`, bare numbered lines."""
    from ctxmill.tokens import count_tokens

    calls = {"search": {"query": "parse json decoder error", "k": 10},
             "read": {"path": first, "start_line": 1, "end_line": 200},
             "status": {}, "references": {"symbol": "loads"}}
    out = {}
    for name, arguments in calls.items():
        r = await client.call_tool(name, arguments)
        if r.is_error:
            out[name] = {"error": r.content[0].text}
            continue
        sent = r.content[0].text
        row = {"sent_compact": count_tokens(sent),
               "indented_2": count_tokens(json.dumps(r.structured_content, ensure_ascii=False, indent=2))}
        if name == "read":
            sc = r.structured_content
            numbered = "\n".join(f"{sc['start_line'] + i}: {line}" for i, line in enumerate(sc["text"].split("\n")))
            row["numbered_lines"] = count_tokens(numbered)
        row["saved_vs_indented"] = round(1 - row["sent_compact"] / row["indented_2"], 3)
        out[name] = row
    return out


def bench_ask(root: Path, calls: int) -> dict:
    from ctxmill.ask import ask
    from ctxmill.index import search

    s, a = [], []
    for _ in range(calls):
        t = time.perf_counter()
        hits = search("how is a json decode error reported", root, k=8)
        s.append(time.perf_counter() - t)
        t = time.perf_counter()
        ans = ask("how is a json decode error reported", root, k=8, sync=False)
        a.append(time.perf_counter() - t)
    return {"search_p50_ms": median_ms(s), "ask_extractive_p50_ms": median_ms(a),
            "ask_mode": ans.mode, "top_hit": hits[0].path if hits else None}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--calls", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctxmill-agents-") as tmp:
        tmp = Path(tmp)
        root = tmp / "lib"
        root.mkdir()
        total = copy_lib_slice(root, args.files)
        os.environ["CTXMILL_INDEX_DIR"] = str(tmp / "index")
        env = {**os.environ}
        out = {"python": sys.version.split()[0], "cpus": os.cpu_count()}
        out["redaction"] = bench_redaction(root, total)
        out["mcp"] = asyncio.run(bench_mcp(root, args.calls, env))
        out["ask"] = bench_ask(root, args.calls)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
