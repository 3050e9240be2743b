"""Reading a heading's number, and telling a table of contents from the sections it lists.

Numbering schemes seen in the wild, all read by :func:`parse_number`:

- arabic, dotted to any depth, with or without a final dot: "3", "3.2", "2.2.1.", "3.2.2.1"
- roman capitals with a dot (IEEE, some ACM classes): "I. INTRODUCTION", "IV. METHODOLOGY"
- capital letters: subsections under roman sections ("A. Threat Model"), or appendices
  ("A", "A.1", "B.2.3") after the numbered sections
- keywords: "Chapter 3 Title", "Part II Title", "Appendix A: Title", "APPENDIX B"

A table of contents, a list of figures or a list of tables repeats headings with page numbers
at the end of each line; :func:`toc_blocks` finds such runs so that they are never taken for
the headings themselves.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right

from ctxmill.model import Block, Kind

_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}

# The keyword's words in other languages and scripts, each read as its English kind ("ГЛАВА 1.
# ТЕОРЕТИЧЕСКИЕ СВЕДЕНИЯ", Word's chapter style in capitals; "Приложение 2", "Anhang A")
KEYWORDS = {
    "chapter": "chapter", "part": "part", "appendix": "appendix", "section": "section",
    "глава": "chapter", "раздел": "chapter", "розділ": "chapter", "поглавље": "chapter",
    "κεφάλαιο": "chapter", "kapitel": "chapter", "chapitre": "chapter", "capítulo": "chapter",
    "capitolo": "chapter", "hoofdstuk": "chapter", "rozdział": "chapter", "kapitola": "chapter",
    "poglavlje": "chapter", "fejezet": "chapter", "bölüm": "chapter",
    "часть": "part", "частина": "part", "μέρος": "part",
    "приложение": "appendix", "додаток": "appendix", "прилог": "appendix", "παράρτημα": "appendix",
    "anhang": "appendix", "annexe": "appendix", "apêndice": "appendix", "apéndice": "appendix",
    "appendice": "appendix", "bijlage": "appendix", "załącznik": "appendix", "příloha": "appendix",
    "melléklet": "appendix", "prilog": "appendix",
}
NUMBER_RE = re.compile(
    r"^(?:(?P<kw>(?i:" + "|".join(sorted(KEYWORDS, key=len, reverse=True)) + r"))\s+)?"
    r"(?P<num>\d{1,2}(?:\.\d{1,2}){0,4}|[IVXL]{1,6}|[A-Z](?:\.\d{1,2}){0,4})"
    r"(?P<sep>[.:]?)(?:\s+|$)(?P<title>\S.{0,200})?$",
    re.S,
)
TOC_TITLES = {"contents", "table of contents", "list of figures", "list of tables", "list of algorithms",
              "list of listings", "inhaltsverzeichnis",
              "abbildungsverzeichnis", "tabellenverzeichnis"}
# The same titles in other languages and scripts (and the singular "Content"), compared by their
# letters alone, without case or accents (contents_title): taken for a contents title only over
# entries (the block after it reads as entries), as "Índice" or "Content" may name a section too.
# With a text layer such pages now reach here: sources/ocr.py no longer takes their dot leaders for
# garbage.
OTHER_TOC_TITLES = frozenset((
    "content", "contents page", "index of contents",
    "оглавление", "содержание", "зміст", "змест", "садржај", "sadrzaj", "садржина", "съдържание", "cuprins",
    "tartalomjegyzek", "tartalom", "sumario", "indice", "indice general", "table des matieres", "sommaire",
    "indice generale", "sommario", "inhoud", "inhoudsopgave", "innehall", "innehallsforteckning",
    "indholdsfortegnelse", "innholdsfortegnelse", "innhold", "sisallys", "sisallysluettelo", "sisukord",
    "spis tresci", "obsah", "kazalo", "turinys", "saturs", "efnisyfirlit", "icindekiler", "περιεχομενα",
    "πινακας περιεχομενων", "תוכן העניינים", "المحتويات", "فهرس المحتويات", "目录", "目次", "目錄", "차례", "목차",
    "mục lục", "muc luc", "daftar isi", "สารบัญ",
    # lists of figures and tables
    "список иллюстраций", "список рисунков", "список таблиц", "перелік рисунків", "перелік таблиць",
    "списак слика", "списак табела", "popis slika", "popis tablica", "spisak slika", "spisak tabela",
    "lista de figuras", "lista de tabelas", "lista de tablas", "lista de ilustracoes", "indice de figuras",
    "indice de tablas", "liste des figures", "liste des tableaux", "elenco delle figure", "elenco delle tabelle",
    "abrajegyzek", "tablazatjegyzek", "sekiller listesi", "tablolar listesi", "seznam obrazku", "seznam tabulek",
    "spis rysunkow", "spis tabel", "lijst van figuren", "lijst van tabellen", "figurforteckning",
    "tabellforteckning", "图目录", "表目录", "插图目录", "表格目录",
))
_BARE_DROP = re.compile(r"[^\w ]+|[\d_]+")


def _bare(text: str) -> str:
    """Letters and single blanks, case-folded, accents off ('Tartalomjegyzék:' -> 'tartalomjegyzek')."""
    t = unicodedata.normalize("NFKD", text.casefold())
    t = "".join(c for c in t if not unicodedata.combining(c))
    return " ".join(_BARE_DROP.sub(" ", t).split())


def contents_title(text: str) -> bool:
    """``text`` names a table of contents or a list of figures or tables, in any language known here."""
    if len(text) >= 40:
        return False
    bare = _bare(text)
    return bare in TOC_TITLES or bare in OTHER_TOC_TITLES


# an entry: a title, optional dot leaders, a page number (arabic or roman) at the end
_CITED_NUMBER = re.compile(r"\b(?:Fig|Figs|Eq|Eqs|Sec|Tab|No|Vol|pp|p|Ch|Thm|Def)\. ?\d+$")  # prose: "see Fig. 1"
_TOC_END = re.compile(r"(?:\s|\.)(?:\d{1,4}|[ivxlc]{1,6})$")
# The same two read in reverse, in the text of many lines joined, each line followed by a line
# break, then reversed: a line's end is then the character after a break, where re looks for the
# break's character first (forward, a pattern that ends at a break is tried at every blank and
# dot: 27 ns a character). The number and the blank or dot before it read backwards; "\b" reads
# the same both ways. Neither pattern reads past its line.
_TOC_END_REVERSED = re.compile(r"\n(?:\d{1,4}|[ivxlc]{1,6})(?:[^\S\n]|\.)")
_CITED_NUMBER_REVERSED = re.compile(r"\n\d+ ?\.(?:giF|sgiF|qE|sqE|ceS|baT|oN|loV|pp|p|hC|mhT|feD)\b")
_JOINED_LINES = 16  # lines of a block from which they are read joined


def roman_value(s: str) -> int | None:
    """Value of a roman numeral in capitals, None when it is not a well-formed one."""
    if not s or any(c not in _ROMAN for c in s):
        return None
    total = 0
    for i, c in enumerate(s):
        v = _ROMAN[c]
        total += -v if i + 1 < len(s) and _ROMAN[s[i + 1]] > v else v
    return total if _to_roman(total) == s else None


def _to_roman(n: int) -> str:
    out = ""
    for v, r in ((50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= v:
            out += r
            n -= v
    return out


class Number:
    """A parsed heading number."""

    __slots__ = ("text", "kind", "parts", "keyword", "title")

    def __init__(self, text: str, kind: str, parts: list[str], keyword: str, title: str):
        self.text = text  # as printed, without the final dot: "3.2", "IV", "A.1"
        self.kind = kind  # arabic | roman | letter
        self.parts = parts
        self.keyword = keyword  # chapter | part | appendix | section | ""
        self.title = title

    @property
    def depth(self) -> int:
        return len(self.parts)


def parse_number(text: str) -> Number | None:
    """The number at the start of a heading line, or None."""
    m = NUMBER_RE.match(text.strip())
    if not m:
        return None
    num, title = m.group("num"), (m.group("title") or "").strip()
    kw = KEYWORDS.get((m.group("kw") or "").lower(), "")
    parts = num.split(".")
    if num.isdigit() or parts[0].isdigit():
        kind = "arabic"
        if not all(p.isdigit() for p in parts):
            return None
    elif len(parts) == 1 and roman_value(num) is not None and (m.group("sep") == "." or kw in ("part", "chapter")):
        # "I." is roman or a letter; the caller's sequence decides ("I" after "H" is a letter)
        kind = "roman"
    elif len(parts[0]) == 1 and parts[0].isalpha():
        kind = "letter"
    else:
        return None
    if not title and not kw:
        return None  # a bare number is a page number or a list label
    return Number(num, kind, parts, kw, title)


_NOT_TITLE_CHAR_RE = re.compile(r"[^a-z ]+")
# A lower-cased text whose letters a-z, in order, are those of a contents title: what a title's
# text must be (the exact test above removes every other character), tried first because it
# fails at the first letter of most lines ("line 12 of the page" at its "n")
_TOC_TITLE_LETTERS = re.compile(
    "|".join("[^a-z]*" + "[^a-z]*".join(c for c in t if c != " ") + "[^a-z]*\\Z" for t in sorted(TOC_TITLES)))
_TOC_KINDS = frozenset((Kind.PARAGRAPH, Kind.HEADING, Kind.LIST_ITEM))
# the same letters test line by line, after a line break (structure._hits), with the lines that
# hold a character outside ASCII (whose lower case may hold a-z)
# (The blanks before a title's first letter are read once, and its first letter is a class of
# its two cases, outside the case-blind part: re's alternation skips a branch at a class its
# character is not in, where a case-blind letter or a repeat is tried branch by branch, a step
# per title at every line. Case-blind matches outside ASCII are on lines the first branch takes.)
# (with the other languages' titles spelt in ASCII: "Content", "Sumario", "Indice")
_MAYBE_TITLES = sorted(TOC_TITLES | {t for t in OTHER_TOC_TITLES if t.isascii()})
MAYBE_TOC_TITLE_RE = re.compile(
    r"\n(?=[\x00-\x09\x0b-\x7f]*+[^\x00-\x7f]|[^a-zA-Z\n]*(?:"
    + "|".join(f"[{first}{first.upper()}](?i:" + "|".join(
        "[^a-z\\n]*" + "[^a-z\\n]*".join(c for c in t[1:] if c != " ") + "[^a-z\\n]*"
        for t in _MAYBE_TITLES if t[0] == first) + ")" for first in sorted({t[0] for t in _MAYBE_TITLES}))
    + r")(?![^\n]))")


def toc_blocks(blocks: list[Block], body: float = 0.0, maybe: list[int] | None = None) -> set[int]:
    """Indexes of blocks that belong to a table of contents or a list of figures/tables: the
    block titled so and the entries after it, or any block whose lines are mostly entries
    ending in page numbers (a contents page without a title).

    ``maybe`` (ascending): the only blocks that can be a contents title (MAYBE_TOC_TITLE_RE's
    hits) or hold three lines: the others are read only after a title, among its entries (raw
    OCR text: 47,000 one-line paragraphs a MB and no contents)."""
    out: set[int] = set()
    inside = False
    kinds = _TOC_KINDS
    may_be_title = _TOC_TITLE_LETTERS.match
    n = len(blocks)
    if maybe is None:
        order = range(n)
    else:
        many = [i for i, b in enumerate(blocks) if len(b.attrs.get("_line_texts") or ()) > 2]
        order = sorted({*maybe, *many})
    # each block's share of entries worked out once (the pass after this one asks again), and
    # each distinct line read once: a list of 100,000 repeated short lines has a handful
    seen: dict[str, bool] = {}
    shares: dict[int, float] = {}

    def share(i: int, b: Block) -> float:
        v = shares.get(i)
        if v is None:
            v = shares[i] = _entry_share(b, seen)
        return v

    k = 0
    i = -1
    while True:
        if inside and i + 1 < n:  # (entries follow their title: every block read while inside)
            i += 1
            k = bisect_right(order, i, k)
        elif k < len(order):
            i = order[k]
            k += 1
        else:
            break
        b = blocks[i]
        if b.kind not in kinds:
            continue
        if len(b.text) < 40 and may_be_title(low := b.text.lower()) and \
                _NOT_TITLE_CHAR_RE.sub("", low).strip() in TOC_TITLES:
            out.add(i)
            inside = True
            continue
        if len(b.text) < 40 and i + 1 < n and _bare(b.text) in OTHER_TOC_TITLES and blocks[i + 1].kind in kinds \
                and share(i + 1, blocks[i + 1]) >= 0.5:
            out.add(i)  # another language's title, over entries
            inside = True
            continue
        lines = b.attrs.get("_line_texts") or [b.text]
        if not inside and len(lines) < 3:
            continue  # no use for its share of entries (the one-line blocks of text input)
        entries = share(i, b)
        size = b.attrs.get("_size_max") or b.attrs.get("_size") or 0.0
        if body and size > body * 1.3:
            entries = 0.0  # a chapter heading with its number set apart ("Introduction  1")
        if inside and entries >= 0.5:
            out.add(i)
            continue
        inside = False
        if entries >= 0.6 and len(lines) >= 3:
            out.add(i)
    # a one-line entry between two others ("7 Related Work 50") on a contents page
    by_page: dict[int, int] = {}
    for i in out:
        by_page[blocks[i].page] = by_page.get(blocks[i].page, 0) + 1
    for i, b in enumerate(blocks) if by_page else ():
        if i not in out and by_page.get(b.page, 0) >= 2 and b.kind is Kind.PARAGRAPH and share(i, b) >= 0.5:
            size = b.attrs.get("_size_max") or b.attrs.get("_size") or 0.0
            if body and size > body * 1.3:
                continue  # "Chapter 1" in display type above a chapter's own contents (minitoc)
            out.add(i)
    return out


def _entry_share(b: Block, seen: dict[str, bool] | None = None) -> float:
    """The share of ``b``'s lines that read as contents entries; ``seen`` the verdicts of lines
    read before (line -> _entry_line), filled in."""
    texts = b.attrs.get("_line_texts") or b.text.split("\n")
    if len(texts) == 1:  # (most blocks of text input: one line, no list to build)
        t = texts[0].strip()
        return float(bool(t) and _entry_line(t))
    # (strip() returns a stripped line itself: the lists compare by identity, in C)
    if len(texts) >= _JOINED_LINES and all(texts) and list(map(str.strip, texts)) == texts:
        lines = texts  # (each stripped, none empty)
        uniq = set(lines)
        if (seen is None or len(uniq) * 2 > len(lines)) and max(map(len, texts)) < 200:
            # Mostly distinct lines (a block joined from a run of tiny lines has 256: a file of
            # "# Heading N" lines, 1,117 such blocks a MB, read 285,000 lines one by one). Where
            # none is 200 characters long and none ends in a cited number, a line is an entry
            # exactly where _TOC_END matches at its end: one match at most a line, one search
            joined = "\n".join(texts) + "\n"
            if joined.count("\n") == len(texts):
                rev = joined[::-1]
                if "." not in joined or _CITED_NUMBER_REVERSED.search(rev) is None:
                    return len(_TOC_END_REVERSED.findall(rev)) / len(texts)
    else:
        lines = [t.strip() for t in texts if t.strip()]
        if not lines:
            return 0.0
        uniq = set(lines)
    if seen is None or len(uniq) * 2 > len(lines):  # (mostly distinct lines: each read once anyway)
        hits = sum(1 for t in lines if _entry_line(t))
    else:  # lines that repeat: each distinct one read once
        for t in uniq:
            if t not in seen:
                seen[t] = _entry_line(t)
        hits = sum(map(seen.__getitem__, lines))
    return hits / len(lines)


def _entry_line(t: str) -> bool:
    """A stripped, non-empty line reads as a contents entry (a page number at its end)."""
    # (_TOC_END matches at most 7 characters, at the end: it is tried on the last 8 only)
    return bool(len(t) < 200 and (t[-1].isdigit() or t[-1] in "ivxlc") and _TOC_END.search(t, max(0, len(t) - 8))
                and not _CITED_NUMBER.search(t))


def deepen_by_number(blocks: list[Block], matched: set[int]) -> None:
    """Outline headings whose printed number is deeper than their bookmark's level says take their
    number's depth: hyperref bookmarks sections set before a book's first chapter ("0.1 YAML
    additions", "0.1.1 bg-image") at the chapters' own level, where the numbering says one deeper.
    Only where most numbered matches agree on (level - depth): that offset is the document's, and
    only headings shallower than it says move (never up, never one the majority disagrees with)."""
    nums = []
    for i in matched:
        number = blocks[i].number
        if number and all(p.isdigit() for p in number.split(".")):
            nums.append((i, len(number.split("."))))
    offsets: dict[int, int] = {}
    for i, depth in nums:
        k = (blocks[i].level or 2) - depth
        offsets[k] = offsets.get(k, 0) + 1
    if not offsets:
        return
    k, n = max(offsets.items(), key=lambda kv: (kv[1], -kv[0]))
    if n < 3 or n * 3 < len(nums) * 2:
        return  # no offset most of them share: the outline and the numbers disagree too often to trust either
    for i, depth in nums:
        if (blocks[i].level or 2) - depth < k:
            blocks[i].level = max(2, min(6, depth + k))


def text_columns(blocks: list[Block], body: float) -> dict[int, tuple[float, float]]:
    """Per page, the left edge of its leftmost and the right edge of its rightmost paragraph of
    running text (the body's size, three lines or more): the span of its text column(s)."""
    out: dict[int, tuple[float, float]] = {}
    for b in blocks:
        a = b.attrs
        if b.kind is Kind.PARAGRAPH and b.bbox is not None and a.get("_nlines", 1) >= 3 \
                and abs((a.get("_size") or 0.0) - body) <= 0.5:
            lo, hi = out.get(b.page, (b.bbox[0], b.bbox[2]))
            out[b.page] = (min(lo, b.bbox[0]), max(hi, b.bbox[2]))
    return out


def in_margin(b: Block, columns: dict[int, tuple[float, float]]) -> bool:
    """The block lies wholly beside its page's text column, in a margin column (JOSS's page-1
    sidebar: 'Editor:', 'Reviewers:', 'Submitted:' in bold left of the text)."""
    span = columns.get(b.page)
    if span is None or b.bbox is None:
        return False
    return b.bbox[2] < span[0] - 2.0 or b.bbox[0] > span[1] + 2.0
