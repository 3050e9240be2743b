"""Text fidelity of compiled PDFs against their own text layer: what the reader garbled, glued or lost.

Reads the output folders ``corpus.py --keep DIR`` left (one ``DIR/<slug>/`` per PDF) beside the PDFs
(``PAPERS/<slug>/paper.pdf``) and prints one JSON object, per document and in sum:

- ``fffd``: U+FFFD in document.md; ``fffd_pdf``: in pypdfium2's text layer of the PDF
- ``glued``: a Latin letter directly followed by a Mathematical Alphanumeric letter (U+1D400-U+1D7FF:
  "if𝑛") in document.md; ``glued_pdf``: the same count in the text layer
- ``lost``: words of the text layer (3+ letters, NFKC, case-folded, counted as a multiset; a word
  hyphenated over a line break counted joined) found neither in document.md nor in removed.json's
  texts; ``lost_top``: the most frequent of them

    .venv/bin/python benchmarks/corpus.py --papers benchmarks/.cache/unseen --keep /tmp/k
    .venv/bin/python benchmarks/text_fidelity.py --papers benchmarks/.cache/unseen --keep /tmp/k
"""

from __future__ import annotations

import argparse
import json
import re
import unicodedata
from collections import Counter
from pathlib import Path

_MATH = "\U0001d400-\U0001d7ff"
_GLUED = re.compile(rf"[A-Za-z\u00c0-\u024f][{_MATH}]")
# a word broken over a line: a hyphen, the line break and a line number if the page has them; or
# pdfium's soft hyphen (U+FFFE or U+0002), with or without the break
_BREAK = re.compile(r"(?<=[^\W\d_])(?:-[^\S\n]*\r?\n(?:\s*\d{1,4}\s)?\s*|[\ufffe\x02]\s*(?:\d{1,4}\s)?)(?=[^\W\d_])")
# a hyphen inside a word in the output (a break the compiler kept, "algo-rithm"): its halves joined too
_INNER_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")


def pdf_text(pdf: Path) -> str:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        parts = []
        for i in range(len(doc)):
            page = doc[i]
            tp = page.get_textpage()
            parts.append(tp.get_text_range())
            tp.close()
            page.close()
        return "\n".join(parts)
    finally:
        doc.close()


# accents as the text layer may give them, apart from their letter ("M¨obius", "s´ci"): both sides are
# compared without accents, so a word the compiler composed ("Möbius") is no loss
_SPACING_ACCENTS = dict.fromkeys(map(ord, "¨´`ˆ˜ˇ˘˙¸˝˚¯˛^~'’"), None)


# a spacing accent the layer sets apart by a blank from the letter it goes on: within a word ("uwag ˛e" is
# "uwagę") or at the next word's start ("RSA `e" is "RSA è", "uygun ¸sekilde" is "uygun şekilde"). The layer
# cannot tell which, so the blank becomes _JOIN and such a word counts as found in either reading
_APART_ACCENT = re.compile(r"(?<=[^\W\d_])[^\S\n]+(?=[¨´`ˆ˜ˇ˘˙¸˝˚¯˛][^\W\d_])")
_JOIN = "\ue000"  # private use: no text holds it, and it is no word character
_TOKEN = re.compile(rf"[^\W\d_]+(?:{_JOIN}[^\W\d_]+)*")


def _fold(text: str) -> str:
    text = _APART_ACCENT.sub(_JOIN, text)
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text.translate(_SPACING_ACCENTS)))
    return "".join(c for c in text if not unicodedata.combining(c))


def words(text: str) -> Counter:
    """Words of 3+ letters, case-folded; one joined at an apart accent keeps _JOIN where the blank was."""
    return Counter(w.casefold() for w in _TOKEN.findall(_fold(text)) if len(w.replace(_JOIN, "")) >= 3)


def _readings(word: str) -> tuple[str, list[str]]:
    """A word with _JOIN read as one word, and as the words of 3+ letters it holds apart."""
    return word.replace(_JOIN, ""), [p for p in word.split(_JOIN) if len(p) >= 3]


def _spread(have: Counter) -> Counter:
    """The output's words with each _JOIN word counted in both readings."""
    out = Counter()
    for w, n in have.items():
        joined, parts = _readings(w)
        out[joined] += n
        for p in parts if _JOIN in w else ():
            out[p] += n
    return out


def lost_words(want: Counter, have: Counter) -> Counter:
    """Words of ``want`` not in ``have``. A _JOIN word is found as one word or as its parts, after the plain words
    have taken theirs ("RSA `e" needs a "rsa" beyond the layer's other ones)."""
    left = _spread(have)
    lost = Counter()
    for w, n in want.items():
        if _JOIN not in w:
            k = min(n, left[w])
            left[w] -= k
            if n > k:
                lost[w] += n - k
    for w, n in want.items():
        if _JOIN in w:
            joined, parts = _readings(w)
            for _ in range(n):
                if left[joined] > 0:
                    left[joined] -= 1
                elif all(left[p] >= c for p, c in Counter(parts).items()):
                    for p in parts:
                        left[p] -= 1
                else:
                    lost[joined] += 1
    return lost


def measure(pdf: Path, out: Path) -> dict:
    layer = pdf_text(pdf)
    md = (out / "document.md").read_text(encoding="utf-8", errors="replace") if (out / "document.md").exists() else ""
    removed = ""
    rj = out / "removed.json"
    if rj.exists():
        data = json.loads(rj.read_text())
        removed = "\n".join(r.get("text", "") for r in data.get("removed", []))
    want = words(_BREAK.sub("", layer))
    have = words(md) | words(_INNER_HYPHEN.sub("", md)) | words(md.replace("\\", " "))
    have.update(words(removed))
    lost = lost_words(want, have)
    return {"fffd": md.count("\ufffd"), "fffd_pdf": layer.count("\ufffd"),
            "glued": len(_GLUED.findall(md)), "glued_pdf": len(_GLUED.findall(layer)),
            "lost": sum(lost.values()), "words": sum(want.values()),
            "lost_top": [f"{w} {n}" for w, n in lost.most_common(8)]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=Path, required=True, help="folder of <slug>/paper.pdf")
    ap.add_argument("--keep", type=Path, required=True, help="corpus.py --keep folder of <slug>/ outputs")
    ap.add_argument("--only", help="only slugs containing this text")
    args = ap.parse_args()
    docs = {}
    for d in sorted(args.keep.iterdir()):
        pdf = args.papers / d.name / "paper.pdf"
        if d.is_dir() and pdf.exists() and (not args.only or args.only in d.name):
            docs[d.name] = measure(pdf, d)
    total = {k: sum(v[k] for v in docs.values()) for k in ("fffd", "fffd_pdf", "glued", "glued_pdf", "lost", "words")}
    total["glued_beyond_pdf"] = sum(max(0, v["glued"] - v["glued_pdf"]) for v in docs.values())
    total["documents"] = len(docs)
    print(json.dumps({"summary": total, "documents": docs}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
