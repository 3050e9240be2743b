"""Bibliography: find every list, split it into one REFERENCE block per printed entry, parse each.

Finding (``mark_bibliography``, called by the structure stage): a list starts at a heading or
short line that names one (any case, small caps, numbered, with a page or line number), or,
in a document with no such title, at a run of [1], [2], [3] in its second half; it ends at the
next heading of its level or higher, or an appendix. Running heads, contents lines, per-chapter
lists and a list swallowed by a mis-found table are handled there. Each block of the list gets
its visual lines with their left edges (``attrs["bib_lines"]``).

Splitting (``segment``), in order of trust: printed labels ([12], 12., [Lee06]) with their
sequence checked; the hanging indent of the lines, per page column (an entry running on into
the next column or page stays one); the blocks themselves (vertical gaps); for text without
geometry (OCR text, Markdown), the shape of the text (an entry ends with its year or a full
stop, the next starts with a name). Text after the last labelled entry that is not part of
it (a glossary) is handed back as paragraphs.

Fields: ``parse_entry(raw) -> dict`` is the one rule parser of a single entry (authors, year
with suffix, title, venue, DOI, URL, arXiv id; every field optional, ``raw`` always kept); the
trained labeller (``compile/refparse``) uses it as its fallback in ``_reference``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from itertools import pairwise
from operator import attrgetter
from statistics import median

from ctxmill.accents import SPACING_ACCENTS
from ctxmill.compile.blocks import aside, span_text
from ctxmill.compile.normalize import body_type_size, fold
from ctxmill.compile.options import CompileOptions
from ctxmill.limits import MAX_PARSED_REFERENCES
from ctxmill.model import Block, BlockKind, Document, Reference, of_kind

_TEXT = attrgetter("text")

# ---------------------------------------------------------------------------- patterns

# a numbered entry's label: "[12]", "12.", "(12)". Up to 7 digits: a list of 10,000 or more entries
# (MAX_TEXT_LINES allows 2,000,000 lines) numbers them on, and "[10000]" starts an entry as "[9999]"
# does (with 4 digits every entry after 9,999 was read as text of the entry before)
_NUM = r"\d{1,7}"
_LABEL = re.compile(rf"^\s*(?:\[({_NUM})\]|({_NUM})\.(?=\s)|\(({_NUM})\))\s*")
# alphabetic keys of alpha/alphanum styles: "[Lee06]", "[Ert+19]", "[BCGD16a]", "[B^+16]",
# "[Ber]", "[MvOV96]", "[@Wit20b]" (biblatex's online sources), "[Grä11]", "[Bjö90]" -- a letter
# (any script; not an ASCII lower-case one), then letters, "+", "^", "-" or an apostrophe, optionally
# digits and a suffix; or lower case with digits ("[jup17a]", from lower-case keys). "[STA ^+10]" is
# the reader's superscript mark after a space. One pattern for an entry's label and a callout's key
# (compile/citations.py imports it): a key the entry prints is the key the callout prints.
_KEY_HEAD = r"[^\W\d_a-z](?:[^\W\d_]|[+^\-'’]| (?=\^)){0,11}"
_KEY_YEAR = r"\d{2}(?:\d{2})?[a-z]?"
_LOWER_KEY = rf"[a-z][A-Za-z+^]{{1,10}}{_KEY_YEAR}"
ALPHA_KEY = rf"@?(?:{_KEY_HEAD}(?:{_KEY_YEAR})?|{_LOWER_KEY})"
_ALPHA_LABEL = re.compile(rf"^\s*\[({ALPHA_KEY})\]\s+(?=\S)")
# author-year labels some styles print before each entry (Springer Nature's sn-jnl, apalike
# with \bibitem[...] shown): "[Abeles, 1982]", "[Carr and Konishi, 1990]", "[Ghosh et al.,
# 2019a]" -- names (no digits, brackets or ;:) and a year. They start entries like "[12]" and
# "[Lee06]" do, but are no label for linking: callouts cite such lists by name and year.
_AY_KEY = r"[^\W\d_][^\[\]\d;:]{0,80}?,?\s(?:1[6-9]|20)\d\d[a-z]?"
_AY_LABEL = re.compile(rf"^\s*\[({_AY_KEY})\]\s+(?=\S)")
_YEAR = r"(?:19|20)\d\d[a-z]?"
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
# ", 2025a." / ". 2023." / ", 2024," -- the year of an author-year entry. A month and day
# before it ("Accessed April 12, 2026.") marks a note, not the publication year.
_YEAR_SLOT = re.compile(
    rf"(?P<pre>(?:\b(?:{_MONTHS})\.?\s+\d{{1,2}})?)[,.(]\s*(?P<year>{_YEAR})(?=[.,;)\s]|$)",
    re.IGNORECASE,
)
_ANY_YEAR = re.compile(rf"(?<![\w/.:-])({_YEAR})(?![\w/-])")
_URL_START = re.compile(r"https?:\s?//\S*", re.IGNORECASE)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
_ARXIV = re.compile(
    r"(?:arxiv[:\s]\s*|arxiv\.org/(?:abs|pdf)/)(\d{4}\.\d{4,5}(?:v\d+)?|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})",
    re.IGNORECASE,
)
_VENUE_START = re.compile(
    r"^(?:In\b|arXiv|Proceedings|Proc\.|Advances|Journal|Transactions|IEEE|ACM|https?:|URL\b|Technical report)",
)
_PARTICLES = frozenset(
    "de del della der den van von da di du la le al bin el dos das ter st st. y e".split()
)
_ETAL = re.compile(r",?\s*(?:et\s*al\.?|and\s+others)\s*$", re.IGNORECASE)


# ---------------------------------------------------------------------------- grouping


def _looks_like_entry_end(text: str) -> bool:
    t = text.rstrip()
    return bool(re.search(rf"(?:{_YEAR}|\d+|\))\.?$", t)) or t.endswith(".")


def _looks_like_entry_start(text: str) -> bool:
    t = text.lstrip()
    if not t:
        return False
    if _LABEL.match(t):
        return True
    # "Accessed April 12, 2026." and similar notes continue the entry before them.
    if re.match(r"(?:Accessed|Retrieved|Last accessed|Available|URL|In |pages?\b|vol)", t):
        return False
    return t[0].isupper() or t[0].isdigit() is False and t[0].isalpha()


def group_entries(blocks: list[Block], page_widths: dict[int, float] | None = None) -> list[list[Block]]:
    """Group bibliography blocks (lines or entries) into printed entries."""
    if not blocks:
        return []
    label = [bool(_LABEL.match(b.text) or _ay_label(b.text)) for b in blocks]  # (once a block)
    labelled = sum(label)
    numbered = labelled >= max(2, len(blocks) // 4)
    starts = [False] * len(blocks)
    starts[0] = True
    if numbered:
        # Numbered bibliographies: a label starts an entry, everything else continues it.
        for i, b in enumerate(blocks):
            if i and (label[i] or b.attrs.get("bib_item") or b.bbox is None and _NATBIB_LABEL.match(b.text)):
                starts[i] = True
    else:
        _starts_by_geometry(blocks, starts, page_widths or {})
    groups: list[list[Block]] = []
    for b, s in zip(blocks, starts, strict=False):
        if s or not groups:
            groups.append([b])
        else:
            groups[-1].append(b)
    return groups


def _starts_by_geometry(blocks: list[Block], starts: list[bool], page_widths: dict[int, float]) -> None:
    with_box = [b for b in blocks if b.bbox is not None]
    if len(with_box) < max(2, len(blocks) // 2):
        _starts_by_text(blocks, starts)
        return
    # Per page and column (two-column papers): the left edge of the column and the typical
    # line step. A hanging indent means first lines sit at the edge, the rest indented.
    def column_key(b: Block) -> tuple[int, int]:
        page_w = page_widths.get(b.page) or 612.0
        return (b.page, 0 if b.bbox[0] < page_w * 0.45 else 1)

    cols: dict[tuple[int, int], list[Block]] = {}
    for b in with_box:
        cols.setdefault(column_key(b), []).append(b)
    left = {k: min(b.bbox[0] for b in v) for k, v in cols.items()}
    indented = [b.bbox[0] - left[column_key(b)] for b in with_box]
    hanging = sum(1 for d in indented if d > 4.0) >= max(1, len(with_box) // 5)
    gaps = []
    for prev, cur in zip(blocks, blocks[1:], strict=False):
        if prev.bbox and cur.bbox and prev.page == cur.page and cur.bbox[1] > prev.bbox[1]:
            gaps.append(cur.bbox[1] - prev.bbox[3])
    typical_gap = median(gaps) if gaps else 0.0
    for i in range(1, len(blocks)):
        b, prev = blocks[i], blocks[i - 1]
        if b.bbox is None:
            starts[i] = _text_start(prev.text, b.text)
            continue
        at_edge = b.bbox[0] - left[column_key(b)] <= 4.0
        if hanging:
            starts[i] = at_edge
            continue
        # No indentation: entries are told apart by a larger gap (or are already whole).
        if prev.bbox and prev.page == b.page and b.bbox[1] > prev.bbox[1]:
            gap = b.bbox[1] - prev.bbox[3]
            starts[i] = gap > typical_gap + 2.0 or _text_start(prev.text, b.text)
        else:
            starts[i] = _text_start(prev.text, b.text)


def _text_start(prev: str, cur: str) -> bool:
    return _looks_like_entry_end(prev) and _looks_like_entry_start(cur) and bool(
        _ANY_YEAR.search(prev) or re.search(r"\.\s*$", prev)
    )


def _starts_by_text(blocks: list[Block], starts: list[bool]) -> None:
    # Blocks that are each a whole entry (markdown / OCR input) all carry a year or URL and
    # end with a full stop; lines of one entry do not. Decide which case we are in.
    whole = sum(1 for b in blocks if _ANY_YEAR.search(b.text) and len(b.text) > 60)
    if whole >= 0.8 * len(blocks):
        for i in range(1, len(blocks)):
            starts[i] = True
        return
    for i in range(1, len(blocks)):
        starts[i] = _text_start(blocks[i - 1].text, blocks[i].text) and bool(
            _ANY_YEAR.search(blocks[i - 1].text) or blocks[i - 1].text.rstrip().endswith(".")
        )


# Words that really end in a hyphen at a line break ("general-" + "purpose"); any other
# lower-case word broken at a line end is one word split by hyphenation ("founda-" + "tion").
_COMPOUND_HEADS = frozenset(
    "general self multi non long short open real high low well cross end co semi state large "
    "fine small full time human tool agent domain task read write cost user model code data "
    "top left right first second third early late mid so-called built plug on off in out".split()
)
_BROKEN = re.compile(r"(\w+)- (\w)")


_HYPHEN_GAP = re.compile(r"(?<=\w)- (?=\w)")
_LAST_WORD = re.compile(r"(?<!\w)\w+\Z")


def dehyphenate(text: str) -> str:
    """Repair "founda- tion" / "Xian- gliang" (a line-end hyphen followed by a space).

    The same result as ``_BROKEN.sub`` (its leftmost, non-overlapping matches), found from each
    "- " between word characters: the pattern alone was tried from every position of a long
    word with no "- " after it, scanning the word each time (a 150,000-digit label: minutes)."""
    if "- " not in text:
        return text
    out: list[str] = []
    done = 0  # text[:done] is handled
    for m in _HYPHEN_GAP.finditer(text):
        h = m.start()
        w = _LAST_WORD.search(text[done:h])  # the word before the hyphen, from the last match on
        if w is None:
            continue
        head, nxt = w.group(0), text[h + 2]
        out.append(text[done:h - len(head)])
        if nxt.islower() and head.lower() not in _COMPOUND_HEADS and not head[-1].isdigit():
            out.append(head + nxt)
        else:
            out.append(f"{head}-{nxt}")
        done = h + 3
    out.append(text[done:])
    return "".join(out)


def join_lines(parts: list[str]) -> str:
    """Join the lines of one entry: de-hyphenate words broken at a line end, keep URLs whole."""
    if len(parts) == 1:
        return parts[0].strip()
    return " ".join(p.strip() for p in parts if p.strip())


# ---------------------------------------------------------------------------- fields


def _find_url(text: str) -> tuple[str | None, tuple[int, int] | None]:
    m = _URL_START.search(text)
    if not m:
        return None, None
    start, end = m.start(), m.end()
    url = m.group(0).replace(": //", "://")
    if url.lower().rstrip(":/").endswith("http") or url.lower().rstrip(":/").endswith("https"):
        # "https: //www.oecd.org/...": the scheme was split from the rest by a line break.
        m2 = re.match(r"\s*//\S+", text[end:])
        if m2:
            url = url.rstrip() + m2.group(0).strip()
            end += m2.end()
    # A URL broken across lines continues after a space when the line ended inside it.
    while True:
        nxt = re.match(r" ([\w%~#=&?+/.\-]+[\w/%=&#\-]?[.,]?)", text[end:])
        if not nxt:
            break
        tok = nxt.group(1)
        if url.endswith(("/", "-", "_", "=", "?", "&")) or (
            url.endswith(".") and re.match(r"[a-z0-9]", tok) and ("/" in tok or "." in tok.rstrip(".,"))
        ):
            url += tok
            end += nxt.end()
        else:
            break
    stripped = url.rstrip(".,;)")
    end -= len(url) - len(stripped)
    return stripped, (start, end)


def _is_name_word(w: str) -> bool:
    # "Dell’Acqua", "V˜u", "Adversa.ai", "Shishir_G", "JR", "B." -- a capital first, or a particle.
    return (w[0].isupper() and not any(c.isdigit() for c in w)) or w.lower() in _PARTICLES


def _split_authors(block: str) -> list[str] | None:
    """Author names from an author block, or None if it does not read as names."""
    text = _ETAL.sub("", block.strip().rstrip("."))
    etal = text != block.strip().rstrip(".")
    if not text or re.search(r"\d", text):
        return None
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+|\s*&\s*", text)
    names = [p.strip() for p in parts if p.strip()]
    # "LangChain, Inc." is one organisation, not two people.
    merged: list[str] = []
    for n in names:
        if merged and re.fullmatch(r"(?:Inc|Ltd|LLC|Corp|Co|GmbH|PBC|Jr|Sr|II|III)\.?", n):
            merged[-1] = f"{merged[-1]}, {n}"
        else:
            merged.append(n)
    for n in merged:
        words = n.replace(", ", " ").split()
        if not 1 <= len(words) <= 6:
            return None
        if not all(_is_name_word(w) for w in words):
            return None
    if etal:
        merged.append("et al.")
    return merged


# Author lists by their shape, for the styles whose author block is not one sentence of
# "First Last" names: inverted names with initials ("Poon, H. and Domingos, P. M." -- ICML, ACL,
# APA, AASTeX; "Dodds, P.S., Danforth, C.M.:" -- LNCS), Vancouver/Springer ("Muddana HS,
# Varnado CD (2012)") and physics journals ("C. Josserand and S. T. Thoroddsen, Title, Journal").
_SUR = r"(?:(?:van|von|de|der|den|del|della|da|di|du|la|le|dos|ter)\s)*[A-Z\u00C0-\u024F][\w'’\-]*[a-z\u00DF-\u024F][\w'’\-]*"
_INI = r"[A-Z]\.(?:\s?-?[A-Z]\.)*"
_SEP = r"(?:,\s(?:and\s|&\s)?|,?\s(?:and|&)\s)"
_ETAL_TAIL = r"(?:,?\s(?:et\s+al\.?|and\s+others\.?))?"
_INVERTED = re.compile(rf"^({_SUR},\s{_INI}(?:{_SEP}{_SUR},\s{_INI})*{_ETAL_TAIL})")
_VANCOUVER = re.compile(rf"^({_SUR}\s[A-Z]{{1,3}}(?=[,.\s(])(?:,\s(?:and\s)?{_SUR}\s[A-Z]{{1,3}}(?=[,.\s(]))*{_ETAL_TAIL})")
_PHYSICS = re.compile(rf"^((?:{_INI}\s?{_SUR})(?:{_SEP}{_INI}\s?{_SUR})*{_ETAL_TAIL}),\s(?![“\"„])")
_NAME_IN = {
    "inverted": re.compile(rf"{_SUR},\s{_INI}"),
    "vancouver": re.compile(rf"{_SUR}\s[A-Z]{{1,3}}(?=[,.\s(]|$)"),
    "physics": re.compile(rf"{_INI}\s?{_SUR}"),
}
# a physics-style title ends where the journal starts: ", Phys. Rev.", ", in Proc.", " (Publisher"
_PHYS_TITLE_END = re.compile(r",\s(?=[A-Z][a-z]{0,6}\.\s|in\s|In\s|arXiv|\d)|\s\((?=[A-Z])|\.\s(?=[A-Z])")


# Astronomy styles (MNRAS, AASTeX, A&A) print no titles: names, the year, then only the
# journal, volume and page ("Amarante J. A. S., Deg N., 2022, ApJ, 937, 12")
_ASUR = rf"{_SUR}(?:\s(?:(?:e|y|da|de|van|von|der|del|la)\s)?{_SUR})?"  # "Beraldo e Silva"
_ASTRO = re.compile(rf"^({_ASUR}\s{_INI}(?:{_SEP}{_ASUR}\s{_INI})*{_ETAL_TAIL}),?\s(?={_YEAR}[,.]\s)")
_NO_TITLE = re.compile(
    r"^(?:arXiv e-prints|[A-Z](?:(?!\.\s[A-Z][a-z]{3,})[\w&.'’\s-]){0,60}?),\s*(?:p\.\s*)?"
    r"(?:[A-Z]?\d+[A-Za-z]?|arXiv:\S+)(?:,\s*[A-Z]?\d+[A-Za-z]?)?\.?\s*$"
)


def _author_shape(text: str) -> tuple[list[str], int, int | None] | None:
    """(authors, where the title starts, where it ends or None) for the author-list shapes
    above; a title that starts and ends at one place is a style that prints none."""
    m = _ASTRO.match(text)
    if m:
        names = [n.strip() for n in re.findall(rf"{_ASUR}\s{_INI}", m.group(1))]
        names += ["et al."] if re.search(r"et\s+al", m.group(1)) else []
        start = m.end() + re.match(rf"{_YEAR}[,.]\s", text[m.end() :]).end()
        return names, start, start
    m = _INVERTED.match(text)
    if m:
        rest = text[m.end() :]
        after = re.match(rf"\s*:\s|\s*\(?{_YEAR}\)?[.,:]\s|\s(?=[A-Z“\"„])", rest)
        if after:
            start = m.end() + after.end()
            if _NO_TITLE.match(text[start:]):  # "Agol, E., & Luger, R. 2020, AJ, 159, 123"
                return _names("inverted", m.group(1)), start, start
            return _names("inverted", m.group(1)), start, None
    m = _VANCOUVER.match(text)
    if m:
        after = re.match(rf"\s*\(\s*{_YEAR}\s*\)[.,:]?\s|\.\s(?![A-Z]\.)|:\s", text[m.end() :])
        if after:
            return _names("vancouver", m.group(1)), m.end() + after.end(), None
    m = _PHYSICS.match(text)
    if m:
        start = m.end()
        end = _PHYS_TITLE_END.search(text, start)
        return _names("physics", m.group(1)), start, end.start() if end else None
    return None


def _names(kind: str, block: str) -> list[str]:
    names = [n.strip() for n in _NAME_IN[kind].findall(block)]
    if re.search(r"et\s+al\.?|and\s+others", block):
        names.append("et al.")
    return names


_SENTENCE_MARK = re.compile(r"[.?!]")
# initials and abbreviations: a stop after one does not end a sentence
_ABBREVIATION = re.compile(r"[A-Z]|[A-Z]\.[A-Z]|v|vs|no|vol|pp|eds?|Jr|Sr|St|Dr|Mr|Ms|Mrs|e\.g|i\.e|cf|U\.S|al")


def _sentence_end(text: str, start: int) -> int:
    """Index just after the sentence that begins at ``start`` (title or author block)."""
    i = start
    n = len(text)
    while i < n:
        # the next mark (three str.find calls each read to the end of the text when a mark is
        # missing, and the rest of the text was copied at every mark: quadratic in a paragraph
        # of many short sentences, such as a bibliography's one-character lines joined)
        m = _SENTENCE_MARK.search(text, i)
        if m is None:
            return n
        k = m.start()
        after = text[k + 1 : k + 3]
        if k + 1 >= n:
            return n
        if not after.startswith(" "):
            i = k + 1  # "Adversa.ai", "2.0", "U.S."
            continue
        # the word before the mark: rsplit looks back only over it ('(\S+)$' searched from every
        # position of the text before it: a 150,000-digit citation label took minutes), and
        # only over its last 6 characters: an abbreviation has at most 3, so a word cut short
        # there is as much no abbreviation as the whole of it (the text before the mark since
        # ``start`` was copied at every "2.0"-like mark: quadratic in a long run of them)
        seg = text[max(start, k - 6):k]
        prev = seg.rsplit(None, 1)[-1] if seg and not seg[-1].isspace() else ""
        if text[k] == "." and _ABBREVIATION.fullmatch(prev):
            # initials and abbreviations do not end a sentence -- except "et al." which ends
            # the author list when a title follows
            if prev == "al":
                return k + 1
            i = k + 1
            continue
        rest = text[k + 2 : k + 66]  # (what the two tests read: a letter, a venue's first word)
        if text[k] in "?!" and rest[:1].islower() and not _VENUE_START.match(rest):
            i = k + 1  # "Need help? designing proactive ..." is one title
            continue
        return k + 1
    return n


def _dehyphenate_outside_urls(text: str) -> str:
    out, pos = [], 0
    for um in _URL_START.finditer(text):
        _, span = _find_url(text[um.start() :])
        if not span:
            continue
        s, e = um.start() + span[0], um.start() + span[1]
        if s < pos:
            continue
        out.append(dehyphenate(text[pos:s]))
        out.append(text[s:e])
        pos = e
    out.append(dehyphenate(text[pos:]))
    return "".join(out)


def parse_entry(raw: str) -> dict:
    """Parse one bibliography entry into its fields (every field may be None)."""
    text = re.sub(r"\s+", " ", raw).strip()
    text = _dehyphenate_outside_urls(text)
    label = None
    m = _LABEL.match(text)
    if m:
        label = next(g for g in m.groups() if g)
        text = text[m.end() :]
    elif (am := _ALPHA_LABEL.match(text)) is not None:
        label = am.group(1)
        text = text[am.end() :]
    elif (ym := _ay_label(text)) is not None:
        text = text[ym.end() :]  # "[Abeles, 1982] Abeles, M. (1982). ...": names and year follow
    elif (nm := _NATBIB_LABEL.match(text)) is not None:
        text = text[nm.end() :]  # "Rajeswaran et al. [2019] Aravind Rajeswaran, ..." (Nougat)
    url, url_span = _find_url(text)
    doi_m = _DOI.search(text)
    doi = doi_m.group(1).rstrip(".,;") if doi_m else None
    if doi is None and url and "doi.org/" in url:
        doi = url.split("doi.org/", 1)[1]
    arx = _ARXIV.search(text)
    arxiv_id = arx.group(1) if arx else None

    # Blank out URLs so their dots and digits do not look like sentence ends or years.
    masked = text
    for um in _URL_START.finditer(text):
        u, span = _find_url(text[um.start() :])
        if span:
            s, e = um.start() + span[0], um.start() + span[1]
            masked = masked[:s] + "\x00" * (e - s) + masked[e:]
    url_masked = masked
    masked = re.sub(r"arXiv:\d{4}\.\d{4,5}", lambda m: "\x01" * len(m.group(0)), masked)

    # Year: a suffixed year wins ("2026a" is the one the citations use), else the last
    # ", YYYY." that is not a "Month day, YYYY" note.
    year, ypos = None, None
    cands = [ym for ym in _YEAR_SLOT.finditer(masked) if not ym.group("pre")]
    suffixed = [ym for ym in cands if ym.group("year")[-1].isalpha()]
    best = suffixed[0] if suffixed else (cands[-1] if cands else None)
    if best is not None:
        year, ypos = best.group("year"), best.start()
    else:
        anyy = list(_ANY_YEAR.finditer(masked))
        if anyy:
            year, ypos = anyy[-1].group(1), anyy[-1].start()

    # Authors: the first sentence, if it reads as a list of names.
    authors: list[str] = []
    title = venue = None
    quoted = re.search(r"[“\"„](.+?)[,.]?[”\"“]", text)
    a_end = _sentence_end(masked, 0)
    first = text[:a_end].strip()
    names = _split_authors(first)
    shape = _author_shape(masked)
    if shape is not None and names is not None and not (shape[1] == shape[2] or _INVERTED.match(masked)):
        shape = None  # "First Last" names read as one sentence: the rules below know them
    if shape is not None:
        names = None
    before = text[: quoted.start()].strip() if quoted else ""
    if names is None and quoted and quoted.start() > 0 and (
        _split_authors(before.rstrip(",")) or shape or (before.endswith(",") and quoted.start() < 0.6 * len(text))
    ):
        # IEEE style: A. Author, B. Author, "Title," Venue, 2020. (the title in quotes is
        # trusted even where the names carry extraction debris: "Quintana-Ort ˜ ´ı")
        authors = _split_authors(before.rstrip(",")) or (shape[0] if shape else [])
        title = quoted.group(1).strip().rstrip(",.")
        venue = text[quoted.end() :].strip(" ,.")
    elif shape is not None:
        authors, t_start, t_end = shape
        m_y = re.match(rf"\s*\(?{_YEAR}\)?\.\s", masked[t_start:])
        if m_y:
            t_start += m_y.end()
        if t_end is None or t_end < t_start:
            t_end = _sentence_end(masked, t_start)
        elif t_end == t_start:
            ypos = None  # no title: the venue is all that follows the year
        title = text[t_start:t_end].strip()
        if title[:1] in "“\"„" and (q := re.match(r"[“\"„](.+?)[,.]?[”\"“]", title)):
            title = q.group(1)
        title = re.sub(rf",\s*{_YEAR}\.?$", "", title).strip().rstrip(".").strip() or None
        v_end = ypos if ypos is not None and ypos >= t_end else len(text)
        venue = url_masked[t_end:v_end]
    else:
        if names is not None:
            authors = names
            t_start = a_end
        else:
            t_start = 0
        rest_start = t_start
        # ACM style: "Authors. 2020. Title. Venue." -- skip a sentence that is only the year.
        m_y = re.match(rf"\s*\(?{_YEAR}\)?\.\s", masked[t_start:])
        if m_y:
            rest_start = t_start + m_y.end()
        t_end = _sentence_end(masked, rest_start)
        title = text[rest_start:t_end].strip()
        q = re.match(r"[“\"„](.+?)[,.]?[”\"“]", text[rest_start:].lstrip())
        if q:
            # a quoted title ("„How much parallelism is there?“ In: ...") ends at its quote
            title = q.group(1)
        v_end = ypos if ypos is not None and ypos >= t_end else len(text)
        venue_text = url_masked[t_end:v_end]
        # "Aider: AI pair programming in your terminal, 2024." -- the year ended the title.
        title = re.sub(rf",\s*{_YEAR}\.?$", "", title).strip()
        title = title.rstrip(".").strip() or None
        if title and ("\x00" in masked[rest_start:t_end] and title.lower().startswith("http")):
            title = None
        venue = venue_text
    if title is None and names and re.match(r"\s*\x00", masked[a_end:]):
        # "Zenodo. https://zenodo.org/, 2017.": a web page with no author; the one sentence
        # before its address is its title
        title, authors = first.rstrip(".").strip() or None, []
    if venue is not None:
        venue = _clean_venue(venue)
    if title:
        title = title.rstrip(" ,;:")
    return {
        "label": label,
        "authors": authors,
        "year": year,
        "title": title,
        "venue": venue,
        "doi": doi,
        "url": url,
        "arxiv_id": arxiv_id,
    }


def _clean_venue(venue: str) -> str | None:
    v = re.sub("\x00+", " ", venue)  # the URL has its own field
    v = re.sub(r"^\s*(?:In|in)\s+", "", v)
    v = re.sub(r"\s+", " ", v).strip(" ,.;:")
    if not v or v.lower().startswith("url") or re.fullmatch(r"(?:19|20)\d\d[a-z]?", v):
        return None
    return v[:200]  # a venue, not a paragraph of notes


# ---------------------------------------------------------------------------- finding the list

# What a bibliography is called; matched after numbering, line numbers and page numbers are
# stripped ("7 . REFERENCES", "References 461" in ACL review mode, "Bibliography 62" as a
# running head) and with spaces dropped ("R EFERENCES" from small caps).
BIB_TITLES = frozenset({
    "references", "bibliography", "literature", "literature cited", "works cited", "reference list",
    "references and notes", "cited literature", "references cited", "list of references",
    # German and French (KOMA-Script's and babel's own names; "Références" squashes to "references")
    "literaturverzeichnis", "literatur", "quellenverzeichnis", "bibliographie",
    # babel's \\refname and \\bibname in Polish, Czech, Italian, Spanish, Portuguese, Dutch and the
    # Scandinavian languages ("Literatura", "Bibliografía" and "Referências" fold to ASCII in _norm)
    "literatura", "bibliografia", "bibliografie", "referencias", "referenties", "referenser",
    "riferimenti bibliografici", "litteratur",
    # a list cut to the works the text cites (a poster's block, a report's short list)
    "selected references", "selected bibliography",
})
# the list's usual titles in scripts other than Latin (Russian, Ukrainian and the other Cyrillic
# languages' GOST and babel names, and Greek's), as printed: _norm folds their accents and letters
# like "й" into a letter and a mark, so they are kept squashed (below). (The CJK "参考文献" is left
# out: a Chinese template's section of that name about citing, with the list under a later one,
# was read as the list; _later_list knows a later heading only.)
_BIB_TITLES_OTHER_SCRIPTS = (
    "Литература", "Список литературы", "Список использованной литературы", "Библиография",
    "Список использованных источников", "Библиографический список", "Використана література",
    "Література", "Список літератури", "Список використаних джерел", "Бібліографія", "Библиографија",
    "Βιβλιογραφία", "Αναφορές",
)
# babel's \\refname and \\bibname in the languages the names above lack, as its .ldf files print them
# (Turkish, Hungarian, Slovak, Croatian, Finnish, Estonian, Lithuanian and Latvian, Indonesian and
# Malay, Vietnamese, Catalan, Basque, Norwegian, Swedish, Icelandic, Welsh, Irish, Afrikaans, Albanian,
# Esperanto): a word processor's thesis template uses the same words. A name that is also a
# common word elsewhere is left out (Czech's "Reference", Vietnamese's bare "Tài liệu": documents).
_BIB_TITLES_BABEL = (
    "Kaynaklar", "Kaynakça", "Hivatkozások", "Irodalomjegyzék", "Referencie", "Literatúra", "Bibliografija",
    "Viitteet", "Kirjallisuutta", "Viited", "Kirjandus", "Literatūra", "Pustaka", "Daftar Pustaka", "Rujukan",
    "Bibliografi", "Tài liệu tham khảo", "Referències", "Erreferentziak", "Referanser", "Litteraturförteckning",
    "Heimildir", "Heimildaskrá", "Cyfeiriadau", "Llyfryddiaeth", "Tagairtí", "Leabharliosta", "Verwysings",
    "Referencat", "Citaĵoj", "Bibliografio",
    # English: also a section on citing (a style guide's "Citations"), so a heading of this name
    # opens a list only when an entry follows it (_WEAK_BIB_TITLES)
    "Citations",
)
_WEAK_BIB_TITLES = frozenset({"citations"})
_BIB_SQUASHED = frozenset(t.replace(" ", "") for t in BIB_TITLES)


def _norm(text: str) -> str:
    t = unicodedata.normalize("NFKD", text).lower()
    t = re.sub(r"\[\^[^\]]*\]|<[^>]+>", "", t)
    return re.sub(r"[^\w]+", " ", t).strip()


_NOT_WORD = re.compile(r"[^\w]+")
_BIB_KEYS = ("referen", "bibliograph", "bibliograf", "literatur", "litteratur", "cited", "quellen",
             # the ASCII names of _BIB_TITLES_BABEL
             "kaynak", "viite", "viitte", "kirja", "pustaka", "rujukan", "referan", "heimild", "cyfeiriad",
             "llyfryddiaeth", "leabharliosta", "verwysing", "citation")
_BIB_SQUASHED |= {_NOT_WORD.sub("", _norm(t)) for t in _BIB_TITLES_BABEL if t.isascii()}
assert all(any(k in t for k in _BIB_KEYS) for t in _BIB_SQUASHED)
# (after the assert: _BIB_KEYS are the ASCII titles' keys, and a title outside ASCII always takes
# the full test)
_BIB_SQUASHED |= {_NOT_WORD.sub("", _norm(t)) for t in (*_BIB_TITLES_OTHER_SCRIPTS, *_BIB_TITLES_BABEL)}
_BIB_NUMBER = re.compile(r"^(?:\d{1,3}|[ivxlc]{1,6}|[a-z])\s+")
_BIB_TRAILING_PAGES = re.compile(r"(?:\s+\d{1,4})+$")
_BIB_LEADING_PAGE = re.compile(r"^\d{1,4}\s+")
# a list continued over several pages under one title with a roman count: Beamer's
# allowframebreaks frames print "References I", "References II", ...
_BIB_CONTINUED = re.compile(r"\s+(?:i{1,3}|iv|v|vi{1,3}|ix|x)$")
_BIB_HEAD = 256  # characters of a long text whose letters and digits are counted first


@functools.lru_cache(maxsize=4096)  # asked of every heading and short paragraph, two or three times
def is_bibliography_title(text: str) -> bool:
    """"References", "REFERENCES", "7. References", "Bibliography", "Works Cited", ..."""
    if text.isascii() and "<" not in text and "[" not in text:
        # every title, squashed, holds one of _BIB_KEYS, and the squashed title is a piece of the
        # text's own letters and digits: most headings are out after one substitution
        if len(text) > _BIB_HEAD and len(_NOT_WORD.sub("", text[:_BIB_HEAD])) > 40:
            # (the normalised title below keeps every letter and digit of such a text, and a
            # title has at most 40 characters: a paragraph of megabytes is out after its head)
            return False
        squashed = _NOT_WORD.sub("", text.lower())
        if not any(k in squashed for k in _BIB_KEYS):
            return False
    t = _norm(text)
    if not t or len(t) > 40:
        return False
    t = _BIB_NUMBER.sub("", t)
    t = _BIB_TRAILING_PAGES.sub("", t)
    t = _BIB_LEADING_PAGE.sub("", t)  # "62 Bibliography": a running head with its page number
    if t in BIB_TITLES or t.replace(" ", "") in _BIB_SQUASHED:
        return True
    t = _BIB_CONTINUED.sub("", t)  # "References II", "Kaynaklar I"
    return t in BIB_TITLES or t.replace(" ", "") in _BIB_SQUASHED


def _heading_opens_list(blocks: list[Block], i: int) -> bool:
    """A heading whose text is a bibliography title; one of _WEAK_BIB_TITLES only when an entry
    follows it (a section on citing is no list)."""
    text = blocks[i].attrs.get("_title") or blocks[i].text
    if not is_bibliography_title(text):
        return False
    t = _BIB_NUMBER.sub("", _norm(text))
    return t not in _WEAK_BIB_TITLES or _entry_follows(blocks, i)


# natbib's optional label printed before the entry by OCR engines: "Hu et al. [2020] Hengyuan Hu, ..."
_NATBIB_LABEL = re.compile(
    r"^[A-Z][\w'’\-]+(?:\s(?:et\s+al\.|(?:and|&)\s[A-Z][\w'’\-]+))?\s\[(?:19|20)\d\d[a-z]?\]\s+(?=[A-Z])"
)
# bracketed words that are notes inside an entry, not labels
_NOT_LABELS = frozenset("online accessed available internet electronic abstract software dataset video cited "
                        "in press preprint".split())


def entry_label(text: str) -> str | None:
    """The printed label an entry starts with: "12" for "[12]"/"12."/"(12)", "Lee06" for "[Lee06]"."""
    m = _LABEL.match(text)
    if m:
        return next(g for g in m.groups() if g)
    m = _ALPHA_LABEL.match(text)
    return m.group(1) if m and m.group(1).lower() not in _NOT_LABELS else None


def _ay_label(text: str) -> re.Match | None:
    """An author-year label opening an entry ("[Carr and Konishi, 1990] Carr, C. ...")."""
    if "[" not in text[:3]:
        return None
    m = _AY_LABEL.match(text)
    return m if m and m.group(1).split(None, 1)[0].rstrip(",").lower() not in _NOT_LABELS else None


def _start_label(text: str) -> str | None:
    """Any printed label that starts an entry: ``entry_label``'s, or an author-year one."""
    lab = entry_label(text)
    if lab is None and (m := _ay_label(text)) is not None:
        return m.group(1)
    return lab


def _reads_like_entry(text: str) -> bool:
    t = text.lstrip()
    if _start_label(t) is not None:
        return True
    # author-year: a year early in the entry, after a list of names ("Agertz O., et al.",
    # "Kamiaka, S.", "Michael Ahn, Anthony Brohan, ...")
    if not _ANY_YEAR.search(t[:400]):
        return False
    return bool(re.match(r"[A-Z][\w'’\-]+(?:,|\s[A-Z]\.)", t) or _author_shape(t)
                or _split_authors(t[: _sentence_end(t, 0)]))


# (REVTeX prints "FIG. 2. The 95% C.L. limits ..." and "TABLE I. ...")
_FLOAT_LABEL = re.compile(r"^\s*(?:Figure|Fig\.|FIG\.|Table|TABLE|Listing)\s+(?:\d+|[IVX]{1,4})[:.]\s+\S")
# babel's \\appendixname in the languages BIB_TITLES knows (abnTeX2 adds "Anexo" for an annex)
_APPENDIX_WORDS = r"appendix|appendices|anhang|annexe|annexes|ap[eéê]ndice|appendice|anexo|anexos|bijlage"
_APPENDIX_START = re.compile(rf"^\s*(?:{_APPENDIX_WORDS}|supplementary material|supplemental material)\b", re.I)
# an appendix's labelled title, "APÊNDICE A – Title ...", "Appendix B: Title": a chapter title that the heading
# finder may leave a paragraph (a memoir chapter's long centred title), however long
_APPENDIX_LABELLED = re.compile(rf"^\s*(?i:{_APPENDIX_WORDS})\s+(?:[A-Z]|\d{{1,2}}|[IVX]{{1,4}})\s*[–—:.\-]\s*\S")
# a number raised before an entry's first word (aiaa.bst: "¹Reissner, E., ..."), which the footnote
# reader writes as a mark: "[^1]Reissner, E., ..."
_RAISED_LABEL = re.compile(r"(?m)(?:^|(?<=\s))\[\^(\d{1,3})\]\s*(?=[^\W\d_])")


def mark_bibliography(blocks: list[Block]) -> None:
    """Mark the blocks of every bibliography in the document (``attrs["bibliography"]``).

    A bibliography starts at a heading or a short paragraph that is a bibliography title
    (a paragraph only when an entry follows it: the heading finder may have missed a small-caps
    "REFERENCES"; it becomes a heading here), or, when the document has no such title, at a
    run of entries numbered [1], [2], [3] in the second half of the text (REVTeX prints its
    list without one). It ends at the next heading of the same or a higher level, at an
    appendix, or at the end. Several bibliographies (one per chapter) are each marked; their
    blocks carry ``attrs["bib_part"]`` so the reference stage restarts label sequences.
    Visual lines with their left edges go to ``attrs["bib_lines"]`` for entry segmentation.
    """
    from bisect import bisect_left
    from itertools import compress, repeat
    from operator import attrgetter, is_

    heading, paragraph = BlockKind.HEADING, BlockKind.PARAGRAPH
    n = len(blocks)
    heading_at = list(compress(range(n), map(is_, map(attrgetter("kind"), blocks), repeat(heading))))
    heads = [lv for i in heading_at if not (b := blocks[i]).attrs.get("title") and (lv := b.level)]
    top = min(heads, default=2)
    _split_tables_holding_a_list(blocks, top)
    if len(blocks) != n:
        n = len(blocks)
        heading_at = list(compress(range(n), map(is_, map(attrgetter("kind"), blocks), repeat(heading))))
    # the paragraphs that may read as a bibliography title, found by one search of all the
    # texts (every other one is_bibliography_title refuses), then asked once (the loop below
    # asks of every short one, the search for a title of the ones before it; no step of the
    # loop changes a later block's text or kind): a page of raw OCR text has a paragraph per
    # line, 47,000 lines a MB, and a cache of 4,096 titles holds few of them. Longer ones are
    # asked only until a title is found
    maybe = [i for i in _maybe_bib_titles(blocks) if blocks[i].kind is paragraph]
    titled = {i for i in maybe if len(t := blocks[i].text) <= 40 and is_bibliography_title(t)}
    found = any(
        (b.kind is heading and _heading_opens_list(blocks, i))
        or (b.kind is paragraph and (i in titled if len(b.text) <= 40 else is_bibliography_title(b.text))
            and _entry_follows(blocks, i))
        for i in sorted({*heading_at, *maybe}) for b in (blocks[i],)
    )
    start_at = None if found else _untitled_start(blocks, maybe)
    inside = False
    level = 2
    part = entries = 0
    list_box = None  # the type and width of a list's first entry, and whether that width is the column's
    # Outside a list nothing happens to a block but at a heading, a title paragraph or the
    # untitled list's start: the loop steps from one of these to the next, and block by block
    # only inside a list
    events = sorted({*heading_at, *titled, *([start_at] if start_at is not None else [])})

    def steps():
        i = 0
        while i < n:
            if not inside:
                k = bisect_left(events, i)
                if k == len(events):
                    return
                i = events[k]
            yield i, blocks[i]
            i += 1

    raised = 0  # the last raised number that labelled an entry of the list (_raised_entry)
    listed: set[int] = set()  # headings of a publication list taken for a bibliography (_publication_list)
    # the body type (PDF input; a short book may have no paragraph of 200 characters): a running
    # head is set in it or smaller, a chapter's title larger ("Chapter 3 / Literature" atop its page
    # is no head of the list that comes later), unless it is the list's own word, which a deck's
    # allowframebreaks repeats in frame-title type atop each page ("References", "References II")
    body = body_type_size([b for b in blocks if b.kind is paragraph and b.attrs.get("_size")])
    for i, b in steps():
        if i == start_at:
            inside, level, part, entries = True, top, part + 1, 0
        if inside and b.kind is BlockKind.HEADING and (b.level or 2) > level and _entry_as_heading(b):
            # an entry made a heading: a LibreOffice bibliography index exported with a bookmark
            # per entry puts every entry in the PDF's outline, under the list's own head
            b.kind, b.level, b.number = BlockKind.PARAGRAPH, None, None
            b.attrs.pop("_title", None)
        if b.kind is BlockKind.HEADING:
            if _heading_opens_list(blocks, i):
                if _first_on_page(blocks, i) and not (body and (b.attrs.get("_size") or 0.0) > body + 1.0
                                                      and not _LIST_OWN_TITLE_RE.match(b.attrs.get("_title") or b.text)) \
                        and (part and ((inside and entries) or not _entry_follows(blocks, i))
                             or not part and _later_list(blocks, i) and not _holds_list_head(blocks, i)):
                    # the running head of a long list, read as a heading ("Bibliography"),
                    # also on the pages of whatever follows the list, or before it: "6
                    # REFERENCES" atop the page whose body ends the text before the list
                    b.kind = BlockKind.FURNITURE
                    b.attrs["furniture"] = "running_header"
                    continue
                if not inside and _later_list(blocks, i):
                    # running text under it and the list under a later one: a section about
                    # references (tufte-handout's "References" b-head on citing), not the list
                    continue
                if not inside and (j := _publication_list(blocks, i)) is not None:
                    # a CV's "References": referees (names, posts, e-mails; no label, no year),
                    # its bibliography the labelled list under "Publications" further on
                    listed.add(j)
                    continue
                inside, level, part, entries = True, b.level or 2, part + 1, 0
                b.attrs["bibliography"] = True
                continue
            if i in listed:
                inside, level, part, entries = True, b.level or 2, part + 1, 0
                b.attrs["bibliography"] = True
                continue
            number = b.number or ""
            if inside and ((b.level or 2) <= level or number[:1].isalpha() or _APPENDIX_START.match(b.text)):
                inside = False
            continue
        if i in titled and len(b.text) <= 40:
            if inside or (part and _first_on_page(blocks, i) and not _entry_follows(blocks, i)):
                # the running head of a long list ("Bibliography", "Bibliography 62")
                b.kind = BlockKind.FURNITURE
                b.attrs["furniture"] = "running_header"
                continue
            # "Bibliography 61" is a contents line or a running head unless a labelled entry follows
            numbered_line = bool(re.search(r"\d\s*$", b.text))
            if _entry_follows(blocks, i, labelled=numbered_line):
                entries = 0
                b.kind = BlockKind.HEADING
                b.level = top
                b.number = None
                b.text = re.sub(r"(?:\s+\d{1,4})+$", "", b.text.strip())
                b.attrs["_title"] = b.text
                b.attrs["bibliography"] = True
                inside, level, part = True, top, part + 1
                continue
        if inside and b.kind is BlockKind.TABLE and b.bbox and _rows_read_like_entries(b.attrs.get("rows") or []):
            # a page of the list found as a table (two columns of lines that align): it is
            # read from the page's lines like any other region of the list
            b.kind = BlockKind.PARAGRAPH
            b.text = " ".join(c for row in b.attrs.pop("rows") for c in row if c.strip())
            b.attrs["bib_region"] = ""
        if inside and b.kind in (BlockKind.FOOTNOTE, BlockKind.PARAGRAPH):
            raised = _raised_entry(b, entries, raised)
        if not inside or b.kind not in (BlockKind.PARAGRAPH, BlockKind.LIST_ITEM):
            continue
        if b.kind is BlockKind.PARAGRAPH and (len(b.text) < 80 and _APPENDIX_START.match(b.text)
                                              or _APPENDIX_LABELLED.match(b.text)):
            inside = False
            continue
        if b.kind is BlockKind.PARAGRAPH and entries and _set_under_closing_head(blocks, i, level):
            # read before a heading that is printed above it (a word processor's text box, read
            # first on its page): the list ended before that heading ("APPENDIX A" atop the page,
            # its box of definitions under it)
            inside = False
            continue
        if b.kind is BlockKind.PARAGRAPH and entries >= 3 and _address_card(blocks, i):
            inside = False  # the authors' address cards after the list (The R Journal's): no entries
            continue
        if b.kind is BlockKind.PARAGRAPH and (aside(b) or _FLOAT_LABEL.match(b.text) or b.attrs.get("_float_page")):
            # a float set on the list's page: its caption ("Figure 8: ..."), a code line, a plot's
            # turned labels, the text of a page of one float (structure's _float_pages). An entry's
            # URL, or its tail broken onto a line of its own in typewriter type ("1007/s10902-009-9150-9": no space in it), stays
            continue
        size = b.attrs.get("_size")
        if b.kind is BlockKind.PARAGRAPH and list_box and b.bbox and b.bbox[1] > 0.9 * (b.attrs.get("_page_height") or 792) \
                and ((size or 0) < 0.85 * list_box[0] or list_box[2] and b.bbox[2] - b.bbox[0] > 1.5 * list_box[1]):
            # the page's foot under the list, in smaller type or across both columns ("Smith et
            # al. | Running title here bioRxiv | 3", a running foot the furniture finder left): no entry
            continue
        if b.kind is BlockKind.LIST_ITEM:
            if b.number:
                b.text = f"{b.number} {b.text}" if not b.number.startswith("[") else b.text
            elif b.bbox is None:
                b.attrs["bib_item"] = True  # a Markdown/OCR list item: one entry, labelled or not
            b.kind = BlockKind.PARAGRAPH
        b.attrs["bibliography"] = True
        b.attrs["bib_part"] = part
        if size and b.bbox and (not entries or list_box and b.bbox[2] - b.bbox[0] > list_box[1]):
            # the list's type is its first entry's; its width the widest entry's so far (a short
            # first entry, "[1] Project jupyter. http://...", is no measure of the column)
            # A width is the column's only once an entry of two lines or more set it: abbrv and plainnat break an
            # entry at each \newblock, so the first block may be "[1] P. Name." alone, and its title line under it,
            # twice as wide, is no page foot
            full = len(b.attrs.get("_line_texts") or ()) >= 2 or bool(entries and list_box and list_box[2])
            list_box = (list_box[0] if entries and list_box else size, b.bbox[2] - b.bbox[0], full)
        entries += 1
        lines = _visual_lines(b)
        if lines:
            b.attrs["bib_lines"] = lines


def _entry_as_heading(b: Block) -> bool:
    """A heading as long as an entry that opens as one: a label ("2. Cao Y. ...") or names and a year."""
    return len(b.text) >= 60 and (_start_label(b.text) is not None or _reads_like_entry(b.text)) \
        and not is_bibliography_title(b.text)


def _set_under_closing_head(blocks: list[Block], i: int, level: int) -> bool:
    """blocks[i] opens a new page of the list, and a later block of its page is a heading that ends a
    list of ``level`` (of that level or higher, or an appendix's) printed above it, over the same
    stretch of the line. (On the page of the list's last entry, a heading above in the reading
    order's later part is another box's: a poster's.)"""
    b = blocks[i]
    if b.bbox is None:
        return False
    last = next((c for c in reversed(blocks[:i]) if c.attrs.get("bibliography")), None)
    if last is None or last.page >= b.page:
        return False
    for c in blocks[i + 1 :]:
        if c.page != b.page:
            return False
        if c.kind is BlockKind.HEADING and c.bbox and c.bbox[3] <= b.bbox[1] \
                and c.bbox[0] < b.bbox[2] and b.bbox[0] < c.bbox[2] \
                and ((c.level or 2) <= level or _APPENDIX_START.match(c.text)):
            return True
    return False


# a line that is an e-mail address or an ORCID alone
_CARD_END_RE = re.compile(r"\s*(?:[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+|(?:https?://)?orcid\.org/[\d\-X]{15,19})\s*")
_YEAR_RE = re.compile(r"\b(?:1[89]|20)\d\d\b")


def _address_card(blocks: list[Block], i: int) -> bool:
    """blocks[i] is an author's address card: three lines or more of no year (a name, a department,
    an institution, a country), one of them after the first an e-mail address or an ORCID alone,
    which no entry of a list is."""
    b = blocks[i]
    lines = [t.strip() for t in (b.attrs.get("_line_texts") or b.text.split("\n")) if t.strip()]
    ends = [bool(_CARD_END_RE.fullmatch(t)) for t in lines]
    return len(lines) >= 3 and any(ends[1:]) and all(len(t) <= 100 for t in lines) \
        and not any(_YEAR_RE.search(t) for t, end in zip(lines, ends, strict=True) if not end)


def _raised_entry(b: Block, entries: int, raised: int) -> int:
    """A list whose entries open with raised numbers (aiaa.bst: "¹Reissner, E., ..."): the footnote
    reader takes the entries at a page's foot for footnotes and leaves its marks in the others
    ("[^8]Sprague, M., ..."). Where the list's first entry is such a one numbered 1, a footnote numbered
    next in turn is an entry labelled by its number, and a raised number that opens a line of the list,
    next in turn, is its label ("[8] Sprague, M., ..."): the text's raised callouts then find their
    entries. Returns the last such number (0: the list is none of these)."""
    if not entries:
        raised = 0
    elif not raised:
        return 0
    if b.kind is BlockKind.FOOTNOTE:
        num = b.number or ""
        if not (num.isdigit() and int(num) == raised + 1 and _reads_like_entry(b.text)):
            return raised
        b.kind = BlockKind.PARAGRAPH
        b.text = f"[^{num}]{b.text}"  # (its mark, as the lines it was read from still print it)
        b.number = None
    elif "[^" not in b.text or not raised and not b.text.lstrip().startswith("[^1]"):
        return raised
    labels = set()
    for m in _RAISED_LABEL.finditer(b.text):
        if int(m.group(1)) != raised + 1:
            break
        raised += 1
        labels.add(m.group(1))
    if labels:
        def label(m: re.Match) -> str:
            return f"[{m.group(1)}] " if m.group(1) in labels else m.group(0)

        b.text = _RAISED_LABEL.sub(label, b.text)
        if b.attrs.get("_line_texts"):
            b.attrs["_line_texts"] = [_RAISED_LABEL.sub(label, t) for t in b.attrs["_line_texts"]]
        for row in b.attrs.get("_run_on_lines") or ():
            row[0] = _RAISED_LABEL.sub(label, row[0])
    return raised


def _split_tables_holding_a_list(blocks: list[Block], level: int) -> None:
    """A table never holds a bibliography: when a table found on a page (a float's
    continuation running to the page foot) has a row that is only a bibliography title
    followed by rows of entries, the rows from the title on become the title heading and a
    region of the page whose visual lines the reference stage reads from the page itself."""
    if not any(map(attrgetter("bbox"), of_kind(blocks, BlockKind.TABLE))):
        return  # (text input: no table has a page region)
    k = 0
    while k < len(blocks):
        b = blocks[k]
        rows = b.attrs.get("rows") or []
        at = next((r for r, row in enumerate(rows)
                   if (cells := [c for c in row if c.strip()]) and len(cells) == 1 and is_bibliography_title(cells[0])
                   and len(cells[0]) <= 40), None) if b.kind is BlockKind.TABLE and b.bbox else None
        if at is None or not any(_reads_like_entry(c) for row in rows[at + 1 : at + 4] for c in row if c.strip()):
            k += 1
            continue
        title = next(c for c in rows[at] if c.strip()).strip()
        region = Block(kind=BlockKind.PARAGRAPH, page=b.page, bbox=b.bbox,
                       text=" ".join(c for row in rows[at + 1 :] for c in row if c.strip()),
                       attrs={"bib_region": title})
        heading = Block(kind=BlockKind.HEADING, text=title, page=b.page, level=level, attrs={"_title": title})
        b.attrs["rows"] = rows[:at]
        blocks[k + 1 : k + 1] = [heading, region]
        if not b.attrs["rows"]:
            del blocks[k]
        k += 2


def _rows_read_like_entries(rows: list[list[str]]) -> bool:
    cells = [c for row in rows for c in row if c.strip()]
    starts = [c for c in cells if entry_label(c) is not None or _reads_like_entry(c)]
    return len(starts) >= 3 and len(starts) >= 0.3 * len(cells)


def _region_lines(block: Block, page) -> list[list] | None:
    """The visual lines of a page region below a bibliography title, column by column."""
    from ctxmill.compile.blocks import span_text
    from ctxmill.compile.normalize import fold

    x0, y0, x1, y1 = block.bbox
    inside = [ln for ln in page.lines if ln.bbox and ln.bbox[0] >= x0 - 1 and ln.bbox[2] <= x1 + 1
              and ln.bbox[1] >= y0 - 1 and ln.bbox[3] <= y1 + 1 and ln.text.strip()]
    mid = page.width * 0.45 if page.width else 275.0
    if not block.attrs.get("bib_region"):  # no title in the region: all of it, column by column
        cols = sorted(inside, key=lambda ln: (ln.bbox[0] >= mid, ln.bbox[1]))
        return [[fold(span_text(ln)), ln.bbox[0]] for ln in cols if re.search(r"\w", ln.text)] or None
    head = next((ln for ln in inside if is_bibliography_title(ln.text) and len(ln.text) <= 40), None)
    if head is None:
        return None
    left = sorted((ln for ln in inside if ln.bbox[0] < mid and ln.bbox[1] > head.bbox[1]), key=lambda ln: ln.bbox[1])
    right = sorted((ln for ln in inside if ln.bbox[0] >= mid and ln.bbox[1] >= head.bbox[1] - 2),
                   key=lambda ln: ln.bbox[1])
    if head.bbox[0] >= mid:  # the title heads the right column
        left = []
        right = [ln for ln in right if ln.bbox[1] > head.bbox[1]]
    return [[fold(span_text(ln)), ln.bbox[0]] for ln in left + right if re.search(r"\w", ln.text)] or None


_LIST_OWN_TITLE_RE = re.compile(r"^\s*(?:\d+\.?\s+)?(?:references|bibliography)\b", re.I)


def _first_on_page(blocks: list[Block], i: int) -> bool:
    prev = next((b for b in reversed(blocks[:i]) if b.kind is not BlockKind.FURNITURE), None)
    return prev is None or prev.last_page < blocks[i].page


def _later_list(blocks: list[Block], i: int) -> bool:
    """No entry follows the bibliography title heading at ``i``, but one does follow a later
    bibliography title heading: the list starts there."""
    if _entry_follows(blocks, i):
        return False
    return any(b.kind is BlockKind.HEADING and is_bibliography_title(b.attrs.get("_title") or b.text)
               and _entry_follows(blocks, j) for j, b in enumerate(blocks[i + 1 :], i + 1))


def _holds_list_head(blocks: list[Block], i: int) -> bool:
    """The bibliography title heading at ``i`` is a section whose first block, on its page, is the
    list's own heading one level under it (a deck's section "KAYNAKÇA" over its frame "Kaynaklar"):
    a section, not a running head."""
    b = blocks[i]
    nxt = next((c for c in blocks[i + 1 :] if c.kind is not BlockKind.FURNITURE), None)
    return (nxt is not None and nxt.kind is BlockKind.HEADING and nxt.page == b.page
            and (nxt.level or 2) > (b.level or 2) and is_bibliography_title(nxt.attrs.get("_title") or nxt.text))


# what a CV or a report calls its own list of works (the heading of a list, not a bibliography title)
_PUBLICATION_TITLES = frozenset({"publications", "selected publications", "list of publications", "publication list",
                                 "publikationen", "publications list"})


def _section_end(blocks: list[Block], i: int) -> int:
    level = blocks[i].level or 2
    return next((j for j in range(i + 1, len(blocks))
                 if blocks[j].kind is BlockKind.HEADING and (blocks[j].level or 2) <= level), len(blocks))


def _publication_list(blocks: list[Block], i: int) -> int | None:
    """The bibliography title heading at ``i`` heads no entry (no block of its section opens with a
    label nor reads like an entry: a CV's referees), and a later heading of its level named like a
    list of publications heads entries labelled in sequence ("[1] ...", "[2] ..."): that heading."""
    end = _section_end(blocks, i)
    body = [b for b in blocks[i + 1 : end] if b.kind in (BlockKind.PARAGRAPH, BlockKind.LIST_ITEM)]
    if not body or any(_reads_like_entry(b.text) for b in body):
        return None
    level = blocks[i].level or 2
    for j in range(end, len(blocks)):
        b = blocks[j]
        if b.kind is not BlockKind.HEADING or (b.level or 2) != level \
                or _norm(b.attrs.get("_title") or b.text) not in _PUBLICATION_TITLES:
            continue
        labels = []
        for e in blocks[j + 1 : _section_end(blocks, j)]:
            if e.kind is BlockKind.FURNITURE:
                continue
            lab = _start_label(e.text) if e.kind is BlockKind.PARAGRAPH else None
            if lab is None:
                break
            labels.append(lab)
        if len(labels) >= 2 and labels[:2] == ["1", "2"]:
            return j
    return None


def _entry_follows(blocks: list[Block], i: int, labelled: bool = False) -> bool:
    for b in blocks[i + 1 : i + 4]:
        if b.kind in (BlockKind.FURNITURE, BlockKind.FIGURE, BlockKind.CAPTION, BlockKind.FOOTNOTE):
            continue
        text = (f"{b.number} " if b.kind is BlockKind.LIST_ITEM and b.number else "") + b.text
        if b.kind not in (BlockKind.PARAGRAPH, BlockKind.LIST_ITEM):
            return False
        return _start_label(text) is not None if labelled else _reads_like_entry(text)
    return False


# A text is_bibliography_title may take: its letters, lower-cased, spell one of _BIB_KEYS with
# only non-word characters between them (what its squashed test reads), or it holds a character
# that sends it to the full test (outside ASCII, "<", "["). Neither matches a line break.
_MAYBE_BIB_KEY = re.compile("|".join("[^\\w\\n]*".join(key) for key in _BIB_KEYS))
_BIB_FULL_TEST = re.compile(r"[^\x00-\x3b\x3d-\x5a\x5c-\x7f]")


def _maybe_bib_titles(blocks: list[Block]) -> list[int] | range:
    """The blocks whose text is_bibliography_title may take (it refuses every other one), found by
    one search of all the texts (raw OCR text: 47,000 one-line paragraphs a MB); every block
    where texts are longer than 150 characters on average (prose: the test's own step per block
    costs less than a search of all its text)."""
    texts = list(map(_TEXT, blocks))
    if sum(map(len, texts)) > 150 * len(texts):
        return range(len(texts))
    from ctxmill.linescan import text_hits

    return text_hits(texts, _BIB_FULL_TEST, _MAYBE_BIB_KEY)


def _untitled_start(blocks: list[Block], among: list[int] | range | None = None) -> int | None:
    """The first block of a list numbered [1], [2], [3]... in the second half of the document,
    or of a run of alphabetic labels in alphabetical order ("[AKV13] ...", "[BC11] ...", "[BJJS11]
    ...": an amsart or elsarticle thebibliography printed without a title). ``among``: the
    blocks to ask (ascending; every one holding "[" among them), all when None."""
    half = len(blocks) // 2
    for i in range(half, len(blocks)) if among is None else [k for k in among if k >= half]:
        if blocks[i].kind is not BlockKind.PARAGRAPH or "[" not in blocks[i].text[:3]:
            continue
        if re.match(r"\s*\[1\]\s", blocks[i].text):
            seen = [entry_label(b.text) for b in blocks[i + 1 : i + 12] if b.kind is BlockKind.PARAGRAPH]
            # entries set close together come as one block ("[1] R. J. Gaitskell, ... (2004). [2]
            # V. Trimble, ..." in REVTeX's PRL letters): labels after an entry's closing stop count
            seen += _INLINE_LABEL.findall(blocks[i].text)
            if "2" in seen and "3" in seen:
                return i
        elif _alpha_run(blocks, i):
            return i
    return None


# "... (2004). [2] V. Trimble": a numeric label after an entry's end, inside one block
_INLINE_LABEL = re.compile(r"[.)]\s+\[(\d{1,3})\]\s+[A-Z]")

# any short bracketed key, also one the text layer spells with a loose accent ("[Bj¨o90]")
_RUN_LABEL = re.compile(r"^\s*\[([^\]\s,;]{2,14})\]\s+\S")


def _alpha_run(blocks: list[Block], i: int, n: int = 4) -> bool:
    """Paragraphs from ``i`` on open with ``n`` bracketed alphabetic labels in alphabetical order
    (an entry's other lines may be paragraphs of their own, two at most; page furniture is
    skipped): the entries of an alpha-style list. A paragraph citing "[MS15]" first is alone,
    and cited keys are in no order."""
    labels: list[str] = []
    between = 0
    for b in blocks[i:]:
        if b.kind in (BlockKind.FURNITURE, BlockKind.FIGURE, BlockKind.CAPTION, BlockKind.FOOTNOTE):
            continue
        if b.kind is not BlockKind.PARAGRAPH:
            return False
        m = _RUN_LABEL.match(b.text)
        key = _NOT_WORD.sub("", unicodedata.normalize("NFKD", m.group(1)).lower()) if m else ""
        if not key or key.isdigit() or not key[0].isalpha():
            between += 1
            if not labels or between > 2:
                return False
            continue
        between = 0
        labels.append(key)
        if len(labels) == n:
            return labels == sorted(labels)
    return False


def _visual_lines(b: Block) -> list[list] | None:
    """[[text, x0], ...] of a PDF block's lines; the text of a block merged into it across a
    page or column break (the structure stage joins an entry split there) comes last with no x0."""
    texts, xs = b.attrs.get("_line_texts"), b.attrs.get("_line_x0")
    if not texts or not xs or len(texts) != len(xs) or b.bbox is None:
        return None
    # a line with no letter or digit is debris of the one above (a detached accent "´" of
    # "Huszár" set as its own line far right); it must not start an entry
    lines = [[t, x] for t, x in zip(texts, xs, strict=True) if re.search(r"\w", t)]
    if len(lines) < len([t for t in texts if t.strip()]):
        b.attrs["bib_debris"] = True  # the block's own text still holds it: re-flow the lines
    # a running head merged into the first block of a page ("Bibliography 62 [Min+08] ...")
    while lines and len(lines[0][0]) <= 40 and is_bibliography_title(lines[0][0]):
        lines.pop(0)
    run_on = b.attrs.get("_run_on_lines")
    if b.page_end is not None and lines and run_on:
        # the text merged into it across a column or page (structure's run-on join), line by
        # line with its left edge and page: each line is at or off its own column's edge
        lines += [row for row in run_on if re.search(r"\w", row[0])]
    elif b.page_end is not None and lines:
        key = lines[-1][0].strip().rstrip("-")[-24:]
        pos = b.text.rfind(key) if key else -1
        if pos < 0:
            return None
        tail = b.text[pos + len(key) :].strip()
        if tail:
            lines.append([tail, None])
    return lines or None


# ---------------------------------------------------------------------------- entries from lines


class _Ln:
    """One visual line of a bibliography (or a whole block when there is no geometry)."""

    __slots__ = ("text", "x0", "page", "side", "block", "first", "label", "icon")

    def __init__(self, text: str, x0: float | None, page: int, side: int, block: int, first: bool,
                 icon: bool = False):
        self.text, self.x0, self.page, self.side, self.block, self.first = text, x0, page, side, block, first
        self.label = _start_label(text)
        self.icon = icon  # the line opens beside an item icon (a slide deck's list: _mark_icons)


def _lines(blocks: list[Block], page_widths: dict[int, float]) -> list[_Ln]:
    out: list[_Ln] = []
    for k, b in enumerate(blocks):
        width = page_widths.get(b.page) or 612.0
        side = 0 if b.bbox is None or b.bbox[0] < width * 0.45 else 1
        rows = b.attrs.get("bib_lines") or [[b.text, None]]
        icons = b.attrs.get("bib_icons") or ()
        for j, row in enumerate(rows):
            text, x0 = row[0], row[1]
            # (a run-on line names its own page)
            page = row[2] if len(row) > 2 else b.page if x0 is not None or j == 0 else b.last_page
            pieces = _inner_split(text) if x0 is None else [text]
            line_side = side if x0 is None else (0 if x0 < width * 0.45 else 1)
            for q, piece in enumerate(pieces):
                out.append(_Ln(piece, x0, page, line_side, k, j == 0 or q > 0, j in icons and q == 0))
    return out


_INNER_ANY_LABEL = re.compile(
    # (inside a line an alphabetic key needs its digits: "[Ber]" in the text is no new entry)
    rf"(?<=[.\s])\s*(?=\[(?:{_NUM}|@?{_KEY_HEAD}{_KEY_YEAR}|{_LOWER_KEY}|{_AY_KEY})\]\s)"
)


def _inner_split(text: str) -> list[str]:
    """Text with no line geometry that holds several labelled entries ("[1] ... [2] ...")."""
    cuts = [0] + [m.end() for m in _INNER_ANY_LABEL.finditer(text) if m.end() > 0]
    if len(cuts) < 2:
        return [text]
    pieces = [text[a:b].strip() for a, b in zip(cuts, [*cuts[1:], len(text)], strict=True)]
    return [p for p in pieces if p]


ICON_GAP = 15.0  # an item icon's right edge is this close to its entry's first line (Beamer: ~2 pt)


def _icon_starts(page) -> list:
    """The lines of ``page`` that open beside an item icon (Beamer's bibliography template draws a
    book or article picture left of each entry's first line): per picture, the topmost line right
    of it whose top is at or below the picture's top and above its bottom (the line above, the
    entry before's last, may reach into the picture's height)."""
    out = []
    for _x0, top, x1, bottom in page.images:
        beside = [ln for ln in page.lines if ln.bbox is not None and ln.text.strip()
                  and -2.0 <= ln.bbox[0] - x1 <= ICON_GAP and top - 1.0 <= ln.bbox[1] < bottom]
        if beside:
            out.append(min(beside, key=lambda ln: ln.bbox[1]))
    return out


def _mark_icons(blocks: list[Block], pages: dict) -> None:
    """In a slide deck: ``attrs["bib_icons"]``, the indexes of a list block's visual lines
    (``bib_lines``) that open beside an item icon, found by their text among the page's lines in
    the block's box."""
    starts = {n: _icon_starts(p) for n, p in pages.items() if p.images}
    for b in blocks:
        rows = b.attrs.get("bib_lines")
        first = starts.get(b.page)
        if not rows or not first or b.bbox is None:
            continue
        x0, y0, x1, y1 = b.bbox
        ids = {id(ln) for ln in first}
        # the block's own lines in reading order, each matched once (a run-on row on another page
        # finds none and is no start)
        own = [ln for ln in pages[b.page].lines if ln.bbox is not None and ln.bbox[0] >= x0 - 1
               and ln.bbox[2] <= x1 + 1 and ln.bbox[1] >= y0 - 1 and ln.bbox[3] <= y1 + 1]
        keys = [(" ".join(fold(span_text(ln)).split()), ln) for ln in own]
        marked = []
        for j, row in enumerate(rows):
            if row[1] is None or (len(row) > 2 and row[2] != b.page):
                continue
            want = " ".join(row[0].split())
            k = next((k for k, (t, _) in enumerate(keys) if t == want), None)
            if k is None:
                continue
            if id(keys[k][1]) in ids:
                marked.append(j)
            del keys[: k + 1]
        if marked:
            b.attrs["bib_icons"] = marked


def _numeric_next(label: str, prev: int | None) -> bool:
    # label sequence continuity: "[12]" after "[11]" (a few missing numbers tolerated); "[1]"
    # restarts (the next chapter's list); a number out of sequence is text inside an entry
    n = int(label)
    return prev is None or n == 1 or prev < n <= prev + 5


_BARE_LABEL = re.compile(r"^(\d{1,3})\s+(?=[A-Z\u00C0-\u024F])")
# an author-year head as a line of its own: names, then "(2020)." / "(2018a)." (or "(2023)." alone)
_AY_HEAD_END = re.compile(rf"\(({_YEAR})\)\.\s*$")
_NAME_LIST_CUT = re.compile(r"(?:,|\band)\s*$")
# a spacing accent opening a line, alone or before a space: the accent of the first letter of the
# line above (the caron of "Šuba", a modifier letter, not dropped as debris), set at the column's
# edge, so its x0 is not where the line's text starts
_DETACHED_ACCENT = re.compile("[" + "".join(SPACING_ACCENTS) + r"](?:\s|$)")


def segment(lines: list[_Ln]) -> list[list[_Ln]]:
    """Split the lines of one bibliography into entries.

    In order of trust: printed labels with a continuous sequence; the hanging indent (first
    lines of entries at the column's left edge, continuations indented; the edge is found per
    page and column, so an entry running on at the top of the next column stays one entry);
    the blocks themselves (split on vertical gaps by the blocks stage); the shape of the text.
    """
    if not lines:
        return []
    if sum(ln.icon for ln in lines) >= 2:
        # a slide deck's list (Beamer's bibliography template): an item icon beside each entry's
        # first line, every \newblock on a line of its own at one edge, no label, no indent:
        # a line beside an icon starts an entry, a line without one continues it (a block with
        # no line geometry starts one, as below)
        return _grouped(lines, [ln.icon or (ln.x0 is None and ln.first) for ln in lines])
    edge = _edges(lines)
    # a right "column" of one line beside a full left one, with no right column of 3+ lines on any
    # page, is the tail of a line that a tall glyph ("√s") cut in two: it is at no edge
    # (words, not a page number in the margin: that is no part of an entry)
    per_col = Counter((ln.page, ln.side) for ln in lines if ln.x0 is not None)
    tails = {(ln.page, 1) for ln in lines if ln.side == 1 and ln.x0 is not None and per_col[(ln.page, 1)] == 1
             and per_col[(ln.page, 0)] >= 3 and re.search(r"[^\W\d_]{2}", ln.text)} \
        if not any(n >= 3 for (_, s), n in per_col.items() if s == 1) else set()
    at_edge = [ln.x0 is None or (ln.x0 - edge[(ln.page, ln.side)] <= 2.5 and not _DETACHED_ACCENT.match(ln.text)
                                 and (ln.page, ln.side) not in tails)
               for ln in lines]
    labelled = [ln for ln in lines if ln.label is not None]
    # numbers without brackets or a period, set in the margin ("1 J. Richard Büchi. ...", LIPIcs):
    # only with line geometry, and only where they far outnumber real labels (a "(1968)" that
    # opens a continuation line reads as one)
    bare = [(ln, m.group(1)) for ln in lines
            if ln.x0 is not None and ln.label is None and (m := _BARE_LABEL.match(ln.text)) is not None]
    if len(bare) >= 3 and len(bare) > 2 * len(labelled) \
            and sum(int(b[1]) - int(a[1]) == 1 for a, b in pairwise(bare)) >= 0.7 * (len(bare) - 1):
        for ln, lab in bare:
            ln.label = lab
        labelled = [ln for ln in lines if ln.label is not None]
    # edge lines between the first and the last label: text after the list (a glossary
    # without a heading) must not outvote the labels
    pos = [i for i, ln in enumerate(lines) if ln.label is not None]
    # (a single label's span is its own line: it is weighed against the whole list's edge lines,
    # so an apalike list whose first entry has no author, "(2023). String quartet corpus.", set
    # with no hanging indent, is not a one-entry numbered list)
    n_edge = sum(at_edge[pos[0] : pos[-1] + 1]) if len(pos) > 1 else sum(at_edge)
    starts = [False] * len(lines)
    # one "label" on an indented line is no numbering: "(2015). A Markov ..." opening an
    # author-year entry's second line (bioinfo's natbib list) read as "(2015)", and with no edge
    # line between it and itself it outvoted the hanging indent: the whole list one entry
    lone = len(labelled) == 1 and not at_edge[pos[0]]
    if labelled and not lone and len(labelled) >= 0.6 * n_edge:
        numeric = sum(ln.label.isdigit() for ln in labelled) > len(labelled) / 2
        cont: dict[tuple[int, int], Counter] = {}
        for ln in lines:
            if ln.label is None and ln.x0 is not None:
                cont.setdefault((ln.page, ln.side), Counter())[round(ln.x0)] += 1
        cont_x = {k: c.most_common(1)[0][0] for k, c in cont.items()}
        prev = None
        for i, ln in enumerate(lines):
            # labels are often right-aligned ("[9]" sits right of "[10]", "[Ber03]" of
            # "[AAQAMI11]"): a label counts unless it sits where continuation text does (a
            # raised one on a first-line indent, aiaa.bst's, stands right of it)
            cx = cont_x.get((ln.page, ln.side))
            near = ln.x0 is None or at_edge[i] or cx is None or abs(ln.x0 - cx) > 1.5
            if ln.label is None or numeric != ln.label.isdigit() or not near:
                continue
            if numeric:
                if not _numeric_next(ln.label, prev):
                    continue
                prev = int(ln.label)
            starts[i] = True
    else:
        indented = sum(1 for ln, e in zip(lines, at_edge, strict=True) if not e)
        hanging = indented >= max(2, len([ln for ln in lines if ln.x0 is not None]) // 10)
        # the other way round (a first-line indent, continuations at the edge) when the
        # indented lines, not the edge lines, are the ones that open with names
        first_indent = hanging and _opens_with_names([ln for ln, e in zip(lines, at_edge, strict=True) if not e]) > \
            _opens_with_names([ln for ln, e in zip(lines, at_edge, strict=True) if e and ln.x0 is not None]) + 0.3
        # entries set apart by space, not indent (mbe.bst): the blocks stage cut the list on
        # the gaps, a few lines a block; inside one, a line with no year is the entry's tail
        # ("... sequence alignments." over "Bioinformatics 28:495-502."), not an entry
        sizes = sorted(Counter(ln.block for ln in lines).values())
        spaced = len(sizes) >= 3 and sizes[len(sizes) // 2] <= 4
        # Beamer's \newblock sets an entry's author-year head ("Baró, A., ... (2020).") and its
        # title in blocks of their own: where several blocks end in such a head, the block after
        # one continues its entry, as does a block after a name list cut at a comma or "and"
        heads = sum(1 for a, b in pairwise(lines) if a.block != b.block and _AY_HEAD_END.search(a.text))
        # where the blocks' first lines open with names (one block an entry: a word processor's
        # paragraph per entry), a line inside a block starts an entry only if it opens so too:
        # "... for medical education." over "Advances in Physiology Education 2007;31(2):202-210."
        # is the entry's journal line
        named = spaced and _opens_with_names([ln for ln in lines if ln.first and ln.x0 is not None]) >= 0.8
        for i, ln in enumerate(lines):
            if ln.x0 is None:
                starts[i] = ln.first
            elif hanging:
                starts[i] = at_edge[i] != first_indent
            elif ln.first and i > 0 and spaced and (
                    _DETACHED_ACCENT.match(ln.text)
                    or heads >= 3 and _AY_HEAD_END.search(_text_above(lines, i))
                    or _NAME_LIST_CUT.search(_text_above(lines, i))):
                starts[i] = False
            else:
                starts[i] = ln.first or (i > 0 and _text_start(lines[i - 1].text, ln.text)
                                         and (not spaced or bool(_ANY_YEAR.search(ln.text)))
                                         and (not named or _opens_with_names([ln]) > 0))
    return _grouped(lines, starts)


def _grouped(lines: list[_Ln], starts: list[bool]) -> list[list[_Ln]]:
    """The lines cut into entries, one at each start (the first line always starts one)."""
    groups: list[list[_Ln]] = []
    for k, (ln, s) in enumerate(zip(lines, starts, strict=True)):
        if s or not k:
            groups.append([ln])
        else:
            groups[-1].append(ln)
    return groups


def _text_above(lines: list[_Ln], i: int) -> str:
    """The line above line i, past detached accents ("ˇ" of "Hajič", set as a line of its own)."""
    j = i - 1
    while j > 0 and _DETACHED_ACCENT.match(lines[j].text):
        j -= 1
    return lines[j].text


def _opens_with_names(lines: list[_Ln]) -> float:
    """Share of lines that open the way an entry does: a surname and initials, or a list of names."""
    if not lines:
        return 0.0
    hits = sum(1 for ln in lines if re.match(r"[A-Z][\w'’\-]+,\s(?:[A-Z]\.|[A-Z][a-z]+)", ln.text)
               or _author_shape(ln.text) or _split_authors(ln.text[: _sentence_end(ln.text, 0)]))
    return hits / len(lines)


def _edges(lines: list[_Ln]) -> dict[tuple[int, int], float]:
    """The left edge of each page column. A column holding only continuation lines (the end of
    an entry at the top of a column) has its edge from the same side of the other pages."""
    xs: dict[tuple[int, int], list[float]] = {}
    for ln in lines:
        if ln.x0 is not None:
            xs.setdefault((ln.page, ln.side), []).append(ln.x0)
    mins = {k: min(v) for k, v in xs.items()}
    out: dict[tuple[int, int], float] = {}
    for (page, side), m in mins.items():
        others = [v for (p, s), v in mins.items() if s == side and p != page and len(xs[(p, s)]) >= 3]
        lower = [v for v in others if m - 20 <= v < m - 2.5]
        out[(page, side)] = min(lower) if lower and len(xs[(page, side)]) < 3 else m
    for ln in lines:
        out.setdefault((ln.page, ln.side), ln.x0 or 0.0)
    return out


def _vocabulary(doc: Document) -> Counter:
    words: Counter[str] = Counter()
    for b in doc.blocks:
        for w in re.findall(r"[A-Za-z][\w\-]{2,}", b.text):
            words[w.lower()] += 1
    return words


# ---------------------------------------------------------------------------- stage


def _bibliography_blocks(doc: Document) -> list[int]:
    return [
        i
        for i, b in enumerate(doc.blocks)
        if b.attrs.get("bibliography") and b.kind not in (BlockKind.HEADING, BlockKind.FURNITURE)
    ]


_INNER_LABEL = re.compile(rf"(?:(?<=\s)|^)\[(?:{_NUM}|{_AY_KEY})\]\s")


def _label_window(text: str, at: int) -> str:
    """``text[at:]`` as far as a label at ``at`` can reach (a label is under 100 characters):
    slicing the whole rest at every label of a reflowed list was quadratic in its length. A
    window ending in white space is widened to the end, so a label's trailing ``\\s+(?=\\S)``
    reads exactly as on the whole text."""
    w = text[at : at + 512]
    return text[at:] if w[-1:].isspace() else w


def _may_hold_labels(block: Block) -> bool:
    """Whether _split_labelled can split ``block``: two labels need two brackets (most entries
    are one block already)."""
    return block.text.count("[", 1) > 0


def _may_hold_entries(block: Block) -> bool:
    """Whether _split_merged can split ``block``: only text without geometry (PDF lines are
    grouped by their indent instead), and long enough for two entries (the length first: a list
    of short lines asks no pattern)."""
    return block.bbox is None and len(block.text) >= 120


def _split_labelled(block: Block) -> list[Block]:
    """A block holding several numbered entries ("[1] ... [2] ...", or author-year labelled
    "[Abeles, 1982] ... [Bohte, 2004] ...", reflowed into one paragraph) is split at the
    labels, so each printed entry stays one reference."""
    if not _may_hold_labels(block):
        return [block]
    if not (_INNER_LABEL.match(block.text) and _start_label(_label_window(block.text, 0))):
        return [block]  # (no label at its start: what the test of every label below gives)
    starts = [m.start() for m in _INNER_LABEL.finditer(block.text) if _start_label(_label_window(block.text, m.start()))]
    if len(starts) < 2 or starts[0] != 0:
        return [block]
    # one kind of label per list: a numbered entry quoting "[Smith, 2020] " is not cut there
    numeric = block.text[starts[0] + 1].isdigit()
    starts = [a for a in starts if block.text[a + 1].isdigit() == numeric]
    parts = []
    for k, a in enumerate(starts):
        b = starts[k + 1] if k + 1 < len(starts) else len(block.text)
        text = block.text[a:b].strip()
        parts.append(Block(kind=block.kind, text=text, page=block.page, page_end=block.page_end,
                           id=block.id if k == 0 else f"{block.id}-{k + 1}", section_id=block.section_id,
                           bbox=None, attrs=dict(block.attrs)))
    return parts


# a sentence end (not an initial: "Martin F. Arlitt") before a capital
_CUT = re.compile(r"(?<=[.?!])(?<![\s.][A-Z]\.)(?<!\bal\.)\s+(?=[A-Z\u00C0-\u024F])")


def _count_sentences(text: str, most: int | None = None) -> int:
    """The sentences of ``text``, counted up to ``most`` (a caller that only asks "one?" or "three
    or more?" need not read a paragraph of 500 short sentences to the end)."""
    n, i = 0, 0
    while i < len(text) and (most is None or n < most):
        j = _sentence_end(text, i)
        if not text[i:j].strip():
            break
        n, i = n + 1, j
    return n


def split_entries_text(text: str) -> list[str]:
    """Split text holding several author-year entries run together (a Markdown or OCR
    bibliography reflowed into one paragraph) at the entry starts: a cut after a sentence end
    where the next sentence reads as a list of names; a piece with no year of its own (a note
    like "MIT License.") goes back to the entry before it."""
    masked = text
    for um in _URL_START.finditer(text):
        _, span = _find_url(text[um.start() :])
        if span:
            a, b = um.start() + span[0], um.start() + span[1]
            masked = masked[:a] + "\x00" * (b - a) + masked[b:]
    cuts = [0]
    starts_with_names = {0: bool(_split_authors(dehyphenate(text[: _sentence_end(masked, 0)])))}
    for m in _CUT.finditer(masked):
        end = _sentence_end(masked, m.end())
        sentence = text[m.end() : end]
        if not _VENUE_START.match(sentence) and _split_authors(dehyphenate(sentence)):
            cuts.append(m.end())
            starts_with_names[m.end()] = True
    spans = list(zip(cuts, [*cuts[1:], len(text)], strict=True))
    out: list[str] = []
    carry = ""
    for k, (a, b) in enumerate(spans):
        piece = carry + text[a:b].strip()
        carry = ""
        # An entry has a year, or at least names followed by more sentences ("Kwa et al.
        # Measuring ... In NeurIPS."); anything else ("MIT License.") is a note of the entry before.
        sentences = _count_sentences(masked[a:b].strip(), 3)  # (the tests below ask 1 and >= 3)
        entry = bool(_ANY_YEAR.search(masked[a:b])) or (starts_with_names.get(a) and sentences >= 3)
        if not entry and sentences == 1 and k + 1 < len(spans):
            # "Chip Huyen." before "Agents. https://..., 2025.": a one-word "name" after it means
            # this piece is the next entry's author block, not a note of the one before.
            na = spans[k + 1][0]
            if len(text[na : _sentence_end(masked, na)].split()) == 1:
                carry = piece + " "
                continue
        if out and not entry:
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    if carry:
        out.append(carry.strip())
    return [p for p in out if p]


def _split_merged(block: Block) -> list[Block]:
    if not _may_hold_entries(block) or _LABEL.match(block.text) or _ay_label(block.text):
        return [block]
    parts = split_entries_text(block.text)
    if len(parts) < 2:
        return [block]
    return [Block(kind=block.kind, text=t, page=block.page, page_end=block.page_end,
                  id=block.id if k == 0 else f"{block.id}-{k + 1}", section_id=block.section_id,
                  attrs=dict(block.attrs)) for k, t in enumerate(parts)]


# What every printed entry has (checked on the 17 papers, the sample, the 10 OCR-engine texts and
# the 1,996 held-out reference strings of benchmarks/references.py: none lacks all three): a
# word of two letters or more (a name, a title), a year, or an identifier (a DOI is digits only)
_REF_WORD = re.compile(r"[^\W\d_]{2,}")


def reads_as_reference(text: str) -> bool:
    """An entry's text, its printed label aside, holds a word of two letters or more, a year,
    or a DOI / arXiv id / URL. A line of the list that does not ("x", "[1] x", ".", "1. -") is
    no work to cite: it stays text of the section, not a references.json entry (100,000 such
    lines made 51,700 references, 30 MB of output from 0.39 MB)."""
    t = text.lstrip()
    m = _LABEL.match(t) or _ALPHA_LABEL.match(t) or _ay_label(t)
    if m:
        t = t[m.end() :]
    # (a URL or an arXiv id has its word of letters: "https", "arxiv"; a DOI may be all digits)
    # A year starts "19" or "20" and a DOI "10.": where the text holds none, the pattern is not
    # run (a substring test in C, not a regex scan of an entry that holds no word: a list of
    # one-character lines is ~4 MB of such entries)
    return bool(_REF_WORD.search(t) or ("19" in t or "20" in t) and _ANY_YEAR.search(t)
                or "10." in t and _DOI.search(t))


def _anchored(text: str) -> bool:
    """A year, a DOI or a URL: what a slide's list entry holds (a deck's frame titled "References"
    may hold anything: placeholder prose, a closing "Any Questions?"; round32_deck_rule.md N1)."""
    return bool(_ANY_YEAR.search(text) or _DOI.search(text) or _URL_START.search(text) or "www." in text)


def _entries_and_text(entries: list[Block], deck: bool = False) -> list[Block]:
    """``entries`` with each one that does not ``reads_as_reference`` made a paragraph of the
    bibliography (its text whole: document.md and conservation keep every character; it keeps
    ``attrs["bibliography"]``, so no citation is read from it); a run of them is one paragraph,
    as the lines of a paragraph are. In a slide deck (``deck``) an entry must also be
    :func:`_anchored`."""
    out: list[Block] = []
    run: list[Block] = []  # the entries of the paragraph being gathered

    def close() -> None:
        if run:
            first = run[0]
            last = max(e.last_page for e in run)
            out.append(Block(kind=BlockKind.PARAGRAPH, text=" ".join(e.text for e in run), page=first.page,
                             page_end=last if last != first.page else None, id=first.id,
                             section_id=first.section_id, bbox=first.bbox if len(run) == 1 else None,
                             attrs={"bibliography": True, "bib_part": first.attrs.get("bib_part", 0)}))
            run.clear()

    for e in entries:
        if reads_as_reference(e.text) and (not deck or _anchored(e.text)):
            close()
            out.append(e)
        else:
            run.append(e)
    close()
    return out


def run(doc: Document, options: CompileOptions) -> None:
    """Group the bibliography into REFERENCE blocks and fill ``doc.references``."""
    idx = _bibliography_blocks(doc)
    if not idx:
        # Sources that already typed the entries (e.g. Markdown) go straight to parsing.
        entries = []
        for b in of_kind(doc.blocks, BlockKind.REFERENCE):
            if reads_as_reference(b.text):
                entries.append(b)
            else:
                b.kind = BlockKind.PARAGRAPH
                b.attrs["bibliography"] = True
        doc.references = _references(entries)
        return
    widths = {p.number: p.width for p in doc.stream.pages if p.width}
    pages = {p.number: p for p in doc.stream.pages}
    for i in idx:
        b = doc.blocks[i]
        if "bib_region" in b.attrs and b.page in pages and b.bbox:
            rows = _region_lines(b, pages[b.page])
            if rows:
                b.attrs["bib_lines"] = rows
    if doc.attrs.get("slide_deck"):
        _mark_icons([doc.blocks[i] for i in idx], pages)
    parts: dict[int, list[int]] = {}
    for i in idx:
        parts.setdefault(doc.blocks[i].attrs.get("bib_part", 0), []).append(i)
    vocab = _vocabulary(doc) if any("bib_lines" in doc.blocks[i].attrs for i in idx) else None
    replaced: dict[int, list[Block]] = {}  # position of a part's first block -> its entries
    released: set[int] = set()
    for ids in parts.values():
        blocks = [doc.blocks[i] for i in ids]
        part = blocks[0].attrs.get("bib_part", 0)  # (read first: a block may become its own entry)
        if any("bib_lines" in b.attrs for b in blocks):
            entries, keep_out = _entries_from_lines(blocks, widths, vocab)
            released |= {ids[k] for k in keep_out}
        else:
            entries = _entries_from_blocks(blocks, widths)
        for e in entries:
            e.attrs["bib_part"] = part
        replaced[ids[0]] = _entries_and_text(entries, bool(doc.attrs.get("slide_deck")))
    for i in released:
        b = doc.blocks[i]
        for key in ("bibliography", "bib_part", "bib_lines", "bib_debris", "bib_region", "bib_icons"):
            b.attrs.pop(key, None)
    consumed = set(idx) - released
    out: list[Block] = []
    new_blocks: list[Block] = []
    for i, b in enumerate(doc.blocks):
        if i in replaced:
            out.extend(replaced[i])
            new_blocks.extend(e for e in replaced[i] if e.kind is BlockKind.REFERENCE)
        if i in consumed:
            continue
        out.append(b)
    doc.blocks = out
    doc.references = _references(new_blocks)


def _entry_block(first: Block, text: str, last_page: int, n_lines: int, block_id: str) -> Block:
    return Block(
        kind=BlockKind.REFERENCE,
        text=text,
        page=first.page,
        page_end=last_page if last_page != first.page else None,
        id=block_id,
        section_id=first.section_id,
        bbox=first.bbox,
        attrs={"bibliography": True, "lines": n_lines},
    )


def _entries_from_blocks(blocks: list[Block], widths: dict[int, float]) -> list[Block]:
    """Text without geometry (raw OCR text, Markdown): blocks are lines or whole entries."""
    bib = []
    for b in blocks:
        if not (_may_hold_labels(b) or _may_hold_entries(b)):
            bib.append(b)  # (both splits would give it back whole: a line of a list)
        else:
            bib.extend(part for lab in _split_labelled(b) for part in _split_merged(lab))
    return [_block_as_entry(g[0]) if len(g) == 1 else
            _entry_block(g[0], join_lines([b.text for b in g]), max(b.last_page for b in g), len(g), g[0].id)
            for g in group_entries(bib, widths)]


def _block_as_entry(b: Block) -> Block:
    """``_entry_block(b, join_lines([b.text]), b.last_page, 1, b.id)``, made of ``b`` itself where
    it has no level and no number (then the same fields): a list of one entry a line had a second
    Block built for each line, 66,666 in 4 MB, and the line's own was dropped."""
    if b.level is not None or b.number is not None:
        return _entry_block(b, join_lines([b.text]), b.last_page, 1, b.id)
    b.kind, b.text = BlockKind.REFERENCE, join_lines([b.text])
    if b.page_end == b.page:
        b.page_end = None
    b.attrs = {"bibliography": True, "lines": 1}
    return b


def _entries_from_lines(blocks: list[Block], widths: dict[int, float], vocab) -> tuple[list[Block], set[int]]:
    """PDF text: entries from the visual lines; returns (entries, indexes into ``blocks`` of
    trailing blocks that are not part of the list, such as a glossary after it)."""
    from ctxmill.compile.normalize import clean_inline
    from ctxmill.compile.normalize import join_lines as reflow

    lines = _lines(blocks, widths)
    per_block = Counter(ln.block for ln in lines)
    groups = segment(lines)
    keep_out: set[int] = set()
    # (a lone "label" opening the list is its first entry's year, "(2023). String quartet corpus.",
    # no numbering: that list is no labelled list and its last entry keeps its \newblock tail)
    labels = [ln for ln in lines if ln.label]
    if groups and labels and not (len(labels) == 1 and labels[0] is lines[0]) and len(groups) >= 3:
        # After the last labelled entry of a labelled list: whole blocks of other text after
        # an entry that reads complete are not part of it (a list of abbreviations, a note).
        last = groups[-1]
        label_block = last[0].block
        tail = [ln for ln in last if ln.block > label_block]
        if tail:
            head_text = " ".join(ln.text for ln in last if ln.block == label_block).rstrip()
            tail_blocks = sorted({ln.block for ln in tail})
            if re.search(r"[.)\d]$", head_text) and (
                len(tail_blocks) >= 2 or not _ANY_YEAR.search(" ".join(ln.text for ln in tail))
            ):
                keep_out = set(tail_blocks)
                groups[-1] = [ln for ln in last if ln.block == label_block]
    out: list[Block] = []
    used: set[str] = set()
    for g in groups:
        first = blocks[g[0].block]
        if len({ln.block for ln in g}) == 1 and len(g) == per_block[g[0].block] and not first.attrs.get("bib_debris"):
            text = first.text  # the whole block is one entry: keep its re-flowed text
            text = _drop_running_head(text, first)
        else:
            text = clean_inline(reflow([ln.text for ln in g], vocab))
        bid = first.id
        k = 1
        while bid in used:
            k += 1
            bid = f"{first.id}-{k}"
        used.add(bid)
        out.append(_entry_block(first, text, max(blocks[ln.block].last_page for ln in g), len(g), bid))
        if g[0].label and entry_label(text) is None and (m := _BARE_LABEL.match(text)) and m.group(1) == g[0].label:
            out[-1].attrs["bare_label"] = m.end()  # "1 J. Richard Büchi. ...": the label is no name
    return out, keep_out


def _drop_running_head(text: str, block: Block) -> str:
    lines = block.attrs.get("bib_lines") or []
    if lines and not text.startswith(lines[0][0][:12]):
        # the block text began with a running head that the visual lines no longer have
        pos = text.find(lines[0][0][:24])
        if pos > 0:
            return text[pos:]
    return text


def _references(blocks: list[Block]) -> list[Reference]:
    """One Reference per entry block, in order; the first ``MAX_PARSED_REFERENCES`` parsed."""
    parsed = blocks[:MAX_PARSED_REFERENCES]
    if not parsed:
        return []
    # Fields by the trained labeller (compile/refparse, issue 22); parse_entry above stays
    # its fallback where the labeller's parse is doubtful (and benchmarks/references.py
    # scores both). Imported here: a compile without a bibliography does not load the labeller
    # (~0.05 CPU-s of every start: its lexicon, features and CRF).
    from ctxmill.compile.refparse import REFERENCE_FIELDS

    texts, bares = [], []
    for block in parsed:
        # an author-year label is not part of the reference ("[Abeles, 1982] Abeles, M. ..."):
        # the labeller would read it as names and take no label from it (see _AY_LABEL)
        ay = _ay_label(block.text)
        bare = block.attrs.pop("bare_label", 0)
        texts.append(block.text[ay.end() :] if ay else block.text[bare:])
        bares.append(bare)
    fields = _fields_of(texts)
    _repeated_names(texts, fields)
    _type_coded(texts, fields)
    out = []
    for n, (block, bare, f) in enumerate(zip(parsed, bares, fields, strict=True), start=1):
        block.number = f["label"] or (block.text[:bare].strip() if bare else None) or block.number
        ref = Reference(id=f"ref-{n}", raw=block.text, **{k: f[k] for k in REFERENCE_FIELDS}, page=block.page,
                        block_id=block.id)
        block.attrs["reference_id"] = ref.id
        out.append(ref)
    for n, block in enumerate(blocks[MAX_PARSED_REFERENCES:], start=MAX_PARSED_REFERENCES + 1):
        # kept as its text, not parsed (limits.py; QA references_not_parsed)
        block.number = entry_label(block.text) or block.number
        block.attrs["reference_id"] = f"ref-{n}"
        out.append(Reference(id=f"ref-{n}", raw=block.text, page=block.page, block_id=block.id))
    return out


# a repeated author list printed as a rule: "—. 2018, AJ" (AAS, MNRAS), "[11] ——, “Title”" (IEEEtran),
# "———. 2018b. Title." (Chicago), "______, 1990," (typed or OCR'd lists)
_NAMES_DASH = re.compile(r"\s*(?:[—―]|[—―–‒\-_]{2,})\s*[.,]")


def _repeated_names(texts: list[str], fields: list[dict]) -> None:
    """An entry that prints a dash for its names takes the names of the entry before it (which may
    have taken them so: a run of dashes), where the labeller found no names of its own."""
    for i in range(1, len(texts)):
        t = texts[i]
        m = _LABEL.match(t) or _ALPHA_LABEL.match(t)
        f, before = fields[i], fields[i - 1]
        if f["people"] or not before["authors"] or not _NAMES_DASH.match(t, m.end() if m else 0):
            continue
        f["authors"] = list(before["authors"])
        f["people"] = [dict(p) for p in before["people"]]


# GB/T 7714 (the Chinese standard, ctex and gbt7714 styles): "NAMES. TITLE[J]. VENUE, 2007(12):82-92." The
# document-type code ends the title: J journal, M book, C proceedings, D thesis, R report, N newspaper, S standard,
# P patent, G collection, A archive, Z other, DB/CP/DS data, EB bulletin; "/OL" on line ("[EB/OL]", "[J/OL]")
_TYPE_CODED = re.compile(
    r"^(?P<names>[^\[\].。．]{1,300}?(?:\bet al|等)?)[.。．]\s*(?P<title>[^\[\]]{2,400}?)\s*"
    r"\[(?P<code>(?:[JMCDRNSPGAZK]|DB|CP|DS|EB|CM)(?:/(?:OL|CD|MT|DK))?)\]\s*(?:[.。．,，]|//)?\s*(?P<rest>.*)$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_NAME_SEP = re.compile(r"\s*[,，、;；]\s*")


def _type_coded(texts: list[str], fields: list[dict]) -> None:
    """Entries printed in GB/T 7714's shape: the title is what stands between the names and the
    document-type code, never the code ("... Fluctuations[J]") nor the names (the labeller, taught
    on Latin lists, reads a CJK title as names and the names as the title); the venue of a journal
    article is what follows the code up to its first comma; names the labeller did not find are
    the names before the first full stop, split at commas or 、."""
    for text, f in zip(texts, fields, strict=True):
        if "[" not in text:
            continue
        m = _LABEL.match(text)
        g = _TYPE_CODED.match(" ".join(text[m.end() if m else 0 :].split()))
        if not g:
            continue
        title = g.group("title").strip()
        names = g.group("names").strip()
        if not title or len(names) > len(text) // 2 + 1:
            continue
        f["title"] = title
        rest = g.group("rest")
        venue = f.get("venue") or ""
        if g.group("code").startswith("J") and rest:
            # "经济研究, 2007(12):82-92." / "FRB Richmond Economic Quarterly, 2011, 97(3): 209-254."
            head = _NAME_SEP.split(rest, maxsplit=1)[0].strip().rstrip(".")
            if head and not head[:1].isdigit():
                venue = head
        elif f"[{g.group('code')}]" in venue or title in venue:
            venue = ""  # (a book's place and publisher, a page's dates: no venue)
        f["venue"] = venue or None
        if not f.get("authors") and _CJK.search(names):
            f["authors"] = [n for n in _NAME_SEP.split(names) if n and n not in ("等", "et al", "et al.")]
        if not f.get("year") and (y := _ANY_YEAR.search(rest)):
            f["year"] = y.group(1)


def _fields_of(texts: list[str]) -> list[dict]:
    """``reference_fields`` of each text, in order; an entry printed twice (or a hostile list
    of one entry repeated) is labelled once, and each repeat gets its own copy of the fields
    (nothing shared between two references)."""
    uniq = list(dict.fromkeys(texts))
    if len(uniq) == len(texts):
        return _label_all(texts)
    import copy

    got = dict(zip(uniq, _label_all(uniq), strict=True))
    seen: set[str] = set()
    out = []
    for t in texts:
        out.append(copy.deepcopy(got[t]) if t in seen else got[t])
        seen.add(t)
    return out


def _label_all(texts: list[str]) -> list[dict]:
    from ctxmill.compile.refparse import reference_fields

    return [reference_fields(t, parse_entry) for t in texts]


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    return []  # references.json is written by render/graph.py with the citation graph
