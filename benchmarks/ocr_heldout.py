"""The held-out OCR set (round 31): real OCR / document-AI engine outputs the OCR reader was not
tuned on, listed in benchmarks/data/ocr_heldout.json, truth in benchmarks/data/ocr_heldout_truth/.

    .venv/bin/python benchmarks/ocr_heldout.py --build   # git show each item from /work/.mirror
    .venv/bin/python benchmarks/ocr_heldout.py           # score: ocr_text.py's fields + lost words

--build copies every item byte for byte (``git show <commit>:<path>`` in the bare snapshot
/work/.mirror/<owner>+<name>/repo that the fetch tool brings) to
benchmarks/.cache/ocr_heldout/<slug>/source.<ext>, with the manifest row as SOURCE.json.

Scoring compiles each with ``ctxmill compile`` and scores it as benchmarks/ocr_text.py does
(leftover markup, headings, title, authors, reference count), and adds per document the words
of the input that reach neither document.md nor removed.json (``lost``: nothing may be lost in
silence). Words in are the engine text less its own markup (grounding tags and boxes, HTML tags
and comments, image links, link targets; for a JSON output, its ``text`` fields), counted with
benchmarks/conservation.py's word definition against one pool of document.md + removed.json.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import ocr_text  # noqa: E402
from conservation import words  # noqa: E402

MANIFEST = REPO / "benchmarks" / "data" / "ocr_heldout.json"
TRUTH = REPO / "benchmarks" / "data" / "ocr_heldout_truth"
CACHE = REPO / "benchmarks" / ".cache" / "ocr_heldout"
MIRROR = Path("/work/.mirror")

_MARKUP = [
    re.compile(r"<\|(det|ref)\|>.*?<\|/\1\|>", re.S),
    re.compile(r"<\|[a-z_/]+\|>"),
    re.compile(r"<!--.*?-->", re.S),
    re.compile(r"!\[[^\]]*\]\([^)]*\)"),
    re.compile(r"(?<=\])\([^)\s]*\)"),
    re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s+[A-Za-z_:][-\w:.]*(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>"),
    re.compile(r"&(?:[a-z]{2,8}|#\d{2,5});", re.I),
]


_SUPS = re.compile("([\u2070\u00b9\u00b2\u00b3\u2074-\u2079\u02d2\u1d43-\u1d5b\u02b0-\u02b8\u1da0-\u1dbf\u2071\u207f])")


def content(src: Path) -> str:
    """The engine output's own words: its markup taken out (not its text)."""
    text = src.read_text(encoding="utf-8")
    if src.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError:  # dots.ocr may stop before closing its list
            data = json.loads(text.rstrip().rstrip(",") + "]")
        text = "\n\n".join(b.get("text", "") for b in data if isinstance(b, dict))
    for rx in _MARKUP:
        text = rx.sub(" ", text)
    return text


def lost_words(src: Path, out: Path) -> dict:
    # a superscript mark as document.md writes it ("Patel¹") is a word of its own, not part of the name
    md = _SUPS.sub(r" \1", (out / "document.md").read_text(encoding="utf-8"))
    rem_path = out / "removed.json"
    rem = json.loads(rem_path.read_text(encoding="utf-8")) if rem_path.exists() else {}
    pool = Counter(words(md))
    removed = Counter(w for r in rem.get("removed", []) for w in words(r.get("text", "")))
    ws = words(content(src))
    lost: list[str] = []
    accounted = 0
    for w in ws:
        if pool[w] > 0:
            pool[w] -= 1
        elif removed[w] > 0:
            removed[w] -= 1
            accounted += 1
        else:
            lost.append(w)
    return {"words_in": len(ws), "in_removed": accounted, "lost": len(lost),
            "lost_share": round(len(lost) / len(ws), 4) if ws else 0.0,
            "lost_sample": [w for w, _ in Counter(lost).most_common(12)]}


def build() -> dict:
    docs = json.loads(MANIFEST.read_text())["documents"]
    done = []
    for d in docs:
        git = MIRROR / d["repo"].replace("/", "+") / "repo"
        if not git.exists():
            print(f"missing snapshot {git} (bring it with the fetch tool: github:{d['repo']})", file=sys.stderr)
            continue
        blob = subprocess.run(["git", "--git-dir", str(git), "show", f"{d['commit']}:{d['path']}"],
                              capture_output=True, check=True, timeout=60).stdout
        folder = CACHE / d["slug"]
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        (folder / f"source.{d['ext']}").write_bytes(blob)
        (folder / "SOURCE.json").write_text(json.dumps(d, indent=1, ensure_ascii=False) + "\n")
        done.append({"slug": d["slug"], "bytes": len(blob)})
    return {"built": len(done), "of": len(docs), "documents": done}


def score(only: str | None, keep: Path | None) -> dict:
    docs = ocr_text.documents(only, CACHE, TRUTH)
    if not docs:
        return {"skipped": f"no held-out documents under {CACHE} (run --build)"}
    engines = {d["slug"]: d["engine"] for d in json.loads(MANIFEST.read_text())["documents"]}
    out_root = keep or Path(tempfile.mkdtemp(prefix="ctxmill-ocr-heldout-"))
    rows = []
    try:
        for slug, src, truth in docs:
            row = ocr_text.run_one(slug, src, truth, out_root)
            row["engine_true"] = engines.get(slug)
            if row["status"] == "done":
                row["lost_words"] = lost_words(src, out_root / slug)
            rows.append(row)
    finally:
        if not keep:
            shutil.rmtree(out_root, ignore_errors=True)
    summary = ocr_text.summarise(rows)
    done = [r for r in rows if r["status"] == "done"]
    summary["refused_or_failed"] = {r["slug"]: r.get("reason") for r in rows if r["status"] != "done"}
    summary["words_in"] = sum(r["lost_words"]["words_in"] for r in done)
    summary["words_lost"] = sum(r["lost_words"]["lost"] for r in done)
    summary["lost_share_mean"] = ocr_text.mean(r["lost_words"]["lost_share"] for r in done)
    return {"summary": summary, "documents": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", action="store_true", help="bring the items from /work/.mirror into the cache")
    ap.add_argument("--only", help="only documents whose slug contains this")
    ap.add_argument("--keep", type=Path, help="keep output folders here")
    args = ap.parse_args()
    result = build() if args.build else score(args.only, args.keep)
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
