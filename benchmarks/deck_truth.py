"""Build a slide-deck set: benchmarks/unseen_truth.py's builder over a deck manifest.

Same truth rules as the unseen set (a Beamer frame's title is a heading one level under its \\section's, once
per frame however many overlay pages print it); only the manifest and the output folder differ, so the unseen
manifest stays untouched. Two sets: `dev` (benchmarks/data/deck_dev.json, the decks deck handling was tuned
on), `heldout` (benchmarks/data/deck_heldout.json, decks of other themes it was not tuned on) and `heldout2`
(benchmarks/data/deck_heldout2.json, round 32: decks fixed before any round 32 change, since round 31 picked its
fixes on `heldout`); round 33 added `heldout3` (benchmarks/data/deck_heldout3.json, three more decks fixed before any
round 33 change, since rounds 31 and 32 picked their fixes on the first two); round 34 added `heldout4`
(benchmarks/data/deck_heldout4.json: decks of other makers, pandoc and Marp Markdown among them, fixed before any
round 34 change); round 35 added `heldout5` (benchmarks/data/deck_heldout5.json: Typst decks (touying, polylux, a
theme of a repository's own) and an R Markdown xaringan deck printed by Chrome, fixed before any round 35 change).
Round 36 added `heldout6` (benchmarks/data/deck_heldout6.json: Beamer Dresden and Rochester decks, a dark-recoloured
default deck with minted listings, and a Slidev deck, fixed before any round 36 change).
Round 37 added `heldout7` (benchmarks/data/deck_heldout7.json: Beamer UniPi (Italian), EastLansing (Turkish), simple
(Spanish) and jambro decks and a Marp deck in a university's CSS theme, fixed before any round 37 change).
Round 38 added `heldout8` (benchmarks/data/deck_heldout8.json: a Korean Beamer deck in a chalkboard theme, the ufalslides
Beamer theme's demo, a Marp deck in the built-in gaia theme and a pandoc reveal.js deck printed by DeckTape, fixed before any
round 38 change).
Round 39 added `heldout9` (benchmarks/data/deck_heldout9.json: the Beamer moloch theme's demo, a Beamer deck of the Slovak
University of Technology (English and Slovak), a Typst touying deck in the PSI theme and the University of Pardubice's UpceFei
Beamer sample in Czech, fixed before any round 39 change).
Any name N reads benchmarks/data/deck_N.json into benchmarks/.cache/decks_N.

General readings of a deck's source, beyond unseen_truth.py's (each applies only where its case arises):
- a Markdown deck's `slide_level` (pandoc's --slide-level, in the manifest): a heading deeper than it is a block's
  title on a slide (pandoc's `### Block`), not a heading of the deck; headings are printed without their inline
  HTML, entities, backticks and TeX logos (`## embbed \\TeX` prints "embbed TeX");
- a pandoc title block (`% Title`, `% Author; Author`, `% date` as the Markdown's first lines) gives the title
  and authors where no YAML front matter does;
- a Typst deck (`typst_body` in the manifest, round 35): its headings are the `=` / `==` lines outside raw blocks
  and comments, at their `=` count, printed without labels, emphasis markers and escapes (`--` as an en dash);
  its title a `title: [..]` argument where the source gives one;
- a Slidev deck (`slidev_body` in the manifest, round 36: the slide files in the order the entry file imports them,
  hidden slides left out): its headings are the `#` lines and HTML `<h1>`..`<h6>` elements outside each slide's YAML
  headmatter (a `# key:` line there is a YAML comment), HTML comments (presenter notes) and fenced code, inline
  elements printed as their text; its title the first slide's headmatter `title:`;
- an \\input / \\include whose file differs from its name only in case is the file TeX found on a
  case-insensitive file system (the deck was built on one).

    .venv/bin/python benchmarks/deck_truth.py                  # dev -> benchmarks/.cache/decks/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout    # -> benchmarks/.cache/decks_heldout/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout2   # -> benchmarks/.cache/decks_heldout2/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout3   # -> benchmarks/.cache/decks_heldout3/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout4   # -> benchmarks/.cache/decks_heldout4/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout5   # -> benchmarks/.cache/decks_heldout5/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout6   # -> benchmarks/.cache/decks_heldout6/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout7   # -> benchmarks/.cache/decks_heldout7/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout8   # -> benchmarks/.cache/decks_heldout8/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout9   # -> benchmarks/.cache/decks_heldout9/<slug>/
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
    """A Markdown heading as a slide prints it: no inline HTML, entities, code ticks, TeX logo commands or
    strong / emphasis markers (`**word**` prints the word in bold)."""
    t = re.sub(r"<[^>]+>", " ", html.unescape(t))
    t = re.sub(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", r"\2", t)
    t = re.sub(r"\\(La)?TeX\b", lambda m: (m.group(1) or "") + "TeX", t).replace("`", "")
    return " ".join(t.split())


TYPST_HEADING = re.compile(r"^[ \t]*(=+)[ \t]+(.+?)[ \t]*$", re.M)


def typst_text(t: str) -> str:
    """Typst markup as it prints: no label, emphasis / strong / raw markers, escapes; `--` and `---` as dashes."""
    t = re.sub(r"<[\w:.-]+>\s*$", "", t)
    t = re.sub(r"\$([^$]*)\$", lambda m: re.sub(r'["^]', "", m.group(1)), t)  # $"ATL"^*$: math as its letters
    t = re.sub(r"#[a-z][\w.-]*(?:\([^()]*\))?\[([^\]]*)\]", r"\1", t)  # #text(fill: red)[word] -> word
    t = re.sub(r"(?<!\\)[*_`]", "", t).replace("---", "\u2014").replace("--", "\u2013")
    return " ".join(re.sub(r"\\(.)", r"\1", t).split())


def typst_outline(src: str) -> tuple[str, list[dict]]:
    """A Typst deck's (touying, polylux) headings: `= Section`, `== Slide title` outside raw blocks and comments,
    each at its `=` count; numbered where the source sets a heading numbering. The title is a `title: [..]`
    argument (touying's config-info, a theme's show rule) where one is given."""
    src = re.sub(r"```.*?```", "", src, flags=re.S)
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    src = re.sub(r"(?<![:\\])//.*", "", src)
    numbered = re.search(r"#set\s+heading\s*\(\s*numbering\s*:", src) is not None
    out = []
    for m in TYPST_HEADING.finditer(src):
        label = re.search(r"<([\w:.-]+)>\s*$", m.group(2))
        title = typst_text(m.group(2))
        if title:
            out.append({"level": len(m.group(1)), "title": title, "in_appendix": False,
                        "numbered": numbered and not (label and "hidden" in label.group(1))})
    t = re.search(r"\btitle\s*:\s*\[([^\]]*)\]", src)
    return (typst_text(t.group(1)) if t else ""), out


SLIDEV_HEADMATTER = re.compile(r"^---[ \t]*\n((?:[ \t]*(?:#[^\n]*|[\w-]+:[^\n]*|[ \t]+[^\n]*)?\n)*?)---[ \t]*$", re.M)
HTML_OR_ATX_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*$|<h([1-6])\b[^>]*>(.*?)</h\3\s*>", re.M | re.S)


def slidev_outline(md: str) -> tuple[str, list[dict]]:
    """A Slidev deck's headings (round 36): each slide's `#` lines and HTML `<h1>`..`<h6>` elements (Slidev prints
    both), in source order, outside the slides' YAML headmatter (`---` / `key: value` / `---`, where a `# key:`
    line is a YAML comment, not a heading), HTML comments (presenter notes and commented-out lines print nowhere)
    and fenced code. The title is the first slide's headmatter `title:` where the source gives one."""
    first = SLIDEV_HEADMATTER.search(md)
    t = re.search(r"^title:[ \t]*(.+)$", first.group(1), re.M) if first else None
    md = re.sub(r"<!--.*?-->", "", md, flags=re.S)
    md = SLIDEV_HEADMATTER.sub("", md)
    md = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", md, flags=re.S | re.M)
    out = []
    for m in HTML_OR_ATX_HEADING.finditer(md):
        level, raw = (len(m.group(1)), m.group(2)) if m.group(1) else (int(m.group(3)), m.group(4))
        # inline elements print their text in place (`<span>P</span>ublish` is "Publish"); a <br> is a space
        raw = re.sub(r"</?(?:span|strong|em|b|i|u|a|code|mark|sub|sup)\b[^>]*>", "", re.sub(r"<br\s*/?>", " ", raw))
        title = md_heading_text(raw)
        if title:
            out.append({"level": level, "title": title, "numbered": False, "in_appendix": False})
    return (t.group(1).strip().strip("'\"") if t else ""), out


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
    if entry.get("typst_body"):
        truth, pdf = typst_derive(entry, mirror, truth, pdf)
    if entry.get("slidev_body"):
        truth, pdf = slidev_derive(entry, mirror, truth, pdf)
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

def slidev_derive(entry: dict, mirror: Path, truth: dict, pdf: bytes) -> tuple[dict, bytes]:
    """A Slidev deck (round 36): headings and title from the slide files the manifest names, in the order the
    deck's entry file imports them (`src:`), hidden slides left out, as slidev_outline reads them."""
    git = unseen_truth.Git(entry["repo"], mirror)
    src = "\n".join(git.read(entry["commit"], p).decode("utf-8", "replace") for p in entry["slidev_body"])
    title, sections = slidev_outline(src)
    return _outline_truth(entry, truth, pdf, title, sections, " Slidev source: `#` and <h1>..<h6> headings (slidev_outline).")


def _outline_truth(entry: dict, truth: dict, pdf: bytes, title: str, sections: list[dict], note: str) -> tuple[dict, bytes]:
    fixed = entry.get("fixes", {})
    if "title" not in fixed:
        truth["title"] = title
    if "sections" not in fixed:
        drop, rename = fixed.get("drop_sections", []), fixed.get("rename_sections", {})
        truth["sections"] = [{**s, "title": rename.get(s["title"], s["title"])} for s in sections
                             if s["title"] not in drop]
        truth["n_sections"] = len(truth["sections"])
    flat, sq = unseen_truth.squash(unseen_truth.pdf_text(pdf)[2]), unseen_truth.squash
    found = [s["title"] for s in truth["sections"] if sq(s["title"]) in flat]
    truth["sanity"].update({
        "title_found_on_page1": sq(truth["title"]) in sq(unseen_truth.pdf_text(pdf)[1]),
        "sections_found": f"{len(found)}/{len(truth['sections'])}",
        "sections_missing": [s["title"] for s in truth["sections"] if s["title"] not in found][:10]})
    truth["notes"] += note
    return truth, pdf


def typst_derive(entry: dict, mirror: Path, truth: dict, pdf: bytes) -> tuple[dict, bytes]:
    """A Typst deck (no LaTeX, no Markdown): its headings and title from the .typ files the manifest names."""
    git = unseen_truth.Git(entry["repo"], mirror)
    src = "\n".join(git.read(entry["commit"], p).decode("utf-8", "replace") for p in entry["typst_body"])
    title, sections = typst_outline(src)
    return _outline_truth(entry, truth, pdf, title, sections, " Typst source: headings read from `=` lines (typst_outline).")


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
