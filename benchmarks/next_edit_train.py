"""Build the next-edit TRAINING set: cases cut by the shared tab generator
(../shared/tab/make_next_edits.py) from the repositories and commits pinned in
benchmarks/data/next_edit_train.json, none of them a dev.jsonl repository.

    .venv/bin/python benchmarks/next_edit_train.py [--mirror /work/.mirror] [--out PATH]

Each repository is a bare git dir at MIRROR/<owner>+<name>/repo (what the `fetch` tool brings);
the output (default benchmarks/.cache/next_edit_train.jsonl, git-ignored) is deterministic for
the pinned commits and seed. Prints JSON: cases per repository, class and language.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TAB = REPO.parent / "shared" / "tab"
MANIFEST = REPO / "benchmarks" / "data" / "next_edit_train.json"
DEFAULT_OUT = REPO / "benchmarks" / ".cache" / "next_edit_train.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    args = ap.parse_args()
    man = json.loads(MANIFEST.read_text())
    dev_repos = set()
    if (TAB / "dev.jsonl").exists():
        dev_repos = {json.loads(line)["repo"] for line in (TAB / "dev.jsonl").open() if line.strip()}
    specs, missing = [], []
    for name, commit in man["repos"].items():
        if name in dev_repos:
            sys.exit(f"{name} is a dev repository: it cannot be in the training set")
        gitdir = Path(args.mirror) / name.replace("/", "+") / "repo"
        if not gitdir.is_dir():
            missing.append(name)
            continue
        specs.append(f"{gitdir}@{commit}")
    if missing:
        sys.exit("not fetched: " + ", ".join(missing))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # the generator iterates over sets in places: a fixed hash seed makes its output the same
    # file every time (with Python's random one, 120 of 3240 cases differed between two runs)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    subprocess.run([sys.executable, str(TAB / "make_next_edits.py"), "--out", str(out), "--seed", str(man["seed"]),
                    "--max-per-repo", str(man["max_per_repo"]), "--quiet", *specs], check=True, timeout=7200, env=env)
    cases = [json.loads(line) for line in out.open() if line.strip()]
    print(json.dumps({"out": str(out), "cases": len(cases),
                      "by_repo": dict(sorted(Counter(c["repo"] for c in cases).items())),
                      "by_class": dict(sorted(Counter(c["class"] for c in cases).items())),
                      "by_language": dict(sorted(Counter(c["language"] for c in cases).items()))}, indent=1))


if __name__ == "__main__":
    main()
