"""The title page read from its lines: title, author names (with their superscript marks).

Blocks lose what a title page says through its typography (font size, superscripts, where a line
sits), so this reads the first page's lines from the page stream instead. Cues, none of them tied
to one class: the title is the largest type on the page that is not furniture (running heads,
"DRAFT VERSION ...", arXiv stamps, venue lines, dates) nor an institution; authors are the lines
between the title and the abstract (or the first heading) whose pieces have the shape of personal
names, split at commas, "and"/"AND", "&", "·" and superscript marks. Names that a title page gives
a role ("Supervisor", "Reviewer") are not authors; an anonymous submission gives no authors.

Only pages with font geometry (a PDF text layer, OCR with boxes) are read here; for plain or
pasted text :mod:`ctxmill.compile.metadata` falls back to the blocks.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, replace

from ctxmill.accents import SPACING_ACCENTS, compose_accents
from ctxmill.compile import logos
from ctxmill.compile.headings import contents_title
from ctxmill.model import Page

# Running heads, stamps and venue lines seen above or below a title (general shapes, no one class).
FURNITURE_RE = re.compile(
    r"^\s*(?:draft version|typeset using|preprint[\s.,:]|published as|accepted (?:as|at|for|to)|under review|"
    r"to appear in|in proceedings|proceedings of|manuscript no|\(?will be inserted by the editor|"
    r"received[\s:]|submitted to|arxiv:|preprint submitted|copyright|©|\(c\)\s|permission to make|"
    r"compiled using|journal of|vol(?:ume)?\.?\s*\d|issn|doi:|https?://|www\.|\(?dated:)"
    r"|\barXiv:\s*\d{4}\.\d{4,5}|\b(?:workshop|conference|symposium) (?:at|on)\b.*\b(?:19|20)\d\d\b"
    r"|\bpreprint\.\s*under review\b|\bmanuscript\b.*\bno\.|^\s*[A-Z]{2,}[/-]\d+[\w/-]*\s*$"
    r"|\bcompiled using\b|\bstyle file\b|\btypeset (?:using|with)\b|\bpreprint\s+\d{1,2}\s+[a-z]+\s+\d{4}"
    # a journal's running head: "MNRAS 000, 1–9 (2025)", "J. Fluid Mech. 407, 27-56 (2000)"
    r"|^\s*[A-Z][\w.&\s]{1,40}?\s\d+\s*,\s*\d+\s*[–-]\s*\d+\s*\(\d{4}\)",
    re.I)
MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
DATE_RE = re.compile(
    rf"^\s*\(?(?:dated:\s*)?(?:{MONTHS}\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\s+{MONTHS}\s+\d{{4}}|{MONTHS}\s+\d{{4}}"
    rf"|\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}/\d{{2,4}})\)?\.?\s*$", re.I)
GENRE_RE = re.compile(r"^\s*(?:(?:master|bachelor|diploma|doctoral|ph\.?\s?d\.?)[’']?s?\s*thesis|thesis|dissertation|"
                      r"technical report|research report|white paper)\s*$", re.I)
INSTITUTION_START_RE = re.compile(r"^\s*(?:the\s+)?(?:universit|institut|department|dept\.|school of|faculty|college|"
                                  r"laborator|academy|centre|center for)", re.I)
# an institution's word anywhere in a line ("... Graduate School of ...", "... Cancer Center")
_INSTITUTION_WORD_RE = re.compile(r"\b(?:Universit|Institut|School\b|College\b|Cent(?:er|re)\b|Department\b|"
                                  r"Laborator|Hospital\b|Academy\b|Faculty\b)")
# An abstract's label in the languages papers are written in: German's, French's, Portuguese's,
# Spanish's, Chinese's ("摘 要", its two characters spaced apart as a centred head prints them),
# Japanese's ("概要：", "要旨"), Korean's ("초록", "요약"), the Cyrillic languages' ("Аннотация", "Реферат" on
# a Russian thesis, "Анотація", "Резюме"), Greek's, and the Polish, Czech, Dutch, Swedish, Italian and
# Turkish ones
ABSTRACT_WORDS = (r"(?:abstract|a b s t r a c t|summary|zusammenfassung|résumé|resumo|resumen|摘\s*要|概\s*要|要\s*旨|"
                  r"초\s*록|요\s*약|аннотация|анотація|реферат|резюме|περίληψη|streszczenie|abstrakt|samenvatting|"
                  r"sammanfattning|sommario|riassunto|özet)")
ABSTRACT_RE = re.compile(rf"^\s*(?:\d{{3}}\s*)?{ABSTRACT_WORDS}\b", re.I)
# "Abstract" as a label (alone, or followed by punctuation or the text run in), not "Abstract Hoare logic"
ABSTRACT_LINE_RE = re.compile(rf"^\s*(?:\d{{3}}\s*)?{ABSTRACT_WORDS}(?:\s*$|\s*[.:：—–-]|(?=[A-Z][a-z]))", re.I)
# (a roman number without its stop only before a word in capitals: "IV RESULTS", not the byline
# line "V Kroha, J Mrazek, ..." of names written as bare initials)
# (a number before a CJK head too: "1 模板介绍", "1.1 全局选项")
HEADING_RE = re.compile(r"^\s*(?:\d+\.?\s+[A-Z]|\d{1,2}(?:\.\d{1,2})*\.?\s+[\u3400-\u9fff]|"
                        r"[IVX]+(?:\.\s+[A-Z]|\s+[A-Z]{2,}\b)|keywords\b|index terms\b|contents\b|table of contents\b)")
ROLE_RE = re.compile(r"\b(?:co[.\-\s]*)?(?:supervisors?|advisors?|adviser|reviewers?|examiners?|referees?|mentors?|"
                     r"committee|chair(?:man)?|tutor(?:es|a)?|betreuer(?:in)?|(?:erst|zweit)?gutachter|"
                     r"(?:cor)?relator[ei]|(?:co)?orientador(?:a|es|as)?|promotor|encadrants?|editors?|handling editor)\b"
                     r"|\b(?:edited|reviewed|communicated|refereed) by\b", re.I)
# a role label naming several people ("Relatori", Italian for the supervisors, above two names): every
# name stacked under it in its column is the role's
PLURAL_ROLE_RE = re.compile(r"\b(?:supervisors|advisors|advisers|reviewers|examiners|referees|mentors|committee|"
                            r"tutores|(?:cor)?relatori|(?:co)?orientadores|betreuer|encadrants)\b", re.I)
# A society's grade after a name ("Emad Shihab, Member, IEEE, and ..."), bare or in parentheses
# (IEEE Access: "NAME SURNAME¹, (Senior Member, IEEE), ..."): not a name of its own.
GRADE_RE = re.compile(r",?\s*(?:\(\s*)?\b(?:(?:Student|Graduate Student|Senior|Life|Associate)\s+)?(?:Member|Fellow)"
                      r"\s*,\s*(?:IEEE|ACM|OSA|SPIE|SIAM|AAAI|IET|APS)\b(?:\s*\))?")
AUTHOR_LABEL_RE = re.compile(r"^\s*(?:candidate|author|authors|by|submitted by|presented by|student)\s*:?\s*$", re.I)

# Words that make a capitalised phrase an organisation or a place, not a person.
ORG_WORDS = frozenset("""
university universität universidade universidad università universite université institute institut instituto
department dept school college faculty laboratory laboratories lab labs center centre research group foundation
dipartimento departamento département departement departament facoltà facultad faculdade fakultät istituto
politecnico scuola escuela hochschule
hospital academy corporation corp company inc ltd llc gmbh technology technologies sciences science engineering
computer computing computational information systems system national international advanced applied mathematics
physics chemistry biology astronomy astrophysics medicine studies division program programme observatory
anonymous submission abstract introduction the of for and in on at with to a an paper workshop
conference proceedings journal preprint draft version thesis master bachelor supervisor reviewer candidate
street avenue road drive box usa uk germany france china japan italy spain canada switzerland netherlands australia
india korea email e-mail correspondence corresponding contact equal contribution team
""".split())
# Words that head a part of a document ("Author Note" under an APA byline): a line holding one is
# no name. (Kept apart from ORG_WORDS, which metadata._trim_org also reads on text input.)
PART_WORDS = frozenset("note notes acknowledgments acknowledgements acknowledgment acknowledgement preface foreword "
                       "contents keywords summary zusammenfassung einleitung vorwort inhaltsverzeichnis".split())
PARTICLES = frozenset("van von de der den da dos das di du del della la le bin ibn al st st. y ten ter zu".split())
# a capital of the Latin, Greek or Cyrillic alphabets (an initial: "J.", "É.", "Н.")
_CAP = "A-ZÀ-ÖØ-ÞΑ-ΩЀ-Я"
_INITIAL_RE = re.compile(rf"[{_CAP}]\.?(?:-[{_CAP}]\.?)?")
HONORIFIC_RE = re.compile(r"^(?:prof\.?|dr\.?(?:-ing\.?)?|mr\.?|ms\.?|mrs\.?|sir)\s+", re.I)
MARK_CHARS = "*∗†‡§¶#⋆★✉♯♮∥‖"
_DATE_WORDS = frozenset("january february march april may june july august september october november december "
                        "jan feb mar apr jun jul aug sep sept oct nov dec month year date day "
                        # a date's placeholder in a template ("DD MM YYYY", "MM/YYYY")
                        "dd mm yy yyyy".split())
# a CJK name as a byline spaces it: a family name of one to three ideographs, then the given name
# (ideographs, or kana: "さくら"); two characters alone ("摘 要", a label spaced apart) are no name
_CJK_NAME_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff々]{1,3} [\u3400-\u4dbf\u4e00-\u9fff々\u3040-\u30ff]{1,4}")
_GENERATION_RE = re.compile(r"I{2,3}|IV|VI{1,3}")
# a speaker's role after the name in a collaboration's byline ("on behalf of the ATLAS Collaboration",
# "for the CMS Collaboration")
_ON_BEHALF_RE = re.compile(r"\s*(?:on behalf of|for)\s+(?:the\s+)?\S.*\b(?:collaboration|consortium|team|group)s?\b"
                           r"|\s*on behalf of\b", re.I)
# the same role after the name on one line, no comma between ("Jane Roe on behalf of the X Collaboration")
_ROLE_TAIL_RE = re.compile(r"\s+(?:on behalf of\s.*|for the\s+\S.*\b(?:collaboration|consortium)s?\b.*)$", re.I)
_EMAIL_ONLY_RE = re.compile(r"[{(]?[\w.+\-,\s]*@[\w.\-]+[})]?")
# (on a scan, OCR reads an affiliation mark glued to a name's end as a stray symbol, "Peharz>
# Franz", and the "·" between names as " - " or " . ": those part names too)
SEP_RE = re.compile(r"\s*(?:,|;|·|•|&|\band\b|\bAND\b|\\and\b|\s{3,}|\u2003"
                    r"|(?<=[a-z])[^\w\s.,:;'’()\[\]{}\-]{1,3}(?=\s+[A-Z])|(?<=[a-z])\s[-–.]\s(?=[A-Z]))\s*")
@dataclass
class TLine:
    """One title-page line: its text without superscripts, the pieces with their marks, its type."""

    text: str
    pieces: list[tuple[str, list[str]]]  # (text, superscript marks right after it)
    size: float
    bold: bool
    top: float
    bottom: float
    x0: float
    x1: float
    gappy: bool = False  # words far apart on the line: a table row or an author grid, never a title
    italic: bool = False


@dataclass
class TitlePage:
    page: int
    title: str = ""
    title_box: tuple[float, float, float, float] | None = None  # x0, top, x1, bottom of the title lines
    authors: list[tuple[str, list[str]]] = field(default_factory=list)
    author_boxes: list[tuple[float, float, float, float]] = field(default_factory=list)
    furniture: list[str] = field(default_factory=list)
    author_page: int | None = None  # where the names were read, when not on this page (a cover sheet's)


_RAISED = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_ELEMENT_RE = re.compile(r"[A-Z][a-z]?(?![A-Za-z])")


_SMALL_MARK_RE = re.compile(rf"[\d{re.escape(MARK_CHARS)}]+[a-z]?(?:,[\d{re.escape(MARK_CHARS)}a-z]+)*")

_MARK_THEN_DIGIT_RE = re.compile(rf"([{re.escape(MARK_CHARS)}])(?=\d)")  # "*1": two marks, the note's and the affiliation's


def _small_caps(spans: list) -> float | None:
    """The size of a line's small capitals, where it is set in them: two or more words whose
    capital is followed, touching, by capitals in smaller type (imsart's byline "BY FIRST
    AUTHOR": `B` 11 pt, `Y` 8.8 pt, `F` 11 pt, `IRST` 8.8 pt). One such pair is a logo (LaTeX's)."""
    pairs = []
    for a, b in zip(spans, spans[1:], strict=False):
        if a.bbox and b.bbox and b.bbox[0] - a.bbox[2] < 0.1 * a.size and a.text[-1:].isupper() \
                and not a.text[-2:-1].isalpha() and b.text.isalpha() and b.text.isupper() \
                and 0.6 * a.size <= b.size <= 0.9 * a.size:
            pairs.append(b.size)
    return pairs[0] if len(pairs) >= 2 and len(set(pairs)) == 1 else None


def _glued_mark(spans: list, k: int) -> bool:
    """Span k holds a digit or a mark character and touches a word's last letter before it."""
    s, prev = spans[k], spans[k - 1] if k else None
    return prev is not None and bool(s.bbox and prev.bbox) and prev.text[-1:].isalpha() \
        and s.text[:1] == s.text.strip()[:1] and s.bbox[0] - prev.bbox[2] < 0.1 * s.size \
        and any(c.isdigit() or c in MARK_CHARS for c in s.text)


def _tline(line, accents: list) -> TLine | None:
    spans = logos.latex_spans([s for s in line.spans if s.text])  # the LaTeX logo's raised A is no mark
    if not spans or line.bbox is None:
        return None
    small = _small_caps(spans)
    if small is not None:
        # A line in small capitals is read as typed: the small capitals are lower-case letters
        # ("By First Author"), and a run of marks after a word in type smaller still is that
        # word's marks (the source's superscript test measures against the small capitals' size,
        # the line's commonest, and misses marks only a little smaller: "AUTHOR*1,a")
        # (Optica sets the marks in the small capitals' own size, touching the name: "SZYMENDERSKI1,*")
        spans = [replace(s, text=s.text.lower()) if abs(s.size - small) < 0.05 and s.text.isupper()
                 else replace(s, text=_MARK_THEN_DIGIT_RE.sub(r"\1,", s.text), superscript=True)
                 if _SMALL_MARK_RE.fullmatch(s.text.strip()) and (s.size < small - 0.3 or _glued_mark(spans, k))
                 else s for k, s in enumerate(spans)]
    body = [s for s in spans if not s.superscript] or spans
    chars: dict[float, int] = {}
    for s in body:
        chars[round(s.size, 1)] = chars.get(round(s.size, 1), 0) + len(s.text.strip())
    size = max(chars, key=chars.get)
    bold = sum(len(s.text) for s in body if s.bold) > 0.5 * sum(len(s.text) for s in body)
    italic = sum(len(s.text) for s in body if s.italic) > 0.5 * sum(len(s.text) for s in body)
    pieces: list[tuple[str, list[str]]] = [("", [])]
    prev = None
    cut = None
    for k, s in enumerate(spans):
        gap = s.bbox[0] - prev.bbox[2] if prev is not None and s.bbox and prev.bbox else 0.0
        if gap > size and pieces[0][0].strip() and all(x.superscript or x.size <= 0.7 * size for x in spans[k:]):
            # a note in the margin on this line's baseline (tufte-handout's \thanks beside the
            # title, in small type a column's gap away): no part of the line
            cut = prev.bbox[2]
            break
        nxt = spans[k + 1] if k + 1 < len(spans) else None
        if s.superscript and s.text.strip().isdigit() and nxt is not None and not nxt.superscript and s.bbox \
                and nxt.bbox and nxt.bbox[0] - s.bbox[2] < 0.15 * size and _ELEMENT_RE.match(nxt.text) \
                and (prev is None or gap > 0.15 * size or pieces[-1][0].endswith(" ")):
            # a raised number set right before an element's symbol, apart from the word before
            # it: a mass number ("with ⁹Be Nuclei"), part of the text (a mark follows its name;
            # one before an affiliation, "¹Department", leads a word, not a symbol)
            pieces[-1] = (pieces[-1][0] + (" " if pieces[-1][0] and not pieces[-1][0].endswith(" ") else "")
                          + s.text.strip().translate(_RAISED), pieces[-1][1])
            prev = s
            continue
        if s.superscript:
            marks = [m for m in re.split(r"[,\s]+", s.text.strip()) if m]
            pieces[-1][1].extend(marks)
        else:
            text = s.text
            if pieces[-1][1]:
                pieces.append(("", []))
            cur = pieces[-1][0]
            if cur and gap > 2.5 * size:
                cur += "   "  # a wide gap between names on one line (author grids)
            elif cur and gap > 1.2 * size:
                # a wider space than a word's (EPTCS's "Jane Roe\hspace{1em}John Doe"): names set
                # apart on one line, no comma between them; only _names reads it (SEP_RE)
                cur += "\u2003"
            elif cur and gap > 0.15 * size and not cur.endswith(" ") and not text.startswith(" "):
                cur += " "
            pieces[-1] = (cur + text, pieces[-1][1])
        prev = s
    pieces = [(compose_accents(_float_accents(t, line, accents)), m) for t, m in pieces if t.strip() or m]
    text = " ".join(t.strip() for t, _ in pieces).strip()
    x0, y0, x1, y1 = line.bbox
    x1 = x1 if cut is None else cut
    gappy = any("   " in t for t, _ in pieces)
    return TLine(text=re.sub(r"\s+", " ", text), pieces=pieces, size=size, bold=bold, top=y0, bottom=y1, x0=x0, x1=x1,
                 gappy=gappy, italic=italic)


def _float_accents(text: str, line, accents: list) -> str:
    """An accent set as a line of its own over a letter of this line: put it on that letter
    (its place estimated from the line's width; it goes on the nearest vowel)."""
    if not accents or line.bbox is None or len(line.spans) != 1:
        return text
    x0, y0, x1, y1 = line.bbox
    for acc in accents:
        ax0, ay0, ax1, ay1 = acc.bbox
        if not (ay1 >= y0 - 2 and ay0 <= y1) or not (x0 <= ax0 <= x1):
            continue
        per = (x1 - x0) / max(1, len(text))
        at = ((ax0 + ax1) / 2 - x0) / per
        best = min((i for i, c in enumerate(text) if c.lower() in "aeiouy"), key=lambda i: abs(i + 0.5 - at),
                   default=None)
        if best is not None and abs(best + 0.5 - at) <= 2:
            mark = SPACING_ACCENTS.get(acc.text.strip())
            if mark:
                text = unicodedata.normalize("NFC", text[:best + 1] + mark + text[best + 1:])
    return text


def _is_furniture(t: TLine, page_h: float, body: float) -> bool:
    s = t.text
    if FURNITURE_RE.search(s) or DATE_RE.match(s) or GENRE_RE.match(s):
        return True
    if sum(c.isalpha() for c in s) < 3:
        return True
    band = t.bottom < page_h * 0.06 or t.top > page_h * 0.92
    return band and t.size <= body + 0.5


def _join_title(lines: list[str]) -> str:
    out = ""
    for t in lines:
        t = t.strip()
        if out.endswith("-") and out[-2:-1].isalpha() and t[:1].isalpha():
            # "OPTI-" + "MIZED": a word broken at the line end unless both halves are capitalised
            # words of a mixed-case title ("Sum-" + "Product")
            head = re.search(r"(\w+)-$", out).group(1)
            keep = head[:1].isupper() and t[:1].isupper() and not (head.isupper() and t.split()[0].isupper())
            out = out + t if keep else out[:-1] + t
        else:
            out = (out + " " + t).strip()
    return out


def _groups(lines: list[TLine], ocr: bool = False) -> list[list[TLine]]:
    """Runs of consecutive lines in one type (size and weight), close together: up to 1.3 times
    the type apart, so a double-spaced title (a referee copy: 33 pt baselines for 16 pt type) is
    one run. ``ocr``: the sizes are OCR's estimates, from the heights of each line's capitals
    and ascenders ("Lecture Notes:" 19.3 over "Hardware and ..." 20.6, one type): within 12%."""
    out: list[list[TLine]] = []

    def goes_on(g: list[TLine], t: TLine) -> bool:
        a, b = g[-1].size, t.size
        return abs(a - b) <= (max(0.3, 0.12 * max(a, b)) if ocr else 0.3) and g[-1].bold == t.bold and -0.5 * t.size <= t.top - g[-1].bottom < 1.3 * t.size \
            and t.x0 < g[-1].x1 and t.x1 > g[-1].x0

    for t in lines:
        g = out[-1] if out else None
        if g and goes_on(g, t):
            g.append(t)
            continue
        # a run the lines of another column came between, row by row (SAGE's masthead set right of
        # the title): the run before them goes on when none of them lies under it
        back = next((k for k in range(len(out) - 2, max(-1, len(out) - 4), -1) if goes_on(out[k], t)), None)
        if back is not None and not any(u.x0 < t.x1 and u.x1 > t.x0 for h in out[back + 1:] for u in h):
            out[back].append(t)
        else:
            out.append([t])
    return out


def title_shaped(text: str, most: int = 25) -> bool:
    """A phrase, not running text: no sentence boundary inside, not too long; in body type no end
    stop either (a larger title may end with one: "... ENTROPY ENCODING.")."""
    # (a larger title may ask a question mid-way: "... these genes? Static sites for ...")
    stop = r"[a-z)\]]\.\s+[A-Z]" if most > 25 else r"[.!?]\s*$|[a-z)\]][.!?]\s+[A-Z]"
    return ((not re.search(stop, text) or most > 25 and _two_sentences(text)) and 1 <= len(text.split()) <= most
            and not (FURNITURE_RE.search(text) or DATE_RE.match(text)))


def _two_sentences(text: str) -> bool:
    """A larger title of two short sentences ("NAME: a new telescope. Detector simulation and
    commissioning"): one stop inside, none at the end, at most 16 words, opening with no lower-case
    letter. Running text cut out of a paragraph runs longer, or opens or ends mid-sentence."""
    return len(re.findall(r"[a-z)\]][.!?]\s+[A-Z]", text)) == 1 and not re.search(r"[.!?]\s*$", text) \
        and len(text.split()) <= 16 and not text.lstrip()[:1].islower()


def _head_under_byline(t: TLine, above: list[TLine], body: float) -> bool:
    """A line under the byline set larger than every line of it, and half as large again as the
    body: the head of the next part (a poster's block titles under its names and institute), no
    name. A byline's type never rises again to a head's."""
    return bool(above) and t.size >= 1.5 * body and t.size > max(u.size for u in above) + 1.0


def _sentence_subtitle(below: list[TLine], last: TLine, body: float) -> bool:
    """The first line under the title is a subtitle, however much it reads as a sentence ("with
    non-English diacritics in the author names. See documentation."): right under the title, in
    type larger than the body, a paragraph of one line (the line under it is no continuation in
    its type). An abstract in the body's type, or running on over lines, is running text."""
    t = below[0]
    if t.size < body + 0.5 or t.top - last.bottom > 2.5 * t.size or not _prose(t.text):
        return False
    nxt = below[1] if len(below) > 1 else None
    return nxt is None or abs(nxt.size - t.size) > 0.3 or nxt.italic != t.italic or nxt.top - t.bottom >= 1.3 * t.size


def _centred(g: list[TLine], page_w: float, text_w: float) -> bool:
    """Centred on the page and narrower than the text block: how a title in body type stands out.
    A title set apart by its face too (bold, or all in capitals) may run nearly the block's width
    (a long title in bold capitals on one line: 0.88 of it); a justified line fills the block."""
    x0, x1 = min(t.x0 for t in g), max(t.x1 for t in g)
    marked = all(t.bold or t.text.isupper() for t in g)
    return abs((x0 + x1) / 2 - page_w / 2) < 0.06 * page_w and (x1 - x0) < (0.95 if marked else 0.85) * text_w


def _beside(t: TLine, lines: list[TLine]) -> bool:
    for u in lines:
        if u is t or u.x0 < t.x1 and u.x1 > t.x0 or u.size < 0.6 * t.size:
            # (type under 0.6 of the line's beside it is a masthead's or a margin's: SAGE prints the
            # journal's name, volume and DOI in 6.6 pt right of its 17 pt title)
            continue
        overlap = min(t.bottom, u.bottom) - max(t.top, u.top)
        if overlap > 0.5 * min(t.bottom - t.top, u.bottom - u.top):
            return True
    return False


def _margin_test(lines: list[TLine], page_w: float, body: float):
    """A test for margin notes: lines in smaller type than the body, wholly outside the text block
    (between the left and right edges that at least three long lines share: the outer edges of
    one or two columns). A byline set full width above an indented body is not one."""
    long = [t for t in lines if t.x1 - t.x0 >= 0.3 * page_w]
    lefts = Counter(round(t.x0) for t in long)
    rights = Counter(round(t.x1) for t in long)
    left = min((x for x, n in lefts.items() if n >= 3), default=None)
    right = max((x for x, n in rights.items() if n >= 3), default=None)
    if left is None or right is None or right - left < 0.4 * page_w:
        return lambda t: False
    return lambda t: t.size < body * 0.95 and (t.x1 < left - 3 or t.x0 > right + 3)


def _is_abstract_line(t: TLine) -> bool:
    return bool(ABSTRACT_LINE_RE.match(t.text) or ABSTRACT_RE.match(t.text) and len(t.text.split()) > 8)


def _meaningful_info_title(info: dict) -> str:
    t = str(info.get("Title") or "").strip()
    if len(t.split()) < 2 or re.search(r"\.(?:dvi|tex|pdf|docx?|ps)$|^untitled|^microsoft word", t, re.I):
        return ""
    return t


def _norm(s: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", unicodedata.normalize("NFKC", s).lower()).split())


def read(page: Page, info: dict, body_size: float, deck: bool = False) -> TitlePage | None:
    """The title and the author names of ``page`` (the first page), or None without geometry.
    ``deck``: the page is a slide deck's title page (slides.is_deck), whose byline may be a handle."""
    if not page.lines or not any(ln.spans for ln in page.lines):
        return None
    raw = [ln for ln in page.lines if ln.spans and ln.bbox]
    accents = [ln for ln in raw if ln.text.strip() in SPACING_ACCENTS]
    lines = [t for t in (_tline(ln, accents) for ln in raw if ln not in accents) if t is not None]
    lines.sort(key=lambda t: (round(t.top / 3), t.x0))
    h = page.height or 792.0
    body = body_size or 10.0
    tp = TitlePage(page=page.number)
    content = []
    margin = _margin_test(lines, page.width or 612.0, body)
    for t in lines:
        if _is_furniture(t, h, body):
            tp.furniture.append(t.text)
        elif not margin(t):  # a margin's logo, editor and dates (ReScience, PLOS, MDPI) are not the byline
            content.append(t)
    # ---- title: the largest type in the upper part of the page, unless it is an institution
    # The title comes first: above the abstract (or first heading) and among the first few runs of
    # type from the top, which keeps out large type inside a figure further down.
    abstract = next((t.top for t in content if _is_abstract_line(t)), h * 0.7)
    stop = next((t.top for t in content if _is_abstract_line(t)
                 or HEADING_RE.match(t.text) and not _over_title(t, content, min(abstract, h * 0.7), body)), h * 0.7)
    # a contents list's heading, whatever its word ("Contents", "Analyses"), known by the entries under
    # it: the title and the byline are above it (it may be the largest type on the page)
    # (or by its word, in any language headings.contents_title knows: "Оглавление", "Sumário")
    toc = next((t.top for k, t in enumerate(content) if contents_title(t.text) or _heads_contents(content, k)), None)
    stop = min(stop, toc) if toc is not None else stop
    groups = [g for g in _groups([t for t in content if t.top < min(stop, h * 0.7)], page.ocr)
              if "@" not in g[0].text and len(" ".join(x.text for x in g).split()) <= 40]
    labelled = _labelled_title(groups, body)
    groups = groups[:5]
    groups = [g for g in groups if not INSTITUTION_START_RE.match(g[0].text) and not any(x.gappy for x in g)]
    # A title has its rows to itself; type beside other text in the same row is a figure's
    # label or a column's line.
    alone = [g for g in groups if not any(_beside(x, content) for x in g)]
    groups = alone or groups
    want = _norm(_meaningful_info_title(info))
    chosen = None
    if want:
        chosen = next((g for g in groups if _norm(_join_title([x.text for x in g])) == want), None)
    # the journal's name set large at the head of the page (RSC's "JournalName" artwork) is the
    # word the page's running foot opens with: a masthead, no title
    feet = {m.group(1) for m in map(_FIRST_WORD_RE.match, tp.furniture) if m}
    groups = [g for g in groups if not (len(g) == 1 and len(g[0].text.split()) == 1 and g[0].text.strip() in feet)]
    if chosen is None and labelled is not None:
        chosen = labelled
    if chosen is None and groups:
        top_size = max(g[0].size for g in groups)
        big = [g for g in groups if g[0].size >= top_size - 0.3]
        if top_size >= body * 1.1:
            # the first run in the largest type, if it reads like a title: running text at the
            # top of a page that starts mid-document is none
            first = big[0]
            if len(big) > 1 and _type_label(first) and big[1][0].bold and not first[0].bold:
                first = big[1]  # "RESEARCH ARTICLE" in plain capitals over the bold title (Taylor & Francis)
            chosen = first if title_shaped(_join_title([x.text for x in first]), 40) else None
        else:
            # No type larger than the body (AASTeX sets its title in body size): the first short
            # line at the top that is not a sentence.
            width = max((t.x1 for t in content), default=0) - min((t.x0 for t in content), default=0)
            chosen = next((g for g in big if len(g) <= 3 and title_shaped(" ".join(x.text for x in g))
                           and _centred(g, page.width or 612.0, width)), None)
    if chosen is None:
        return tp
    chosen = chosen + _subtitle(chosen, content, body)
    chosen = [_radical_back(x, lines) for x in chosen]
    tp.title = _join_title([x.text for x in chosen])
    tp.title_box = (min(x.x0 for x in chosen), chosen[0].top, max(x.x1 for x in chosen), chosen[-1].bottom)
    # ---- authors: the lines between the title and the abstract or the first heading
    below = [t for t in content if t.top > chosen[-1].bottom - 1 and t not in chosen]
    if below and _sentence_subtitle(below, chosen[-1], body):
        below = below[1:]
    end = next((i for i, t in enumerate(below) if _is_abstract_line(t) or HEADING_RE.match(t.text)
                or len(t.text.split()) > 25 or _prose(t.text) or toc is not None and t.top >= toc - 1
                or _head_under_byline(t, below[:i], body)), len(below))
    region = below[:end]
    # a text layer gives initials as printed ("J.K. Krishnan"); OCR loses the space after an
    # initial's stop ("J.N. Winn" for "J. N. Winn"), which is put back
    tp.authors, tp.author_boxes = _names(region, space_initials=page.ocr or not page.has_text_layer)
    if not tp.authors:
        # no byline under the title: a labelled one over it (lecture notes' header box "Lecturer: ...",
        # "Scribe: Jane Roe" above the lecture's title), the lines with an author's label only
        above = [t for t in content if t.bottom <= chosen[0].top + 1 and _author_labelled(t.text)]
        tp.authors, tp.author_boxes = _names(above, space_initials=page.ocr or not page.has_text_layer)
    if not tp.authors and deck:
        # a talk's byline may print the speaker's handle alone on its line ("by" over "@jdoe"): the
        # name the deck gives its author, as printed (an address has a domain, a handle none)
        # (or one name with the speaker's pronouns after it, 'Sam (they / them)': a person, though one word)
        handles = [(t, m.group(1)) for t in region for m in [_HANDLE_RE.fullmatch(t.text.strip())
                                                             or _PRONOUNED_RE.fullmatch(t.text.strip())] if m]
        tp.authors = [(name, []) for _, name in handles]
        tp.author_boxes = [(t.x0, t.top, t.x1, t.bottom) for t, _ in handles]
    if not tp.authors and deck:
        # a byline the PDF's own Author field confirms, printed as one word (a handle without its '@'),
        # or a name followed on its line by its affiliations' acronyms ('Jane Roe LAB EPFL')
        author = " ".join(str(info.get("Author") or "").split())
        named = [(t, t.text.strip()) for t in region[:2] if author and t.text.strip().casefold() == author.casefold()
                 and re.fullmatch(r"[^\W\d_]{2,30}", author)]
        if not named:
            for t in region[:2]:
                words = t.text.split()
                k = len(words)
                while k > 2 and re.fullmatch(r"[A-Z]{2,6}", words[k - 1]):
                    k -= 1
                name = _clean_name(" ".join(words[:k])) if k < len(words) else None
                if name is not None:
                    named.append((t, name))
                    break
        tp.authors = [(name, []) for _, name in named]
        tp.author_boxes = [(t.x0, t.top, t.x1, t.bottom) for t, _ in named]
    return tp


# a title-page field that names the work's title ("Тема: ..." under a thesis's degree line, "Title: ...",
# "Thema: ...", "Sujet : ..."): the label and its text on one line
_TITLE_LABEL_RE = re.compile(r"^\s*(?:title|topic|thema|titel|sujet|t[ií]tulo|titolo|tema|тема|название|назва)\s*[:：]\s*(?=\S)",
                             re.I)


def _labelled_title(groups: list[list[TLine]], body: float) -> list[TLine] | None:
    """The lines of a labelled title ("Тема: Title ..." and its other lines), the label taken off:
    a form-like title page (a thesis's) sets its degree line ("DISSERTATION / FOR THE DEGREE OF
    MASTER") in the largest type and the title after a label in smaller type, still larger than
    the body's."""
    for g in groups:
        m = _TITLE_LABEL_RE.match(g[0].text)
        if m is None or g[0].size < body * 1.1:
            continue
        first = replace(g[0], text=g[0].text[m.end():])
        out = [first] + g[1:]
        if title_shaped(_join_title([x.text for x in out]), 40):
            return out
    return None


_RADICALS = frozenset("√∛∜")


def _radical_back(t: TLine, lines: list[TLine]) -> TLine:
    """``t`` with a radical sign put back before the word it stands over (a title's "at √s = 13
    TeV"): the sign is drawn taller than the line and a text layer gives it a line of its own (a
    line of no letters, dropped as furniture). It goes before the word of ``t`` whose estimated
    start is nearest its right edge, within a character's width, when it overlaps ``t`` in height."""
    if len(t.text) < 2:
        return t
    per = (t.x1 - t.x0) / len(t.text)
    for r in lines:
        if r.text.strip() not in _RADICALS or not (r.top < t.bottom and r.bottom > t.top) \
                or not t.x0 - per <= r.x1 <= t.x1:
            continue
        starts = [m.start() for m in re.finditer(r"\S+", t.text)]
        at = min(starts, key=lambda k: abs(t.x0 + k * per - r.x1))
        if abs(t.x0 + at * per - r.x1) <= per:
            text = t.text[:at] + r.text.strip() + t.text[at:]
            return replace(t, text=text, pieces=[(text, [m for _, ms in t.pieces for m in ms])])
    return t


def _author_labelled(text: str) -> bool:
    label = _LINE_LABEL_RE.match(text)
    return label is not None and " ".join(label.group(1).lower().split()) in _AUTHOR_LABELS


def _over_title(t: TLine, content: list[TLine], bottom: float, body: float) -> bool:
    """A line that reads as a numbered heading but has larger type under it, above ``bottom`` (the
    abstract, or 0.7 of the page): a section head is never followed by type larger than its own and
    the body's on the title page, a masthead over the title is (a proceedings line "21st International
    Workshop on ...", its raised "st" set apart, reads "21 International ...")."""
    big = max(t.size, body) + 1.0
    return any(u.top > t.bottom - 1 and u.top < bottom and u.size >= big for u in content)


_FIRST_WORD_RE = re.compile(r"\s*([^\s,]+)")
_HANDLE_RE = re.compile(r"@([A-Za-z0-9_][\w\-]{0,38})")  # a social/code-host handle: no domain after it
_PRONOUN = r"(?:she|her|hers|he|him|his|they|them|theirs|xe|xem|ze|zir|it|its|any)"
_PRONOUNED_RE = re.compile(rf"([^\W\d_][\w'’\-]{{1,30}})\s*\(\s*{_PRONOUN}(?:\s*/\s*{_PRONOUN})+\s*\)", re.I)
# a contents entry: a section number, its title (dot leaders or not) and the page number at the end
_CONTENTS_ENTRY_RE = re.compile(r"^\s*\d{1,3}(?:\.\d{1,3})*\.?\s+\S.*?\s\d{1,4}\s*$")


def _heads_contents(content: list[TLine], k: int) -> bool:
    """content[k] is a heading over three or more contents entries (and is none itself)."""
    nxt = content[k + 1:k + 4]
    return len(nxt) == 3 and not _CONTENTS_ENTRY_RE.match(content[k].text) \
        and all(_CONTENTS_ENTRY_RE.match(t.text) for t in nxt)


def _subtitle(chosen: list[TLine], content: list[TLine], body: float) -> list[TLine]:
    """The lines that go on with a title ending in a colon in smaller type right under it (acmart's
    "Explainable Machine Learning:" at 17 pt over "Techniques, Recommendations, and ..." at 14 pt, one
    bold face): up to two lines, bold as the title is, in type of at least 0.75 of its size and
    larger than the body, overlapping it across."""
    last = chosen[-1]
    if not last.text.rstrip().endswith(":"):
        return []
    out: list[TLine] = []
    for t in (t for t in content if t.top > last.bottom - 1 and t not in chosen):
        prev = out[-1] if out else last
        if len(out) == 2 or t.bold != last.bold or not (max(body * 1.1, 0.75 * last.size) <= t.size < last.size - 0.3) \
                or (out and abs(t.size - out[0].size) > 0.3) or not -0.5 * t.size <= t.top - prev.bottom < 1.3 * t.size \
                or not (t.x0 < last.x1 and t.x1 > last.x0):
            break
        out.append(t)
    return out if out and title_shaped(_join_title([x.text for x in out])) else []


def running_title(pages: list[Page], info: dict, tp: TitlePage) -> str:
    """The PDF's /Title where page 1 prints no title: a book set without a title page (pandoc's
    book mode) prints its title only in the running heads, and page 1's largest type is its
    first chapter head. Three things must agree: /Title is not page 1's candidate, /Title opens
    or closes the top or bottom line of a third of the later pages, and the candidate's type comes back
    on a later page (a chapter head repeats; a title is printed once). Else ''."""
    want = _norm(_meaningful_info_title(info))
    got = _norm(tp.title)
    if not want or not got or want in got or got in want or tp.title_box is None:
        return ""
    first = next((p for p in pages if p.number == tp.page), None)
    later = [p for p in pages if p.number > tp.page and p.lines]
    if first is None or not later:
        return ""
    x0, top, x1, bottom = tp.title_box
    sizes = [_tline(ln, []) for ln in first.lines if ln.spans and ln.bbox
             and ln.bbox[1] >= top - 1 and ln.bbox[3] <= bottom + 1]
    sizes = [t.size for t in sizes if t is not None]
    if not sizes:
        return ""
    size = max(sizes)
    heads = repeats = 0
    for p in later:
        placed = sorted((ln for ln in p.lines if ln.bbox and ln.text.strip()), key=lambda ln: ln.bbox[1])
        edge = [_norm(ln.text) for ln in placed[:1] + placed[-1:]]  # the page's top and bottom lines
        if any(e.startswith(want + " ") or e.endswith(" " + want) or e == want for e in edge):
            heads += 1
        ts = [_tline(ln, []) for ln in p.lines if ln.spans and ln.bbox]
        if any(t is not None and abs(t.size - size) <= 0.3 and len(t.text.split()) <= 25 for t in ts):
            repeats += 1
    if heads == 0 or heads * 3 < len(later) or repeats == 0:
        return ""
    return _meaningful_info_title(info)


def type_label(text: str) -> bool:
    """An article type set over the title: a few words in capitals ("RESEARCH ARTICLE", "REVIEW")."""
    return text.isupper() and len(text.split()) <= 3


def _type_label(g: list[TLine]) -> bool:
    """An article type over the title, one line of its own."""
    return len(g) == 1 and type_label(g[0].text)


def _prose(text: str) -> bool:
    """A line of running text (an unlabelled abstract's 'This document describes the Tufte handout
    style. It'): many words, most of them lower-case, which bylines and addresses never are."""
    words = text.split()
    return len(words) >= 9 and sum(w[:1].islower() for w in words) >= 0.6 * len(words)


# the labels of a line naming a document's authors ("Author: ...", "Created by: ...", lecture
# notes' "Scribe: ..."); a line with another label names people in another role
_AUTHOR_LABELS = frozenset(["author", "authors", "by", "written by", "created by", "prepared by", "submitted by",
                            "scribe", "scribes", "scribed by"])
_GIVEN_INITIAL_RE = re.compile(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?(?:\s+[A-Z]\.)+")
_LINE_LABEL_RE = re.compile(r"^\s*([^\W\d_][\w\s-]{1,30}):\s+\S")
# a byline led by "By" (classic JFM's "By Jane Roe¹ and John Doe²", IMS journals' "BY JANE ROE¹"),
# or by its kin on a Russian or Ukrainian thesis's title page ("Выполнил студент Н.М. Иванов": done
# by the student): the words lead the line, they are no part of the first name
_BY_RE = re.compile(rf"^\s*(?:By|BY|by|(?:Выполнил[аи]?|Выконав(?:ла)?)(?:\s+студент(?:ка|ы)?)?)\s+(?=[{_CAP}])")
# "by Koll, Michael": a byline led by "by" naming one person surname first (as a bibliography
# does), the two one-word parts of one name, not two names
_BY_INVERTED_RE = re.compile(r"^\s*(?:By|BY|by)\s+([A-Z][\w'’\-]+),\s+([A-Z][\w'’\-]+)\s*$")


def _names(region: list[TLine], space_initials: bool = True
           ) -> tuple[list[tuple[str, list[str]]], list[tuple[float, float, float, float]]]:
    # Lines a role label owns: "Supervisor" above a name in its column, or "Supervisor: Name".
    skip: set[int] = set()
    for i, t in enumerate(region):
        if ROLE_RE.search(t.text):
            skip.add(i)
            for j in range(i + 1, min(i + 3, len(region))):
                u = region[j]
                if u.x0 < t.x1 + 20 and u.x1 > t.x0 - 20 and 0 <= u.top - t.bottom < 2.5 * t.size:
                    skip.add(j)
                    if PLURAL_ROLE_RE.search(t.text):
                        # (the role's other names: each right under the one before, in its column)
                        for k in range(j + 1, min(j + 5, len(region))):
                            v, above = region[k], region[k - 1]
                            if not (v.x0 < t.x1 + 20 and v.x1 > t.x0 - 20 and 0 <= v.top - above.bottom < 1.0 * v.size
                                    and _line_is_name(v, space_initials)):
                                break
                            skip.add(k)
                    break
    # Join lines broken inside a name list ("... Michael K." / "Gilson · David L. Mobley ...").
    merged: list[tuple[list[tuple[str, list[str]]], TLine]] = []
    for i, t in enumerate(region):
        if i in skip:
            continue
        prev = merged[-1] if merged else None
        if prev is not None and abs(prev[1].size - t.size) <= 0.3 and -0.5 * t.size <= t.top - prev[1].bottom < 1.0 * t.size \
                and not prev[0][-1][1] and (re.search(r"(?:[,·•&]|\band|\bAND|\b[A-Z]\.|\s[-–])\s*$", prev[0][-1][0])
                                            or t.pieces[0][1] and _name_runs_on(prev[0][-1][0], t.pieces[0][0])):
            pieces = prev[0][:-1] + [(prev[0][-1][0] + " " + t.pieces[0][0], t.pieces[0][1])] + t.pieces[1:]
            box = prev[1]
            merged[-1] = (pieces, TLine(box.text + " " + t.text, pieces, box.size, box.bold, box.top, t.bottom,
                                        min(box.x0, t.x0), max(box.x1, t.x1), italic=box.italic))
        else:
            merged.append((list(t.pieces), t))
    names: list[tuple[str, list[str]]] = []
    boxes = []
    types: list[tuple[float, bool, bool]] = []  # each name's line type: size, bold, italic
    grid = _institution_cells([t for _, t in merged], space_initials)
    for i, (pieces, t) in enumerate(merged):
        if pieces and not pieces[0][0].strip() and pieces[0][1]:
            continue  # starts with a mark: an affiliation line ("¹ Wikimedia Foundation")
        if i in grid:
            continue  # the institution beside a name in a name | institution grid, however name-like
        label = _LINE_LABEL_RE.match(t.text)
        labelled = _author_labelled(t.text)
        if label and not labelled:
            # a labelled line names people in another role, every name on it ("In collaboration
            # with: Matthew West, Luke Olson, Scott MacLachlan" under a SIAM byline)
            continue
        if labelled and ":" in pieces[0][0]:
            # "Created by: Jane R.": the label is no part of the first name
            pieces = [(pieces[0][0].split(":", 1)[1], pieces[0][1])] + list(pieces[1:])
        inverted = _BY_INVERTED_RE.match(t.text) if len(pieces) == 1 else None
        if inverted:
            pieces = [(f"{inverted.group(2)} {inverted.group(1)}", pieces[0][1])]
        elif pieces and _BY_RE.match(pieces[0][0]):
            pieces = [(_BY_RE.sub("", pieces[0][0], count=1), pieces[0][1])] + list(pieces[1:])
        found: list[tuple[str, list[str]]] = []
        total = 0
        for text, marks in pieces:
            text = GRADE_RE.sub("", text)
            parts = [p for p in SEP_RE.split(text) if p and p.strip(" " + MARK_CHARS)]
            for k, p in enumerate(parts):
                if _EMAIL_ONLY_RE.fullmatch(p.strip()):
                    continue  # an address beside the name (JMLR, some thesis pages): neither a name nor not one
                if _ON_BEHALF_RE.match(p):
                    continue  # "Jane Roe, on behalf of the X Collaboration": the speaker's role, no name nor a failed one
                p = _ROLE_TAIL_RE.sub("", p)
                total += 1
                own = re.findall(f"[{re.escape(MARK_CHARS)}]", p)
                name = _clean_name(p, space_initials)
                if name is None and labelled and _GIVEN_INITIAL_RE.fullmatch(p.strip()):
                    name = p.strip()  # a labelled author may give the family name as an initial ("Jane R.")
                if name:
                    found.append((name, (marks if k == len(parts) - 1 else []) + own))
        if found and all(n.isupper() for n, _ in found) and any(GRADE_RE.search(x) for x, _ in pieces):
            # a byline in capitals with society grades (IEEE Access: "HIROYA KATO¹, (Graduate Student
            # Member, IEEE), ..."): the class upper-cases names written in mixed case, which are
            # title-cased, a stop printed after the surname dropped. (Capitals without grades, such as
            # AASTeX's "L. G. BOUMA", stay as printed.)
            found = [(_title_case(re.sub(r"(?<=[A-Za-z]{3})\.$", "", n)), m) for n, m in found]
        if len(found) == 1 and total > 1 and _caps_name_and_affiliation(pieces, found[0][0], space_initials):
            # acmart's journal formats: "MARISA KIRISAME, University of Utah, USA", one author a
            # line, the name in small capitals, then its institution and country
            found, total = [(_title_case(found[0][0]), found[0][1])], 1
        if found and names and any(m for _, m in names) and not any(m for _, m in found) \
                and _INSTITUTION_WORD_RE.search(t.text):
            # names marked with their affiliations above, then an unmarked line naming an institution
            # (eLife: "Louis V. Gerstner, Jr. Graduate School of Biomedical Sciences, Memorial Sloan
            # Kettering", in the byline's type): the affiliations, however name-like their parts
            continue
        if found and len(found) >= 0.6 * total:
            new = [f for f in found if f[0] not in {n for n, _ in names}]
            names.extend(new)
            types.extend([(round(t.size * 2) / 2, t.bold, t.italic)] * len(new))
            boxes.append((t.x0, t.top, t.x1, t.bottom))
            if inverted:
                break  # "by Family, Given" names the one author: the lines under it are no names
    # one author type: where most names share one type, a name-shaped line in smaller type and
    # another face is an affiliation's first line (IEEEtran's author blocks: names upright, each
    # block's address in smaller italic, "Twentieth Century Fox" under "Homer Simpson")
    if len(names) >= 3:
        most, n = Counter(types).most_common(1)[0]
        if n > len(names) / 2:
            keep = [not (ty[0] < most[0] and (ty[1], ty[2]) != most[1:]) for ty in types]
            names = [nm for nm, k in zip(names, keep, strict=True) if k]
    return names, boxes


def _line_is_name(t: TLine, space_initials: bool) -> bool:
    """The whole line is one name and nothing else."""
    return "@" not in t.text and len(SEP_RE.split(t.text.strip())) == 1 and _clean_name(t.text, space_initials) is not None


def _names_none(t: TLine, space_initials: bool) -> bool:
    """No part of the line reads as a name (an institution, an address, an e-mail)."""
    return not any(_clean_name(p, space_initials) for p in SEP_RE.split(t.text) if p.strip())


def _institution_cells(lines: list[TLine], space_initials: bool) -> set[int]:
    """The right-hand cells of a name | institution grid (bmvc2k's \\addauthor: each row a name,
    then its institution further right on the same row, the e-mail under the name): where three
    or more rows put a line beside a lone name at one left edge and at least half of those lines
    name no person ("Some State University", "Acme Inc."), the column is the institutions', and
    its name-shaped cells (a company called "Blue Harbor") are institutions too. A grid of names
    beside names (two authors a row) has no such column: its right-hand cells are names."""
    right: dict[int, list[int]] = {}
    names = [u for u in lines if _line_is_name(u, space_initials)]
    for i, t in enumerate(lines):
        if any(u is not t and u.x1 < t.x0 and abs(u.top - t.top) < 0.5 * t.size for u in names):
            key = next((k for k in right if abs(lines[k].x0 - t.x0) <= 3), i)
            right.setdefault(key, []).append(i)
    cells: set[int] = set()
    for col in right.values():
        if len(col) >= 3 and sum(_names_none(lines[i], space_initials) for i in col) >= len(col) / 2:
            cells.update(col)
    return cells


def _caps_name_and_affiliation(pieces: list[tuple[str, list[str]]], name: str, space_initials: bool = True) -> bool:
    """The line is one name in capitals followed by parts that each hold an organisation or
    place word ("University of Utah", "USA"): a name and its affiliation, not a list of names."""
    parts = [p for text, _ in pieces for p in SEP_RE.split(GRADE_RE.sub("", text)) if p.strip(" " + MARK_CHARS)]
    if len(parts) < 2 or not name.isupper() or _clean_name(parts[0], space_initials) != name:
        return False
    return all(any(w.lower().strip(".,()") in ORG_WORDS for w in p.split()) for p in parts[1:])


def _title_case(name: str) -> str:
    return " ".join(w[:1] + w[1:].lower() if w.isupper() and len(w) > 1 else w for w in name.split())


def _name_runs_on(end: str, start: str) -> bool:
    """A name broken over two lines of a byline: the line ends with a comma and one capitalised
    word ("..., Lastufka"), the next starts with a capitalised word or two and (the caller
    checks) their affiliation marks ("Erica¹, László Etesi¹"). Such a name is no name on either
    line alone. Without the marks the word is a line's last word ("..., Utah, USA" over "PAVEL
    PANCHEKHA, ...": acmart's name-and-affiliation lines)."""
    return bool(re.search(r"(?:[,·•&]|\band|\bAND)\s*[A-Z][\w'’\-]+\s*$", end)
                and re.match(r"\s*[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)?\.?\s*(?:,|$)", start))


def _family_in_capitals(words: list[str], caps: list[str]) -> bool:
    """'Given FAMILY' (Chinese and French bylines print the family name in capitals: "Ethan
    DENG", "Jean-Pierre DUPONT"): one given name in mixed case first, then the capitals, each a
    word that can be spoken (a vowel in it) and one of three letters or more. An acronym
    beside a word leads it ("ISM Connect") or follows two ("Peter Staar IBM"), and a company's
    short one follows its name ("Meta AI")."""
    given = words[:len(words) - len(caps)]
    return len(given) == 1 and all(g[:1].isupper() and g[1:].islower() for g in given[0].split("-")) \
        and words[len(given):] == caps and max(len(c.strip(".-'’")) for c in caps) >= 3 \
        and all(re.search(r"[AEIOUY]", c) for c in caps)


def _clean_name(p: str, space_initials: bool = True) -> str | None:
    if re.match(r"^\s*[\w\s-]{2,30}:", p):
        return None  # "Correspondence: Jane Roe", "Supervisor: ...": a labelled line, not a byline
    s = re.sub(r"\([^)]*\)|\{[^}]*\}|\S+@\S+", " ", p)  # "(john@x.org)", an email beside the name
    # an affiliation in parentheses that the line's end cuts ("Laura Goulier (Institute for" over
    # "Geoinformatics, University of ...)"): no part of the name
    s = re.sub(r"\s\([^)]*$", " ", s)
    s = s.strip().strip(MARK_CHARS + " ,;:-–")  # ("Klein -": OCR's "·" ending a byline's line)
    s = re.sub(rf"[{re.escape(MARK_CHARS)}]+", "", s).strip()
    s = HONORIFIC_RE.sub("", s).strip()
    s = re.sub(r"\s+\d[\d,\s]*$", "", s).strip()  # trailing affiliation numbers set inline
    # OCR reads superscript marks as stray symbols glued to the name ("Bouma,!", "Monty®7"):
    # a run of symbols (with the digits right after it) is not part of a name
    # (and a mark's one or two digits standing before such a run: "2°@ Asa", the digit then an ORCID icon)
    s = re.sub(r"(?:^|(?<=\s))\d{1,2}(?=[^\w\s.'’\-]+(?:\s|$))", " ", s)
    s = " ".join(re.sub(r"[^\w\s.'’\-]+\d*", " ", s).split())
    if _CJK_NAME_RE.fullmatch(s) and len(s) >= 4:
        return s  # "羽田 久一": a Japanese (or Chinese) name, family then given name, a space between (no case to test)
    printed = s  # glued initials ("J.K.") are told by the spaced form, and kept as printed from a text layer
    s = re.sub(rf"\b([{_CAP}])\.(?=[{_CAP}]\b)", r"\1. ", s)  # OCR's "J.N. Winn" -> "J. N. Winn", as most styles print it
    toks = s.split()
    if not 2 <= len(toks) <= 5 or any(c.isdigit() for c in s) or "@" in s or len(s) > 60:
        return None
    if all(t.lower().strip(".,") in _DATE_WORDS for t in toks):
        return None  # a title page's date, or its placeholder ("Month Year": thesis templates)
    words = [t for t in toks if len(t.strip(".-'’")) >= 2 and not _INITIAL_RE.fullmatch(t)]
    if len(words) > 2 and _GENERATION_RE.fullmatch(words[-1]):
        words = words[:-1]  # "Jonathan J. Foley IV": a generation after the surname, not an acronym
    caps = [t for t in words if t.strip(".-'’").isupper()]
    if caps and len(caps) != len(words) and not _family_in_capitals(words, caps):
        return None  # "ISM Connect": an acronym beside a word is an organisation, names are all one case
    for i, t in enumerate(toks):
        if _INITIAL_RE.fullmatch(t) and i < len(toks) - 1:
            continue  # an initial: "J.", "J.-P.", "P"
        low = t.lower().strip(".,")
        if low in ORG_WORDS or low in PART_WORDS:
            return None
        if low in PARTICLES and 0 < i < len(toks) - 1:
            continue
        if not (t[:1].isupper() and re.fullmatch(r"[\w'’.\-]+", t) and sum(c.isalpha() for c in t) >= 2):
            return None
    return s if space_initials else printed
