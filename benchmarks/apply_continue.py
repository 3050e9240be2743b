"""Apply step on Continue's 27 lazy-edit fixtures, with the naive merger as the peer.

    .venv/bin/python benchmarks/apply_continue.py [--triples PATH] [--show NAME]

Each triple is (original, sketch, expected). An outcome is one of: correct (byte for byte),
trailing_ws_only (equal once trailing whitespace is ignored), refused (with a reason) or
silently_wrong (applied, but not the expected file). Silently-wrong results that equal the
expected file once every line is stripped of leading whitespace are also counted under
``indent_only``; of those, the ones whose expected file puts an added line at a depth no
offset between the sketch and the file accounts for are listed by name
(``fixture_indent_contradicts_sketch``): no apply that copies the model's lines as written,
or shifted by the sketch's one offset, can match them byte for byte. Silently-wrong results
are also compared with the fixture's raw diff (raw/NAME.diff) read other ways than the "+ "
prefix triples.jsonl was built with (``equal_to_raw_diff_read_as``; see raw_readings()).
The peer is the copy-until-the-next-sketch-line merger from tutorials, run on the same data.
Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from ctxmill.apply import apply_sketch  # noqa: E402
from ctxmill.apply.markers import is_marker  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "apply" / "continue" / "triples.jsonl"
_EXT = {"javascript": ".js", "python": ".py", "tsx": ".tsx", "rust": ".rs", "typescript": ".ts"}


def naive_merge(original: str, sketch: str) -> str:
    """Copy original lines at a marker until the next sketch line shows up (first match)."""
    o = original.split("\n")
    s = sketch.split("\n")
    out: list[str] = []
    pos = 0
    for i, line in enumerate(s):
        if is_marker(line):
            nxt = next((x for x in s[i + 1:] if x.strip() and not is_marker(x)), None)
            if nxt is None:
                out.extend(o[pos:])
                pos = len(o)
                continue
            j = next((j for j in range(pos, len(o)) if o[j].strip() == nxt.strip()), None)
            if j is not None:
                out.extend(o[pos:j])
                pos = j
            continue
        out.append(line)
        j = next((j for j in range(pos, len(o)) if o[j].strip() == line.strip()), None)
        if j is not None:
            pos = j + 1
    return "\n".join(out)


def classify(result: str | None, expected: str) -> str:
    if result is None:
        return "refused"
    if result == expected:
        return "correct"
    rs = [x.rstrip() for x in result.rstrip().split("\n")]
    es = [x.rstrip() for x in expected.rstrip().split("\n")]
    if rs == es:
        return "trailing_ws_only"
    return "silently_wrong"


def indent_only(result: str, expected: str) -> bool:
    return [x.strip() for x in result.strip().split("\n")] == [x.strip() for x in expected.strip().split("\n")]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def fixture_indent_contradicts_sketch(t: dict) -> bool:
    """Does the expected file indent a new line at a depth the sketch cannot account for?

    Sketch lines found exactly once in the original show the offsets between the sketch's
    indentation and the file's (0, or one uniform shift when the sketch was written dedented).
    A line the expected file adds, found exactly once in the sketch, should sit at its sketch
    depth plus one of those offsets; if it sits elsewhere, no apply that copies the model's
    lines as written (or shifted) can produce the expected file byte for byte.
    """
    orig = t["original"].split("\n")
    sk = [x for x in t["sketch"].split("\n") if x.strip() and not is_marker(x)]
    exp = t["expected"].split("\n")
    o_keys = [x.strip() for x in orig]
    s_keys = [x.strip() for x in sk]
    offsets = {_indent(orig[o_keys.index(k)]) - _indent(x)
               for x, k in zip(sk, s_keys, strict=True)
               if o_keys.count(k) == 1 and s_keys.count(k) == 1 and len(k) > 3}
    if not offsets:
        return False
    for line in exp:
        k = line.strip()
        if not k or k in o_keys or s_keys.count(k) != 1:
            continue  # not an added line, or not one the sketch pins down
        if _indent(line) - _indent(sk[s_keys.index(k)]) not in offsets:
            return True
    return False


def raw_readings(raw_diff: Path, result: str) -> list[str]:
    """Which readings of the fixture's raw diff give ``result`` byte for byte (trailing space aside).

    The raw diff (raw/NAME.diff, its third part) is the expected file with added lines
    flagged "+" and deleted ones "-". triples.jsonl reads an added line as "+ " + line (true of
    every added line of 25 of the 27 fixtures). A fixture whose diff was typed another way,
    "+" + line, or "+ " written over the line's first two columns, has a different expected
    file under that reading; a result equal to one of those is what the diff's author meant,
    not a silent misapply.
    """
    if not raw_diff.is_file():
        return []
    body = raw_diff.read_text().split("\n---\n")[-1].lstrip("\n").split("\n")
    readings = {
        "plus_space_prefix": lambda x: x[2:],
        "plus_prefix": lambda x: x[1:],
        "plus_over_indent": lambda x: "  " + x[2:] if x.startswith("+ ") else " " + x[1:],
    }
    want = [x.rstrip() for x in result.rstrip().split("\n")]
    found = []
    for name, added in readings.items():
        lines = [added(x) if x.startswith("+") else x for x in body if not x.startswith("-")]
        if [x.rstrip() for x in "\n".join(lines).rstrip().split("\n")] == want:
            found.append(name)
    return found


def guess_path(t: dict) -> str:
    name = t["name"]
    if "." in name and name.rsplit(".", 1)[1] in ("js", "py", "tsx", "rs", "ts"):
        return name
    if t.get("language_hint") in _EXT:
        return name + _EXT[t["language_hint"]]
    if name.startswith("markdown"):
        return name + ".md"
    return name + ".js" if "{" in t["original"] else name


def run(triples: list[dict], show: str | None = None, raw_dir: Path | None = None) -> dict:
    ours: dict[str, int] = {"correct": 0, "trailing_ws_only": 0, "refused": 0, "silently_wrong": 0}
    peer = dict.fromkeys(ours, 0)
    cases = []
    seconds = []
    ind = 0
    contradicted: list[str] = []
    raw_read: dict[str, list[str]] = {}
    for t in triples:
        path = guess_path(t)
        t0 = time.perf_counter()
        r = apply_sketch(t["original"], t["sketch"], path=path)
        seconds.append(time.perf_counter() - t0)
        verdict = classify(r.result if r.applied else None, t["expected"])
        ours[verdict] += 1
        if verdict == "silently_wrong" and indent_only(r.result, t["expected"]):
            ind += 1
            if fixture_indent_contradicts_sketch(t):
                contradicted.append(t["name"])
        if verdict == "silently_wrong" and raw_dir is not None:
            raw_read[t["name"]] = raw_readings(raw_dir / f"{t['name']}.diff", r.result)
        p = classify(naive_merge(t["original"], t["sketch"]), t["expected"])
        peer[p] += 1
        cases.append({"name": t["name"], "outcome": verdict, "reason": r.reason,
                      "indent_only": verdict == "silently_wrong" and indent_only(r.result, t["expected"]),
                      "peer": p})
        if show and show == t["name"]:
            print(r.result if r.applied else r.reason, file=sys.stderr)
    seconds.sort()
    return {
        "triples": len(triples),
        "ctxmill": {**ours, "right": ours["correct"] + ours["trailing_ws_only"],
                    "silently_wrong_indent_only": ind,
                    # of those: the expected file indents an added line at a depth that no
                    # offset between the sketch and the file gives (see the function's note)
                    "silently_wrong_fixture_indent_contradicts_sketch": contradicted,
                    # silently-wrong results that equal the fixture's raw diff read another
                    # way ("+" + line, or "+ " typed over the indentation): see raw_readings()
                    "silently_wrong_equal_to_raw_diff_read_as": raw_read},
        "peer_copy_until_next_line": {**peer, "right": peer["correct"] + peer["trailing_ws_only"]},
        "median_ms": round(seconds[len(seconds) // 2] * 1000, 3),
        "max_ms": round(seconds[-1] * 1000, 3),
        "cases": cases,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--triples", type=Path, default=DEFAULT)
    ap.add_argument("--show")
    args = ap.parse_args()
    if not args.triples.is_file():
        print(json.dumps({"skipped": f"{args.triples} not found"}))
        return
    triples = [json.loads(x) for x in args.triples.read_text().splitlines() if x.strip()]
    raw_dir = args.triples.parent / "raw"
    print(json.dumps(run(triples, args.show, raw_dir if raw_dir.is_dir() else None), indent=2))


if __name__ == "__main__":
    main()
