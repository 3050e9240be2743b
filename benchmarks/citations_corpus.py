"""The citation graph measured on every hyperref PDF of the corpus, its truth read from the PDF itself; prints JSON.

    .venv/bin/python benchmarks/citations_corpus.py --compiled /tmp/out          # compile into /tmp/out, then score
    .venv/bin/python benchmarks/citations_corpus.py --compiled /tmp/out --reuse  # score folders already there
    .venv/bin/python benchmarks/citations_corpus.py --only biorxiv --src ../peer/src

Documents: ../shared/corpus/papers/*/paper.pdf (17) and benchmarks/.cache/unseen/*/paper.pdf (65; see
benchmarks/unseen_truth.py). Each is compiled through the ``ctxmill compile --ignore-pdf-links`` command (text
only, as a user's OCR text would be); ``--reuse`` scores folders a run like
``benchmarks/corpus.py --keep`` left, provided they were compiled with --ignore-pdf-links.

Truth, from the PDF: every link annotation whose named destination is a citation (hyperref's ``cite.<key>``,
biblatex's ``cite.<refsection>@<key>``, pandoc's ``ref-<key>``). The name is read from the annotation's
dictionary in the file (plain objects and compressed object streams, matched to pdfium's annotation by its
rectangle); pdfium gives the rectangle's text and the destination's page and position. Consecutive
annotations with one name on one page are one callout (a callout broken over a line, natbib's author and
year pieces). The target entry is the printed text starting at the destination: the first character under
the destination point (within 25 pt below it, right of it), read forward 200 characters, its label
([12], 12., [Smi10]) dropped. It is matched to our references.json entry whose raw text (label dropped) shares
the longest prefix with it (at least 12 letters/digits; ties broken by the labels, then the entry's page; else the entry that
contains its first 20), one match per destination name. A callout whose entry none of ours matches counts as
``target_unmatched``.

Score per document, each callout in one class:
  right      a mention on the callout's page (or the page before or after: a paragraph over a page break) covers its text (the mention's text contains it, letters and digits
             compared) and lists the target entry;
  wrong      a covering mention lists other entries only;
  unresolved no covering mention, and an unresolved citation on that page covers it;
  missed     neither (``missed_text_absent`` counts those whose words are nowhere in document.md);
  target_unmatched  covered by a mention but the target entry is none of our references.
Means over documents of each rate; documents without citation links are listed and skipped.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import statistics
import subprocess
import sys
import unicodedata
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from citations import link_annotations, nk  # noqa: E402
from corpus import command  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "papers"
UNSEEN = REPO / "benchmarks" / ".cache" / "unseen"

_TOKEN = re.compile(rb"<<|>>|\((?:\\.|[^\\)])*\)")
_RECT = re.compile(rb"/Rect\s*\[([^\]]+)\]")
_NAME = re.compile(rb"/D(?:est)?\s*(?:\(((?:\\.|[^\\)])*)\)|<([0-9A-Fa-f]+)>|/([^\s/<>\[\]()]+))")


def _buffers(raw: bytes):
    yield raw
    for m in re.finditer(rb"stream\r?\n", raw):
        try:
            yield zlib.decompressobj().decompress(raw[m.end() : m.end() + 4_000_000])
        except zlib.error:
            continue


def _dicts(buf: bytes):
    """Top-level << ... >> dictionaries of a buffer (strings skipped, so a ')' or '>>' inside one is harmless)."""
    depth, start = 0, 0
    for t in _TOKEN.finditer(buf):
        tok = t.group(0)
        if tok == b"<<":
            if depth == 0:
                start = t.start()
            depth += 1
        elif tok == b">>" and depth:
            depth -= 1
            if depth == 0:
                yield buf[start : t.end()]


def link_names(pdf_path: Path) -> dict[tuple, str]:
    """Rectangle (rounded to 0.1 pt) -> destination name, for every link annotation with a named destination.
    benchmarks/citations.py's reader knows one layout (``/A << /D (name) /S /GoTo >> ... /Rect``, in object
    streams); this one reads any key order, plain objects too, and hex or name-object destinations."""
    out: dict[tuple, str] = {}
    for buf in _buffers(pdf_path.read_bytes()):
        if b"/Link" not in buf:
            continue
        for d in _dicts(buf):
            if b"/Link" not in d:
                continue
            r, n = _RECT.search(d), _NAME.search(d)
            if not r or not n:
                continue
            try:
                rect = tuple(round(float(x), 1) for x in r.group(1).split())
            except ValueError:
                continue
            if n.group(1) is not None:
                name = n.group(1).decode("latin-1")
            elif n.group(2) is not None:
                name = bytes.fromhex(n.group(2)).decode("latin-1", "replace")
            else:
                name = n.group(3).decode("latin-1")
            out[rect] = name
    return out


def is_citation(name: str) -> bool:
    return name.startswith("cite.") or name.startswith("ref-")


_LABEL = re.compile(r"^\s*(?:\[[^\]]{1,16}\]|\(\d{1,4}\)|\d{1,4}\.?(?=\s))\s*")


def page_chars(tp) -> list[tuple]:
    """(left, baseline, right, top, char, font size) of every character of a text page."""
    import pypdfium2.raw as c

    ox, oy = ctypes.c_double(), ctypes.c_double()
    out = []
    for i in range(tp.count_chars()):
        left, bottom, right, top = tp.get_charbox(i)
        c.FPDFText_GetCharOrigin(tp.raw, i, ctypes.byref(ox), ctypes.byref(oy))
        out.append((left, oy.value, right, top, tp.get_text_range(i, 1), c.FPDFText_GetFontSize(tp.raw, i)))
    return out


def text_in(chars: list[tuple], rect: tuple) -> str:
    """The characters whose centre lies inside a rectangle, in the page's text order (pdfium's bounded text
    also takes a neighbour's letter that only touches it)."""
    x0, y0, x1, y1 = rect
    return "".join(ch[4] for ch in chars
                   if x0 <= (ch[0] + ch[2]) / 2 <= x1 and y0 <= (ch[1] + ch[3]) / 2 <= y1)


def entry_at(chars: list[tuple], x: float, y: float) -> str:
    """The printed text that starts at a destination point. hyperref puts the point about one line above the
    entry's first baseline (natbib's raise is a \\baselineskip; an \\itemsep may put the line before nearer), so
    the first line is the one under the point and right of it whose baseline is nearest to 1.2 font sizes
    below it. Read left to right from the first character right of the column to its left, with the line
    under it."""
    cand = [ch for ch in chars if ch[4].strip() and ch[2] > ch[0] and ch[0] >= x - 20 and y - 30 <= ch[1] <= y - 1]
    lines: list[list] = []
    for ch in sorted(cand, key=lambda ch: -ch[1]):  # by baseline, top down
        if lines and abs(lines[-1][0][1] - ch[1]) <= 2.5:
            lines[-1].append(ch)
        else:
            lines.append([ch])
    # a column beside it may overhang the point by a letter or two; a line starting well right of the leftmost
    # line under the point is the next column's (the entry's own first line may start a little left of the
    # point, a hanging indent, or right of it, a point set in the margin)
    lines = [ln for ln in lines if len(ln) >= 4]
    if not lines:
        return ""
    leftmost = min(min(ch[0] for ch in ln) for ln in lines)
    lines = [ln for ln in lines if min(ch[0] for ch in ln) <= leftmost + 30]

    def distance(ln):
        size = statistics.median(ch[5] for ch in ln) or 10
        return abs(ln[0][1] - (y - 1.2 * size))

    first = min(lines, key=distance)
    below = [ln for ln in lines if ln[0][1] < first[0][1] - 1][:1]
    out, lo, hi = [], None, None
    for ln in [first, *below]:
        ln = sorted(ln)
        if lo is None:
            run = [ln[0]]
            for ch in ln[1:]:
                # a gap wider than 10 pt after characters that start left of the point: they were the tail of the
                # column to the left or the entry's label (a gap after the entry's own words is a stretched line or the next column, whose words
                # come after the entry's first ones and do not change what its start matches)
                if ch[0] - run[-1][2] > 10 and run[0][0] < x - 3:
                    run = []
                run.append(ch)
            lo, hi = run[0][0], run[-1][2]
        else:
            run = [ch for ch in ln if lo - 20 <= ch[0] <= hi + 2]
        text = ""
        for j, ch in enumerate(run):  # a space where the gap between two characters is wider than a thin space
            if j and ch[0] - run[j - 1][2] > 1.5:
                text += " "
            text += ch[4]
        out.append(text)
    return " ".join(out)


_YEAR_ONLY = re.compile(r"^(1[5-9]|20)\d\d[a-z]?$")
_YEAR_IN = re.compile(r"(?<![\da-z])(?:1[5-9]|20)\d\d[a-z]?(?![\da-z])")


def _first_year(text: str) -> str | None:
    m = _YEAR_IN.search(text.lower())
    return m.group(0) if m else None


def pdf_citation_links(pdf_path: Path) -> tuple[list[dict], dict]:
    """Every citation link of a PDF: page, rectangle text, name, destination page and point, entry text there."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as c

    names = link_names(pdf_path)
    pdf = pdfium.PdfDocument(str(pdf_path))
    links, prefixes = [], {}
    entry_cache: dict[tuple, str] = {}
    chars_of: dict[int, list] = {}

    def chars(index: int) -> list:
        if index not in chars_of:
            chars_of[index] = page_chars(pdf[index].get_textpage())
        return chars_of[index]

    try:
        for pi, box, dest in link_annotations(pdf):
            rect = tuple(round(v, 1) for v in box)
            name = names.get(rect)
            if name is None:  # pdfium and the file may differ in the last digit
                name = next((n for k, n in names.items() if len(k) == 4 and
                             max(abs(a - b) for a, b in zip(k, rect, strict=True)) <= 0.6), None)
            if name is None:
                continue
            prefixes[re.split(r"[.:@-]", name)[0]] = prefixes.get(re.split(r"[.:@-]", name)[0], 0) + 1
            if not is_citation(name) or not dest:
                continue
            dpage = c.FPDFDest_GetDestPageIndex(pdf.raw, dest)
            hx, hy, hz = c.FPDF_BOOL(), c.FPDF_BOOL(), c.FPDF_BOOL()
            dx, dy, dz = c.FS_FLOAT(), c.FS_FLOAT(), c.FS_FLOAT()
            c.FPDFDest_GetLocationInPage(dest, ctypes.byref(hx), ctypes.byref(hy), ctypes.byref(hz),
                                         ctypes.byref(dx), ctypes.byref(dy), ctypes.byref(dz))
            point = (dpage, round(dx.value, 1), round(dy.value, 1)) if hx.value and hy.value else None
            if point is not None and point not in entry_cache:
                entry_cache[point] = entry_at(chars(dpage), dx.value, dy.value)
            text = text_in(chars(pi), box).strip()
            links.append({"page": pi + 1, "name": name, "text": " ".join(text.split()),
                          "dest_page": dpage + 1, "dest_point": point[1:] if point else None,
                          "entry": entry_cache.get(point, "") if point else ""})
    finally:
        pdf.close()
    return links, prefixes


def callouts(links: list[dict]) -> list[dict]:
    """Consecutive pieces with one name on one page are one callout (a piece whose text it already holds, a
    link drawn twice or overlapping the one before, is not added)."""
    out: list[dict] = []
    for lk in links:
        prev = out[-1] if out else None
        if prev and prev["name"] == lk["name"] and prev["page"] == lk["page"]:
            if nk(lk["text"]) not in nk(prev["text"]):
                prev["text"] = f"{prev['text']} {lk['text']}".strip()
            continue
        out.append(dict(lk))
    return out


def _tokens(text: str) -> list[str]:
    # a dash or any other sign between two numbers splits them even where the ASCII fold drops it ("[20–23]")
    folded = unicodedata.normalize("NFKD", re.sub(r"[^\w]", " ", text)).encode("ascii", "ignore").decode().lower()
    return re.findall(r"[a-z]+|\d+", folded)


def covers(mention_text: str, callout_text: str) -> bool:
    """A mention covers a callout whose letters and digits it contains; a numeric or one- or two-letter callout
    must be whole tokens of the mention ("1" is not in "[10]", "a" is in "2009a, b"). A callout that is a year
    alone (the second year of "Di Matteo et al. (2019, 2020)") must be in the mention the callout before it
    matched or one starting at most 20 characters after that one ends, else be the first year of the mention
    (a style that links the year alone: score_document)."""
    key = nk(callout_text)
    if not key:
        return False
    if key.isdigit() or len(key) <= 2:
        want, have = _tokens(callout_text), _tokens(mention_text)
        return any(have[i : i + len(want)] == want for i in range(len(have) - len(want) + 1))
    return key in nk(mention_text)


def _strip_label(text: str) -> str:
    return _LABEL.sub("", text, count=1)


def match_entry(entry: str, dest_page: int, refs: list[dict]) -> str | None:
    """Our reference whose raw text shares the longest prefix with the entry printed at the destination."""
    s = nk(_strip_label(entry))
    if len(s) < 12:
        return None
    best, best_len = [], 11
    for ref in refs:
        r = nk(_strip_label(ref["raw"]))
        n = len(os.path.commonprefix([s, r]))
        if n > best_len:
            best, best_len = [ref], n
        elif n == best_len and best:
            best.append(ref)
    if len(best) > 1:  # one author list twice ([SMB+16a], [SMB+16b]): the labels tell them apart
        full = nk(entry)
        longest = max(len(os.path.commonprefix([full, nk(b["raw"])])) for b in best)
        best = [b for b in best if len(os.path.commonprefix([full, nk(b["raw"])])) == longest]
    if len(best) > 1:
        best = [b for b in best if b.get("page") == dest_page] or best
    if len(best) == 1:
        return best[0]["id"]
    if not best:
        hits = [ref for ref in refs if s[:20] in nk(ref["raw"])]
        if len(hits) == 1:
            return hits[0]["id"]
    return None


def score_document(pdf: Path, out: Path) -> dict:
    links, prefixes = pdf_citation_links(pdf)
    res: dict = {"link_name_prefixes": prefixes}
    if not links:
        res["skipped"] = "no citation links"
        return res
    refs = json.loads((out / "references.json").read_text())
    cit = json.loads((out / "citations.json").read_text())
    by_id = {r["id"]: r for r in refs}
    target_of: dict[str, str | None] = {}
    cos = callouts(links)
    for co in cos:
        if co["name"] not in target_of:
            target_of[co["name"]] = match_entry(co["entry"], co["dest_page"], refs)
    mentions = cit["mentions"]
    unresolved = [u for u in cit["unresolved"] if u.get("kind") == "citation"]
    counts = {"right": 0, "wrong": 0, "unresolved": 0, "missed": 0, "target_unmatched": 0}
    failures = []
    last = absent = 0
    doc_key = nk((out / "document.md").read_text())
    used: set[tuple[int, str]] = set()  # (mention, callout text): "[8, 18, 22]" covers "8", "18" and "22" once each
    for co in cos:
        key = nk(co["text"])
        cover = [j for j, m in enumerate(mentions) if abs(m["page"] - co["page"]) <= 1 and covers(m["text"], co["text"])]
        if _YEAR_ONLY.match(key) and mentions:  # "Di Matteo et al. (2019, 2020)": the 2020 is the mention's own
            end = (mentions[last].get("char_span") or [0, 0])[1]
            near = [j for j in cover if j >= last and (mentions[j].get("char_span") or [0, 0])[0] - end <= 20]
            # else a style that links the year alone, the name unlinked (Taylor & Francis' Interact: "Regnauld
            # (2003)"): a mention whose own first year it is
            cover = near or [j for j in cover if (j, key) not in used and _first_year(mentions[j]["text"]) == key]
        # the callout's own page first (a paragraph running over a page break may carry the page it starts on)
        # and from the mention the callout before it matched on (links and mentions are both in reading order)
        cover.sort(key=lambda j: ((j, key) in used, mentions[j]["page"] != co["page"], j < last, j))
        hit = mentions[cover[0]] if cover else None
        if cover:
            used.add((cover[0], key))
            last = cover[0]
        target = target_of[co["name"]]
        if hit is not None:
            if target is None:
                cls = "target_unmatched"
            else:
                cls = "right" if target in hit["reference_ids"] else "wrong"
        elif any(covers(u["text"], co["text"]) for u in unresolved if abs(u.get("page", 0) - co["page"]) <= 1):
            cls = "unresolved"
        else:
            cls = "missed"
            # the callout's words nowhere in document.md: the compiler lost or dropped that text (a table, a
            # caption, a footnote), not the linker
            absent += key not in doc_key
        counts[cls] += 1
        if cls != "right":
            failures.append({
                "class": "missed (text absent)" if cls == "missed" and key not in doc_key else cls, "page": co["page"], "callout": co["text"], "name": co["name"],
                "entry_printed": co["entry"][:90], "target": target,
                "mention": hit["text"] if hit else None,
                "target_year": by_id[target].get("year") if target in by_id else None,
                "linked": [f"{i}: {by_id[i]['raw'][:60]}" if i in by_id else i for i in hit["reference_ids"]]
                if hit else None,
            })
    n = len(cos)
    res.update({
        "callouts": n, "pieces": len(links), "names": len(target_of),
        "names_matched_to_our_references": sum(v is not None for v in target_of.values()),
        "our_references": len(refs), "our_mentions": len(cit["mentions"]),
        **counts, "missed_text_absent": absent, "found": counts["right"] + counts["wrong"] + counts["target_unmatched"],
        "right_rate": round(counts["right"] / n, 4), "wrong_rate": round(counts["wrong"] / n, 4),
        "found_rate": round((counts["right"] + counts["wrong"] + counts["target_unmatched"]) / n, 4),
        "failures": failures,
    })
    return res


def documents(only: str | None) -> list[tuple[str, str, Path]]:
    out = []
    for group, folder in (("corpus", CORPUS), ("unseen", UNSEEN)):
        for d in sorted(folder.glob("*/")):
            if (d / "paper.pdf").exists() and (not only or only in d.name):
                out.append((group, d.name, d / "paper.pdf"))
    return out


def compile_one(pdf: Path, out: Path, src: Path | None, timeout: float) -> int:
    cmd, env = command(src)
    try:
        return subprocess.run([*cmd, "compile", str(pdf), "-o", str(out), "--ignore-pdf-links", "--json"],
                              capture_output=True, text=True, timeout=timeout, env=env).returncode
    except subprocess.TimeoutExpired:
        return 124


def mean(xs) -> float | None:
    xs = list(xs)
    return round(statistics.fmean(xs), 4) if xs else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compiled", type=Path, required=True, help="output folders, one per document")
    ap.add_argument("--reuse", action="store_true", help="score the folders already under --compiled")
    ap.add_argument("--src", type=Path, help="run ctxmill from this src/ folder (e.g. a peer worktree's)")
    ap.add_argument("--only", help="documents whose slug contains this text")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--failures", type=int, default=60, help="failures listed per document")
    args = ap.parse_args()
    docs = documents(args.only)
    if not args.reuse:
        with ThreadPoolExecutor(args.jobs) as pool:
            rcs = list(pool.map(lambda d: compile_one(d[2], args.compiled / d[1], args.src, args.timeout), docs))
    else:
        rcs = [0] * len(docs)
    rows, skipped = [], []
    for (group, slug, pdf), rc in zip(docs, rcs, strict=True):
        out = args.compiled / slug
        if rc != 0 or not (out / "citations.json").exists():
            skipped.append({"slug": slug, "why": f"compile exit {rc}"})
            continue
        res = score_document(pdf, out)
        if "skipped" in res:
            skipped.append({"slug": slug, "why": res["skipped"], "link_name_prefixes": res["link_name_prefixes"]})
            continue
        res["failures"] = res["failures"][: args.failures]
        rows.append({"group": group, "slug": slug, **res})
    summary = {"documents": len(rows), "skipped": len(skipped)}
    for group in ("all", "corpus", "unseen"):
        rs = [r for r in rows if group == "all" or r["group"] == group]
        summary[group] = {
            "documents": len(rs), "callouts": sum(r["callouts"] for r in rs),
            **{k: sum(r[k] for r in rs) for k in ("right", "wrong", "unresolved", "missed", "missed_text_absent",
                                                  "target_unmatched")},
            "right_rate_mean": mean(r["right_rate"] for r in rs), "wrong_rate_mean": mean(r["wrong_rate"] for r in rs),
            "found_rate_mean": mean(r["found_rate"] for r in rs),
            "names_matched_rate_mean": mean(r["names_matched_to_our_references"] / r["names"] for r in rs),
        }
    src = str(args.src) if args.src else "folders compiled before (--reuse)" if args.reuse else "installed"
    print(json.dumps({"summary": summary, "src": src, "compiled": str(args.compiled), "skipped": skipped,
                      "documents": rows},
                     indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
