"""Score one compile output folder against a paper's LaTeX-derived truth (the corpus metric).

Our own implementation of the definitions in ../shared/corpus/score_compile.py: it reads only
the output contract (document.md, metadata.json, references.json, qa.json), so it scores any
tool that writes those files. Used by benchmarks/corpus.py and by tests/test_corpus_papers.py.

- headings: Markdown ATX headings (outside code fences) other than the title, matched one to
  one to truth sections after stripping numbering, difflib ratio >= 0.9; levels compared
  relative to the shallowest matched heading on each side.
- title: exact after normalisation; authors: truth names found among ours (normalised).
- references: entries in references.json; printed estimate from truth; titles parsed: truth
  titles equal (ratio >= 0.9) to one of our parsed titles. Given the source's own text
  (`printed_text`, e.g. the PDF's text layer), a truth title that the source never prints
  (AASTeX and MNRAS styles drop titles; the .bib still has them), nor our document.md, is left
  out of the count and reported as `titles_not_printed`: no parser finds a title not on the page.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from pathlib import Path


def fold_case(s: str) -> str:
    """Case folded so that case never decides a match, in any script: str.casefold, then Turkish's dotted and
    dotless i (a heading printed "YAZIMI" is the truth's "Yazımı"; "İ" casefolds to "i" + a combining dot)."""
    return s.casefold().replace("i\u0307", "i").replace("ı", "i")


def norm(s: str | None) -> str:
    s = unicodedata.normalize("NFKC", s or "")
    s = re.sub(r"<[^>]+>", "", s).replace("**", "").replace("__", "").strip(" *_`")
    s = fold_case(s)
    s = s.replace("’", "'").replace("‘", "'").replace("–", "-").replace("—", "-")
    # leading numbering: digits, a Latin letter, or a letter of another script before a dot ('B.2', a Greek
    # appendix's 'Β.2', a Cyrillic 'А.1'; not a one-letter word: Korean '절 제목' keeps its '절')
    s = re.sub(r"^(appendix\s+)?([a-z]|\d+|[^\W\d_](?=\.))(\.\d+)*\.?\s+", "", s.strip())
    latin = " ".join(re.sub(r"[^a-z0-9]+", " ", s).split())
    # a text of no Latin letter or digit (a Chinese deck's '课程概况') keeps its own letters: emptied,
    # every such heading would equal every other and match by count alone
    return latin or " ".join(re.sub(r"[\W_]+", " ", s).split())


def norm_text(s: str | None, all_scripts: bool) -> str:
    """A running text (an abstract) normalised as ``norm`` does, or, ``all_scripts``, keeping the letters and digits
    of every script: a Russian abstract that cites 'GNU GPL v2.0' is compared on its Russian words, not on those."""
    if not all_scripts:
        return norm(s)
    s = fold_case(unicodedata.normalize("NFKC", re.sub(r"<[^>]+>", "", s or "")))
    return " ".join(re.sub(r"[\W_]+", " ", s).split())


def mostly_non_latin(s: str | None) -> bool:
    """More letters outside a-z than in it (after NFKD, so an accented Latin letter counts as Latin)."""
    letters = [c for c in unicodedata.normalize("NFKD", s or "").casefold() if c.isalpha()]
    return sum(not ("a" <= c <= "z") for c in letters) > len(letters) / 2


def _load(path: Path, default):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return default


def md_headings(md: str) -> list[tuple[int, str]]:
    out, in_code = [], False
    for line in md.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            out.append((len(m.group(1)), m.group(2)))
    return out


def _align(a: list[int], b: list[int], na: int, nb: int) -> list[tuple[int, int]]:
    """min(len(a), len(b)) pairs of a's and b's indices, in order, nearest in relative position (a[i] / na against
    b[j] / nb): which of a title's repeats pair up where one side holds it more often than the other."""
    if len(a) < len(b):
        return [(x, y) for y, x in _align(b, a, nb, na)]
    if len(a) == len(b):
        return list(zip(a, b, strict=True))
    m, n, inf = len(a), len(b), float("inf")
    cost = [[0.0] + [inf] * n for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, min(i, n) + 1):
            cost[i][j] = min(cost[i - 1][j], cost[i - 1][j - 1] + abs(a[i - 1] / na - b[j - 1] / nb))
    out, i, j = [], m, n
    while j:
        if cost[i][j] == cost[i - 1][j]:
            i -= 1
        else:
            out.append((a[i - 1], b[j - 1]))
            i, j = i - 1, j - 1
    return out[::-1]


def match_headings(truth: list[tuple[int, str]], ours: list[tuple[int, str]]):
    """-> (recall, hits, level_ok, missing truth titles, extra headings of ours)"""
    tn = [norm(t) for _, t in truth]
    on = [norm(t) for _, t in ours]
    exact: dict[str, list[int]] = {}
    for j, o in enumerate(on):
        exact.setdefault(o, []).append(j)
    # equal titles pair first; where one side repeats a title more often (a section about references and the
    # list's own 'References'), the repeats pair by their place in the document, not first come first served
    reserved: dict[int, int] = {}
    for t in dict.fromkeys(tn):
        ti = [i for i, x in enumerate(tn) if x == t]
        reserved.update(_align(ti, exact.get(t, []), len(tn), len(on)))
    taken = set(reserved.values())
    used: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for i, t in enumerate(tn):
        bj = reserved.get(i)
        if bj is None:
            best = 0.0
            for j, o in enumerate(on):
                if j in used or j in taken or not o or abs(len(o) - len(t)) > max(len(o), len(t)) * 0.2:
                    continue
                r = difflib.SequenceMatcher(None, o, t).ratio()
                if r > best:
                    best, bj = r, j
            if best < 0.9:
                bj = None
        if bj is not None:
            used.add(bj)
            pairs.append((i, bj))
    tb = min((truth[i][0] for i, _ in pairs), default=0)
    ob = min((ours[j][0] for _, j in pairs), default=0)
    level_ok = sum(1 for i, j in pairs if truth[i][0] - tb == ours[j][0] - ob)
    hit_t = {i for i, _ in pairs}
    missing = [truth[i][1] for i in range(len(truth)) if i not in hit_t]
    extra = [ours[j][1] for j in range(len(ours)) if j not in used]
    recall = len(pairs) / len(tn) if tn else 1.0
    return recall, len(pairs), level_ok, missing, extra


def squash(s: str | None) -> str:
    """Letters and digits only: a title still matches across line breaks and hyphenation."""
    s = unicodedata.normalize("NFKD", s or "")  # "Über" and a PDF's "U¨ber" both become "uber"
    return re.sub(r"[^a-z0-9]+", "", fold_case(s))


def score(out: Path, truth: dict, printed_text: str | None = None) -> dict:
    out = Path(out)
    md = (out / "document.md").read_text(errors="replace") if (out / "document.md").exists() else ""
    meta = _load(out / "metadata.json", {})
    refs = _load(out / "references.json", [])
    qa = _load(out / "qa.json", {})
    res: dict = {}

    t_heads = [(s["level"], s.get("title", "")) for s in truth.get("sections", [])]
    title_norm = norm(truth.get("title"))
    # the title's own heading (the first one equal to it) is no section; a section named like the
    # document ("2.3 Abstract Hoare Logic" in a book titled "Abstract Hoare logic") still is one
    heads = md_headings(md)
    at = next((k for k, h in enumerate(heads) if norm(h[1]) == title_norm), None)
    body = [h for k, h in enumerate(heads) if k != at]
    recall, hits, level_ok, missing, extra = match_headings(t_heads, body)
    res["headings"] = {
        "truth": len(t_heads), "ours": len(body), "hits": hits, "recall": round(recall, 3),
        "precision": round(hits / len(body), 3) if body else (1.0 if not t_heads else 0.0),
        "level_accuracy": round(level_ok / hits, 3) if hits else (1.0 if not t_heads else 0.0),
        "missing": missing[:8], "extra": extra[:8],
    }
    res["title"] = meta.get("title")
    res["title_ok"] = norm(meta.get("title")) == title_norm
    ours_a = [norm(a.get("name") if isinstance(a, dict) else a) for a in meta.get("authors", [])]
    t_a = [norm(a) for a in truth.get("authors", [])]
    found = sum(a in ours_a for a in t_a)
    res["authors"] = {"truth": len(t_a), "found": found, "extra": max(0, len(ours_a) - found)}
    res["abstract"] = bool(meta.get("abstract"))
    if "abstract" in truth:
        # ours given exactly when one is printed (a truth of "" or None: the paper prints none), and where
        # both are, the truth's first six words in ours: an affiliation taken for the abstract is no hit
        # compared in the truth's own script: Latin letters only where they make most of it, as norm does
        raw = "" if truth["abstract"] in (None, "None") else str(truth["abstract"])
        wide = mostly_non_latin(raw)
        t_abs, o_abs = norm_text(raw, wide), norm_text(meta.get("abstract"), wide)
        res["abstract_agrees"] = bool(t_abs) == bool(o_abs) and " ".join(t_abs.split()[:6]) in o_abs

    printed = truth.get("n_bibliography_entries_printed_estimate") or truth.get("n_references") or 0
    # within 10% of the printed count, as ../shared/corpus/score_compile.py reports it (truth_printed
    # against ours, whenever the truth has n_references): a paper printing no list and given none is right
    known = "n_references" in truth or "n_bibliography_entries_printed_estimate" in truth
    r = {"printed": printed, "ours": len(refs),
         "count_ok": known and abs(len(refs) - printed) <= 0.1 * printed}
    raw_titles = [x["title"] for x in truth.get("reference_titles", []) if x.get("title")]
    if raw_titles and printed_text is not None:
        # Our own document.md too: a review copy's line numbers split the PDF's text mid-title.
        printed = squash(printed_text) + "\n" + squash(md)
        kept = [t for t in raw_titles if squash(re.sub(r"[{}\\$]", "", t)) in printed]
        r["titles_not_printed"] = len(raw_titles) - len(kept)
        raw_titles = kept
    t_titles = [norm(t) for t in raw_titles]
    if t_titles:
        ours_t = [norm(x.get("title")) for x in refs if x.get("title")]
        ours_set = set(ours_t)
        ok = 0
        for t in t_titles:
            if t in ours_set or any(difflib.SequenceMatcher(None, o, t).ratio() >= 0.9 for o in ours_t
                                    if abs(len(o) - len(t)) <= len(t) * 0.25):
                ok += 1
        r["titles_truth"], r["titles_parsed"] = len(t_titles), ok
    res["references"] = r
    res["qa_score"] = qa.get("score")
    res["qa_errors"] = [c.get("id") for c in qa.get("checks", []) if c.get("severity") == "error"]
    return res
