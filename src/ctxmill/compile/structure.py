"""Structure: title, headings with true levels, captions, footnotes, lists, the bibliography,
paragraphs re-flowed across page breaks and floats, then sections and stable block ids.

Heading levels come from the section numbering ("3.2" is depth 2, so ``###``), from fonts when
a heading has no number, and from the PDF outline when there is one. Without an outline (raw
OCR text) numbering and fonts alone decide, with a sequence check so that numbered list items
are not mistaken for sections.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import pairwise
from operator import attrgetter

from ctxmill.compile import slides
from ctxmill.compile.blocks import (
    BIBLIOGRAPHY_TITLES,
    CAPTION_RE,
    HEADING_NUM_RE,
    LIST_RE,
    LONE_LETTER_END,
    UNNUMBERED_HEADINGS,
    aside,
    runs_on,
)
from ctxmill.compile.headings import (
    KEYWORDS,
    MAYBE_TOC_TITLE_RE,
    Number,
    deepen_by_number,
    in_margin,
    parse_number,
    roman_value,
    text_columns,
    toc_blocks,
)
from ctxmill.compile.options import CompileOptions
from ctxmill.linescan import line_hits, one_line_each
from ctxmill.model import Block, Document, Kind, Section

FLOATS = (Kind.FIGURE, Kind.TABLE, Kind.FOOTNOTE, Kind.FURNITURE, Kind.CAPTION)
_TEXT = attrgetter("text")
FOOTNOTE_START_RE = re.compile(r"^\[\^([\w*†‡§¶]{1,4})\]\s*(\S.*)$", re.S)
SENTENCE_END_RE = re.compile(r"[.!?:;]['\"”’)\]]*$|[.!?]\)$")


_FOOTNOTE_MARK_RE = re.compile(r"\[\^[^\]]*\]")
# one footnote mark with its key ("[^3]", "[^a,b]"), and a run of them ("10[^-][^3]")
_MARK_KEY_RE = re.compile(r"\[\^([^\]]+)\]")
_MARK_RUN_RE = re.compile(r"(?:\[\^[^\]]+\])+")
_URL_NOTE_RE = re.compile(r"\s*(?:https?://|www\.)\S+(?:\s+(?:and\s+)?(?:https?://|www\.)?\S+)?\s*$")  # a note of URLs
_NON_WORD_RE = re.compile(r"[^\w]+")
_SPACES_RE = re.compile(r"\s+")
_NOT_LOWER_RE = re.compile(r"[^a-z]")


def norm_title(text: str) -> str:
    t = unicodedata.normalize("NFKD", text)
    if not t.isascii():
        t = t.replace("’", "'").replace("–", "-").replace("—", "-")
    if "[^" in t:
        t = _FOOTNOTE_MARK_RE.sub("", t)
    # (each run of non-word characters becomes one space: no two spaces are left to collapse)
    return _NON_WORD_RE.sub(" ", t.lower()).strip()


def _appendix_word(text: str) -> bool:
    """The letters of ``text`` spell "appendix" or "appendices" (both hold two p's: the
    substitution runs only on the few texts that do)."""
    t = text.lower()
    return t.count("p") == 2 and _NOT_LOWER_RE.sub("", t) in ("appendix", "appendices")


# a search costs ~1 ns a character, a pass's step ~0.3 us a block: blocks longer than this on
# average (paragraphs of prose, ~300 characters) are read one by one as before
_HITS_MAX_CHARS = 150


# The branch of a line-search pattern for a line holding a character outside ASCII: a possessive
# scan of every line (~8 ms a MB of raw OCR lines), which finds nothing in ASCII text, searched
# without it there (_ascii_form: the pattern less that branch, compiled once)
_NON_ASCII_BRANCH = r"[\x00-\x09\x0b-\x7f]*+[^\x00-\x7f]|"
_ASCII_FORMS: dict[re.Pattern, re.Pattern] = {}


def _ascii_form(pattern: re.Pattern) -> re.Pattern:
    form = _ASCII_FORMS.get(pattern)
    if form is None:
        form = _ASCII_FORMS[pattern] = re.compile(pattern.pattern.replace(_NON_ASCII_BRANCH, ""), pattern.flags) \
            if _NON_ASCII_BRANCH in pattern.pattern else pattern
    return form


# The texts the last _hits call read and what its search reads in them: the passes that call it
# one after another mostly read the same texts (raw OCR text: 47,000 a MB, joined six times).
# One entry, a (texts, prepared) pair set and read whole; dropped at the end of run().
_LAST_HITS: list = [None]


def _hits(blocks: list[Block], pattern: re.Pattern) -> list[int]:
    """Indices (ascending, once each) of the blocks whose text starts a line ``pattern`` finds
    at its line break, in the texts joined by line breaks after a first one: one scan instead
    of a Python step per block.

    A pass's rules read a block's own text from its start; ``pattern`` (a line break, then a
    lookahead that reads no further than its line) finds every block those rules could fire on,
    and the pass tests only these (raw OCR text: 47,000 one-line paragraphs a MB, a few of which
    start like a number, a caption or a list item). A block of several lines is always returned:
    the pattern does not read across its line breaks. (A pattern that starts with its line break
    is searched for that character: ctxmill.linescan.)"""
    texts = list(map(_TEXT, blocks))  # (in C: six passes read every block's text)
    last = _LAST_HITS[0]
    if last is not None and last[0] == texts:  # (the same texts as the pass before: read as it read them)
        joined, several, ascii = last[1]
    else:
        joined, several, ascii = prepared = _hits_text(texts)
        _LAST_HITS[0] = (texts, prepared)
    if joined is None:
        return list(range(len(texts)))
    found = line_hits(_ascii_form(pattern) if ascii else pattern, joined)
    return sorted({*found, *several}) if several else found


def _hits_text(texts: list[str]) -> tuple[str | None, list[int], bool]:
    """What _hits searches in ``texts``: their joined text (None where blocks are long), the
    blocks of several lines (returned whatever the search finds), and whether it is ASCII."""
    if sum(map(len, texts)) > _HITS_MAX_CHARS * len(texts):  # (long blocks, prose: the pass's own
        return None, [], False  # step per block costs less than a search of all its text)
    joined = "\n" + "\n".join(texts)
    if joined.count("\n") == len(texts):  # one line each: a block's index is its line's
        return joined, [], joined.isascii()
    joined, several = one_line_each(texts)  # (those of several lines are returned whatever is found)
    return joined, several, joined.isascii()


def run(doc: Document, options: CompileOptions) -> None:
    try:
        _run(doc)
    finally:
        _LAST_HITS[0] = None  # (the document's texts are not held after it, nor after an error)


def _run(doc: Document) -> None:
    blocks = [b for b in doc.blocks if not (b.kind is Kind.PARAGRAPH and not b.text.strip())]
    body_size = _body_size(blocks)
    # (a page-image OCR format, ALTO or PAGE XML, types a title where it has one: no guess from a short line)
    _title(blocks, body_size, guess=not doc.stream.info.get("title_typed_only"))
    _headings(doc, blocks, body_size)
    blocks = _numbered_run_in_sections(doc, blocks)
    blocks = _run_in_heads(doc, blocks, body_size)
    blocks = _numbered_run_in(doc, blocks)
    _centred_second_lines(blocks)
    if doc.stream.kind == "pdf":
        _hung_second_lines(blocks)
    text = doc.stream.kind != "pdf"  # (no block of text input has a box or a font size)
    blocks = _captions(blocks, text)
    blocks = _figure_text(blocks, body_size)
    blocks = _footnotes(blocks, body_size, text)
    _lists(blocks, text)
    blocks = _merge_continuations(blocks)
    slides.outline(doc, blocks, body_size)  # a slide deck's frames and section slides (slides.py)
    _bibliography(blocks)
    _footnote_refs(blocks)
    for i, b in enumerate(blocks):
        b.id = f"b{i}"
    doc.blocks = blocks
    doc.sections = _sections(blocks, doc.pages or 1)
    for b in blocks:
        a = b.attrs
        if len(a) == 1 and "_line_texts" in a:  # (a paragraph of text input: its lines, all it had)
            a.clear()
            continue
        for k in [k for k in a if k.startswith("_")]:
            del a[k]


def _body_size(blocks: list[Block]) -> float:
    counts: dict[float, int] = {}
    for b in blocks:
        s = b.attrs.get("_size")
        if s and b.kind is Kind.PARAGRAPH:
            counts[s] = counts.get(s, 0) + len(b.text)
    return max(counts, key=counts.get) if counts else 0.0


# ---------------------------------------------------------------------------- title


def _title(blocks: list[Block], body: float, guess: bool = True) -> None:
    first_page = min((b.page for b in blocks), default=1)
    marked = [b for b in blocks if b.kind is Kind.HEADING and b.attrs.get("_markup")]
    if marked:
        if marked[0].level == 1 and sum(1 for b in marked if b.level == 1) == 1:
            _make_title(marked[0])
        elif _lone_top(marked, first_page):
            _make_title(marked[0])
            # the byline under it, typed a heading too ("### Ada Quill∗, Ben Marsh†"): the front matter's
            k = next((i for i, b in enumerate(blocks) if b is marked[0]), -1)
            nxt = blocks[k + 1] if 0 <= k < len(blocks) - 1 else None
            if nxt is marked[1]:
                from ctxmill.compile.metadata import _looks_like_authors

                if _looks_like_authors(re.sub(r"[*∗†‡§¶]+", "", nxt.text)):  # (its marks aside)
                    nxt.kind, nxt.level = Kind.PARAGRAPH, None
        return
    cands = [b for b in blocks if b.page == first_page and b.kind is Kind.PARAGRAPH]
    if not cands or not guess:
        return
    if body:
        sized = [b for b in cands if b.attrs.get("_size") and b.attrs["_size"] >= body * 1.3
                 and (b.bbox is None or b.bbox[1] < (b.attrs.get("_page_height") or 792) * 0.5)
                 and 3 <= len(b.text) <= 300]
        if sized:
            best = max(sized, key=lambda b: (b.attrs["_size"], -b.bbox[1] if b.bbox else 0))
            if best.attrs["_size"] >= body * 1.3:
                _make_title(best)
                return
    # plain text: the first short line that reads like a title
    for b in cands[:6]:
        t = b.text.strip()
        if b.attrs.get("_markup"):
            continue
        if 8 <= len(t) <= 250 and "[^" not in t and not SENTENCE_END_RE.search(t) and not HEADING_NUM_RE.match(t) \
                and "@" not in t and not t.lower().startswith(("abstract", "http")) and len(t.split()) >= 2:
            _make_title(b)
            return


def _lone_top(marked: list[Block], first_page: int) -> bool:
    """An engine's Markdown whose title is its one heading at the top level and no "#" (opendataloader
    writes the title "##", the byline and sections "###"): the first heading, on the first page, the
    only one at the shallowest level, headings below it, and no section number nor a standard
    section's name."""
    b = marked[0]
    top = min(h.level or 9 for h in marked)
    t = b.text.strip()
    return (len(marked) >= 3 and b.level == top and b.page == first_page
            and sum(1 for h in marked if h.level == top) == 1 and len(t.split()) >= 2
            and not HEADING_NUM_RE.match(t) and norm_title(t) not in KNOWN_UNNUMBERED)


def _make_title(b: Block) -> None:
    b.kind = Kind.HEADING
    b.level = 1
    b.attrs["title"] = True


# ---------------------------------------------------------------------------- headings

# unnumbered headings a paper prints in the style of its sections (besides the bibliography)
KNOWN_UNNUMBERED = UNNUMBERED_HEADINGS | {
    "data availability", "data availability statement", "software", "ethics statement", "limitations",
    "broader impact", "broader impacts", "author contributions", "funding", "conflict of interest",
    "conflicts of interest", "competing interests", "acknowledgments and disclosure of funding", "list of abbreviations",
    "preface", "foreword", "summary", "nomenclature", "glossary", "index", "declarations", "impact statement",
    "declaration", "dedication",  # a thesis's front-matter chapters
}
_TRAILING_NUMBER_RE = re.compile(r"^(\S.*?\S)\s+(\d{1,2})$")  # chapter styles: "Introduction  1"
_MARKER_TAIL_RE = re.compile(r"[A-Za-z]{2,12}\.?\s+\d{1,2}$")  # a chapter's label and number: "Day 1", "Chapter 3"
_DOT_LEADER_RE = re.compile(r"[ \t]*(?:\.[ \t]*){3,}(?=\S)")
# three dots with only blanks between them, where every match of _DOT_LEADER_RE has them (this
# pattern starts with a literal: re skips to each ".")
_DOT_LEADERS = re.compile(r"\.[ \t]*\.[ \t]*\.")
_BLANKS_AND_DOTS = re.compile(r"[ \t.]*")


def _undot(text: str) -> str:
    """``_DOT_LEADER_RE.sub(" ", text)``, the pattern run only over each stretch of blanks and
    dots that holds three dots (_DOT_LEADERS' hit), with the character after the stretch for its
    look-ahead: a match is blanks and dots only, so it lies in one such stretch. The pattern
    starts with blanks and was tried at every position of the text (one_char_refs: 3,300 blocks
    of 256 one-character lines read as contents entries, 3.2 MB, 0.14 CPU-s)."""
    m = _DOT_LEADERS.search(text)
    if m is None:
        return text
    out: list[str] = []
    done = 0  # text[:done] is in out
    while m is not None:
        start = m.start()
        while start > done and text[start - 1] in " \t.":  # (the stretch's start)
            start -= 1
        end = _BLANKS_AND_DOTS.match(text, m.end()).end() + 1  # (its end, and the character after)
        out.append(text[done:start])
        out.append(_DOT_LEADER_RE.sub(" ", text[start:end]))
        done = end
        m = _DOT_LEADERS.search(text, done)
    out.append(text[done:])
    return "".join(out)
_THEOREM_RE = re.compile(r"^(?:Example|Theorem|Lemma|Definition|Proof|Corollary|Proposition|Remark|Observation|"
                         r"Claim|Conjecture|Assumption|Note|Problem|Exercise|Solution|Step|Case)\b")
# (the chapter's and the part's words in English and in Russian and Ukrainian: "Глава 1" on a Russian thesis)
_PART_WORDS = ("part", "часть", "частина")
_CHAPTER_ONLY_RE = re.compile(r"^(?i:chapter|глава|раздел|розділ|" + "|".join(_PART_WORDS) + r")\s+(\d{1,2}|[IVXL]{1,6})$")
_CHAPTER_FIRST = frozenset("cCpP")


def _style(b: Block, body: float) -> str | None:
    """How a block stands out from body text: bold, large, caps, italic, centred, or None."""
    size = b.attrs.get("_size_max") or b.attrs.get("_size") or 0.0
    if b.attrs.get("_bold") and size >= body * 0.85:
        return "bold"
    if size >= body * 1.15:
        return "large"
    if b.attrs.get("_caps") and size >= body * 0.75:
        return "caps"
    if b.attrs.get("_italic") and size >= body * 0.85:
        return "italic"
    if b.attrs.get("_center"):
        return "center"
    return None


def _signature(b: Block) -> tuple:
    """What headings of one level share: size (of most of the text: a chapter number set in
    60 pt beside its title is not the title's size), weight, slant, capitals."""
    size = b.attrs.get("_size") or 0.0
    return (round(size * 2) / 2, bool(b.attrs.get("_bold")), bool(b.attrs.get("_italic")), bool(b.attrs.get("_caps")))


# a caption's label on a line of its own, in capitals ("TABLE I" over "AN EXAMPLE OF A TABLE", IEEE)
_CAPS_CAPTION_RE = re.compile(r"(?:TABLE|FIGURE|FIG\.|ALGORITHM|LISTING)\s+(?:\d+|[IVXLC]+)[.:]?[ \t]*(?:\n|$)")
_LABELLED_RE = re.compile(r"[A-Z][a-z]+ \d{1,2}: [A-Z]")
_NUMBER_FIRST = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZcpas")
# norm_title(text) in UNNUMBERED_HEADINGS for ASCII text without "[^" (the same words, any
# non-word characters around and between them, any case), without building the normalized text
_UNNUMBERED_RE = re.compile(
    r"\W*(?:" + "|".join(r"\W+".join(map(re.escape, h.split())) for h in sorted(UNNUMBERED_HEADINGS)) + r")\W*\Z",
    re.I)


# A line of text input _heading_candidate may take (or _appendix_word accept): it starts (after
# blanks) as NUMBER_RE's number can (a digit; a capital, or a roman number, alone before its
# dot, colon or blank, "A.1 ", "IV. "; a keyword in any case and a blank, "Chapter 3"; a first
# capital or c/p/a/s alone let every "See Section 2 ...", "contact ..." and "and ..." line of a
# page through to parse_number), it holds a character outside ASCII
# (norm_title's road), or its words are a known unnumbered title or spell "appendix"/"appendices"
# (_UNNUMBERED_RE and _appendix_word line by line). Every other line is no heading.
# (A title's first letter is a class of its two cases, outside the case-blind part, and the
# characters before it are read once: re's alternation skips a branch at a class its character
# is not in, where a case-blind letter or a repeat is tried branch by branch, a step per title
# at every line; headings.MAYBE_TOC_TITLE_RE. Case-blind matches outside ASCII are on lines the
# second branch takes.)
_MAYBE_HEADING_RE = re.compile(
    r"\n(?=[\t\x0b\x0c\r\x1c-\x1f ]*(?:[0-9]|(?:[A-Z](?:\.\d{1,2}){0,4}|[IVXL]{1,6})[.:]?(?:\s|\Z)"
    r"|(?:[cC](?i:hapter)|[pP](?i:art)|[aA](?i:ppendix)|[sS](?i:ection))\s)"
    r"|[\x00-\x09\x0b-\x7f]*+[^\x00-\x7f]"
    r"|[^\w\n]*(?:" + "|".join(
        f"[{first}{first.upper()}](?i:" + "|".join(
            r"[^\w\n]+".join(map(re.escape, h[1:].split(" "))) for h in sorted(UNNUMBERED_HEADINGS) if h[0] == first)
        + ")" for first in sorted({h[0] for h in UNNUMBERED_HEADINGS}))
    + r")[^\w\n]*(?![^\n])|[^a-zA-Z\n]*[aA](?i:[^a-z\n]*" + "[^a-z\\n]*".join("ppendi")
    + r"[^a-z\n]*(?:x|c[^a-z\n]*e[^a-z\n]*s)[^a-z\n]*)(?![^\n]))")
# a block _chapter_titles reads: "chapter" or "part" (any case) and a blank first, as
# _CHAPTER_ONLY_RE needs (a first c/C/p/P alone let every "contact ..." line through), or a
# blank or a character outside ASCII first
_MAYBE_CHAPTER_RE = re.compile(r"\n(?=[cC](?i:hapter)\s|[pP](?i:art)\s|\s|[^\x00-\x7f])")


def _unnumbered_title(text: str) -> bool:
    """``norm_title(text) in UNNUMBERED_HEADINGS``, by the pattern where the text is ASCII."""
    return bool(_UNNUMBERED_RE.match(text)) if text.isascii() else norm_title(text) in UNNUMBERED_HEADINGS


def _heading_candidate(b: Block, body: float) -> tuple[Number | None, str, str | None] | None:
    """(number or None, title, style) when the block reads like a heading."""
    if b.kind is not Kind.PARAGRAPH or b.attrs.get("title") or b.attrs.get("toc"):
        return None
    text = b.text.strip()
    if not text or len(text) > 180 or "[^" in text and not _inner_marks(text):
        return None
    geo = b.attrs.get("_size") is not None
    style = None
    if geo:
        style = _style(b, body)
        strong = style in ("bold", "large")
        if b.attrs.get("_nlines", 1) > (3 if strong else 2):
            return None
        size = b.attrs.get("_size_max") or b.attrs["_size"]
        if size >= body * 1.4 and b.attrs.get("_wide"):
            m = _TRAILING_NUMBER_RE.match(text)  # "Introduction  1": the chapter number set apart
            tail = _MARKER_TAIL_RE.match(b.attrs.get("_small_tail") or "")
            if m and tail and text.endswith(tail.group(0)) and len(text) > len(tail.group(0)):
                # "one   Day 1": the number set apart with a label word, both in far smaller type
                # than the title (memoir chapter styles): the label is no part of the title
                title = text[:-len(tail.group(0))].strip()
                return Number(m.group(2), "arabic", [m.group(2)], "chapter", title), title, style
            if m:
                return Number(m.group(2), "arabic", [m.group(2)], "chapter", m.group(1)), m.group(1), style
    else:
        if b.attrs.get("_markup") or len(text) > 150:
            return None
        c = text[:1]
        if c.isascii() and c not in _NUMBER_FIRST:  # (most lines of text input) no number below:
            # only a known unnumbered title can be a heading
            if len(text) < 40 and _unnumbered_title(text):
                return None, text.replace("\n", " "), style
            return None
    text1 = text.replace("\n", " ")
    # (a number or its keyword starts with a digit, a capital or c/p/a/s: other ASCII lines,
    # most of a page of text, skip the pattern)
    c = text1[:1]
    num = parse_number(text1) if c in _NUMBER_FIRST or not c.isascii() else None
    if num is not None and (num.title or num.keyword):
        title = num.title
        t0 = title[:1]
        if t0 and not t0.isupper() and not t0.isdigit():
            # a sentence's lower-case start is no title; a letter without case (CJK, "1. はじめに")
            # may begin one, where it does not end as a sentence or a clause does ("。", "、")
            if not (t0.isalpha() and t0.lower() == t0.upper()) or title[-1] in _CJK_STOPS:
                if not _symbol_title(b, title, style, body):
                    return None
        if num.kind == "letter" and _LETTER_SPACED_RE.match(text1):
            return None  # "A R T I C L E I N F O": a letter-spaced label (Elsevier CAS), not appendix A
        bare = _MARK_KEY_RE.sub("", title) if "[^" in title else title
        letters = sum(c.isalpha() for c in bare)
        if title and (letters < 2 or letters < 0.5 * len(bare.replace(" ", ""))):
            return None  # "1 3 4 × 5 6", "1 012 x": a matrix or an equation row
        if title and (SENTENCE_END_RE.search(title) and not title.endswith("?") or title.endswith(",")):
            return None
        if geo:
            if style is None and (b.attrs.get("_nlines", 1) > 1 or len(title.split()) > 10):
                return None  # plain body text: only a short line standing alone may be a heading
            if style in (None, "italic", "center") and title.count(",") >= 2:
                # "1 The Biodesign Institute, Arizona State University, Tempe, Arizona, USA": a
                # numbered affiliation line of a hand-set byline, not section 1
                return None
        else:
            if num.kind == "roman" or num.keyword:
                return None
            if len(title) > 120 or title.count(",") > 3:
                return None
            if re.match(r"^\d+\.\s", text) and ":" in title[:60]:
                return None  # "1. User: Submits ..." is a list item
        return num, title, style
    if text.endswith(":"):
        return None  # "Acknowledgments:", "Funding:" lead their paragraph in (MDPI's back matter)
    if len(text) < 40 and _unnumbered_title(text):
        return None, text1, style
    if not geo:
        return None  # (what follows reads the type: a lead's pattern searched for nothing)
    if style is not None and len(text) < 60 and norm_title(text) in KNOWN_UNNUMBERED:
        return None, text1, style
    # "Box 1: Summary of Practices" in a section's large type is a labelled heading, not a run-in lead
    lead = re.search(r"[.:;]\s+\S", text1) and not (
        geo and (b.attrs.get("_size_max") or b.attrs["_size"]) >= body * 1.15 and _LABELLED_RE.match(text1))
    # (a title may ask: "Why Two Recommendations for Manuscripts?", PLOS, as numbered ones may)
    # (italic counts where it is set larger than the body: tufte-handout's b-heads, 10.9 pt
    # italic over a 10 pt body; italic in the body's size is emphasis or a theorem's text)
    if geo and (style in ("bold", "large", "caps")
                or style == "italic" and (b.attrs.get("_size_max") or b.attrs["_size"]) >= body + 0.5) \
            and len(text1) <= 90 and len(text1.split()) <= 10 \
            and text1[:1].isupper() and not (SENTENCE_END_RE.search(text1) and text1[-1] != "?") \
            and not CAPTION_RE.match(text1) \
            and not _CAPS_CAPTION_RE.match((b.attrs.get("_line_texts") or [text])[0]) and not lead \
            and not re.search(r"[,\-–=<>+]$|\w\(", text1) \
            and text1.count("(") == text1.count(")") and not b.attrs.get("_wide") \
            and not _THEOREM_RE.match(text1):
        # not a run-in lead ("Results. We ..."), a table's header row, "Example 4.1 (...)"
        return None, text1, "weak-" + style  # unnumbered: only where it looks like the numbered ones
    if geo and style is None and b.attrs.get("_face") and len(text1.split()) <= 10 and text1[:1].isupper() \
            and not CAPTION_RE.match(text1) and not lead and not _THEOREM_RE.match(text1) \
            and text1.count("(") == text1.count(")"):
        return None, text1, "weak-face"  # a line in the other family (sans over serif), the body's size
    if geo and style in ("bold", "italic") and text1.endswith(".") and len(text1.split()) <= 14 \
            and not re.search(r"[.:;!?]\s", text1) and _title_case(text1[:-1]) and not CAPTION_RE.match(text1) \
            and not _THEOREM_RE.match(text1):
        # a title ending in a period, alone on its lines in the type of the numbered
        # subsections ("Detailed Precision and Recall Values When Using Different Classifiers.",
        # IEEE compsoc): a heading where its style matches one, like the weak ones above
        return None, text1, "weak-" + style
    return None


def _symbol_title(b: Block, title: str, style: str | None, body: float) -> bool:
    """A section title that opens with a lower-case symbol ("2 tt production", "4 e+e- collisions"):
    one line, bold, in a type well above the body's, a few words, the first a short symbol."""
    first = re.sub(r"[^\w+\-]", "", title.split()[0]) if title.split() else ""
    # a symbol, not a word: no vowel ("tt"), a capital inside ("tW", "pT"), a Greek letter or a sign ("e+e-")
    symbol = not re.search(r"[aeiou]", first) or re.search(r"[^a-z]", first[1:]) is not None
    return style == "bold" and b.attrs.get("_nlines", 1) == 1 and 1 <= len(first) <= 4 and symbol \
        and (b.attrs.get("_size_max") or b.attrs.get("_size") or 0) >= 1.25 * body and len(title.split()) <= 8


# full-width sentence and clause ends (CJK): a numbered line ending so is a list item or prose
_CJK_STOPS = frozenset("。．、，；：！")
# a word set letter by letter, spaced out: "A B S T R A C T", "A R T I C L E I N F O"
_LETTER_SPACED_RE = re.compile(r"^(?:\w ){3,}\w(?: (?:\w ){2,}\w)*$")

# a raised digit or sign glued to a word inside a title, more of the title after it ("2.1 M[^2]
# (Dahlmeier and Ng, 2012)": M², a metric's name); a note's mark ends its line or its name
# (or a raised word in lower case on a one-letter symbol, the title going on after it: "E[^miss]T
# signatures", a quantity's superscript with its subscript after it), written in the raised
# letters Unicode has (no raised q)
_WORD_MARK_RE = re.compile(r"(?<=\b[A-Za-z])\[\^([a-z]{2,6})\](?= ?[A-Za-z0-9])")
_RAISED_KEYS = "abcdefghijklmnoprstuvwxyz"
_RAISED_LETTERS = str.maketrans(_RAISED_KEYS, "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ")
_INNER_MARK_RE = re.compile(r"(?<=\w)\[\^[0-9+\-−*]{1,2}\](?= [^\s\[,])|" + _WORD_MARK_RE.pattern)


def _inner_marks(text: str) -> bool:
    """Every raised mark of a line is part of a word inside it, not a note's or an affiliation's mark."""
    return text.count("[^") == len(_INNER_MARK_RE.findall(text))


def _title_case(text: str) -> bool:
    """Most words of four letters or more start with a capital ("Values When Using Different")."""
    long = [w for w in text.split() if sum(c.isalpha() for c in w) >= 4]
    return len(long) >= 2 and sum(w[:1].isupper() for w in long) >= 0.8 * len(long)


def _number_ok(number: str, state: dict) -> bool:
    """Sequence check: 3 after 2, 3.2 after 3.1 inside 3, A after numbers (appendix)."""
    parts = number.split(".")
    top = parts[0]
    last = state.get("top")
    if len(parts) == 1:
        if top.isdigit():
            ok = last is None and int(top) <= 3 or (last is not None and last.isdigit() and 0 < int(top) - int(last) <= 2)
        else:
            ok = top == "A" and (last is None or last.isdigit()) or (
                last is not None and not last.isdigit() and 0 < ord(top) - ord(last) <= 2) or state.get("appendix", False)
        return bool(ok)
    if top != last:
        # "3.1" right after "2.4": section 3's own heading was lost (garbled, inside a figure);
        # the subsection still starts it, as "1.1" before any number starts section 1 (a
        # chapter's opening line lost on a scan)
        return bool(top.isdigit() and (last is None and top == "1" or last is not None and last.isdigit()
                                       and int(top) - int(last) == 1)
                    and all(p.isdigit() and int(p) <= 1 for p in parts[1:]))
    prev = state.get("sub", {}).get(len(parts))
    depth_prefix = ".".join(parts[:-1])
    if state.get("prefix", {}).get(len(parts)) != depth_prefix:
        prev = None
    try:
        n = int(parts[-1])
    except ValueError:
        return False
    if prev is None:
        return n <= 2
    return 0 < n - prev <= 2


def _false_numbers(numbers: list[tuple[int, str]]) -> set[int]:
    """The numbered lines that break the sequence of the others: ``numbers`` are the candidates
    (block index, number) in reading order that only the sequence check stands between and a
    heading. Read one by one, a single false line (a plot's axis labels read as "5 ..." after
    3.5, a title page's "1 Reviewer", a contents line) makes every true heading after it fail
    the check. The longest run of them that the check accepts in order is the document's
    numbering (ties: the run that starts later, the body after its table of contents); where it
    holds at least two more headings than reading one by one accepts, the lines off it are
    false. A sequence read one by one as well as it can be is left alone."""
    if len(numbers) < 3 or len(numbers) > 600:
        return set()
    greedy, state = 0, {}
    for _, number in numbers:
        if _number_ok(number, state):
            _advance(number, state)
            greedy += 1
    # best[j]: (count, start) of the best run ending at j; the state after it; its previous line
    best: list[tuple[int, int]] = []
    states: list[dict] = []
    prev: list[int | None] = []
    for j, (_, number) in enumerate(numbers):
        top = ((1, j), None) if _number_ok(number, {}) else ((0, j), None)
        for i in range(j):
            if best[i][0] and (best[i][0] + 1, best[i][1]) > top[0] and _number_ok(number, states[i]):
                top = ((best[i][0] + 1, best[i][1]), i)
        best.append(top[0])
        prev.append(top[1])
        st = _copy_state(states[top[1]]) if top[1] is not None else {}
        if top[0][0]:
            _advance(number, st)
        states.append(st)
    end = max(range(len(numbers)), key=lambda j: best[j])
    if best[end][0] < greedy + 2:
        return set()
    run: set[int] = set()
    k: int | None = end
    while k is not None:
        run.add(k)
        k = prev[k]
    return {idx for j, (idx, _) in enumerate(numbers) if j not in run}


def _copy_state(state: dict) -> dict:
    return {k: dict(v) if isinstance(v, dict) else v for k, v in state.items()}


def _advance(number: str, state: dict) -> None:
    parts = number.split(".")
    if len(parts) == 1:
        state["top"] = parts[0]
        state["sub"] = {}
        state["prefix"] = {}
    else:
        if state.get("top") != parts[0]:
            state["top"] = parts[0]
            state["sub"] = {}
            state["prefix"] = {}
        state.setdefault("sub", {})[len(parts)] = int(parts[-1])
        state.setdefault("prefix", {})[len(parts)] = ".".join(parts[:-1])
        for d in list(state["sub"]):
            if d > len(parts):
                del state["sub"][d]


def _set_heading(b: Block, level: int, number: str | None, title: str) -> None:
    b.kind = Kind.HEADING
    b.level = max(2, min(6, level))
    b.number = number
    if "[^" in title:  # "M[^2]" is M², as in a table cell; "E[^miss]T" is EᵐⁱˢˢT
        title = _WORD_MARK_RE.sub(lambda m: m.group(1).translate(_RAISED_LETTERS)
                                  if all(c in _RAISED_KEYS for c in m.group(1)) else m.group(0), _cell_marks(title))
    b.attrs["_title"] = title



def _roman_scheme(cands: dict[int, tuple]) -> bool:
    """Sections numbered I., II., III. (IEEE): letters are then their subsections."""
    values = [roman_value(c[0].text) for c in cands.values() if c[0] is not None and c[0].kind == "roman"]
    values = [v for v in values if v]
    return len(values) >= 2 and values[0] <= 2 and any(b - a == 1 for a, b in pairwise(values))


def _roman_ok(num: Number, state: dict) -> tuple[bool, int]:
    """Sequence check and level in a roman scheme: I, II, ... top; A, B, ... below the current one."""
    if num.kind == "roman":
        v = roman_value(num.text) or 0
        last = state.get("roman")
        if (last is None and v <= 2) or (last is not None and 0 < v - last <= 2):
            state["roman"] = v
            state["roman_text"] = num.text
            state["letter"] = None
            return True, 2
        # "I." can also be the ninth subsection letter
        if len(num.text) != 1:
            return False, 0
    if num.kind in ("letter", "roman") and len(num.parts) == 1 and state.get("roman") is not None:
        last = state.get("letter")
        c = num.text
        if (last is None and c in "AB") or (last is not None and 0 < ord(c) - ord(last) <= 2):
            state["letter"] = c
            return True, 3
    return False, 0


def _headings(doc: Document, blocks: list[Block], body: float) -> None:
    outline = doc.stream.outline
    # text input (no block has a font size): only the blocks a rule could fire on
    text = doc.stream.kind != "pdf"
    for i in toc_blocks(blocks, body, _hits(blocks, MAYBE_TOC_TITLE_RE) if text else None):
        b = blocks[i]
        b.attrs["toc"] = True
        if b.kind is Kind.HEADING and not b.attrs.get("_markup"):
            b.kind = Kind.PARAGRAPH
        # "3.2.4 Karatsuba Multiplication . . . . . . 25" reads as "3.2.4 Karatsuba Multiplication 25"
        b.text = _undot(b.text)
    matched: set[int] = set()
    if outline and len(outline) >= 3 and not _stair(outline):
        _bookmarked_leads(outline, blocks)
        matched = _apply_outline(outline, blocks, body)
        deepen_by_number(blocks, matched)
    # with an outline, the text finds what it left out, but not on the title pages before it
    # ("1. Reviewer Prof. Dr. ...", "2 Department of ...")
    outline_start = min((i for i in matched if blocks[i].number), default=0)
    outline_numbers = {blocks[i].number for i in matched if blocks[i].number}
    cands: dict[int, tuple] = {}
    maybe = _hits(blocks, _MAYBE_HEADING_RE) if text else range(len(blocks))
    for idx in maybe:
        b = blocks[idx]
        if b.kind is Kind.PARAGRAPH and idx not in matched:
            c = _heading_candidate(b, body)
            if c is not None and not (c[0] is None and norm_title(c[1]) == "abstract"
                                      and _below_text(blocks, idx)) \
                    and not (c[0] is None and norm_title(c[1]) in _FIELD_LABELS):
                cands[idx] = c
    _chapter_titles(blocks, cands, body, _hits(blocks, _MAYBE_CHAPTER_RE) if text else None)
    roman = _roman_scheme(cands)
    false = set() if matched or roman else _false_numbers(_sequenced(doc, blocks, cands))
    state: dict = {}
    rstate: dict = {}
    bib_seen = False
    weak: list[int] = []
    faced: list[int] = []
    first_numbered: int | None = None
    if text:  # the headings, the candidates and the lines that may spell "appendix": the others pass
        heads = [i for i, b in enumerate(blocks) if b.kind is Kind.HEADING]
        maybe = sorted({*maybe, *cands, *heads})
    else:
        maybe = range(len(blocks))
    for idx in maybe:
        b = blocks[idx]
        if b.kind is Kind.HEADING:
            if b.number:
                if b.number[0].isdigit() or len(b.number.split(".")[0]) == 1:
                    _advance(b.number, state)
                if first_numbered is None:
                    first_numbered = idx
            if b.attrs.get("_markup"):
                b.attrs["_title"] = b.text
                # "## 3.2 Design" in Markdown: keep the printed number apart, like PDF headings
                m = HEADING_NUM_RE.match(b.text) if b.number is None else None
                if m:
                    b.number, b.attrs["_title"] = m.group(1), m.group(2).strip()
                    _advance(b.number, state)
            if norm_title(b.attrs.get("_title", b.text)) in BIBLIOGRAPHY_TITLES:
                bib_seen = True
            continue
        cand = cands.get(idx)
        if cand is None:
            if b.kind is Kind.PARAGRAPH and _appendix_word(b.text):
                state["appendix"] = True
            continue
        num, title, style = cand
        if num is None:
            if style == "weak-face":
                faced.append(idx)  # (read only where nothing is numbered: _face_below)
                continue
            if style and style.startswith("weak-"):
                weak.append(idx)
                continue
            if matched and norm_title(title) not in BIBLIOGRAPHY_TITLES:
                if norm_title(title) in ("appendix", "appendices"):
                    state["appendix"] = True
                weak.append(idx)  # with an outline, only when printed like its sections
                continue
            _set_heading(b, 2, None, title)
            b.attrs["_known"] = True
            if norm_title(title) in ("appendix", "appendices"):
                state["appendix"] = True
            if norm_title(title) in BIBLIOGRAPHY_TITLES:
                bib_seen = True
            continue
        geo = b.attrs.get("_size") is not None
        if matched and idx < outline_start and not (b.attrs.get("_chapter_head") and _outline_ends(outline, title)):
            continue  # (a chapter's "Глава 1" over its title, which the outline names "Глава 1. Title", is in)
        if roman and num.kind in ("roman", "letter") and not num.keyword and not state.get("appendix"):
            ok, level = _roman_ok(num, rstate)
            if ok:
                _set_heading(b, level, num.text, title)
                b.attrs["_hide_number"] = True  # see _sections: the number stays in sections.json
                if level == 3:  # "A" under "II": section id sII.A, as a path like 2.1
                    b.attrs["_id_number"] = f"{rstate['roman_text']}.{num.text}"
                first_numbered = idx if first_numbered is None else first_numbered
            continue
        if num.kind == "roman":
            if len(num.text) == 1:  # "I. Title" in a lettered appendix
                num.kind = "letter"
            elif num.keyword != "part":
                continue
        number = num.text
        if num.kind == "letter" or num.keyword == "appendix":
            if num.keyword == "appendix":
                state["appendix"] = True
            elif not (bib_seen or state.get("appendix") or geo):
                continue  # "A Package ..." in plain text only after the references/appendix
            if geo and not num.keyword and not b.attrs.get("_bold") and style not in ("large", "caps") \
                    and not (len(num.parts) > 1 and state.get("top") == num.parts[0]):
                continue  # (in body type: "A.1" only inside an appendix A already found)
        if num.keyword == "part":
            _set_heading(b, 2, number, title or f"Part {number}")
            continue
        if geo and not b.attrs.get("_bold") and style != "large" and _page_head(blocks, idx, number):
            b.kind = Kind.FURNITURE  # a running head with its page number, kept out of the text
            continue
        if geo and _repeated_page_head(blocks, cands, idx, number, title):
            b.kind = Kind.FURNITURE  # "6 A. Author" atop every even page: the page's number, not section 6
            continue
        if geo and matched and _bookmark_head(outline, b, number, title):
            b.kind = Kind.FURNITURE
            continue
        if number in outline_numbers:
            continue  # the outline's own heading of this number is another block ("2 Choose e ...": an algorithm's line)
        # "Appendix 1" after section 6 (a Typst template's appendices, numbered in arabic again from 1):
        # the label restarts the count, as "A" after numbers does
        restart = num.keyword == "appendix" and number == "1" and (state.get("top") or "").isdigit()
        if idx in false or not (restart or _number_ok(number, state)):
            continue
        if geo and style is None and _next_list_item(blocks, idx, number):
            continue  # "4. Fast Fourier Transform" under "3. Zerofill (once)": the list's next item
        if geo and _lead_runs_on(blocks, idx, doc):
            continue  # "2. The reverse ... association" / "of ribosomes with RNA. This ...": an item's lead
        if not title and num.keyword != "appendix":
            continue  # "Chapter 3" whose title could not be joined to it
        if not title and geo:
            title = _title_below(blocks, idx, cands)  # "APPENDIX A" over its title line: one heading
        _advance(number, state)
        label = _foreign_label(b.text, title) if num.keyword else None
        if label and title:  # "ГЛАВА 1. ТЕОРЕТИЧЕСКИЕ СВЕДЕНИЯ": the label as printed, before the title
            _set_heading(b, 1 + len(number.split(".")), number, title)
            b.attrs["_label_lead"] = label
        elif label:  # "ПРИЛОЖЕНИЕ 1" alone: the label is the title (the number stays in sections.json)
            _set_heading(b, 1 + len(number.split(".")), number, label)
            b.attrs["_hide_number"] = True
        else:
            _set_heading(b, 1 + len(number.split(".")), number, title or f"Appendix {number}")
            if num.keyword == "appendix":
                b.attrs["_appendix_label"] = True
        if first_numbered is None:
            first_numbered = idx
    _unnumbered_by_style(blocks, weak, first_numbered, bool(matched), body, faced)
    _front_abstract(blocks)
    for b in blocks:
        b.attrs.pop("_known", None)


_ENGLISH_KEYWORDS = frozenset(("chapter", "part", "appendix", "section"))


def _foreign_label(text: str, title: str) -> str | None:
    """The label printed before a heading's title when its keyword is another language's
    ("ГЛАВА 1.", "Anhang A"), kept as printed; None for English keywords (written as before)."""
    text = " ".join(text.split())
    word = text.split(" ", 1)[0].lower()
    if word in _ENGLISH_KEYWORDS or word not in KEYWORDS:
        return None  # (or no keyword printed first: memoir's "one   Day 1", its number set apart)
    title = " ".join(title.split())
    label = text[:len(text) - len(title)].strip() if title and text.endswith(title) else text
    return label or None


def _on_title_page(blocks: list[Block], idx: int, title_page: int, cover: set[str]) -> bool:
    """Block idx, on a later front page, repeats a line of the title page (a thesis's cover, then its
    title page and approval page, each with the author's name and the city and year): front matter.
    ``cover`` is filled on the first call."""
    if not cover:
        cover.update(" ".join(b.text.casefold().replace("\u2013", "-").split()) for b in blocks
                     if b.page == title_page and b.text.strip())
        cover.add("")
    return " ".join(blocks[idx].text.casefold().replace("\u2013", "-").split()) in cover


def _title_below(blocks: list[Block], idx: int, cands: dict[int, tuple]) -> str:
    """The title of a label with none ("APPENDIX A" on a line of its own, ametsoc): the next block,
    on the same page right under it, an unnumbered heading-like line (a candidate of its own). That
    block's text moves into the label's heading; '' where there is none."""
    nxt = blocks[idx + 1] if idx + 1 < len(blocks) else None
    c = cands.get(idx + 1)
    b = blocks[idx]
    if nxt is None or c is None or c[0] is not None or nxt.page != b.page or nxt.kind is not Kind.PARAGRAPH:
        return ""
    size = b.attrs.get("_size_max") or b.attrs.get("_size") or 0.0
    gap = (nxt.attrs.get("_top") or 0.0) - (b.attrs.get("_bottom") or -1e9)
    if not 0 <= gap < 4 * max(size, 1.0):
        return ""
    nxt.kind = Kind.FURNITURE  # its text now lives in the heading
    nxt.attrs["_merged_into_heading"] = True
    cands.pop(idx + 1, None)
    return c[1]


def _sequenced(doc: Document, blocks: list[Block], cands: dict[int, tuple]) -> list[tuple[int, str]]:
    """The arabic-numbered candidates that only the sequence check stands between and a heading
    (the loop of _headings' other tests on them, those that do not read the sequence), in
    reading order; none where a numbered heading is already set (Markdown's own)."""
    if any(b.kind is Kind.HEADING and b.number for b in blocks):
        return []
    out = []
    for idx in sorted(cands):
        num, title, style = cands[idx]
        if num is None or num.kind != "arabic" or num.keyword in ("part", "appendix") or not title:
            continue
        b = blocks[idx]
        geo = b.attrs.get("_size") is not None
        if geo and (not b.attrs.get("_bold") and style != "large" and _page_head(blocks, idx, num.text)
                    or style is None and _next_list_item(blocks, idx, num.text) or _lead_runs_on(blocks, idx, doc)):
            continue
        out.append((idx, num.text))
    return out


# the field labels an API reference prints in bold over an indented paragraph (Doxygen, Sphinx,
# Javadoc): labels, not sections ("Example" is left out: Sphinx's rubric of that name is a heading)
_FIELD_LABELS = {"returns", "return values", "parameters", "template parameters", "raises", "throws", "exceptions",
                 "warning", "author", "authors", "date", "see also", "precondition", "postcondition"}


def _below_text(blocks: list[Block], idx: int) -> bool:
    """Text stands above this block on its page: an abstract's label under a title block (Elsevier
    CAS's "ABSTRACT" beside the article info, achemso's) labels its paragraph; a thesis's
    Abstract opens a page of its own, as its chapters do."""
    page = blocks[idx].page
    for j in range(idx - 1, -1, -1):
        b = blocks[j]
        if b.page != page:
            return False
        if b.kind is not Kind.FURNITURE and b.text.strip():
            return True
    return False


def _next_list_item(blocks: list[Block], idx: int, number: str) -> bool:
    """A plain line numbered "N." (or "N)") right under a line from the same left edge numbered
    N-1 the same way goes on a numbered list (RSC: "1. DC balance" ... "4. Fast Fourier Transform"
    in the body's type, read as section 4 after section 3)."""
    b = blocks[idx]
    text = b.text.lstrip()
    if not number.isdigit() or int(number) < 2 or text[len(number):len(number) + 1] not in (".", ")"):
        return False
    x0 = b.attrs.get("_x0") or 0
    # (the items of a list nested under item N-1, set further right, stand between: skipped)
    prev = next((p for p in reversed(blocks[max(0, idx - 10):idx]) if p.kind is not Kind.FURNITURE
                 and not ((p.attrs.get("_x0") or 0) > x0 + 6 and LIST_RE.match(p.text))), None)
    return prev is not None and abs((prev.attrs.get("_x0") or 0) - (b.attrs.get("_x0") or 0)) <= 1 \
        and prev.text.lstrip().startswith(f"{int(number) - 1}{text[len(number)]} ")


def _lead_runs_on(blocks: list[Block], idx: int, doc: Document) -> bool:
    """A one-line numbered bold lead whose words go on, in its face, at the start of the line
    under it, the line turning to plain text after them (an enumerated item's run-in lead
    wrapped: "2. The reverse open reading frame facilitates association" / "of ribosomes with
    RNA. This could ..."): text, as every run-in lead is, not a section. A head wrapped over two
    lines is bold to its end."""
    b = blocks[idx]
    if b.attrs.get("_nlines", 1) != 1 or b.text.rstrip()[-1:] in ".:;!?":
        return False
    nxt = next((o for o in blocks[idx + 1: idx + 3] if o.kind is not Kind.FURNITURE), None)
    if nxt is None or nxt.kind is not Kind.PARAGRAPH or nxt.page != b.page:
        return False
    top, bottom, size = nxt.attrs.get("_top"), b.attrs.get("_bottom"), b.attrs.get("_size") or 0.0
    if top is None or bottom is None or not size or not 0 <= top - bottom <= 2 * size:
        return False
    page = next((p for p in doc.stream.pages if p.number == nxt.page), None)

    def spans(at: float, box) -> list:
        ln = next((x for x in page.lines if x.bbox and abs(x.bbox[1] - at) < 0.5
                   and x.bbox[0] < box[2] and x.bbox[2] > box[0]), None) if page and box else None
        # (line numbers in a margin are in smaller type)
        return [s for s in ln.spans if not s.superscript and s.text.strip() and s.size >= 0.8 * size] if ln else []

    head, under = spans(b.attrs.get("_top") or -1.0, b.bbox), spans(top, nxt.bbox)
    return bool(head and under and head[-1].bold and under[0].bold and under[0].font == head[-1].font
                and under[0].text.lstrip()[:1].islower() and any(not s.bold for s in under[1:]))


def _outline_ends(outline, title: str) -> bool:
    """An outline entry ends with ``title`` ("Глава 1. Title" for the chapter head "Title")."""
    want = norm_title(title)
    return bool(want) and any(norm_title(e.title).endswith(want) for e in outline)


def _bookmark_head(outline, b: Block, number: str, title: str) -> bool:
    """A running head that prints a page number before a chapter's title (Doxygen's "4  RF24G"
    atop a page of chapter 2 "RF24G"): the line sits in the page's top tenth, its number is a
    bare integer, and the outline holds its title under other numbers only."""
    if not number.isdigit() or b.bbox is None or b.bbox[1] > 0.1 * (b.attrs.get("_page_height") or 792):
        return False
    want = norm_title(title)
    numbers = set()
    for e in outline:
        enum = parse_number(e.title)
        if want and norm_title(enum.title if enum is not None and enum.title else e.title) == want:
            numbers.add(enum.text if enum is not None else None)
    return bool(numbers) and number not in numbers


def _page_head(blocks: list[Block], idx: int, number: str) -> bool:
    """A running head with its page number ("2  Christopher J. Mungall and Ian H. Holmes" atop
    page 2): the number is the page's, the line sits in the page's top quarter, and the text
    under it runs on from the page before (a lower-case start). A short paper repeats it too few times
    for the running-head count; a section opening a page starts a paragraph. (The caller asks
    for a plain line: a bold or large "2 Related Work" atop page 2 is a heading whatever follows.)"""
    b = blocks[idx]
    if number != str(b.page) or b.bbox is None or b.bbox[1] > 0.25 * (b.attrs.get("_page_height") or 792):
        return False
    nxt = next((o for o in blocks[idx + 1: idx + 4] if o.kind is Kind.PARAGRAPH and o.text.strip()), None)
    return nxt is not None and nxt.text.lstrip()[:1].islower()


def _repeated_page_head(blocks: list[Block], cands: dict[int, tuple], idx: int, number: str, title: str) -> bool:
    """A running head that carries its page's number ("2 A. Author", "4 A. Author", ... atop the
    even pages): the number is the page's, the line sits in the page's top tenth, and another
    candidate on another page holds the same title with that page's number, in the same place."""
    b = blocks[idx]
    height = b.attrs.get("_page_height") or 792
    if not title or number != str(b.page) or b.bbox is None or b.bbox[1] > 0.1 * height:
        return False
    for j, c in cands.items():
        o = blocks[j]
        if j != idx and c[1] == title and c[0] is not None and o.page != b.page and c[0].text == str(o.page) \
                and o.bbox is not None and abs(o.bbox[1] - b.bbox[1]) < 3:
            return True
    return False


def _chapter_titles(blocks: list[Block], cands: dict[int, tuple], body: float,
                    maybe: list[int] | None = None) -> None:
    """"Chapter 3" on its own line, the title in the next block: one heading. ``maybe``: the
    only blocks that can be such a line (text input: _MAYBE_CHAPTER_RE's hits)."""
    last = len(blocks) - 1
    for idx in range(last) if maybe is None else maybe:
        b = blocks[idx]
        if idx >= last or b.kind is not Kind.PARAGRAPH or b.attrs.get("toc"):
            continue
        c = b.text[:1]
        if c.isascii() and c not in _CHAPTER_FIRST and not c.isspace():
            continue  # (the pattern needs "chapter" or "part" first)
        m = _CHAPTER_ONLY_RE.match(b.text.strip())
        nxt = blocks[idx + 1]
        if not m or nxt.page != b.page or len(nxt.text) > 120:
            continue
        if nxt.kind is Kind.HEADING:  # the outline found the title: it gets the number
            if nxt.number is None and m.group(1).isdigit():
                nxt.number = m.group(1)
            b.kind = Kind.FURNITURE
            b.attrs["_merged_into_heading"] = True
            cands.pop(idx, None)
            continue
        if nxt.kind is not Kind.PARAGRAPH:
            continue
        size = nxt.attrs.get("_size_max") or nxt.attrs.get("_size") or 0.0
        if not size or size < body * 1.15:
            continue
        # a long title's other lines, in its type, may stand in blocks of their own (one-and-a-half
        # spacing sets a centred chapter title's lines further apart than its size allows)
        parts = [nxt]
        for x in blocks[idx + 2: idx + 4]:
            y = parts[-1]
            if x.kind is not Kind.PARAGRAPH or x.page != b.page or re.search(r"[.!?:]$", y.text.strip()) \
                    or abs((x.attrs.get("_size_max") or x.attrs.get("_size") or 0.0) - size) > 0.3 \
                    or bool(x.attrs.get("_bold")) != bool(nxt.attrs.get("_bold")) \
                    or not 0 <= (x.attrs.get("_top") or 0.0) - (y.attrs.get("_bottom") or -1e9) < 1.5 * size \
                    or sum(len(p.text) for p in parts) + len(x.text) > 120:
                break
            parts.append(x)
        title = " ".join(p.text.replace("\n", " ").strip() for p in parts)
        num = m.group(1)
        kind = "arabic" if num.isdigit() else "roman"
        keyword = "part" if b.text.strip().split()[0].lower() in _PART_WORDS else "chapter"
        b.text = f"{num} {title}"
        b.attrs["_size_max"] = max(size, b.attrs.get("_size_max") or 0.0)
        b.attrs["_chapter_head"] = True
        for p in parts:
            p.kind = Kind.FURNITURE  # its text now lives in the heading
            p.attrs["_merged_into_heading"] = True
        cands[idx] = (Number(num, kind, [num], keyword, title), title, "large")
        for k in range(len(parts)):
            cands.pop(idx + 1 + k, None)


def _unnumbered_by_style(blocks: list[Block], weak: list[int], first_numbered: int | None, outline: bool,
                         body: float, faced: list[int] | None = None) -> None:
    """Unnumbered headings ("Acknowledgments", "Data Availability", the sections of a class that
    numbers nothing) are the blocks printed exactly like the numbered headings of one level."""
    levels: dict[tuple, dict[int, int]] = {}
    numbered_levels: dict[tuple, dict[int, int]] = {}  # (the numbered headings' alone)
    known_titles: list[Block] = []
    for b in blocks:
        if b.kind is Kind.HEADING and not b.attrs.get("title") and not b.attrs.get("_markup") \
                and b.attrs.get("_size") is not None and (b.number or b.attrs.get("_known")):
            levels.setdefault(_signature(b), {}).setdefault(b.level or 2, 0)
            levels[_signature(b)][b.level or 2] += 1
            if b.number:
                numbered_levels.setdefault(_signature(b), {}).setdefault(b.level or 2, 0)
                numbered_levels[_signature(b)][b.level or 2] += 1
            elif norm_title(b.text) not in BIBLIOGRAPHY_TITLES:  # (the list is the paper's, in any type)
                known_titles.append(b)
    sig_level = {sig: max(c, key=c.get) for sig, c in levels.items()}
    title_page = next((b.page for b in blocks if b.attrs.get("title")), blocks[0].page if blocks else 1)
    # a line above the title on its page is the journal's (bioinfo's "Databases and ontologies"
    # subject label in large type), no section
    above = next((i for i, b in enumerate(blocks) if b.attrs.get("title")), 0)
    weak = [i for i in weak if i > above or blocks[i].page != title_page]
    numbered = sum(1 for b in blocks if b.kind is Kind.HEADING and b.number)
    cover: set[str] = set()  # the title page's lines, as _on_title_page compares them
    if numbered >= 2:
        abstract = next((i for i, b in enumerate(blocks[:first_numbered or 0])
                         if b.page == title_page and norm_title(b.attrs.get("_title") or b.text) == "abstract"), None)
        for idx in weak:
            b = blocks[idx]
            known = norm_title(b.text) in KNOWN_UNNUMBERED
            # after the abstract's label, a line set like the sections over running text is one
            # (PLOS's "Author Summary"); a front-matter label in that style is not (ACM's "Keywords")
            after_abstract = abstract is not None and idx > abstract and norm_title(b.text) not in _FRONT_LABELS \
                and _text_follows(blocks, idx, body)
            if first_numbered is not None and idx < first_numbered and not known and not after_abstract \
                    and (b.page <= title_page or not _text_follows(blocks, idx, body)
                         or _on_title_page(blocks, idx, title_page, cover)):
                continue  # the title pages: names, affiliations, degree, venue lines
            level = sig_level.get(_signature(b))
            if level is None and b.attrs.get("_bold_math") and (b.attrs.get("_size") or 0.0) >= body * 1.1:
                # a line in a head's size, bold but for its math (symbols and subscripts in math
                # fonts): printed like the numbered heads it would match if the math were bold
                sig = _signature(b)
                level = sig_level.get((sig[0], True, sig[2], sig[3]))
            if level is not None:
                _set_heading(b, level, None, b.text.replace("\n", " ").strip())
        for b in known_titles:
            # a known title printed exactly like the numbered subsections is one (llncs's
            # \\subsection*{Appendix} under "5 Conclusion"), as where nothing is numbered (below)
            seen = numbered_levels.get(_signature(b))
            if seen and max(seen, key=seen.get) > (b.level or 2):
                b.level = max(seen, key=seen.get)
        _unnumbered_below(blocks, weak, first_numbered, sig_level, body)
        return
    if outline:
        _slanted_below(blocks, weak, body)
        return
    # nothing numbered: the sections are the strong short lines; sizes rank the levels
    strong = [idx for idx in weak if _style(blocks[idx], body) in ("bold", "large")]
    # on the title page, a bold line above the abstract's label is front matter (an affiliation
    # in bold, a byline), no section: the numbered path's guard, for papers that number nothing
    abstract = next((i for i, b in enumerate(blocks) if b.page == title_page
                     and norm_title(b.attrs.get("_title") or b.text) == "abstract"), None)
    if abstract is not None:
        strong = [idx for idx in strong if idx > abstract or blocks[idx].page != title_page]
    if len(strong) < 2:
        return
    sizes = sorted({_signature(blocks[i])[0] for i in strong}, reverse=True)
    for idx in strong:
        b = blocks[idx]
        if idx < 2 and b.page == blocks[0].page:
            continue
        _set_heading(b, 2 + min(sizes.index(_signature(b)[0]), 3), None, b.text.replace("\n", " ").strip())
        # a short plain line right under it, with text below, is its first subsection (classes
        # that set unnumbered subsections in the body font: svjour3's \subsection*)
        nxt = blocks[idx + 1] if idx + 1 < len(blocks) else None
        t = nxt.text.strip() if nxt is not None else ""
        if nxt is not None and nxt.kind is Kind.PARAGRAPH and nxt.attrs.get("_nlines") == 1 \
                and 2 <= len(t.split()) <= 8 and t[:1].isupper() and not re.search(r"[.,;:]$", t) \
                and abs((nxt.attrs.get("_size") or 0) - body) <= 0.5 and _text_follows(blocks, idx + 1, body):
            _set_heading(nxt, (b.level or 2) + 1, None, t)
    sig_levels: dict[tuple, int] = {}
    for idx in strong:
        if blocks[idx].kind is Kind.HEADING:
            sig_levels.setdefault(_signature(blocks[idx]), blocks[idx].level or 2)
    for b in blocks:  # a known title printed like the subsections is one (Scientific Data's "Summary")
        if b.kind is Kind.HEADING and b.attrs.get("_known") and b.attrs.get("_size") is not None \
                and sig_levels.get(_signature(b), 0) > (b.level or 2):
            b.level = sig_levels[_signature(b)]
    if len(sizes) == 1 and not _italic_under_bold(blocks, strong):
        _sections_over_subsections(blocks, body)
    _slanted_below(blocks, weak, body)
    _face_below(blocks, faced or [], body)


def _italic_under_bold(blocks: list[Block], strong: list[int]) -> bool:
    """Nothing numbered, every heading in one size, in two faces: bold (or capitals) and upright,
    and italic alone (JACoW: "SIMULATIONS" in bold capitals, "Evaluating the exchange quality"
    in italic, both 14.3 pt): the italic ones after the first bold one are the level below (an
    italic label before it, "Resumo" over the abstract, stays). True where it set them so."""
    heads = [blocks[i] for i in strong if blocks[i].kind is Kind.HEADING]
    sigs = {_signature(b) for b in heads}
    if len(sigs) != 2 or len(heads) < 3:
        return False
    upright = [g for g in sigs if (g[1] or g[3]) and not g[2]]
    slanted = [g for g in sigs if g[2] and not g[1] and not g[3]]
    if len(upright) != 1 or len(slanted) != 1:
        return False
    first = next(k for k, b in enumerate(heads) if _signature(b) == upright[0])
    top = heads[first].level or 2
    below = [b for b in heads[first:] if _signature(b) == slanted[0]]
    if not below or any((b.level or 2) != top for b in heads):
        return False
    for b in below:
        b.level = top + 1
    return True


def _body_text_next(blocks: list[Block], idx: int, body: float) -> bool:
    """Text in the body's type comes next, however short its first paragraph or item."""
    box = blocks[idx].bbox
    # (a note in the margin beside it, read next, is not what it heads)
    nxt = next((b for b in blocks[idx + 1: idx + 4] if b.kind not in (Kind.FURNITURE, Kind.FOOTNOTE)
                and not (box and b.bbox and b.page == blocks[idx].page and b.bbox[2] <= box[0])), None)
    return nxt is not None and nxt.kind in (Kind.PARAGRAPH, Kind.LIST_ITEM) and not nxt.attrs.get("_face") \
        and abs((nxt.attrs.get("_size") or 0.0) - body) <= 0.8


def _face_below(blocks: list[Block], faced: list[int], body: float) -> None:
    """Where nothing is numbered, short lines in the body's size told from the text only by their
    family (sans over a serif body: bmcart's \\subsection*), at least twice, each over running
    text, are the level below the least of the headings found (bmcart's \\section* in bold sans)."""
    heads = [b for b in blocks if b.kind is Kind.HEADING and not b.attrs.get("title") and b.level
             and b.attrs.get("_size") is not None and not b.attrs.get("_known")]
    below = [i for i in faced if blocks[i].kind is Kind.PARAGRAPH and _body_text_next(blocks, i, body)]
    if not heads or len(below) < 2:
        return
    least = min(_signature(b)[0] for b in heads)
    if least < body + 0.5:
        return  # the headings found are no larger than these lines: no level to put them under
    level = max(b.level for b in heads if _signature(b)[0] == least) + 1
    for idx in below:
        _set_heading(blocks[idx], min(level, 5), None, blocks[idx].text.replace("\n", " ").strip())


# labels of a paper's front matter, set like its sections by some classes (acmart's "Keywords")
_FRONT_LABELS = {"keywords", "key words", "index terms", "ccs concepts", "acm reference format", "general terms",
                 "categories and subject descriptors", "author keywords", "abstract", "msc", "pacs", "jel"}

# the sections a paper's body is made of: a heading of these names is no subsection
_SECTION_NAMES = UNNUMBERED_HEADINGS | {
    "methods", "materials and methods", "results", "discussion", "results and discussion", "background",
    "availability", "data availability", "code availability", "funding", "author contributions",
    "competing interests", "conflict of interest", "conflicts of interest", "ethics statement",
}


def _sections_over_subsections(blocks: list[Block], body: float) -> None:
    """Nothing numbered and every heading in one face and size (titlesec's [tiny]: MBE sets
    sections and subsections alike): a heading the next heading follows straight, with no text
    between, is a section opening onto its first subsection; the headings after it are its
    subsections until the next such section or a heading named like a paper's section
    ("Discussion", "Acknowledgments")."""
    heads = [i for i, b in enumerate(blocks) if b.kind is Kind.HEADING and not b.attrs.get("title")
             and b.attrs.get("_size") is not None and norm_title(b.attrs.get("_title", b.text)) != "abstract"]
    if len(heads) < 4 or len({_signature(blocks[i]) for i in heads}) != 1:
        return
    parents = set()
    for i in heads:
        nxt = next((n for n in blocks[i + 1:] if n.kind not in (Kind.FURNITURE, Kind.FOOTNOTE)), None)
        if nxt is not None and nxt.kind is Kind.HEADING and not nxt.attrs.get("title") \
                and norm_title(nxt.attrs.get("_title", nxt.text)) not in _SECTION_NAMES:
            parents.add(i)
    if not parents:
        return
    level = blocks[heads[0]].level or 2
    inside = False
    for i in heads:
        b = blocks[i]
        if i in parents or norm_title(b.attrs.get("_title", b.text)) in _SECTION_NAMES:
            b.level, inside = level, i in parents
        elif inside:
            b.level = level + 1


def _slanted_below(blocks: list[Block], weak: list[int], body: float) -> None:
    """Where nothing is numbered, lines in the italic of the section headings, smaller than
    they are and larger than the body, at least twice and in one style, each over running
    text, are the level below them (tufte-handout: a-heads in 14 pt italic, in the outline,
    b-heads in 10.9 pt italic over a 10 pt body, not in it)."""
    heads = [b for b in blocks if b.kind is Kind.HEADING and not b.attrs.get("title") and b.level
             and b.attrs.get("_size") is not None and _signature(b)[2] and not b.attrs.get("_known")]
    if not heads:
        return
    least = min(_signature(b)[0] for b in heads)
    level = max(b.level for b in heads if _signature(b)[0] == least) + 1
    below = [i for i in weak if blocks[i].kind is Kind.PARAGRAPH and _signature(blocks[i])[2]
             and body + 0.5 <= _signature(blocks[i])[0] < least and _text_follows(blocks, i, body)]
    if len(below) >= 2 and len({_signature(blocks[i]) for i in below}) == 1:
        sig = _signature(blocks[below[0]])
        for idx in below:
            _set_heading(blocks[idx], min(level, 5), None, blocks[idx].text.replace("\n", " ").strip())
        for b in blocks:  # a known title in that style ("References" as a b-head) is of that level too
            if b.kind is Kind.HEADING and b.attrs.get("_known") and b.attrs.get("_size") is not None \
                    and _signature(b) == sig:
                b.level = min(level, 5)


def _unnumbered_below(blocks: list[Block], weak: list[int], first_numbered: int | None, sig_level: dict,
                      body: float) -> None:
    """Numbered sections over unnumbered subsections (PLOS numbers what the paper's own macro
    makes a \\section, its \\subsection* stay bare): short bold lines in one style of their
    own, smaller than a numbered level's and larger than the body, at least twice, each
    followed by a paragraph in the body's type, are the level below it."""
    title_page = next((b.page for b in blocks if b.attrs.get("title")), blocks[0].page if blocks else 1)
    found: dict[tuple, list[int]] = {}
    for idx in weak:
        b = blocks[idx]
        sig = _signature(b)
        if b.kind is not Kind.PARAGRAPH or sig in sig_level or not sig[1] or sig[0] < body + 0.9 \
                or (first_numbered is not None and idx < first_numbered and b.page <= title_page):
            continue
        nxt = next((n for n in blocks[idx + 1: idx + 3] if n.kind not in (Kind.FURNITURE, Kind.FOOTNOTE)), None)
        if nxt is not None and nxt.kind is Kind.PARAGRAPH and abs((nxt.attrs.get("_size") or 0) - body) <= 0.8 \
                and _style(nxt, body) is None:
            found.setdefault(sig, []).append(idx)
    for sig, idxs in found.items():
        above = [lvl for s, lvl in sig_level.items() if s[0] > sig[0]]
        if len(idxs) < 2 or not above:
            continue
        for idx in idxs:
            _set_heading(blocks[idx], min(max(above) + 1, 5), None, blocks[idx].text.replace("\n", " ").strip())


def _centred_second_lines(blocks: list[Block]) -> None:
    """A centred heading broken over two lines ("II. THE DESIGN, INTENT, AND" over "LIMITATIONS
    OF THE TEMPLATES", IEEE): the block builder parts lines that start at different x, and the
    second line, alone, reads as an unnumbered heading of the same style. One heading: the next
    line is set right under it (no more than a line's spacing), in the same type, on the same
    centre."""
    for cur, nxt in zip(blocks, blocks[1:], strict=False):
        if cur.kind is not Kind.HEADING or nxt.kind is not Kind.HEADING or nxt.number or not cur.bbox \
                or not nxt.bbox or nxt.page != cur.page or _signature(cur) != _signature(nxt):
            continue
        height = cur.bbox[3] - cur.bbox[1]
        gap = nxt.bbox[1] - cur.bbox[3]
        centre = (cur.bbox[0] + cur.bbox[2]) / 2 - (nxt.bbox[0] + nxt.bbox[2]) / 2
        if not (-1 <= gap <= 0.6 * height and abs(centre) <= 4 and cur.bbox[0] > nxt.bbox[0] - 40) \
                or SENTENCE_END_RE.search(cur.text):
            continue
        _join_second_line(cur, nxt)


def _hung_second_lines(blocks: list[Block]) -> None:
    """A numbered heading broken over two lines, the second hung under the title past the number
    ("5.3 Merging constraint and complement into" over "an explicit constraint", SAGE; RSC the
    same): the first line fills its column, the second is set right under it in the same type,
    indented by no more than a few ems, and the text under them starts at the heading's edge."""
    for i, cur in enumerate(blocks[:-2]):
        nxt, body = blocks[i + 1], blocks[i + 2]
        if cur.kind is not Kind.HEADING or not cur.number or nxt.kind is not Kind.PARAGRAPH or not cur.bbox \
                or not nxt.bbox or not body.bbox or nxt.page != cur.page or nxt.attrs.get("_nlines", 1) != 1 \
                or _signature(cur) != _signature(nxt) or SENTENCE_END_RE.search(cur.text):
            continue
        height = cur.bbox[3] - cur.bbox[1]
        indent = nxt.bbox[0] - cur.bbox[0]
        if -1 <= nxt.bbox[1] - cur.bbox[3] <= 0.8 * height and 2 <= indent <= 4 * height \
                and abs(body.bbox[0] - cur.bbox[0]) <= 12 and cur.bbox[2] >= body.bbox[2] - 0.15 * (body.bbox[2] - body.bbox[0]):
            _join_second_line(cur, nxt)


def _join_second_line(cur: Block, nxt: Block) -> None:
    second = nxt.text.replace("\n", " ").strip()
    cur.text = f"{cur.text.rstrip()} {second}"
    cur.attrs["_title"] = f"{cur.attrs.get('_title', '').rstrip()} {second}".strip()
    cur.bbox = (min(cur.bbox[0], nxt.bbox[0]), cur.bbox[1], max(cur.bbox[2], nxt.bbox[2]), nxt.bbox[3])
    nxt.kind = Kind.FURNITURE  # its text now lives in the heading
    nxt.attrs["_merged_into_heading"] = True


# sans-serif faces by their PDF names (NimbusSanL-Bold, LMSans10-Bold, Helvetica-Bold, ArialMT, CMSSBX10)
_SANS_FONT_RE = re.compile(r"Sans|SanL|Helvetica|Arial|CMSS|Biolinum|Heros|Roboto|Verdana|Calibri|Myriad|Frutiger"
                           r"|Univers|Avenir|Futura|Lato-|Gill", re.I)
# labels a class sets run-in in its heading face that are no sections (A&A's "Key words.")
_RUN_IN_LABELS = {"key words", "keywords", "abstract", "correspondence", "significance", "significance statement",
                  "author contributions", "competing interests", "data availability", "funding", "proof"}


def _run_in_title(lead: str) -> bool:
    """A bold lead ("Data Archival.") that reads as a heading's title: a few words with a capital,
    not a theorem, caption, front-matter or bibliography label."""
    title = lead[:-1].strip()
    return 1 <= len(title.split()) <= 8 and title[:1].isupper() and any(c.islower() for c in title) \
        and not _THEOREM_RE.match(title) and not CAPTION_RE.match(title) and norm_title(title) not in _RUN_IN_LABELS \
        and norm_title(title) not in BIBLIOGRAPHY_TITLES and not re.search(r"[.:;!?]\s", title)


def _split_at_lead(blocks: list[Block], pages: dict, faces: set[str]) -> list[tuple[int, str, str, bool]]:
    """A run-in lead inside a block, at the start of a line after one that ends a sentence (no
    space parted it from the paragraph before: PNAS's "Supporting Information (SI)." at a column
    top): the block is cut there, in place; returns the new candidates (index, lead, font, italic)."""
    found = []
    k = 0
    while k < len(blocks):
        b = blocks[k]
        k += 1
        lt, xs = b.attrs.get("_line_texts"), b.attrs.get("_line_x0")
        if b.kind is not Kind.PARAGRAPH or not lt or not xs or len(lt) != len(xs) or len(lt) < 2 \
                or b.page not in pages or b.bbox is None:
            continue
        for i in range(1, len(lt)):
            if not lt[i - 1].rstrip().endswith((".", ":")) or not lt[i][:1].isupper():
                continue
            ln = next((x for x in pages[b.page].lines if x.bbox and abs(x.bbox[0] - xs[i]) < 0.5
                       and x.text[:20] == lt[i][:20] and b.bbox[1] - 1 <= x.bbox[1] <= b.bbox[3] + 1), None)
            spans = [s for s in ln.spans if not s.superscript] if ln else []
            span = spans[0] if spans else None
            if span is None or not span.bold or span.font not in faces:
                continue
            if len(spans) < 2 or spans[1].bold and spans[1].font == span.font:
                continue  # a line all in bold (an abstract's): no lead and text after it
            lead = span.text.strip()
            pos = b.text.find(lead)
            if not lead or lead[-1] not in ".:" or not _run_in_title(lead) or pos <= 0 \
                    or b.text.count(lead) != 1 or b.text[:pos].rstrip()[-1:] not in ".:":
                continue
            tail = Block(Kind.PARAGRAPH, b.text[pos:], b.page, page_end=b.page_end,
                         bbox=(b.bbox[0], ln.bbox[1], b.bbox[2], b.bbox[3]), attrs=dict(b.attrs))
            tail.attrs.update({"_line_texts": lt[i:], "_line_x0": xs[i:], "_nlines": len(lt) - i,
                               "_top": ln.bbox[1], "_x0": ln.bbox[0], "_lead_bold": lead, "_plain_first": ln.text})
            b.text = b.text[:pos].rstrip()
            b.page_end = None
            b.bbox = (b.bbox[0], b.bbox[1], b.bbox[2], ln.bbox[1])
            b.attrs.update({"_line_texts": lt[:i], "_line_x0": xs[:i], "_nlines": i})
            blocks.insert(k, tail)
            found.append((tail, lead, span.font, span.italic or "ital" in span.font.lower()))
            break
    at = {id(b): i for i, b in enumerate(blocks)}  # (by identity: Block's == compares fields)
    return [(at[id(t)], lead, font, it) for t, lead, font, it in found]


def _first_line(b: Block, pages: dict):
    """The stream line a block opens with (the one at its top-left corner), or None."""
    page = pages.get(b.page)
    return next((ln for ln in page.lines if ln.bbox and ln.bbox[1] == b.attrs.get("_top")
                 and ln.bbox[0] == b.attrs.get("_x0")), None) if page else None


def _run_in_heads(doc: Document, blocks: list[Block], body: float) -> list[Block]:
    """Subsections a class sets run-in ("Results. We ..." in bold sans at a paragraph's start,
    PNAS): in a document with no subsection headings, a bold lead in a sans-serif face while
    the body is serif, title-like, in one face at least twice, is a heading of its own one
    level below the section it sits in. A bold lead in the body's own family (article's
    \\paragraph, "Decision mapping. ...") is text, as every truth counts it; so are theorem and
    caption labels, and front-matter labels."""
    if doc.stream.kind != "pdf" or any(b.kind is Kind.HEADING and (b.level or 2) >= 3 for b in blocks):
        # a document with subsections of its own: its run-in leads are the level below them
        # (LIPIcs sets \\paragraph run-in in its sans heading face: "Structure of the paper.")
        return blocks
    cands: list[tuple[int, str, str, bool]] = []  # (index, lead as printed, its font, italic)
    pages = None
    in_bib = False
    columns = text_columns(blocks, body)
    for idx, b in enumerate(blocks):
        if b.kind is Kind.HEADING:  # (an author-year list's names in bold are no leads)
            in_bib = norm_title(b.attrs.get("_title") or b.text) in BIBLIOGRAPHY_TITLES
        lead = b.attrs.get("_lead_bold")
        if b.kind is not Kind.PARAGRAPH or not lead or not b.text.startswith(lead) or lead[-1] not in ".:" or in_bib:
            continue
        if not _run_in_title(lead) or in_margin(b, columns):
            continue  # (a label in a margin column beside the text: JOSS's sidebar "Editor:")
        if pages is None:
            pages = {p.number: p for p in doc.stream.pages}
        line = _first_line(b, pages)
        spans = [s for s in line.spans if not s.superscript] if line else []
        span = spans[0] if spans else None
        if span is None or not span.bold or not _SANS_FONT_RE.search(span.font):
            continue
        if len(spans) > 1 and spans[1].bold and spans[1].font == span.font:
            continue  # a paragraph all in bold (an abstract): its first sentence is no lead
        cands.append((idx, lead, span.font, span.italic or "ital" in span.font.lower()))
    if len(cands) < 2:
        return blocks
    # the body's face: the font of most characters on the candidates' pages
    body_font = _main_font(pages[n] for n in {blocks[i].page for i, *_ in cands})
    if _SANS_FONT_RE.search(body_font) and not _sans_run_in(blocks, cands, pages):
        return blocks  # a sans body: its bold leads are the body's own
    by_font: dict[str, int] = {}
    for _, _, font, _ in cands:
        by_font[font] = by_font.get(font, 0) + 1
    # a face used at least twice; its slanted cut once (PNAS's \\subsubsection under them)
    faces = {f for f, n in by_font.items() if n >= 2}
    families = {f.split("-")[0] for f in faces}
    cands = [c for c in cands if c[2] in faces or (c[3] and c[2].split("-")[0] in families)]
    if not cands:
        return blocks
    blocks = list(blocks)  # the caller's list stays as it was
    heads = [blocks[c[0]] for c in cands]
    more = _split_at_lead(blocks, pages, faces)
    where = {id(b): i for i, b in enumerate(blocks)}
    cands = [(where[id(h)], *c[1:]) for h, c in zip(heads, cands, strict=True)] + more
    # a short bold line standing alone in that face, larger, is a section above them (PNAS's
    # "Methods": unnumbered, on the title page, where bold lines are not taken for sections)
    size = min(blocks[c[0]].attrs.get("_size") or 0.0 for c in cands)
    for b in blocks:
        if b.kind is Kind.PARAGRAPH and b.attrs.get("_nlines") == 1 and b.attrs.get("_bold") \
                and (b.attrs.get("_size") or 0.0) > size and b.attrs.get("_top") is not None:
            c = _heading_candidate(b, body)
            if c is None or c[0] is not None or not (c[2] or "").startswith("weak-"):
                continue
            line = _first_line(b, pages)
            if line and line.spans and line.spans[0].font in faces:
                _set_heading(b, 2, None, c[1])
    at = {c[0]: c for c in cands}
    out: list[Block] = []
    parent = 2
    for idx, b in enumerate(blocks):
        c = at.get(idx)
        if b.kind is Kind.HEADING and not b.attrs.get("title"):
            parent = b.level or 2
        if c is None:
            out.append(b)
            continue
        _, lead, _, italic = c
        title = lead[:-1].strip()
        head = Block(Kind.HEADING, title, b.page, bbox=b.bbox,
                     attrs={k: v for k, v in b.attrs.items() if k in ("_size", "_size_max", "_top", "_x0")})
        _set_heading(head, parent + 1 + int(italic), None, title)
        head.attrs["_bold"] = True
        out.append(head)
        rest = b.text[len(lead):].lstrip()
        if rest:
            b.text = rest
            b.attrs["_lead_bold"] = ""
            out.append(b)
    return out


# "2.1. 1D Poisson." (siamart, amsart: a section's number and title in bold opening its first paragraph)
_SECTION_LEAD_RE = re.compile(r"(\d{1,2}(?:\.\d{1,2}){0,3})\.? +(\S.{0,99}?)\.$")


def _dotted(number: str | None) -> tuple[int, ...] | None:
    return tuple(int(p) for p in number.split(".")) if number and re.fullmatch(r"\d{1,2}(?:\.\d{1,2})*", number) else None


def _follows(prev: tuple[int, ...] | None, cur: tuple[int, ...]) -> bool:
    """``cur`` is the next heading number after ``prev``: its first child, or the next at its depth
    or at one above it (2.3 after 2.2.4)."""
    if prev is None:
        return cur == (1,)
    return cur == prev + (1,) or any(cur == prev[:k] + (prev[k] + 1,) for k in range(len(prev)))


def _section_lead_title(title: str) -> bool:
    """A run-in section lead's title: a few words opening with a capital or a number glued to
    one ("1D Poisson"), not a theorem or caption label, no sentence inside."""
    title = title.strip()
    return 1 <= len(title.split()) <= 12 and bool(re.match(r"[A-Z]|\d+[A-Za-z]", title)) \
        and any(c.islower() for c in title) and not _THEOREM_RE.match(title) and not CAPTION_RE.match(title) \
        and norm_title(title) not in _RUN_IN_LABELS and norm_title(title) not in BIBLIOGRAPHY_TITLES \
        and not re.search(r"[.:;!?]\s", title)


def _numbered_run_in_sections(doc: Document, blocks: list[Block]) -> list[Block]:
    """Sections and subsections set run-in (SIAM's "1. Introduction. Multigrid methods ...",
    "2.1. 1D Poisson. Formally, ..."): a bold lead that is a number and a title, opening a
    paragraph whose text goes on upright, is a heading at its number's depth when the number
    is the next one after the heading before it (1, 2, 2.1, 2.2, 3, ...), and at least two
    such leads are found. A heading read from such a line keeps only the lead; the text after it
    goes back to the paragraph."""
    if doc.stream.kind != "pdf":
        return blocks
    found: dict[int, tuple[str, str, tuple[int, ...]]] = {}
    prev: tuple[int, ...] | None = None
    pages = {p.number: p for p in doc.stream.pages}
    for idx, b in enumerate(blocks):
        lead = (b.attrs.get("_lead_bold") or "").strip()
        if not lead and b.kind is Kind.PARAGRAPH and b.text[:1].isdigit():
            lead = _italic_lead(b, pages)
        if b.kind is Kind.HEADING and not b.attrs.get("title"):
            num = _dotted(b.number)
            if num is not None:
                prev = num
            continue
        if b.kind is not Kind.PARAGRAPH or not lead or not b.text.startswith(lead) or len(b.text) <= len(lead):
            continue
        m = _SECTION_LEAD_RE.fullmatch(lead)
        num = _dotted(m.group(1)) if m else None
        if num is None or not _section_lead_title(m.group(2)) or not _follows(prev, num):
            continue
        found[idx] = (lead, m.group(2).strip(), num)
        prev = num
    if len(found) < 2:
        return blocks
    out: list[Block] = []
    for idx, b in enumerate(blocks):
        lead = (b.attrs.get("_lead_bold") or "").strip()
        if idx not in found:
            m = _SECTION_LEAD_RE.fullmatch(lead) if b.kind is Kind.HEADING and lead else None
            out.append(b)
            if m is None or b.number != m.group(1) or b.attrs.get("title") or not b.text.startswith(lead):
                continue
            # the heading finder took the lead's line ("3. Numerical Results.", or "2.5. ...
            # Network (GCN). The" with the paragraph's first word): the title is the lead's
            rest = b.text[len(lead):].strip()
            _set_heading(b, b.level or 2, b.number, m.group(2).strip())
            b.text = lead
            nxt = blocks[idx + 1] if idx + 1 < len(blocks) else None
            if rest and nxt is not None and nxt.kind is Kind.PARAGRAPH and idx + 1 not in found:
                hyphen = rest.endswith("-") and nxt.text[:1].islower()
                nxt.text = rest[:-1] + nxt.text if hyphen else rest + " " + nxt.text
            elif rest:
                out.append(Block(Kind.PARAGRAPH, rest, b.page, bbox=b.bbox,
                                 attrs={k: v for k, v in b.attrs.items() if k in ("_size", "_top", "_x0")}))
            continue
        lead, title, num = found[idx]
        head = Block(Kind.HEADING, title, b.page, bbox=b.bbox,
                     attrs={k: v for k, v in b.attrs.items() if k in ("_size", "_size_max", "_top", "_x0")})
        _set_heading(head, len(num) + 1, ".".join(map(str, num)), title)
        head.attrs["_bold"] = True
        out.append(head)
        b.text = b.text[len(lead):].lstrip()
        b.attrs["_lead_bold"] = ""
        out.append(b)
    return out


def _italic_lead(b: Block, pages: dict) -> str:
    """A subsection lead set with its number upright and its title in a face of its own, italic
    or bold (LMCS's "2.1. **A sub-section.** Regular text."), the text going on upright ("2.1.
    A sub-section. Regular text."): the number and the title, or ''. After a bold title the
    text may open in italic (an emphasised word), never in bold."""
    line = _first_line(b, pages)
    spans = [x for x in line.spans if not x.superscript] if line else []
    if len(spans) < 3 or spans[0].italic or spans[0].bold or not (spans[1].italic or spans[1].bold) \
            or spans[2].bold or (spans[1].italic and not spans[1].bold and spans[2].italic):
        return ""
    num, title = spans[0].text.strip(), spans[1].text.strip()
    if not re.fullmatch(r"\d{1,2}(?:\.\d{1,2}){1,3}\.?", num) or not title.endswith("."):
        return ""
    lead = f"{num} {title}"
    return lead if b.text.startswith(lead) else ""


_NUMBERED_LEAD_RE = re.compile(r"(\d{1,2})\) ([A-Z][^:\n]{2,80}):\s+\S")
# "1.1.1. Subsubsection Heading Here. Text ..." (IEEEtran compsoc conference: bold, numbered, run-in)
_DOTTED_LEAD_RE = re.compile(r"(\d{1,2}(?:\.\d{1,2}){1,3})\.? ([A-Z][^.:\n]{2,80})[.:]\s+\S")
# the same number and title alone, in a face of their own (sagej's sans italic \\subsubsection)
_FACE_LEAD_RE = re.compile(r"(\d{1,2}(?:\.\d{1,2}){2,3})\.? ([A-Z][^.:\n]{2,80})")


def _numbered_run_in(doc: Document, blocks: list[Block]) -> list[Block]:
    """IEEEtran's subsubsections are set run-in, numbered and in italic ("1) Gradient descent
    method: Gradient descent is ..."): an italic lead "N) Title:" opening a paragraph, the text
    after it upright, numbered 1, 2, ... under one subsection, is a heading one level below that
    subsection. Only under subsections (a list item "1) ..." in a section stays one). The
    compsoc conference sets them in bold with the full number ("1.1.1. Title. Text ..."): the
    next child of the subsection's own number."""
    if doc.stream.kind != "pdf" or not any(b.kind is Kind.HEADING and (b.level or 2) >= 3 for b in blocks):
        return blocks
    pages = faces = None
    display: list[tuple[int, str, int]] = []  # (index, title, parent level): "N) Title" alone in a head face
    found: list[tuple[int, str, str, int, str | None]] = []  # (index, lead, title, level, number)
    parent, want, parent_number = None, 1, None
    for idx, b in enumerate(blocks):
        if b.kind is Kind.HEADING and not b.attrs.get("title"):
            parent, want, parent_number = b.level or 2, 1, b.number
            continue
        if b.kind is Kind.PARAGRAPH and parent is not None and b.text[:1].isdigit():
            g = _DISPLAY_LEAD_RE.fullmatch(b.text.strip())
            if g is not None and int(g.group(1)) == want:
                if pages is None:
                    pages = {p.number: p for p in doc.stream.pages}
                if faces is None:
                    faces = _head_faces(doc, blocks, pages)
                if _in_head_face(blocks, idx, pages, faces):
                    display.append((idx, g.group(2).strip(), parent))
                    want += 1
                    continue
        if b.kind is not Kind.PARAGRAPH or parent is None or parent < 3 or not b.text[:1].isdigit():
            continue
        m = _NUMBERED_LEAD_RE.match(b.text)
        d = _DOTTED_LEAD_RE.match(b.text) if m is None and parent_number else None
        if m is not None and int(m.group(1)) != want:
            continue
        # "1.1.1" only as the next child of the subsection "1.1" it sits under
        next_child = f"{parent_number}.{want}"
        if m is None and not (parent_number and b.text.startswith(next_child)
                              and b.text[len(next_child):len(next_child) + 1] in (" ", ".")):
            continue
        if pages is None:
            pages = {p.number: p for p in doc.stream.pages}
        line = _first_line(b, pages)
        spans = [x for x in line.spans if not x.superscript] if line else []
        if len(spans) < 2:
            continue
        if m is not None:
            lead, title, number = f"{m.group(1)}) {m.group(2)}:", m.group(2).strip(), None
            if not spans[0].italic or spans[1].italic or spans[0].text.strip() != lead:
                continue
        elif d is not None and d.group(1) == next_child and spans[0].bold and not spans[1].bold \
                and spans[0].text.strip() == b.text[:d.end() - 1].rstrip():
            lead = b.text[:d.end() - 1].rstrip()
            title, number = d.group(2).strip(), d.group(1)
        else:
            # the number and title in a face of their own, the text going on in the body's with no
            # stop between them (sagej: "3.1.1 Kinematic chain A kinematic chain is ..." in sans
            # italic, then roman)
            k = next((j for j, x in enumerate(spans) if x.font != spans[0].font), None)
            lead = " ".join(x.text.strip() for x in spans[:k]) if k else ""
            f = _FACE_LEAD_RE.fullmatch(lead)
            if f is None or f.group(1) != next_child or not (spans[0].italic or spans[0].bold) \
                    or not b.text.startswith(lead):
                continue
            title, number = f.group(2).strip(), f.group(1)
        found.append((idx, lead, title, min(parent + 1, 5), number))
        want += 1
    if len(display) >= 2:
        # one face, one level: the deepest heading such a head sits under, plus one
        level = min(max(parent for _, _, parent in display) + 1, 5)
        found += [(idx, blocks[idx].text.strip(), title, level, None) for idx, title, _ in display]
    if not found:
        return blocks
    at = {idx: (lead, title, level, number) for idx, lead, title, level, number in found}
    out: list[Block] = []
    for idx, b in enumerate(blocks):
        if idx not in at:
            out.append(b)
            continue
        lead, title, level, number = at[idx]
        head = Block(Kind.HEADING, title, b.page, bbox=b.bbox,
                     attrs={k: v for k, v in b.attrs.items() if k in ("_size", "_size_max", "_top", "_x0")})
        _set_heading(head, level, number, title)
        head.attrs["_italic" if number is None else "_bold"] = True
        out.append(head)
        b.text = b.text[len(lead):].lstrip()
        out.append(b)
    return out


_DISPLAY_LEAD_RE = re.compile(r"(\d{1,2})\) ([A-Z][^:.\n]{2,80})")


def _main_font(pages) -> str:
    """The font of most characters on these pages ('' where they hold none)."""
    chars: dict[str, int] = {}
    for page in pages:
        for ln in page.lines:
            for x in ln.spans:
                chars[x.font] = chars.get(x.font, 0) + len(x.text)
    return max(chars, key=chars.get) if chars else ""


def _family(font: str) -> str:
    return re.sub(r"^[A-Z]{6}\+", "", font).split("-")[0].split(",")[0]


def _head_faces(doc: Document, blocks: list[Block], pages: dict) -> tuple[str, set[str]]:
    """The body's font and the families of the section heads' fonts."""
    body = _main_font(doc.stream.pages)
    fams = set()
    for b in blocks:
        if b.kind is Kind.HEADING and not b.attrs.get("title"):
            line = _first_line(b, pages)
            if line and line.spans:
                fams.add(_family(line.spans[0].font))
    return body, fams


def _in_head_face(blocks: list[Block], idx: int, pages: dict, faces: tuple[str, set[str]]) -> bool:
    """A one-line block set wholly in one font that is not the body's but of the section heads'
    family (IEEE Access: '1) Efficiency' in sans regular under sans bold heads, over a serif
    body), running text after it."""
    body, fams = faces
    b = blocks[idx]
    line = _first_line(b, pages)
    spans = [x for x in line.spans if not x.superscript] if line else []
    if not spans or line.text.strip() != b.text.strip() or len({x.font for x in spans}) != 1:
        return False
    font = spans[0].font
    nxt = blocks[idx + 1] if idx + 1 < len(blocks) else None
    return font != body and _family(font) != _family(body) and _family(font) in fams \
        and nxt is not None and nxt.kind is Kind.PARAGRAPH


def _sans_run_in(blocks: list[Block], cands: list[tuple], pages: dict) -> bool:
    """A sans body whose bold leads are the run-in subsections all the same: nothing numbered
    and the leads in the very face of the section headings, larger there (the bioRxiv template
    derived from pnas-new sets its whole text in Helvetica). A sans paper's \\paragraph leads sit
    under numbered sections."""
    if any(b.kind is Kind.HEADING and b.number for b in blocks):
        return False
    faces = {c[2] for c in cands}
    for b in blocks:
        if b.kind is Kind.HEADING and not b.attrs.get("title") and (b.attrs.get("_size") or 0.0) > 0:
            line = _first_line(b, pages)
            if line and line.spans and line.spans[0].font in faces \
                    and line.spans[0].size > max(blocks[c[0]].attrs.get("_size") or 0.0 for c in cands) + 0.5:
                return True
    return False


def _text_follows(blocks: list[Block], idx: int, body: float) -> bool:
    """Running text comes next (a paragraph of body-size lines, maybe under a subheading): what
    a section heading heads."""
    for b in blocks[idx + 1: idx + 4]:
        if b.kind in (Kind.FURNITURE, Kind.FOOTNOTE):
            continue
        size = b.attrs.get("_size") or 0.0
        if b.kind is Kind.HEADING or (b.kind is Kind.PARAGRAPH and b.attrs.get("_nlines", 1) == 1
                                           and _style(b, body) in ("bold", "large")):
            continue  # "Notation" right under "General Remarks"
        return b.kind is Kind.PARAGRAPH and b.attrs.get("_nlines", 1) >= 2 and abs(size - body) <= 0.8
    return False


def _front_abstract(blocks: list[Block]) -> None:
    """An "Abstract" heading on the title page labels front matter, not a section: it stays a
    paragraph (metadata reads the abstract after it either way). A thesis's abstract chapter,
    on a page of its own, stays a heading."""
    title_page = next((b.page for b in blocks if b.attrs.get("title")), None)
    for b in blocks:
        if b.kind is Kind.HEADING and not b.attrs.get("title") and not b.attrs.get("_markup") \
                and b.page == title_page and norm_title(b.attrs.get("_title") or b.text) == "abstract":
            b.kind = Kind.PARAGRAPH
            b.level = None
            b.number = None


# An outline in which entries step one level under the one before this many times in a row is a
# stair, not a tree: R Markdown's rticles templates (PeerJ) nest each unnumbered \\section* one
# level under the last, so Results is six levels down. LaTeX's own sectioning steps down at most
# part > chapter > section > subsection > subsubsection (4 steps) before it comes back up, and
# such a book's outline must keep its levels: a stair takes one step more.
_STAIR_STEPS = 5


def _stair(outline) -> bool:
    """The outline's levels say nothing of the headings' (its entries still name them): the text's
    own signatures find and level them, as without an outline."""
    run = 0
    for a, b in pairwise(outline):
        run = run + 1 if b.level == a.level + 1 else 0
        if run >= _STAIR_STEPS:
            return True
    return False


# a note printed after a run-in lead's name, before its full stop: "Problem 3 (Ahlfors 4.2.3). Prove"
_LEAD_NOTE_RE = re.compile(r"\s*(\([^()\n]{1,80}\))[.:]?(?=\s)")


def _bookmarked_leads(outline, blocks: list[Block]) -> None:
    """A bookmark that names a bold run-in lead ("Problem 2. Let S be ...": a problem sheet's
    class bookmarks each problem) is a heading, though it opens a paragraph: the lead (with a
    note in brackets after it) becomes a heading block at the bookmark's level, the text after
    it stays the paragraph. Only where no block on the bookmark's pages is its title whole, and
    only a bold lead: a theorem's run-in label ("Theorem 3.4.") has no bookmark."""
    by_page: dict[int, list[int]] = {}
    for i, b in enumerate(blocks):
        by_page.setdefault(b.page, []).append(i)
    split: dict[int, tuple[str, int, str]] = {}  # block index -> (lead, level, title)
    for entry in outline:
        want = norm_title(entry.title)
        if not want or not entry.page:
            continue
        near = [i for p in (entry.page - 1, entry.page, entry.page + 1) for i in by_page.get(p, [])]
        if any(norm_title(blocks[i].attrs.get("_title") or blocks[i].text) == want for i in near):
            continue  # (the title stands whole somewhere: the outline's own match finds it)
        for i in by_page.get(entry.page, []):
            b = blocks[i]
            lead = (b.attrs.get("_lead_bold") or "").strip()
            if b.kind is not Kind.PARAGRAPH or i in split or not lead or not b.text.startswith(lead) \
                    or b.attrs.get("toc"):
                continue
            core = lead.rstrip(".:").strip()
            if want != norm_title(core) or HEADING_NUM_RE.match(core):
                continue  # (numbered run-in leads, SIAM's "2.1. 1D Poisson.": _numbered_run_in_sections)
            if lead == core:  # no stop after the name: a note in brackets may follow before it
                note = _LEAD_NOTE_RE.match(b.text, len(lead))
                if note:
                    lead, core = b.text[:note.end()], f"{core} {note.group(1)}"
            if b.text[len(lead):].strip():
                split[i] = (lead, entry.level + 1, core)
                break
    for i in sorted(split, reverse=True):
        b = blocks[i]
        lead, level, title = split[i]
        head = Block(Kind.HEADING, lead.rstrip(".:").strip(), b.page, bbox=b.bbox,
                     attrs={k: v for k, v in b.attrs.items() if k in ("_size", "_size_max", "_top", "_x0")})
        _set_heading(head, level, None, title)
        head.attrs["_bold"] = True
        b.text = b.text[len(lead):].lstrip()
        b.attrs["_lead_bold"] = ""
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        if b.attrs.get("_nlines") == 1 and nxt is not None and nxt.kind is Kind.PARAGRAPH and nxt.page == b.page \
                and (b.text.endswith("-") or nxt.text[:1].islower()):
            # the lead's line held only the text's first word ("Funding. The" / "first author ..."):
            # it goes on in the next block
            nxt.text = b.text[:-1] + nxt.text if b.text.endswith("-") else f"{b.text} {nxt.text}"
            blocks[i] = head
        else:
            blocks.insert(i, head)


# a chapter-style label before a title: a word in capitals, a letter or number, a dash
_LABEL_HEAD_RE = re.compile(r"([^\W\d_]{3,}) ([A-Z]|\d{1,2}|[IVXL]{1,5})\s*[–—-]\s+(\S.*)", re.S)


def _apply_outline(outline, blocks: list[Block], body: float) -> set[int]:
    """Match outline entries to blocks on their page (±1); returns matched block indexes."""
    matched: set[int] = set()
    by_page: dict[int, list[int]] = {}
    for i, b in enumerate(blocks):
        if b.kind is Kind.PARAGRAPH and not b.attrs.get("toc"):
            by_page.setdefault(b.page, []).append(i)
    seen: dict[int, tuple] = {}  # block index -> its text read once (entries x blocks is large)

    def read(i: int) -> tuple:
        r = seen.get(i)
        if r is None:
            b = blocks[i]
            text = b.text.strip().replace("\n", " ")
            if len(text) > 240:  # longer than any outline title may run (see below): no match
                r = seen[i] = (text, None, text, "", "")
                return r
            m = HEADING_NUM_RE.match(text)
            number = m.group(1) if m else None
            rest = m.group(2) if m else text
            got = norm_title(rest)
            t = _TRAILING_NUMBER_RE.match(text)
            if number is None and t and (b.attrs.get("_size_max") or 0) >= body * 1.4:
                number, rest, got = t.group(2), t.group(1), norm_title(t.group(1))  # "Introduction  1"
            r = seen[i] = (text, number, rest, got, norm_title(text))
        return r

    # bookmarks that all lead to one page of a longer document (a pandoc build whose
    # \addcontentsline anchors all land on page 1) say nothing of where their headings are: each
    # is looked for in reading order, after the block the bookmark before it matched
    in_order = len(outline) >= 3 and len({e.page for e in outline}) == 1 and bool(blocks) \
        and blocks[-1].page > (outline[0].page or 0) + 1
    after = -1  # (in_order: the block the last matched bookmark took)
    for entry in outline:
        want = norm_title(entry.title)
        enum = parse_number(entry.title)
        want_bare = norm_title(enum.title) if enum is not None and enum.title else want
        if not want:
            continue
        pages = [entry.page, entry.page + 1, entry.page - 1] if entry.page else []
        if in_order:
            pages = [None]
        best = None
        for p in pages:
            for i in by_page.get(p, []) if p is not None else (i for ps in by_page.values() for i in ps if i > after):
                if i in matched:
                    continue
                text, number, rest, got, full = read(i)
                # the block is the bookmark's title without its number, though its first word
                # reads like one ("A simple interface ..." under "1 A simple interface ...")
                bare = full == want_bare != want and got != want_bare
                if bare or got and got in (want, want_bare) or full == want or (
                        len(want) > 12 and got.startswith(want) and len(got) - len(want) < 8):
                    if len(text) > len(entry.title) + 20:
                        continue
                    if bare:
                        number, rest = None, text
                    best = (i, number or (enum.text if enum is not None and enum.kind == "arabic" else None),
                            rest.strip())
                    break
                if want_bare == want and text[:1].isupper() and (lab := _LABEL_HEAD_RE.match(text)) \
                        and lab.group(1).isupper() and norm_title(lab.group(3)) == want:
                    # "APÊNDICE A – Title", "ANEXO B – Title" under the bookmark "Title": a label
                    # word in capitals (any language) and its letter or number before a dash
                    best = (i, lab.group(2), lab.group(3).strip())
                    blocks[i].attrs["_label_lead"] = text[:lab.start(3)].strip()  # printed before the title
                    break
            if best:
                break
        if best is None:
            continue
        i, number, rest = best
        matched.add(i)
        after = i
        _set_heading(blocks[i], entry.level + 1, number, rest)
    return matched


# ---------------------------------------------------------------------------- captions, footnotes, lists


_CAPTION_FIRST = frozenset("TFLA")  # CAPTION_RE's labels: Table, Figure, Fig., Listing, Algorithm
_MAYBE_CAPTION_RE = re.compile(r"\n(?=[TFLA]|\s)")  # the same test, line by line


def _captions(blocks: list[Block], text: bool = False) -> list[Block]:
    out: list[Block] = []
    at = 0
    # text input: only the blocks that can start a caption are read; the runs between are copied
    for i in _hits(blocks, _MAYBE_CAPTION_RE) if text else range(len(blocks)):
        if at < i:
            out.extend(blocks[at:i])
        b = blocks[i]
        at = i + 1
        if b.kind is Kind.PARAGRAPH and b.bbox is None and (b.text[:1] in _CAPTION_FIRST or b.text[:1].isspace()):
            m = CAPTION_RE.match(b.text.strip())
            if m and m.group(3)[:1].isupper() and len(b.text) > len(m.group(0)) * 0 + 12:
                label, number, rest = m.group(1), m.group(2), m.group(3).strip()
                if label == "Table":
                    nxt = blocks[i + 1] if i + 1 < len(blocks) else None
                    prv = out[-1] if out else None
                    if nxt is not None and nxt.kind is Kind.TABLE and not nxt.attrs.get("caption"):
                        nxt.attrs["caption"] = rest
                        nxt.number = number
                        continue
                    if prv is not None and prv.kind is Kind.TABLE and not prv.attrs.get("caption"):
                        prv.attrs["caption"] = rest
                        prv.number = number
                        continue
                else:
                    prv = out[-1] if out else None
                    if prv is not None and prv.kind is Kind.FIGURE and not prv.number and prv.page == b.page:
                        prv.attrs["caption"] = rest
                        prv.number = number
                        continue
                    # an image placeholder a few blocks up (a table drawn inside the figure in between)
                    back = [x for x in out[-3:] if x.kind is Kind.FIGURE and not x.number and x.page == b.page]
                    if back:
                        back[-1].attrs["caption"] = rest
                        back[-1].number = number
                        continue
                    out.append(Block(Kind.FIGURE, "", b.page, number=number, attrs={"caption": rest, "image": None}))
                    continue
        out.append(b)
    out.extend(blocks[at:])
    return out


_LABELLED_ENTRY_RE = re.compile(r"\s*\[\d{1,3}\]\s")


# a sub-figure's label with a numbered callout in it: "(a) VGG16 [31]", "(ii) ResNet [4, 7]"
_SUB_LABEL_CITES = re.compile(r"\((?:[a-h]|[ivx]{1,4})\) +\S.{0,80}\[\d{1,3}(?: *[,–-] *\d{1,3})*\]\.?")


def _figure_text(blocks: list[Block], body: float) -> list[Block]:
    """Text drawn inside a vector figure (labels, small tables) sits right before its caption in
    a smaller or different font: move it out of the running text into the figure's attrs."""
    if not body:
        return blocks
    drop: set[int] = set()
    for i, b in enumerate(blocks):
        if b.kind is not Kind.FIGURE or b.bbox is None:
            continue
        j = i - 1
        taken: list[str] = []
        subs: list[str] = []
        while j >= 0:
            x = blocks[j]
            if x.page != b.page or x.kind not in (Kind.PARAGRAPH, Kind.CODE, Kind.TABLE) \
                    or x.bbox is None or x.attrs.get("rows") or x.attrs.get("caption"):
                break  # (a table's own caption, its rows unread, is no label of the figure after it)
            size = x.attrs.get("_size")
            if x.kind is Kind.PARAGRAPH and (size is None or abs(size - body) <= 0.4):
                break
            if x.kind is Kind.CODE or _LABELLED_ENTRY_RE.match(x.text):
                break  # (a list's entries in small type just above a caption are no labels of it)
            (subs if _SUB_LABEL_CITES.fullmatch(x.text.strip()) else taken).append(x.text.strip())
            drop.add(j)
            j -= 1
        if taken:
            b.attrs["text"] = list(reversed(taken))
        if subs:  # a sub-figure's label that cites ("(a) VGG16 [31]") joins the caption: its callout is text
            b.attrs["caption"] = " ".join([(b.attrs.get("caption") or "").strip()] + list(reversed(subs))).strip()
    return [b for k, b in enumerate(blocks) if k not in drop]


# a footnote numbered in line ("1. https://..."), as IEEE's compsoc journals set them
_PLAIN_NOTE_RE = re.compile(r"^(\d{1,2})\.\s+(\S.*)$", re.S)


# the next note's mark glued to its text inside a note ("..., Austria[^2]SPSC Lab, ..."): the
# text layer ran two notes of one page's foot into one block
_NEXT_NOTE_RE = re.compile(r"\[\^(\d{1,2})\](?=[^\s\[])")


def _split_notes(b: Block) -> list[Block]:
    """A note holding the marks of the notes after it, in turn and glued to their text (ICML's
    affiliations footnote '1Austrian ..., Austria 2SPSC Lab, ...'), is one note per mark."""
    if not (b.number or "").isdigit() or "[^" not in b.text:
        return [b]
    out, want, start = [b], int(b.number) + 1, 0
    text = b.text
    for m in _NEXT_NOTE_RE.finditer(text):
        if int(m.group(1)) != want:
            continue
        out[-1].text = text[start:m.start()].strip()
        out.append(Block(kind=Kind.FOOTNOTE, text="", page=b.page, number=m.group(1), bbox=b.bbox,
                         attrs=dict(b.attrs)))
        start, want = m.end(), want + 1
    out[-1].text = text[start:].strip()
    return out if all(x.text for x in out) else [b]


def _margin_note(blocks: list[Block], i: int, body: float) -> bool:
    """Block i is a note in the outer margin (tufte's sidenotes and margin notes): smaller type,
    wholly right of the paragraph before it on its page, starting beside that paragraph's
    lines. The paragraph runs on past it, as past a footnote."""
    b = blocks[i]
    prev = blocks[i - 1] if i else None
    return prev is not None and prev.kind is Kind.PARAGRAPH and prev.page == b.page \
        and b.bbox is not None and prev.bbox is not None and b.bbox[0] > prev.bbox[2] + 10 \
        and b.bbox[1] < prev.bbox[3] and (b.attrs.get("_size") or body) < body - 0.4


# text input: a note can only start with its mark (the other rules read a box)
_MAYBE_NOTE_RE = re.compile(r"\n(?=\[\^)")


def _list_goes_on(blocks: list[Block], i: int, number: str) -> bool:
    """The line numbered n at a page's foot comes after the list's item n-1, from the same left
    edge, past only that item's hanging lines (bmcart's 6.3 pt references: `33.`, its second line
    indented, then `34.`): the list's next item, no footnote."""
    b = blocks[i]
    if not number.isdigit() or b.bbox is None:
        return False
    for p in blocks[i - 1: max(i - 6, -1): -1]:
        if p.page != b.page or p.bbox is None or p.kind is not Kind.PARAGRAPH:
            return False
        pm = _PLAIN_NOTE_RE.match(p.text)
        if pm is None and p.bbox[0] > b.bbox[0] + 4:
            continue  # a hanging line of the item above
        return pm is not None and pm.group(1) == str(int(number) - 1) and abs(p.bbox[0] - b.bbox[0]) <= 3
    return False


def _footnotes(blocks: list[Block], body: float, text: bool = False) -> list[Block]:
    split = False
    for i in _hits(blocks, _MAYBE_NOTE_RE) if text else range(len(blocks)):
        b = blocks[i]
        if b.kind is not Kind.PARAGRAPH:
            continue
        margin = _margin_note(blocks, i, body)
        if margin:
            b.attrs["_foot_text"] = True
        if b.text[:1] == "©" and b.bbox is not None and (b.attrs.get("_size") or body) < body - 0.4 \
                and b.bbox[1] > (b.attrs.get("_page_height") or 792) * 0.5:
            b.attrs["_foot_text"] = True  # a copyright line at the page's foot: text runs on past it
            continue
        if b.text.startswith("[^"):
            m = FOOTNOTE_START_RE.match(b.text)
        elif b.bbox is not None and b.text[:1].isdigit() and b.attrs.get("_nlines", 1) <= 3 \
                and b.bbox[1] > (b.attrs.get("_page_height") or 792) * 0.8:
            m = _PLAIN_NOTE_RE.match(b.text)
            # at the foot of the page (size checked below), with no numbered item next to it:
            # the last entries of a "1." list at a page's foot are the list
            if m is not None and (any(_PLAIN_NOTE_RE.match(x.text) for x in (*blocks[max(i - 1, 0):i], *blocks[i + 1:i + 2]))
                                  or _list_goes_on(blocks, i, m.group(1))):
                m = None
        else:
            continue
        if not m:
            continue
        if b.bbox is not None:
            size = b.attrs.get("_size") or body
            h = b.attrs.get("_page_height") or 792
            # (a note that is only a URL may be set in the body's size: ACM's \url notes in Courier)
            small = size < body - 0.4 or (b.bbox[1] > h * 0.8 and _URL_NOTE_RE.match(m.group(2)) is not None)
            if not (small and (b.bbox[1] > h * 0.45 or margin)):
                continue
        b.kind = Kind.FOOTNOTE
        b.number = m.group(1)
        b.text = m.group(2).strip()
        split = split or "[^" in b.text
        # unmarked text in the note's type right under it (ICML's 'Proceedings of ... Copyright'
        # notice) is the page's foot too: a paragraph running on past it is still one paragraph
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        if nxt is not None and nxt.kind is Kind.PARAGRAPH and nxt.page == b.page and b.bbox and nxt.bbox \
                and nxt.bbox[1] >= b.bbox[3] - 1 and nxt.bbox[0] < b.bbox[2] and b.bbox[0] < nxt.bbox[2] \
                and (nxt.attrs.get("_size") or body) < body - 0.4 and not nxt.text.startswith("[^") \
                and not nxt.text.rstrip()[-1:].isdigit():  # a running foot ('3.3 Lowering the Retry Count 16')
            nxt.attrs["_foot_text"] = True
    if not split:
        return blocks
    return [x for b in blocks for x in (_split_notes(b) if b.kind is Kind.FOOTNOTE else (b,))]


_BULLETS = frozenset("•●○◦▪‣∙·-–*(")


def _list_start(t: str) -> bool:
    """LIST_RE may match: a bullet, "(", a digit, or a letter and its "." or ")" first (after
    any blanks); a superset, the pattern decides."""
    c = t[:1]
    if c in _BULLETS or c.isdigit() or c.isspace():
        return True
    return "a" <= c <= "z" and t[1:2] in (".", ")")


# _list_start line by line (a digit or a blank outside ASCII among the last)
_MAYBE_LIST_RE = re.compile(r"\n(?=[•●○◦▪‣∙·\-–*(0-9]|\s|[a-z][.)]|[^\x00-\x7f])")


def _lists(blocks: list[Block], text: bool = False) -> None:
    for b in map(blocks.__getitem__, _hits(blocks, _MAYBE_LIST_RE)) if text else blocks:
        if b.kind is not Kind.PARAGRAPH or not _list_start(b.text):
            continue
        m = LIST_RE.match(b.text)
        if not m:
            continue
        bullet = m.group(1)
        num = m.group(2) or m.group(3) or m.group(4)
        if bullet in ("-", "–", "*") and b.bbox is not None and b.attrs.get("_x0", 0) < 0:
            continue
        if num and b.bbox is None and len(b.text) < 4:
            continue
        b.kind = Kind.LIST_ITEM
        b.text = m.group(5).strip()
        b.attrs["ordered"] = bool(num)
        b.number = num.strip() if num else None
        b.level = 1


# ---------------------------------------------------------------------------- flow


def _continues(prev: Block, nxt: Block) -> bool:
    return runs_on([prev.text], nxt.text.lstrip())


def _new_column(prev: Block, nxt: Block) -> bool:
    """The next block starts higher on the same page: the text went on in the next column."""
    return bool(prev.bbox and nxt.bbox and nxt.bbox[1] < prev.bbox[1] and nxt.bbox[0] > prev.bbox[0] + 50)


def _aside(b: Block, prose: bool) -> bool:
    """blocks.aside: a plot's turned labels, or, beside ``prose`` only, a code line. Like a float,
    it is no paragraph's run-on, nor one another runs on into, and may stand between the two."""
    return (prose or bool(b.attrs.get("_rotated"))) and aside(b)


# a float's caption opening a page: "Table 3:", an appendix's "Table A1:", "Figure B2."
_FLOAT_CAPTION = re.compile(r"\s*(?:Table|TABLE|Figure|FIGURE|Fig\.|FIG\.)\s+(?:[A-Z]?\d{1,3}|[IVX]{1,4})[:.]\s+\S")
# a sentence's end in a paragraph: a word's last letters, then . ! or ?, then a space or the end
# (or a closing bracket's: "(Klos et al., 2018)."); a table's "0.4" or "148" is none
_SENTENCE_END = re.compile(r"(?:[a-z]{2}|\w[)\]])[.!?](?:\s|$)")


def _float_pages(blocks: list[Block]) -> set[int]:
    """Pages that hold one float and nothing else: the page's first block of text is a float's
    caption (or a captioned table or figure), a table or figure stands on it, and no other
    paragraph on it ends a sentence (its paragraphs are the float's cells and labels the table
    reader left as text). AGU's full-page
    Table A1 between two pages of the reference list: a paragraph on the next page is not the
    run-on of its last row, and its paragraphs are no entries of the list."""
    by_page: dict[int, list[Block]] = {}
    # (a page that a block of an earlier page goes on over opens with that text, not the float)
    run_over = {b.page_end for b in blocks if b.page_end is not None and b.page_end != b.page}
    for b in blocks:
        # (PDF blocks only: text input's blocks have no box and no pages of their own)
        if b.bbox is not None and b.kind is not Kind.FURNITURE \
                and (b.text.strip() or b.kind in (Kind.TABLE, Kind.FIGURE)):
            by_page.setdefault(b.page, []).append(b)
    pages = set()
    for page, bs in by_page.items():
        if page in run_over:
            continue
        first = bs[0]  # (a caption the table reader took in: the table opens the page)
        if not (first.kind is Kind.PARAGRAPH and _FLOAT_CAPTION.match(first.text)
                or first.kind in (Kind.TABLE, Kind.FIGURE) and first.attrs.get("caption")):
            continue
        if not any(b.kind in (Kind.TABLE, Kind.FIGURE) for b in bs):
            continue
        if any(b.kind not in (Kind.PARAGRAPH, Kind.HEADING, Kind.TABLE, Kind.FIGURE, Kind.CAPTION) for b in bs):
            continue
        if any(b.kind is Kind.PARAGRAPH and _SENTENCE_END.search(b.text) for b in bs[1:]):
            continue
        if not any(b.kind is Kind.PARAGRAPH for b in bs[1:]):
            continue  # (a page of a figure alone: the text around it runs on over it, as over any float)
        pages.add(page)
    return pages


def _merge_continuations(blocks: list[Block]) -> list[Block]:
    """Join a paragraph split by a page break or a float when the text clearly runs on."""
    float_pages = _float_pages(blocks)
    out: list[Block] = []
    last_para: int | None = None  # index in out of the last paragraph/list item
    # a paragraph others ran on into: its texts, joined once at the end, and its length (a
    # paragraph that runs on over every page of a long text was copied whole at each page)
    held: dict[int, list[str]] = {}
    held_len: dict[int, int] = {}
    # (the kinds read once: a step per block, 47,000 of them a MB of raw OCR lines)
    para, flowing, stops = Kind.PARAGRAPH, (Kind.PARAGRAPH, Kind.LIST_ITEM), (Kind.HEADING, Kind.EQUATION)
    add = out.append
    for b in blocks:
        kind = b.kind
        if kind is para and float_pages and b.page in float_pages:
            # a paragraph of a page of one float (its cells the table reader left as text): it runs
            # on into nothing, nor does a later one run on into it; marked for the bibliography's reader
            b.attrs["_float_page"] = True
            add(b)
            last_para = None
            continue
        # (a code line after code runs on it as before: it is an aside only beside prose)
        aside = kind is para and _aside(b, last_para is not None and not out[last_para].attrs.get("_mono"))
        if kind is para and last_para is not None and not aside:
            prev = out[last_para]
            parts = held.get(last_para)
            # (the cheap tests first: a paragraph right after another on its page, most of them
            # and every line of raw OCR text, runs on only in the next column, which a block
            # without a box (text input) never starts; then most stop at the length of the one
            # before)
            if (b.page != prev.page or last_para + 1 < len(out) or (prev.bbox and _new_column(prev, b))) \
                    and prev.kind in flowing \
                    and (len(prev.text) if parts is None else held_len[last_para]) >= 60 \
                    and not prev.attrs.get("title") and not prev.attrs.get("front") \
                    and all(x.kind in FLOATS and not x.attrs.get("float") or x.kind is Kind.CODE
                            or x.attrs.get("_foot_text") or _aside(x, True) for x in out[last_para + 1:]) \
                    and runs_on(parts or [prev.text], b.text.lstrip()):
                if parts is None:
                    parts = held[last_para] = [prev.text]
                    held_len[last_para] = len(prev.text)
                last, c = parts[-1], b.text.lstrip()
                # (the joined text's end is its last part's: a part after the first is a text
                # left-stripped and not empty)
                parts[-1] = last[:-1] if last.endswith("-") and b.text[:1].islower() else last.rstrip() + " "
                parts.append(c)
                held_len[last_para] += len(parts[-2]) - len(last) + len(c)
                if b.page != prev.last_page:
                    # where each later page's text starts in the joined text: the page of a mention in it
                    # (citations._page_at; a paragraph run on past two pages of figures is not spread evenly)
                    prev.attrs.setdefault("page_breaks", []).append((held_len[last_para] - len(c), b.page))
                prev.page_end = b.last_page
                # the run-on block's lines with their left edges and page (None where it has
                # none): a bibliography entry that runs on into the next column brings the
                # column's other entries with it, which the hanging indent of those lines splits
                run_on = prev.attrs.get("_run_on_lines", [])
                lt, xs = b.attrs.get("_line_texts"), b.attrs.get("_line_x0")
                prev.attrs["_run_on_lines"] = None if run_on is None or not lt or not xs or len(lt) != len(xs) \
                    else run_on + [[t, x, b.page] for t, x in zip(lt, xs, strict=True)]
                continue
        add(b)
        if kind in flowing:
            if not b.attrs.get("_foot_text") and not aside:
                last_para = len(out) - 1
        elif kind in stops:
            last_para = None
    for k, parts in held.items():
        out[k].text = "".join(parts)
    return out


def _bibliography(blocks: list[Block]) -> None:
    # Finding the list (titles in any case, per-chapter lists, lists without a title, the
    # appendix after it) lives with the entry segmentation that uses what it marks.
    from ctxmill.compile.references import mark_bibliography

    mark_bibliography(blocks)


def _footnote_refs(blocks: list[Block]) -> None:
    """``[^n]`` markers whose footnote is nowhere become plain superscripts."""
    have = {b.number for b in blocks if b.kind is Kind.FOOTNOTE and b.number}

    def fix(m: re.Match) -> str:
        marks = [x for x in m.group(1).split(",") if x]
        # (a mark raised over a lone letter is an exponent: M², PT-M², O(k²), β²; a footnote's mark
        # follows a word, a number or a sign)
        if all(x in have for x in marks) and not LONE_LETTER_END.search(m.string, 0, m.start()):
            return "".join(f"[^{x}]" for x in marks)
        return "<sup>" + ",".join(marks) + "</sup>"

    first_sec = next((i for i, b in enumerate(blocks) if b.kind is Kind.HEADING and not b.attrs.get("title")),
                     len(blocks))
    # a caption's raised text is read as its paragraph's is ("every 16th case" in REVTeX's "FIG. 2.")
    captions = [i for i, b in enumerate(blocks)
                if b.kind in (Kind.FIGURE, Kind.TABLE) and "[^" in (b.attrs.get("caption") or "")]
    if not captions and "[^" not in "\n".join(map(_TEXT, blocks)):  # (no mark in any text: only the tables' cells)
        for b in [b for b in blocks[first_sec:] if b.kind is Kind.TABLE and b.attrs.get("rows")]:
            _table_cell_marks(b)
        return

    def fix_all(text: str) -> str:
        # a sign raised before its digits is an exponent ("10[^-][^3]", "ms[^-][^1]"): one superscript
        return re.sub(r"<sup>([-−])</sup><sup>", r"<sup>\1", _MARK_KEY_RE.sub(fix, text))

    for i in captions:
        if i >= first_sec:
            blocks[i].attrs["caption"] = fix_all(blocks[i].attrs["caption"])
    for b in blocks[first_sec:]:
        if b.kind is Kind.FOOTNOTE:
            continue
        if "[^" in b.text:
            b.text = fix_all(b.text)
        if b.kind is Kind.TABLE and b.attrs.get("rows"):  # the cells are what the table renders
            _table_cell_marks(b)
    # before the first section, marks are the byline's affiliation keys (1, a, *, †): only a word
    # of letters (the "iD" of an ORCID icon after a name, ReScience's editors) is no footnote
    def fix_words(text: str) -> str:
        return re.sub(r"\[\^([A-Za-z]{2,})\]", lambda m: m.group(0) if m.group(1) in have else fix(m), text)

    for b in blocks[:first_sec]:
        if b.kind is not Kind.FOOTNOTE and "[^" in b.text:
            b.text = fix_words(b.text)
    for i in captions:
        if i < first_sec:
            blocks[i].attrs["caption"] = fix_words(blocks[i].attrs["caption"])


def _table_cell_marks(b: Block) -> None:
    b.attrs["rows"] = [[_cell_marks(c) if isinstance(c, str) and "[^" in c else c for c in row]
                       for row in b.attrs["rows"]]


_SUPERSCRIPT = str.maketrans("0123456789+-−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻")


def _cell_marks(text: str) -> str:
    """Raised signs and digits in a table cell are exponents ("5 × 10[^-][^3]" -> "5 × 10⁻³",
    Copernicus's parameter table): superscript characters, which GFM and HTML cells both keep.
    Other marks stay as they are: the text's ``<sup>`` would be escaped into visible markup in
    an HTML cell (OCR'd tables raise stray letters)."""
    def run(m: re.Match) -> str:
        marks = _MARK_KEY_RE.findall(m.group(0))
        if all(re.fullmatch(r"[-−+\d\s]+", x) for x in marks):
            return "".join(marks).replace(" ", "").translate(_SUPERSCRIPT)
        return m.group(0)

    return _MARK_RUN_RE.sub(run, text)


# ---------------------------------------------------------------------------- sections


_SLUG_RE = re.compile(r"[^a-z0-9]+")


def section_id(number: str | None, title: str, used: set[str], next_k: dict[str, int] | None = None) -> str:
    """A unique id: the number or a slug of the title, then "-2", "-3", ... when taken.

    ``next_k`` remembers per base where the search for a free suffix stopped: ids are only
    ever added, so the first free one is never below it (10,000 sections called "Notes" made
    50 million tries without it)."""
    base = f"s{number}" if number else "s-" + (_SLUG_RE.sub("-", title.lower()).strip("-")[:40] or "section")
    sid = base
    k = 2
    if sid in used:
        if next_k is not None:
            k = next_k.get(base, 2)
        sid = f"{base}-{k}"
        while sid in used:
            k += 1
            sid = f"{base}-{k}"
        if next_k is not None:
            next_k[base] = k + 1
    used.add(sid)
    return sid


def _sections(blocks: list[Block], pages: int) -> list[Section]:
    sections: list[Section] = []
    stack: list[Section] = []
    used: set[str] = set()
    next_k: dict[str, int] = {}
    current: Section | None = None
    last_page = max((b.last_page for b in blocks), default=1)
    # the last page of any block since the stack last changed: the open sections' page_end
    # takes it when the stack changes and at the end (a step per section a block was a
    # max() per open section for each of 47,000 blocks a MB of raw OCR lines)
    hi = float("-inf")  # (no block yet)
    heading = Kind.HEADING
    for b in blocks:
        if b.kind is heading and not b.attrs.get("title"):
            title = b.attrs.get("_title")
            if not title:
                title = b.text
                if b.number and b.text.startswith(b.number):
                    title = b.text[len(b.number):].lstrip(" .:").strip()
            if b.attrs.get("_hide_number"):
                # roman section numbers ("IV.") stay in sections.json: in document.md they would
                # read as part of the title to anything matching section names
                b.text = title
            elif b.attrs.get("_appendix_label"):  # "Appendix A Derivations", "Appendix A"
                b.text = title if title.lower().startswith("appendix") else f"Appendix {b.number} {title}"
            elif b.attrs.get("_label_lead"):  # "ANEXO A – Title": the label as printed
                b.text = f"{b.attrs['_label_lead']} {title}"
            else:
                b.text = f"{b.number} {title}" if b.number else title
            sid = section_id(b.attrs.get("_id_number") or b.number, title, used, next_k)
            for s in stack:
                if hi > s.page_end:
                    s.page_end = hi
            hi = float("-inf")
            while stack and stack[-1].level >= (b.level or 2):
                stack.pop()
            sec = Section(id=sid, level=b.level or 2, title=title, page_start=b.page, page_end=b.page, number=b.number,
                          block_id=b.id, parent_id=stack[-1].id if stack else None)
            sections.append(sec)
            stack.append(sec)
            current = sec
        if current is not None:
            b.section_id = current.id
            lp = b.page_end if b.page_end is not None else b.page  # (b.last_page)
            if lp > hi:
                hi = lp
    for s in stack:
        if hi > s.page_end:
            s.page_end = hi
    # a section runs until the next section at the same or a higher level starts (found from
    # the end with a stack: one pass, where a slice per section was quadratic in headings)
    after: list[Section] = []
    for s in reversed(sections):
        while after and after[-1].level > s.level:
            after.pop()
        end = max(s.page_start, after[-1].page_start) if after else last_page
        s.page_end = max(s.page_end, min(end, last_page))
        after.append(s)
    return sections
