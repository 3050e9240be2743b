"""Next-edit suggestions on the shared tab cases (../shared/tab: 524 cases cut from real commits),
scored by that folder's own scorer, with its naive rename-only control in the same run.

    .venv/bin/python benchmarks/next_edit.py [--classes rename,signature] [--jobs 2]

Prints JSON: overall and per-class precision@1, recall@5, wrong-suggestion rate and
suggestions per negative case for `ctxmill next-edit` (through the command line, interpreter
start included) and for the control.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TAB = REPO.parent / "shared" / "tab"
CTXMILL = Path(sys.executable).with_name("ctxmill")
KEYS = ("precision_at_1", "precision_at_1_answered", "recall_at_5", "recall_at_5_micro", "suggestions_per_negative",
        "wrong_suggestion_rate", "latency_p50_ms")


def score(cases: Path, extra: list[str], jobs: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        subprocess.run([sys.executable, str(TAB / "score_next_edits.py"), "--cases", str(cases), "--jobs", str(jobs),
                        "--report", str(report), *extra], check=True, capture_output=True, timeout=3600)
        d = json.loads(report.read_text())
    return {"overall": {k: d["overall"].get(k) for k in KEYS},
            "by_class": {c: {k: v.get(k) for k in KEYS[:3] + ("wrong_suggestion_rate",)} for c, v in d["by_class"].items()}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--classes", help="comma-separated: rename, signature, repeated, import, negative")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if not (TAB / "dev.jsonl").exists():
        print(json.dumps({"skipped": f"{TAB} not present"}))
        return
    cases = TAB / "dev.jsonl"
    with tempfile.TemporaryDirectory() as tmp:
        if args.classes:
            keep = set(args.classes.split(","))
            sub = Path(tmp) / "cases.jsonl"
            sub.write_text("".join(line for line in cases.read_text().splitlines(keepends=True)
                                   if json.loads(line)["class"] in keep))
            cases = sub
        cmd = f"{CTXMILL} next-edit --root {{case}} --diff {{case}}/trigger.diff --json"
        out = {"cases": sum(1 for _ in cases.open()), "ctxmill": score(cases, ["--cmd", cmd], args.jobs),
               "control_rename_only": score(cases, ["--control", "rename-only"], args.jobs)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
