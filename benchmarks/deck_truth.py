"""Build a slide-deck set: benchmarks/unseen_truth.py's builder over a deck manifest.

Same truth rules as the unseen set (a Beamer frame's title is a heading one level under its \\section's, once
per frame however many overlay pages print it); only the manifest and the output folder differ, so the unseen
manifest stays untouched. Two sets: `dev` (benchmarks/data/deck_dev.json, the decks deck handling was tuned
on), `heldout` (benchmarks/data/deck_heldout.json, decks of other themes it was not tuned on) and `heldout2`
(benchmarks/data/deck_heldout2.json, round 32: decks fixed before any round 32 change, since round 31 picked its
fixes on `heldout`); round 33 added `heldout3` (benchmarks/data/deck_heldout3.json, three more decks fixed before any
round 33 change, since rounds 31 and 32 picked their fixes on the first two); round 34 added `heldout4`
(benchmarks/data/deck_heldout4.json: decks of other makers, pandoc and Marp Markdown among them, fixed before any
round 34 change). Any name N reads benchmarks/data/deck_N.json into benchmarks/.cache/decks_N.

Three general readings of a deck's source, beyond unseen_truth.py's (each applies only where its case arises):
- a Markdown deck's `slide_level` (pandoc's --slide-level, in the manifest): a heading deeper than it is a block's
  title on a slide (pandoc's `### Block`), not a heading of the deck; headings are printed without their inline
  HTML, entities, backticks and TeX logos (`## embbed \\TeX` prints "embbed TeX");
- a pandoc title block (`% Title`, `% Author; Author`, `% date` as the Markdown's first lines) gives the title
  and authors where no YAML front matter does;
- an \\input / \\include whose file differs from its name only in case is the file TeX found on a
  case-insensitive file system (the deck was built on one).

    .venv/bin/python benchmarks/deck_truth.py                  # dev -> benchmarks/.cache/decks/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout    # -> benchmarks/.cache/decks_heldout/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout2   # -> benchmarks/.cache/decks_heldout2/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout3   # -> benchmarks/.cache/decks_heldout3/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout4   # -> benchmarks/.cache/decks_heldout4/<slug>/
    .venv/bin/python benchmarks/corpus.py --papers benchmarks/.cache/decks
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import unseen_truth  # noqa: E402

SETS = {"dev": ("deck_dev.json", "decks"), "heldout": ("deck_heldout.json", "decks_heldout")}


def md_heading_text(t: str) -> str:
    """A Markdown heading as a slide prints it: no inline HTML, entities, code ticks or TeX logo commands."""
    t = re.sub(r"<[^>]+>", " ", html.unescape(t))
    t = re.sub(r"\\(La)?TeX\b", lambda m: (m.group(1) or "") + "TeX", t).replace("`", "")
    return " ".join(t.split())


def pandoc_title_block(md: str) -> tuple[str, list[str]]:
    """pandoc's title block: '% Title', '% Author; Author', '% date' as the first lines of the Markdown."""
    lines = md.lstrip("\ufeff").splitlines()
    if not lines or not lines[0].startswith("% "):
        return "", []
    title = lines[0][2:].strip()
    authors = lines[1][2:].strip() if len(lines) > 1 and lines[1].startswith("% ") else ""
    return title, [a.strip().lstrip("@") for a in authors.split(";") if a.strip()]


_exists, _read = unseen_truth.Git.exists, unseen_truth.Git.read


def _case_match(git, commit: str, path: str) -> str | None:
    """The path in the commit that differs from `path` only in case, if there is exactly one."""
    folder = str(Path(path).parent)
    out = subprocess.run(["git", "--git-dir", str(git.dir), "ls-tree", "--name-only", f"{commit}:{folder}"
                          if folder != "." else commit], capture_output=True, text=True).stdout.split("\n")
    hits = [n for n in out if n and n.lower() == Path(path).name.lower()]
    return (hits[0] if folder == "." else f"{folder}/{hits[0]}") if len(hits) == 1 else None


def _exists_any_case(self, commit: str, path: str) -> bool:
    return _exists(self, commit, path) or _case_match(self, commit, path) is not None


def _read_any_case(self, commit: str, path: str) -> bytes:
    if _exists(self, commit, path):
        return _read(self, commit, path)
    return _read(self, commit, _case_match(self, commit, path) or path)


_derive = unseen_truth.derive


def derive(entry: dict, mirror: Path) -> tuple[dict, bytes]:
    truth, pdf = _derive(entry, mirror)
    md_paths = entry.get("markdown_body", [])
    if not md_paths:
        return truth, pdf
    git = unseen_truth.Git(entry["repo"], mirror)
    md = "".join(git.read(entry["commit"], p).decode("utf-8", "replace") for p in md_paths)
    title, authors = pandoc_title_block(md)
    fixed = entry.get("fixes", {})
    if title and not truth["title"] and "title" not in fixed:
        truth["title"] = title
        truth["notes"] += f" Title from the pandoc title block: {title!r}."
    if authors and not truth["authors"] and "authors" not in fixed:
        truth["authors"] = authors
    if "sections" not in fixed:
        level = entry.get("slide_level")
        kept = [s for s in truth["sections"] if level is None or s["level"] <= level]
        for s in kept:
            s["title"] = md_heading_text(s["title"])
        if level is not None:
            truth["notes"] += (f" Slide level {level}: {len(truth['sections']) - len(kept)} deeper headings are"
                               " block titles on a slide, not headings.")
        truth["sections"] = [s for s in kept if s["title"]]
        truth["n_sections"] = len(truth["sections"])
    # the sanity check again, on the truth as changed here
    _, first, text = unseen_truth.pdf_text(pdf)
    flat, sq = unseen_truth.squash(text), unseen_truth.squash
    found = [s["title"] for s in truth["sections"] if sq(s["title"]) in flat]
    truth["sanity"].update({
        "title_found_on_page1": sq(truth["title"]) in sq(first),
        "sections_found": f"{len(found)}/{len(truth['sections'])}",
        "sections_missing": [s["title"] for s in truth["sections"] if s["title"] not in found][:10],
        "authors_found_on_pages1_2": f"{sum(sq(a) in flat[:20000] for a in truth['authors'])}/{len(truth['authors'])}"})
    return truth, pdf

if __name__ == "__main__":
    name = "dev"
    if "--set" in sys.argv:  # ours, not unseen_truth's: taken out before its parser reads argv
        i = sys.argv.index("--set")
        name = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    manifest, folder = SETS.get(name, (f"deck_{name}.json", f"decks_{name}"))
    unseen_truth.Git.exists, unseen_truth.Git.read = _exists_any_case, _read_any_case
    unseen_truth.derive = derive
    unseen_truth.MANIFEST = unseen_truth.REPO / "benchmarks" / "data" / manifest
    unseen_truth.OUT = unseen_truth.REPO / "benchmarks" / ".cache" / folder
    sys.argv += [] if "--out" in sys.argv else ["--out", str(unseen_truth.OUT)]
    unseen_truth.main()
