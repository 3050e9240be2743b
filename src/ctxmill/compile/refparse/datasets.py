"""Read labelled reference strings: GROBID's TEI citation files, AnyStyle's parser XML and
ParsCit's tagged reference lines.

Both become ``(text, spans)``: the reference string with whitespace collapsed and the
labelled character spans ``[(start, end, label)]`` in our label set (LABELS). Used by
scripts/train_refparse.py to train and by benchmarks/references.py to score on the held-out
files; the product itself never reads these.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from ctxmill.compile.refparse.tokens import tokenize

LABELS = (
    "author", "editor", "title", "container", "collection", "volume", "issue", "pages", "date",
    "publisher", "location", "edition", "doi", "url", "arxiv", "isbn", "note",
)
Example = tuple[str, list[tuple[int, int, str]]]

_TEI = "{http://www.tei-c.org/ns/1.0}"
_ANYSTYLE = {
    "author": "author", "editor": "editor", "translator": "note", "director": "author",
    "producer": "author", "title": "title", "container-title": "container", "journal": "container",
    "collection-title": "collection", "volume": "volume", "issue": "issue", "pages": "pages",
    "date": "date", "publisher": "publisher", "location": "location", "edition": "edition",
    "doi": "doi", "url": "url", "isbn": "isbn", "note": "note", "genre": "note", "medium": "note",
    "source": "note", "citation-number": None, "arxiv": "arxiv",
}

# ParsCit's tags (crfpp/taggeddata/*.tagged.txt: CORA and its other sets). A proceedings'
# or book's title holding the cited work is its container, as GROBID's level "m" title
# with an article title; an institution issues a report (GROBID's orgName after the title);
# "tech" is the report's kind and number, a note; "note"/"notes" notes.
_PARSCIT = {
    "author": "author", "editor": "editor", "title": "title", "booktitle": "container",
    "journal": "container", "volume": "volume", "pages": "pages", "date": "date",
    "publisher": "publisher", "institution": "publisher", "location": "location",
    "tech": "note", "note": "note", "notes": "note",
}
_PARSCIT_TAG = re.compile(r"<(/?)([a-z]+)>")


class _Builder:
    """Collects text pieces and their labels into one whitespace-collapsed string."""

    def __init__(self) -> None:
        self.text = ""
        self.spans: list[tuple[int, int, str]] = []

    def add(self, piece: str | None, label: str | None) -> None:
        if not piece:
            return
        piece = re.sub(r"\s+", " ", piece)
        if self.text.endswith(" ") or not self.text:
            piece = piece.lstrip()
        if not piece:
            return
        start = len(self.text)
        self.text += piece
        if label:
            s = start + (len(piece) - len(piece.lstrip()))
            e = start + len(piece.rstrip())
            if e > s:
                if self.spans and self.spans[-1][2] == label and self.spans[-1][1] == s:
                    self.spans[-1] = (self.spans[-1][0], e, label)
                else:
                    self.spans.append((s, e, label))

    def done(self) -> Example:
        text = self.text.rstrip()
        return text, [(s, min(e, len(text)), lab) for s, e, lab in self.spans if s < len(text)]


def _tei_label(el: ET.Element, has_article_title: bool, seen_title: bool) -> str | None:
    tag = el.tag.replace(_TEI, "").lower()
    typ = (el.get("type") or el.get("unit") or "").lower()
    if tag in ("author", "editor"):
        return tag
    if tag == "title":
        level = el.get("level", "")
        if level == "a":
            return "title"
        if level == "j":
            return "container"
        if level == "s":
            return "collection"
        return "container" if has_article_title else "title"  # a book, or the book of a chapter
    if tag == "biblscope":
        return {"volume": "volume", "vol": "volume", "issue": "issue", "page": "pages", "pp": "pages"}.get(typ, "note")
    if tag == "date":
        return "date"
    if tag == "publisher":
        return "publisher"
    if tag == "pubplace":
        return "location"
    if tag == "orgname":
        # a collaboration is an author; an institution before the title is the author too
        # ("OpenAI. 2017. ..."), after it the issuing body (a thesis, a report)
        return "author" if typ == "collaboration" or not seen_title else "publisher"
    if tag == "idno":
        return {"doi": "doi", "arxiv": "arxiv", "isbn": "isbn"}.get(typ, "note")
    if tag == "ptr":
        return "url"
    if tag in ("note", "edition"):
        return "edition" if tag == "edition" else "note"
    return None


def read_tei(path: str | Path) -> list[Example]:
    """Every ``<bibl>`` of a GROBID TEI citation file."""
    root = ET.parse(path).getroot()
    out = []
    for bibl in root.iter(f"{_TEI}bibl"):
        has_a = any(t.get("level") == "a" for t in bibl.iter(f"{_TEI}title"))
        b = _Builder()
        b.add(bibl.text, None)
        seen_title = False
        for child in bibl:
            label = _tei_label(child, has_a, seen_title)
            if child.tag == f"{_TEI}title":
                seen_title = True
            b.add(" ".join("".join(child.itertext()).split()) if label else "".join(child.itertext()), label)
            b.add(child.tail, None)
        ex = b.done()
        if ex[0] and ex[1]:
            out.append(ex)
    return out


def read_anystyle(path: str | Path) -> list[Example]:
    """Every ``<sequence>`` of an AnyStyle parser data set."""
    return _read_sequences(path, " ")


def read_bbl(path: str | Path) -> list[Example]:
    """Every ``<sequence>`` of scripts/bbl_refdata.py's files: AnyStyle's tags, whose children
    hold the text between fields too (in ``<ignore>``), so they are joined as they are."""
    return _read_sequences(path, "")


def _read_sequences(path: str | Path, sep: str) -> list[Example]:
    """The labelled ``<sequence>``s of a file in AnyStyle's XML, children joined by ``sep``
    (read_anystyle's files hold no text between fields, read_bbl's do)."""
    root = ET.parse(path).getroot()
    out = []
    for seq in root.iter("sequence"):
        b = _Builder()
        for child in seq:
            if b.text:
                b.add(sep, None)
            b.add(child.text or "", _ANYSTYLE.get(child.tag))
        ex = b.done()
        if ex[0] and ex[1]:
            out.append(ex)
    return out


def read_parscit(path: str | Path) -> list[Example]:
    """Every line of a ParsCit tagged file: ``<author> A. Cau, ... </author> <title> ...
    </title> ...``, one reference a line (text outside the tags, and the tags ParsCit uses
    for something else, ``<br>`` and ``<contexts>``, unlabelled)."""
    out = []
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        b = _Builder()
        label, at = None, 0
        for m in _PARSCIT_TAG.finditer(line):
            if m.group(2) not in _PARSCIT:
                b.add(line[at:m.start()], label)
                b.add(" ", None)
                at = m.end()
                continue
            b.add(line[at:m.start()], label)
            b.add(" ", None)
            label = None if m.group(1) else _PARSCIT[m.group(2)]
            at = m.end()
        b.add(line[at:], label)
        ex = b.done()
        if ex[0] and ex[1]:
            out.append(ex)
    return out


def token_labels(text: str, spans: list[tuple[int, int, str]]) -> tuple[list[tuple[str, int, int]], list[str]]:
    """Tokens of ``text`` (as tokenize() gives them) and a label for each ("O" outside every span).

    The punctuation at either end of a labelled span ("Heidegger M.," "(2011).") is labelled
    "O": AnyStyle keeps it in the field, GROBID leaves it outside, and the fields we output
    do not want it either, so both data sets teach the model one convention.
    """
    toks = tokenize(text)
    chars = [None] * len(text)
    ids = [-1] * len(text)
    for k, (s, e, lab) in enumerate(spans):
        for i in range(s, e):
            chars[i], ids[i] = lab, k
    words = [t for t, _, _ in toks]
    labels = [chars[s] or "O" for _, s, _ in toks]
    seg = [ids[s] for _, s, _ in toks]
    i = 0
    while i < len(toks):
        j = i
        while j < len(toks) and seg[j] == seg[i]:
            j += 1
        if seg[i] >= 0:
            a, b = i, j
            while a < b and _punct(words[a]):
                labels[a] = "O"
                a += 1
            while b > a and _punct(words[b - 1]):
                labels[b - 1] = "O"
                b -= 1
        i = j
    return toks, labels


def _punct(tok: str) -> bool:
    return len(tok) == 1 and not tok.isalnum()


def norm_key(text: str) -> str:
    """The key two copies of one reference string share (case, spacing, punctuation aside)."""
    return re.sub(r"[\W_]+", "", text.lower())
