"""The web page's first load as a user meets it, in headless Chromium (issue 16: <= 1 s, no
request leaving 127.0.0.1). Prints one JSON object.

    .venv/bin/python benchmarks/web_first_load.py [--runs 10]

Starts `ctxmill serve` on 127.0.0.1 (a warm server, as after `scripts/run.sh`), then opens the
page in a fresh browser context each run (nothing cached) and reads the Navigation Timing of
the load: time to the `load` event and to DOMContentLoaded, the bytes transferred, and every
request the page made, counting those that did not go to the server. The peer in the same run
is an empty page served by the same server's static route (`/static/...` is not needed: a
`data:` URL of an empty document measures the browser's own floor).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from test_web_support import serve

    out: dict = {"runs": args.runs, "load_average": list(os.getloadavg())}
    with serve() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        loads, dom, empty, outside, requests, transferred = [], [], [], [], [], []
        for _ in range(args.runs + 1):  # the first run warms the server's static files and the browser
            ctx = browser.new_context()
            page = ctx.new_page()
            seen: list[str] = []
            page.on("request", lambda r, seen=seen: seen.append(r.url))
            page.goto(url, wait_until="load")
            t = page.evaluate("() => { const n = performance.getEntriesByType('navigation')[0];"
                              " const r = performance.getEntriesByType('resource');"
                              " return [n.loadEventEnd, n.domContentLoadedEventEnd,"
                              " n.transferSize + r.reduce((a, x) => a + (x.transferSize || 0), 0)]; }")
            page.goto("data:text/html,<p>x</p>", wait_until="load")
            e = page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd")
            ctx.close()
            loads.append(t[0])
            dom.append(t[1])
            transferred.append(t[2])
            empty.append(e)
            requests.append(len([u for u in seen if not u.startswith("data:")]))
            outside.extend(u for u in seen if not u.startswith((url, "data:")))
        browser.close()
    loads, dom, empty = loads[1:], dom[1:], empty[1:]
    out.update({
        "load_event_ms": {"median": round(statistics.median(loads), 1), "max": round(max(loads), 1)},
        "dom_content_loaded_ms": {"median": round(statistics.median(dom), 1)},
        "empty_data_url_page_ms": {"median": round(statistics.median(empty), 1)},
        "requests_per_load": statistics.median(requests[1:]),
        "bytes_transferred": int(statistics.median(transferred[1:])),
        "requests_leaving_127_0_0_1": sorted(set(outside)),
        "goal_load_ms": 1000,
    })
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
