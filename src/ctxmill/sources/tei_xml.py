"""GROBID's TEI XML (the ``processFulltextDocument`` output) -> labelled blocks in reading order.

GROBID has already parsed the paper: the ``teiHeader`` holds the title (``titleStmt/title``), the
authors (``sourceDesc/biblStruct/analytic/author``: ``persName`` with ``forename`` / ``surname``,
``email``, ``affiliation`` with ``orgName`` and ``address``), the keywords and the abstract
(``profileDesc``); ``text/body`` and ``text/back`` are ``div``s whose ``head`` carries the section
number in its ``n`` attribute (``<head n="4.2.1">The VMM Interface</head>``), with ``p``, ``formula``,
``figure`` (``head``, ``figDesc``; ``type="table"`` ones a ``table`` of ``row`` / ``cell``), ``note``
and ``list`` inside; ``back`` holds the acknowledgement and annex divs and the ``listBibl`` of
``biblStruct`` entries whose fields (authors, titles, venue, volume, pages, date, DOI) GROBID found.

:func:`blocks` gives ``(category, text)`` pairs as engines.py's other layout readers do. Where a
paper numbers its heads, a head without a number is a section only when it is a standard one
(References, Acknowledgments ...) or in the back matter (an annex's "A Sample Attacks"):
GROBID also takes a figure's box labels and run-in paragraph lead-ins for heads, and those are
written as paragraphs (their words kept). Each reference is written as one list item under a
"References" heading, from its raw string where GROBID kept it (``note type="raw_reference"``),
else from its fields in one plain order (a word of the entry that no field wrote goes to
removed.json); the header's words that no block holds (an ORCID, an
address line) go to removed.json, so nothing is lost in silence.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter

from ctxmill.sources.tables import html_table

_NS = re.compile(r"\{[^}]*\}")
_WORD = re.compile(r"\w+")
_SECTION_NUMBER = re.compile(r"(?:\d{1,2}|[A-Z])(?:\.\d{1,2}){0,4}\.?")
_STANDARD = {
    "abstract", "references", "bibliography", "acknowledgments", "acknowledgements", "acknowledgment",
    "acknowledgement", "appendix", "appendices", "conclusion", "conclusions", "introduction", "discussion",
    "related work", "funding", "limitations", "summary", "future work"}


def is_tei(text: str) -> bool:
    """A TEI document: a ``<TEI`` root in the TEI namespace, after an optional declaration and comments."""
    head = text[:4000].lstrip("\ufeff \t\r\n")
    head = re.sub(r"\A(?:<\?xml[^>]*\?>\s*|<!--.*?-->\s*)*", "", head, flags=re.S)
    return bool(re.match(r'<(?:tei:)?TEI\b[^>]*xmlns(?::tei)?="http://www\.tei-c\.org/ns/1\.0"', head))


def maker(text: str) -> str | None:
    """What the output says about the program that wrote it: ``<application ident="GROBID">``."""
    m = re.search(r'<application\b[^>]*\bident="([^"]+)"', text[:20000])
    return m.group(1) if m else None


def parse(text: str) -> ET.Element | None:
    """The XML tree, None where the text is no well-formed XML or declares entities (no expansion
    of an entity is done for an engine output: a DOCTYPE is no part of GROBID's TEI)."""
    if re.search(r"<!DOCTYPE|<!ENTITY", text[:20000], re.I):
        return None
    try:
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError):
        return None
    for el in root.iter():
        if isinstance(el.tag, str):
            el.tag = _NS.sub("", el.tag)
    return root


def _words(el: ET.Element | None, sep: str = "") -> str:
    """The element's text on one line; ``sep`` " " for a record of fields (an address's lines, a
    reference's parts), whose elements hold no spaces between them."""
    return " ".join(sep.join(el.itertext()).split()) if el is not None else ""


class _Reader:
    def __init__(self, root: ET.Element):
        self.root = root
        self.out: list[tuple[str, str]] = []
        heads = [h for h in root.iter("head") if h.get("n")]
        self.numbered = len(heads) >= 3

    def emit(self, category: str, text: str) -> None:
        text = text.strip()
        if text:
            self.out.append((category, text))

    # ------------------------------------------------------------------ header

    def header(self) -> None:
        hdr = self.root.find("teiHeader")
        if hdr is None:
            return
        start = len(self.out)
        title = hdr.find("fileDesc/titleStmt/title")
        if title is not None and _words(title):
            self.emit("title", _words(title))
        analytic = hdr.find("fileDesc/sourceDesc/biblStruct/analytic")
        if analytic is not None:
            self.authors(analytic)
        for idno in hdr.iterfind("fileDesc/sourceDesc/biblStruct/idno"):
            kind = (idno.get("type") or "").upper()
            if kind != "MD5" and _words(idno):  # (MD5: the input file's checksum, no part of the paper)
                self.emit("text", f"{kind or 'ID'}: {_words(idno)}")
        keywords = hdr.find("profileDesc/textClass/keywords")
        if keywords is not None:
            terms = [_words(t) for t in keywords.iter("term") if _words(t)] or [_words(keywords)]
            self.emit("text", "Keywords: " + "; ".join(t for t in terms if t))
        abstract = hdr.find("profileDesc/abstract")
        if abstract is not None:
            paras = [_words(p) for p in abstract.iter("p")] or [_words(abstract)]
            for k, p in enumerate(q for q in paras if q):
                # (a run-in label, not a heading: GROBID's TEI prints none, and the metadata stage
                # reads an "Abstract" lead as the abstract's start)
                self.emit("text", ("Abstract: " if k == 0 else "") + p)
        # what is left of the header (a publisher, a date, an ORCID, the title's second copy in
        # sourceDesc, an affiliation two authors share): listed in removed.json, not lost
        # (not GROBID's own name and settings, encodingDesc, nor the input file's MD5)
        skip = {id(x) for el in (hdr.find("encodingDesc"), *(i for i in hdr.iter("idno") if
                                                             (i.get("type") or "").upper() == "MD5"))
                if el is not None for x in el.iter()}
        pieces = [" ".join(t.split()) for x in hdr.iter() if id(x) not in skip
                  for t in (x.text, *(c.tail for c in x if id(c) not in skip)) if t and t.strip()]
        left = _pieces_left(pieces, " ".join(t for _, t in self.out[start:]))
        if left:
            self.emit("discarded", " | ".join(left))

    def authors(self, analytic: ET.Element) -> None:
        names: list[str] = []
        affs: list[str] = []
        mails: list[str] = []
        for a in analytic.iterfind("author"):
            pers = a.find("persName")
            if pers is not None:
                fore = " ".join(_words(f) for f in pers.iterfind("forename") if _words(f))
                sur = " ".join(_words(s) for s in pers.iterfind("surname") if _words(s))
                name = " ".join(x for x in (fore, sur) if x) or _words(pers)
                # GROBID may write one author twice, the name cut at an accent ('Guy Par' beside
                # 'Guy Paré'): the longer spelling is kept
                same = next((k for k, n in enumerate(names) if _same_person(n, name)), None)
                if same is None:
                    names.append(name)
                else:  # (the other spelling goes to removed.json with the header's other leftovers)
                    names[same] = max(name, names[same], key=len)
            for aff in a.iterfind("affiliation"):
                text = _affiliation(aff)
                if text and text not in affs:
                    affs.append(text)
            for m in a.iterfind("email"):
                if _words(m) and _words(m) not in mails:
                    mails.append(_words(m))
        if names:
            self.emit("text", ", ".join(names))
        for aff in affs:
            self.emit("text", aff)
        if mails:
            self.emit("text", ", ".join(mails))

    # ------------------------------------------------------------------ body and back

    def text(self) -> None:
        text = self.root.find("text")
        if text is None:
            return
        for part in text:
            if part.tag in ("front", "body", "back"):
                self.walk(part, back=part.tag == "back")

    def walk(self, el: ET.Element, back: bool) -> None:
        for c in el:
            tag = c.tag
            if tag == "div":
                self.walk(c, back)
            elif tag == "head":
                self.head(c, back)
            elif tag == "p":
                self.emit("text", _words(c))
            elif tag == "formula":
                self.emit("formula", _words(c))
            elif tag == "figure":
                self.figure(c)
            elif tag == "note":
                self.emit("footnote", _words(c))
            elif tag == "list":
                for item in c.iter("item"):
                    t = _words(item)
                    self.emit("list_item", t if re.match(r"(?:[-•*]|\(?\w{1,3}[.)])\s", t) else "- " + t)
            elif tag == "listBibl":
                self.bibliography(c)
            elif isinstance(tag, str):
                self.emit("text", _words(c))

    def head(self, h: ET.Element, back: bool) -> None:
        title = _words(h)
        if not title:
            return
        n = (h.get("n") or "").strip()
        if n and _SECTION_NUMBER.fullmatch(n):
            self.emit("section_header", f"{n.rstrip('.')} {title}")
        elif not self.numbered or back or _standard(title):
            self.emit("section_header", title)
        else:  # a figure's box label or a run-in lead-in GROBID took for a head: its words, as text
            self.emit("text", title)

    def figure(self, fig: ET.Element) -> None:
        head, desc = _words(fig.find("head")), _words(fig.find("figDesc"))
        label = _words(fig.find("label"))
        table = fig.find("table")
        is_table = fig.get("type") == "table"
        kind = "Table" if is_table else "Figure"
        if desc and not re.match(r"(?:Figure|Fig\.|Table)\s*\w", desc, re.I):
            caption = f"{kind} {label}: {desc}" if label else (f"{head} {desc}" if head else desc)
        else:
            caption = desc or head
        if not is_table:
            self.emit("image", "")
        if caption:
            self.emit("caption", caption)
        if head and head not in caption:  # ("Figure 1 ." beside a description that prints its label)
            self.emit("discarded", head)
        if table is not None:
            rows = [[(_words(cell), 1, 1, False) for cell in row.iterfind("cell")] for row in table.iterfind("row")]
            rows = [r for r in rows if any(t for t, *_ in r)]
            if rows:
                self.emit("table", html_table(rows))
            elif _words(table):  # (older GROBID: the table's words in one run, no cells)
                self.emit("text", _words(table))
        for note in fig.iterfind("note"):
            self.emit("footnote", _words(note))

    def bibliography(self, lst: ET.Element) -> None:
        structs = list(lst.iter("biblStruct"))
        entries = [_entry(b) for b in structs]
        if not any(entries):
            return
        self.emit("section_header", "References")
        rest = []
        for b, e in zip(structs, entries, strict=True):
            if e:
                self.emit("list_item", "- " + e)
            rest.append(_left_over(_words(b, " "), e))
        if any(rest):  # (listed in removed.json: not lost, and no entry repeats a word it holds)
            self.emit("discarded", " ".join(r for r in rest if r))


def _standard(title: str) -> bool:
    return " ".join(re.sub(r"[^a-z ]+", " ", title.lower()).split()) in _STANDARD


def _same_person(a: str, b: str) -> bool:
    x, y = a.split(), b.split()
    if len(x) != len(y) or not x or x[:-1] != y[:-1]:
        return False
    s, t = sorted((x[-1], y[-1]), key=len)
    return len(s) >= 2 and t.startswith(s) and len(t) - len(s) <= 2


def _affiliation(aff: ET.Element) -> str:
    parts = [_words(o) for o in aff.iter("orgName") if _words(o)]
    address = aff.find("address")
    if address is not None:
        parts += [_words(x, " ") for x in address if _words(x, " ")]
    if not parts:
        parts = [_words(aff)]
    return ", ".join(p for p in parts if p)


def _person(p: ET.Element) -> str:
    pers = p.find("persName") if p.tag != "persName" else p
    if pers is None:
        return _words(p)
    fore = " ".join(_words(f) for f in pers.iterfind("forename") if _words(f))
    sur = " ".join(_words(s) for s in pers.iterfind("surname") if _words(s))
    return " ".join(x for x in (fore, sur) if x) or _words(pers)


def _names(people: list[str]) -> str:
    people = [p for p in people if p]
    if len(people) <= 1:
        return "".join(people)
    return ", ".join(people[:-1]) + " and " + people[-1]


def _entry(b: ET.Element) -> str:
    """One reference as a plain string: GROBID's raw string where it kept one, else its fields
    (authors. title. venue, volume(issue), pages, publisher, place, year. DOI), then any words of
    the entry no field took."""
    raw = next((_words(n) for n in b.iter("note") if n.get("type") == "raw_reference"), "")
    if raw:
        return raw
    analytic, monogr = b.find("analytic"), b.find("monogr")
    authors = [_person(a) for a in (analytic if analytic is not None else b).iterfind("author")]
    if not authors and monogr is not None:
        authors = [_person(a) for a in monogr.iterfind("author")]
    parts: list[str] = []
    if authors:
        parts.append(_names(authors) + ".")
    title = _words(analytic.find("title")) if analytic is not None else ""
    venue = ""
    if monogr is not None:
        mtitle = _words(monogr.find("title"))
        if title:
            venue = mtitle
        else:
            title = mtitle
        meeting = _words(monogr.find("meeting"), " ")
        if meeting and meeting not in venue:
            venue = ", ".join(x for x in (venue, meeting) if x)
    if title:
        parts.append(title.rstrip(".") + ".")
    imprint = monogr.find("imprint") if monogr is not None else None
    bits: list[str] = [venue] if venue else []
    year = ""
    if imprint is not None:
        scopes = {s.get("unit"): s for s in imprint.iterfind("biblScope")}
        vol, issue = _words(scopes.get("volume")), _words(scopes.get("issue"))
        if vol:
            bits.append(vol + (f"({issue})" if issue else ""))
        elif issue:
            bits.append(f"no. {issue}")
        page = scopes.get("page")
        if page is not None:
            lo, hi = page.get("from"), page.get("to")
            pages = f"{lo}-{hi}" if lo and hi else (lo or _words(page))
            if pages:
                bits.append(f"pp. {pages}")
        for key in ("publisher", "pubPlace"):
            if _words(imprint.find(key)):
                bits.append(_words(imprint.find(key)))
        date = imprint.find("date")
        if date is not None:
            year = (date.get("when") or "")[:4] if re.match(r"\d{4}", date.get("when") or "") else _words(date)
    if bits:
        parts.append(", ".join(bits) + ("," if year else "."))
    if year:
        parts.append(year + ".")
    for idno in b.iter("idno"):
        if _words(idno):
            parts.append(f"{idno.get('type') or 'ID'}: {_words(idno)}.")
    for ptr in b.iter("ptr"):
        if ptr.get("target"):
            parts.append(ptr.get("target"))
    return " ".join(" ".join(parts).split())


def _pieces_left(pieces: list[str], written: str) -> list[str]:
    """The text pieces (an element's text) whose words ``written`` does not hold, whole and in
    their order: a piece all of whose words are written uses them up."""
    have = Counter(w.lower() for w in _WORD.findall(written))
    out = []
    for piece in pieces:
        need = Counter(w.lower() for w in _WORD.findall(piece))
        if all(have[w] >= n for w, n in need.items()):
            have -= need
        else:
            out.append(piece)
    return out


def _left_over(source: str, written: str) -> str:
    """The words of ``source`` that ``written`` does not hold (as many times as it lacks them), in
    their order: what a field put twice (a meeting repeating the proceedings' title) or no field
    took, for removed.json."""
    have = Counter(w.lower() for w in _WORD.findall(written))
    out = []
    for w in _WORD.findall(source):
        if have[w.lower()] > 0:
            have[w.lower()] -= 1
        else:
            out.append(w)
    return " ".join(out)


def blocks(root: ET.Element) -> list[tuple[str, str]]:
    """The blocks of a TEI document (its parsed tree, :func:`parse`)."""
    r = _Reader(root)
    r.header()
    r.text()
    return r.out
