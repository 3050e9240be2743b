"""Metadata: title, authors with affiliations (superscript markers resolved), emails,
affiliations, abstract, arXiv id/category/date from an arXiv stamp, DOI and URLs.

Reads the front matter blocks that structure left before the first section (superscript markers
arrive as ``[^1,2]`` from both the PDF text layer and OCR LaTeX) and marks them with
``attrs["front"]`` (title | authors | affiliations | note | abstract | correspondence) so the
Markdown renderer can write them cleanly.
"""

from __future__ import annotations

import re
from datetime import datetime
from operator import eq

from ctxmill.accents import compose_accents
from ctxmill.compile import front
from ctxmill.compile.options import CompileOptions
from ctxmill.model import Author, Block, Document, Kind

EMAIL_RE = re.compile(r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}")  # lookbehind: linear on long runs
URL_RE = re.compile(r"https?://[^\s<>()\[\]{}\"']+[^\s<>()\[\]{}\"'.,;:!?]")
# ``\b(10\.\d{4,9}/...)``, written to start at its "1" (the boundary a look-behind after it: no word
# character before the "1"), so that the regex engine skips to a "1" instead of trying every
# position of the first page (of text input: all of it)
DOI_RE = re.compile(r"(1(?<!\w1)0\.\d{4,9}/[^\s\"<>]+[^\s\"<>.,;:)])")
ARXIV_RE = re.compile(r"arXiv:\s*(\d{4}\.\d{4,5}(?:v\d+)?)\s*(?:\[([\w.\-]+)\])?\s*(\d{1,2}\s+[A-Za-z]{3,9}\.?\s+\d{4})?")
MARK_RE = re.compile(r"\[\^([^\]]+)\]|<sup>([^<]+)</sup>")
NAME_RE = re.compile(r"^[A-Z][\w'’.\-]*(?:\s+(?:[A-Z][\w'’.\-]*|van|von|de|der|da|bin|al|la|le|di|du)){1,4}$")
INSTITUTION_RE = re.compile(
    r"universit|institut|college|school|laborator|\blab\b|department|dept\.|academy|research|centre|center|"
    r"inc\.|ltd|corporation|company|foundation|hospital|faculty|GmbH|AI\b|Google|Microsoft|Meta|OpenAI|Anthropic",
    re.I)
NOTE_RE = re.compile(r"corresponding|^\s*correspondence\b|equal contribut|contributed equally|work done|project lead"
                     r"|intern", re.I)  # (BMC's "*Correspondence:" and "†Equal contributors" keyed by byline marks)


def _marks(s: str) -> list[str]:
    return [p.strip() for p in s.replace(" ", "").split(",") if p.strip()]


def _authors_from(text: str) -> list[tuple[str, list[str]]]:
    """'A B[^1], C D[^1,2]' -> [(name, marks)] ; names without markers too ('A B, C D and E F')."""
    t = re.sub(r"\s+and\s+", ", ", text.strip())
    out: list[tuple[str, list[str]]] = []
    pos = 0
    pieces: list[tuple[str, list[str]]] = []
    for m in MARK_RE.finditer(t):
        chunk = t[pos:m.start()]
        marks = _marks(m.group(1) or m.group(2))
        if pieces and not chunk.strip(" ,"):
            pieces[-1][1].extend(marks)  # "Name[^1][^2]" or "Name[^1][^,][^2]"
        else:
            pieces.append((chunk, marks))
        pos = m.end()
    pieces.append((t[pos:], []))
    for chunk, marks in pieces:
        names = [n.strip(" ,;*") for n in re.split(r"[,;]", chunk) if n.strip(" ,;*")]
        for k, name in enumerate(names):
            out.append((name, marks if k == len(names) - 1 else []))
    return out


_INITIALS_RE = re.compile(r"(?:[A-Z]\.)+(?:-[A-Z]\.)?")


def _trim_org(name: str) -> str:
    """'Peter Staar IBM Research' -> 'Peter Staar': an organisation glued to the name it follows."""
    toks = name.split()
    mixed = any(t[1:].islower() for t in toks)
    for i, t in enumerate(toks[2:], start=2):
        if _INITIALS_RE.fullmatch(t):
            continue  # an initial with its stop ("Abimbola Patricia I. Popoola"), no acronym
        if t.lower().strip(".,") in front.ORG_WORDS or mixed and len(t) >= 2 and t.isupper():
            return " ".join(toks[:i])
    return name


# What a text holding a name NAME_RE takes holds: a piece that _authors_from cuts (at the text's
# ends, commas, semicolons, marks and " and ", the blanks and stars around them stripped) made
# only of a capitalised word and one to four capitalised words or particles. Looser than the
# cut (any "]" or ">" may end a mark, any "[^" or "<sup>" start one), so it never misses a
# name; a text without one is not cut up (text input with no heading is front matter from end
# to end: every paragraph of it was cut into names, as a possible byline)
_PARTICLES = "van|von|de|der|da|bin|al|la|le|di|du"
# (the look-ahead: the first word whole, a blank and a capital or a particle, which every match
# has (a blank cannot follow a part of the word), read without going back: a capitalised word
# before a number, "Section 3", "Figure 7", was otherwise given back a letter at a time)
_NAME_WORDS = (r"[A-Z](?=[\w'’.\-]*+\s+(?:[A-Z]|" + _PARTICLES + r"))[\w'’.\-]*(?:\s+(?:[A-Z][\w'’.\-]*|"
               + _PARTICLES + r")){1,4}[\s,;*]*(?:\Z|[,;]|\[\^|<sup>|and\s)")
_NAME_PIECE_RE = re.compile(r"(?:\A|[,;\]>]|\sand\s)[\s,;*]*" + _NAME_WORDS)
# The piece's words and its end alone: every match of _NAME_PIECE_RE holds one, and this one
# starts with a capital, which the regex engine scans for (the piece's three openings are
# tried at every position: a page of links or cross-references asked ~50 ns a character)
_NAME_WORDS_RE = re.compile(_NAME_WORDS)


def _looks_like_authors(text: str) -> bool:
    if len(text) > 600 or "@" in text and EMAIL_RE.search(text) and not MARK_RE.search(text):
        return False
    if _NAME_WORDS_RE.search(text) is None or _NAME_PIECE_RE.search(text) is None:
        return False
    names = _authors_from(text)
    good = [n for n, _ in names if NAME_RE.match(n)]
    return len(good) >= 1 and len(good) >= 0.75 * len(names) and (MARK_RE.search(text) is not None or len(good) >= 2)


_CORRESPONDENCE_RE = re.compile(r"(?<=[.;])\s*(?:correspondence|corresponding author)s?\b", re.I)


_DATE_LINE_RE = re.compile(r"\s*\((?:dated|received|accepted|submitted|published)\b[^()]*\)\s*$", re.I)


def _affiliations_from(text: str) -> list[tuple[str, str]]:
    """'[^1] Lab, Univ, [^2] College' -> [("1", "Lab, Univ"), ("2", "College")]"""
    out = []
    parts = list(MARK_RE.finditer(text))
    for i, m in enumerate(parts):
        end = parts[i + 1].start() if i + 1 < len(parts) else len(text)
        label = (m.group(1) or m.group(2)).strip()
        val = text[m.end():end].strip(" ,;")
        # the last note runs on into the correspondence line ("..., United Kingdom. Correspondence
        # to: Name <mail>"): that line is no part of the affiliation
        cut = _CORRESPONDENCE_RE.search(val) if "orrespond" in val else None
        if cut is not None and cut.start() > 0:
            val = val[:cut.start()].rstrip(" .,;")
        # REVTeX's date line right under the last address ("..., Taiwan (Dated: May 11, 2022)")
        val = _DATE_LINE_RE.sub("", val).rstrip(" ,;")
        if val:
            out.append((label, val))
    return out


# (the label's words, in the languages front.ABSTRACT_WORDS knows; the colon full-width too: "摘要：")
ABSTRACT_LABEL_RE = re.compile(rf"^\s*(?:\d{{3}}\s*)?{front.ABSTRACT_WORDS}(?:\s*[.:：—–-]+\s*|\s+|(?=[A-Z]))", re.I)
_LABEL_PUNCT_RE = re.compile(rf"^\s*(?:\d{{3}}\s*)?{front.ABSTRACT_WORDS}\s*[.:：—–]", re.I)
_ABSTRACT_ONLY_RE = re.compile(rf"^\s*(?:\d{{3}}\s*)?{front.ABSTRACT_WORDS}\s*[.:：]?\s*$", re.I)
_ABSTRACT_END_RE = re.compile(r"^\s*(?:(?:key\s*words|keywords|index terms|ccs concepts|acm reference format|"
                              r"schlüsselwörter|mots[- ]clés|palavras[- ]chave|palabras[- ]clave|ключевые слова|ключові слова)\b|关键词|關鍵詞|キーワード)",
                              re.I)


def _label_end(text: str) -> int | None:
    """Where an abstract's label that opens ``text`` ends: after its punctuation ("Abstract—",
    "Abstract. Text": the label, however short what follows), or after the bare word before a
    capital ("ABSTRACT In this paper"); a bare word before a lower-case one opens a sentence
    ("Abstract of the paper goes here.", "Abstract interpretation is ...")."""
    m = ABSTRACT_LABEL_RE.match(text)
    if m is None:
        return None
    if not _LABEL_PUNCT_RE.match(text) and text[m.end():m.end() + 1].islower():
        return None
    return m.end()


def _abstract_blocks(blocks: list[Block], last_page: int) -> tuple[list[Block], bool]:
    """The paragraphs of a labelled abstract: "Abstract" alone (a heading or a line) and the
    paragraphs after it up to the next heading or keywords line, or a paragraph that opens with
    the label ("Abstract—Despite ...", "Abstract. Happiness ..."); and whether a label was
    printed with nothing under it (a draft's empty abstract: the paper has none, and the first
    long paragraph, an address as often as not, is not one)."""
    empty = False
    for i, b in enumerate(blocks):
        if b.page > last_page:
            break
        if b.attrs.get("title") or b.kind not in (Kind.HEADING, Kind.PARAGRAPH):
            continue
        if b.kind is Kind.HEADING and b.number and not _ABSTRACT_ONLY_RE.match(b.text):
            break  # a numbered section: the body has begun, and its closing "Summary" is no abstract (REVTeX)
        if _ABSTRACT_ONLY_RE.match(b.text):
            out: list[Block] = []
            for x in blocks[i + 1:]:
                if x.kind is Kind.HEADING or _ABSTRACT_END_RE.match(x.text) or len(out) >= 6 \
                        or _ABSTRACT_ONLY_RE.match(x.text):
                    break  # (another label alone: the abstract again in a second language)
                if x.kind is Kind.PARAGRAPH and x.text.strip():
                    out.append(x)
            if not out:
                out = _structured_abstract(blocks, i)
            if out:
                return out, False
            empty = True
        elif b.kind is Kind.PARAGRAPH and (end := _label_end(b.text)) is not None:
            rest = b.text[end:].strip()
            if not rest or not _LABEL_PUNCT_RE.match(b.text) and (len(rest) < 100 or not re.search(r"[.!?]", rest)):
                continue  # "Abstract Hoare logic": words, not the label (a label with its stop is one)
            return [b], False
    return [], empty


# the heads of a structured abstract (a medical or BMC journal's: "Background", "Methods", "Results",
# "Conclusions")
_STRUCTURED_HEAD_RE = re.compile(
    r"^\s*(?:background|context|introduction|objectives?|aims?|purpose|rationale|(?:materials? and )?methods?"
    r"|methodology|design|setting|participants|interventions?|measurements|results|findings|discussion"
    r"|conclusions?|interpretation|implications|significance)\s*[.:]?\s*$", re.I)


def _structured_abstract(blocks: list[Block], i: int) -> list[Block]:
    """The paragraphs of a structured abstract under the label at ``i``: unnumbered heads from
    _STRUCTURED_HEAD_RE right under it, each over its paragraphs, up to a heading of another name
    or one of the same name again (the body's own "Background")."""
    out: list[Block] = []
    seen: set[str] = set()
    for x in blocks[i + 1:]:
        if x.kind is Kind.HEADING:
            name = x.text.strip(" .:").casefold()
            if x.number or not _STRUCTURED_HEAD_RE.match(x.text) or name in seen:
                break
            seen.add(name)
            continue
        if not seen or _ABSTRACT_END_RE.match(x.text) or len(out) >= 6 or _ABSTRACT_ONLY_RE.match(x.text):
            break
        if x.kind is Kind.PARAGRAPH and x.text.strip():
            out.append(x)
    return out if len(seen) >= 2 else []


# a number of three digits standing alone
_LINE_NUMBER_RE = re.compile(r"(?<!\S)\d{3}(?!\S)")
_LINE_NUMBER_BLANKS_RE = re.compile(r"(?<!\S)\d{3}(?!\S)\s*")
# "gover- 003 nance": ``(\w)-\s+\d{3}\s+(?=[a-z])`` -> its word character, written to start at the
# hyphen (the word character before it a look-behind: what is left of a match is the same), so
# that the regex engine skips to a hyphen instead of trying every word character of an abstract
# (a whole text of list items can be one, megabytes long)
_HYPHEN_LINE_NUMBER_RE = re.compile(r"-(?<=\w-)\s+\d{3}\s+(?=[a-z])")


def _drop_line_numbers(text: str) -> str:
    """A review copy numbers its lines ("002 We present ... gover- 003 nance"): drop the numbers."""
    nums = list(map(int, _LINE_NUMBER_RE.findall(text)))
    steps = sum(map(eq, nums[1:], map((1).__add__, nums)))  # (b == a + 1 of each two in a row)
    if len(nums) >= 3 and steps >= 0.8 * (len(nums) - 1):
        text = _HYPHEN_LINE_NUMBER_RE.sub("", text)
        text = _LINE_NUMBER_BLANKS_RE.sub("", text)
    return text.strip()


def _iso_date(s: str | None) -> str | None:
    if not s:
        return None
    s = re.sub(r"\s+", " ", s.replace(".", "")).strip()
    for fmt in ("%d %b %Y", "%d %B %Y"):
        try:
            return datetime.strptime(s, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def _body_size(doc: Document) -> float:
    chars: dict[float, int] = {}
    for p in doc.stream.pages[:6]:
        for ln in p.lines:
            for sp in ln.spans:
                if not sp.superscript and sp.size:
                    chars[round(sp.size, 1)] = chars.get(round(sp.size, 1), 0) + len(sp.text)
    return max(chars, key=chars.get) if chars else 0.0


def _overlaps(b: Block, box: tuple[float, float, float, float]) -> bool:
    if b.bbox is None:
        return False
    x0, y0, x1, y1 = box
    return b.bbox[1] < y1 - 1 and b.bbox[3] > y0 + 1 and b.bbox[0] < x1 and b.bbox[2] > x0


def _type_label_above(doc: Document, tp: front.TitlePage) -> None:
    """A line in capitals of up to three words right over the title, the first heading of its page,
    is the article type (BMC's `SOFTWARE`, `RESEARCH` in bold over the title), no section."""
    blocks = doc.blocks
    t = next((i for i, b in enumerate(blocks) if b.kind is Kind.HEADING and b.attrs.get("title")), None)
    if not t:
        return
    title = blocks[t]
    above = [b for b in blocks[:t] if b.page == title.page and b.kind is not Kind.FURNITURE]
    if not above or title.bbox is None:
        return
    b = above[-1]
    text = b.text.strip()
    line_h = title.bbox[3] - title.bbox[1]
    if b.kind is Kind.HEADING and b.bbox is not None and front.type_label(text) and "\n" not in text \
            and b.bbox[3] <= title.bbox[1] + 1 and title.bbox[1] - b.bbox[3] < line_h \
            and not any(x.kind is Kind.HEADING for x in above[:-1]):
        b.kind, b.level = Kind.PARAGRAPH, None


def _as_chapter(doc: Document, tp: front.TitlePage) -> None:
    """The blocks of page 1's title candidate become a body heading (see front.running_title)."""
    hits = [b for b in doc.blocks if b.page == tp.page and _overlaps(b, tp.title_box)
            and b.kind in (Kind.PARAGRAPH, Kind.HEADING)]
    others = [b.level for b in doc.blocks if b.kind is Kind.HEADING and b not in hits and b.level]
    level = min(others, default=1)
    for b in hits[:1]:
        b.kind, b.level = Kind.HEADING, level
        b.attrs.pop("title", None)


def _place_title(doc: Document, tp: front.TitlePage) -> None:
    """Make the blocks that hold the title page's title the one title heading (structure may have
    taken a running head for it, or split a two-line title in two)."""
    blocks = doc.blocks
    hits = [b for b in blocks if b.page == tp.page and _overlaps(b, tp.title_box)
            and b.kind in (Kind.PARAGRAPH, Kind.HEADING, Kind.FURNITURE)]
    if not hits or any(b.kind is Kind.HEADING and not b.attrs.get("title") for b in hits):
        return  # a section heading there: leave the blocks as they are
    for b in blocks:
        if b.attrs.get("title") and b not in hits:
            b.attrs.pop("title")
            b.level = None
            furniture = front.FURNITURE_RE.search(b.text) or front.DATE_RE.match(b.text)
            b.kind = Kind.FURNITURE if furniture else Kind.PARAGRAPH
            if furniture:
                b.attrs["furniture"] = "running_header"
    head = hits[0]
    line_h = (tp.title_box[3] - tp.title_box[1]) / max(1, tp.title.count(" ") // 12 + 1)
    if head.bbox[3] > tp.title_box[3] + 0.5 * line_h:
        # The block runs on past the title (the author lines merged into it): a title heading of
        # its own before it, and the block keeps the rest of its text.
        rest = _after_prefix(head.text, tp.title)
        title = Block(Kind.HEADING, tp.title, head.page, id=f"{head.id}-title", level=1,
                      section_id=head.section_id, bbox=(tp.title_box[0], tp.title_box[1], tp.title_box[2],
                                                        tp.title_box[3]), attrs={"title": True})
        if rest is not None:
            head.text = rest
            head.attrs.pop("title", None)
            head.kind, head.level = Kind.PARAGRAPH, None
            blocks.insert(blocks.index(head), title)
            return
    # a note on the title's lines (a margin's \thanks beside it) keeps its text, after the title
    rest = _after_prefix(head.text, tp.title) if head.bbox[2] > tp.title_box[2] + 20 else None
    rest = re.sub(r"^(?:\[\^[^\]]*\]\s*)+", "", rest) if rest else rest  # its mark: the title's note sign
    head.kind, head.level, head.text = Kind.HEADING, 1, tp.title
    head.attrs["title"] = True
    drop = {id(b) for b in hits[1:] if b.bbox[3] <= tp.title_box[3] + 2}
    doc.blocks = [b for b in blocks if id(b) not in drop]
    if rest and len(re.findall(r"[^\W\d_]{2,}", rest)) >= 2:
        doc.blocks.insert(doc.blocks.index(head) + 1, Block(Kind.PARAGRAPH, rest, head.page, id=f"{head.id}-note",
                                                            section_id=head.section_id, bbox=head.bbox))


def _after_prefix(text: str, title: str) -> str | None:
    """``text`` without the words of ``title`` it starts with, or None when it does not."""
    want = re.findall(r"\w+", title.lower())
    words = list(re.finditer(r"\w+", text))
    if len(words) <= len(want) or [w.group(0).lower() for w in words[:len(want)]] != want:
        return None
    return text[words[len(want) - 1].end():].lstrip(" .,:;-–—").strip() or None


def _cover_sheet_authors(stream, tp: front.TitlePage, body: float) -> None:
    """A cover sheet (a journal's submission system, a report cover) gives the title alone; the
    paper's own first page repeats the title with its byline: the names are read there."""
    later = [p for p in stream.pages if p.number > tp.page and p.lines][:2]
    want = front._norm(tp.title)
    for page in later:
        tp2 = front.read(page, {}, body)
        if tp2 is not None and tp2.authors and front._norm(tp2.title) == want:
            tp.authors, tp.author_boxes, tp.author_page = tp2.authors, tp2.author_boxes, page.number
            return


def run(doc: Document, options: CompileOptions) -> None:
    md = doc.metadata
    stream = doc.stream
    md.pages = len(stream.pages)
    md.source = {"path": stream.path, "sha256": stream.sha256, "kind": stream.kind}
    if stream.info.get("engine"):  # raw OCR text: the engine that wrote it (sources/engines.py)
        md.source["engine"] = stream.info["engine"]
    # The title page read from its lines where the source has type geometry (PDF text layer).
    first_page_obj = next((p for p in stream.pages if p.lines), None)
    tp = front.read(first_page_obj, stream.info, _body_size(doc), deck=bool(doc.attrs.get("slide_deck"))) \
        if first_page_obj is not None else None
    untitled = bool(doc.attrs.get("_untitled_deck"))
    if untitled and tp is not None:
        # a deck with no title page (slides.outline: page 1 is a frame like the others): its
        # largest line is the first frame's title, no document title, and no byline stands under it
        tp.title, tp.title_box, tp.authors, tp.author_boxes = "", None, [], []
    book_title = front.running_title(stream.pages, stream.info, tp) if tp is not None and tp.title else ""
    if book_title:
        # page 1's candidate is the first chapter head: a heading of the body at the level of
        # the document's highest other heading, and the title is the running head's /Title
        _as_chapter(doc, tp)
        tp.title, tp.title_box = "", None
        md.title = compose_accents(book_title)
    if tp is not None and tp.title and not tp.authors:
        _cover_sheet_authors(stream, tp, _body_size(doc))
    if tp is not None and tp.title:
        md.title = tp.title
        _place_title(doc, tp)
        _type_label_above(doc, tp)
    blocks = doc.blocks
    title_block = next((b for b in blocks if b.kind is Kind.HEADING and b.attrs.get("title")), None)
    if title_block is not None and not md.title:
        text = compose_accents(title_block.text.strip())
        # where the page's type was read and showed no title, the blocks' guess must at least
        # look like one (a page that starts mid-document has none)
        if tp is not None:
            # The page's type was read and shows no title (a page that starts mid-document, a
            # table at the top): the blocks' guess is a heading nobody set. Keep it as text.
            title_block.kind, title_block.level = Kind.PARAGRAPH, None
            title_block.attrs.pop("title", None)
            title_block = None
        elif not (front.FURNITURE_RE.search(text) or front.DATE_RE.match(text)):
            md.title = text
    if title_block is not None:
        title_block.attrs["front"] = "title"
    # (an untitled deck's info-dictionary title is printed nowhere: no title is the truth)
    if not md.title and stream.info.get("Title") and not untitled:
        md.title = compose_accents(str(stream.info["Title"]).strip())
    # front matter: everything before the first section heading
    first_sec = next((i for i, b in enumerate(blocks) if b.kind is Kind.HEADING and not b.attrs.get("title")),
                     len(blocks))
    front_blocks_ = blocks[:first_sec]
    first_page = min((b.page for b in blocks), default=1)
    authors: list[tuple[str, list[str]]] = []
    geometry = tp is not None  # names come from the title page's lines; an empty list is an answer
    if geometry:
        authors = list(tp.authors)
        for b in front_blocks_:
            if b.page == (tp.author_page or tp.page) and not b.attrs.get("front") and b.kind is Kind.PARAGRAPH \
                    and any(_overlaps(b, box) for box in tp.author_boxes):
                b.attrs["front"] = "authors"
    aff_map: dict[str, str] = {}
    notes: dict[str, str] = {}
    # the first page's notes sit at its foot, after the first section in reading order when the
    # section starts above them (ICML's affiliations footnote under the first column)
    late_notes = [b for b in blocks[first_sec:] if b.kind is Kind.FOOTNOTE and b.page == first_page] \
        if authors else []
    for b in front_blocks_ + late_notes:
        if b.kind not in (Kind.PARAGRAPH, Kind.FURNITURE, Kind.LIST_ITEM, Kind.FOOTNOTE) \
                or b.attrs.get("front"):
            continue
        if b.page != first_page:
            continue
        text = b.text
        if b.kind is Kind.FOOTNOTE:
            if not authors:
                continue
            text = f"[^{b.number}] {b.text}"
            marks = {m for _, ms in authors for m in ms}
            pairs = _affiliations_from(text)
            if not pairs or any(label not in marks for label, _ in pairs) or not all(
                    NOTE_RE.search(v) or INSTITUTION_RE.search(v) for _, v in pairs):
                continue
            if b in late_notes:  # a note in the body stays a note: its mark is the byline's key
                for label, val in pairs:
                    (notes if NOTE_RE.search(val) else aff_map)[label] = val
                continue
            b.kind = Kind.PARAGRAPH
            b.text = text
            b.number = None
        if not authors and not geometry and _looks_like_authors(text):
            authors = [(_trim_org(n), m) for n, m in _authors_from(text) if NAME_RE.match(n)]
            b.attrs["front"] = "authors"
            continue
        if authors and MARK_RE.match(text.strip()):
            pairs = _affiliations_from(text)
            if pairs:
                kinds = []
                for label, val in pairs:
                    if NOTE_RE.search(val):
                        notes[label] = val
                        kinds.append("note")
                    else:
                        aff_map[label] = val
                        kinds.append("aff")
                b.attrs["front"] = "affiliations" if "aff" in kinds else "note"
                continue
        if _CONTACT_LINE_RE.match(text.strip()):
            b.attrs["front"] = "correspondence"
    # authors without markers: one affiliation block directly after them
    md.authors = []
    for name, marks in authors:
        affs = [aff_map[m] for m in marks if m in aff_map]
        if not marks and len(aff_map) == 1:
            affs = list(aff_map.values())
        md.authors.append(Author(name=name, affiliations=affs))
    seen: list[str] = []
    for a in md.authors:
        for x in a.affiliations:
            if x not in seen:
                seen.append(x)
    for val in aff_map.values():
        if val not in seen:
            seen.append(val)
    md.affiliations = seen
    # emails (front matter first, then the first page)
    first_text = "\n".join(b.text for b in blocks if b.page == first_page)
    emails: list[str] = []
    known: set[str] = set()  # (a list's `in` made a page of 40,000 addresses quadratic)
    for e in EMAIL_RE.findall(first_text) if "@" in first_text else ():  # (the pattern tries every position)
        e = e.rstrip(".")
        if e not in known:
            known.add(e)
            emails.append(e)
    md.emails = emails
    # each author's name parts once, not once per address
    name_parts = [(a, [re.sub(r"[^a-z]", "", p.lower()) for p in a.name.split()]) for a in md.authors]
    # the lines that can name an address's owner: with an "@" (every address has one) and an
    # author's name; other lines never set one, so only these are searched for each address
    owner_lines: list[str] | None = None
    for e in emails if md.authors else ():  # (no author: no owner to find, for any address)
        local = _NOT_AZ_RE.sub("", e.split("@")[0].lower())
        owner = None
        for a, parts in name_parts:
            if parts and (local == "".join(parts) or local == "".join(reversed(parts)) or
                          (len(parts) >= 2 and parts[-1] in local and (parts[0] in local or local.startswith(parts[0][:1])))):
                owner = a
                break
        if owner is None and md.authors:
            if owner_lines is None:
                owner_lines = [line for line in first_text.splitlines()
                               if "@" in line and any(a.name in line for a in md.authors)]
            for line in owner_lines:
                if e in line:
                    for a in md.authors:
                        if a.name in line:
                            owner = a
                            break
        if owner is not None and owner.email is None:
            owner.email = e
    # abstract: a labelled one anywhere in the opening pages (a thesis sets it as a chapter of its
    # own), else the first long paragraph of the front matter
    parts, empty = _abstract_blocks(blocks, min(len(stream.pages), 10) + first_page - 1)
    if not parts and not empty:
        # unlabelled: the first long paragraph of the title page (never a later chapter's text)
        # (a contents list's entries, joined into one paragraph, are no abstract)
        parts = [b for b in front_blocks_ if b.kind is Kind.PARAGRAPH and not b.attrs.get("front")
                 and not b.attrs.get("toc") and b.page == first_page and len(b.text) > 150 and not ("@" in b.text[:80] and EMAIL_RE.search(b.text[:80]))]
        # the byline's affiliations keyed by its marks ("^1)Dept. ..., ^2)Institute ...": REVTeX aip
        # prints no label over the abstract under them) come before it: they are none
        by_marks = {m for _, ms in authors for m in ms}
        while parts and _keyed_affiliations(parts[0].text, by_marks):
            parts = parts[1:]
        parts = parts[:1]
        if parts and _NOTE_START_RE.match(parts[0].text):
            parts = []  # it opens with a note's raised mark: a note set on the title page (memoir), no abstract
    lead = _broken_start(front_blocks_, parts[0]) if parts and not parts[0].text[:1].isupper() else []
    if parts:
        text = "\n\n".join(p.text[_label_end(p.text) or 0:].strip() if k == 0 else p.text.strip()
                            for k, p in enumerate(parts))
        text = " ".join([b.text.strip() for b in lead] + [text])
        parts = lead + parts
        # (a raised digit on a one-letter word is its power, "M²", "R²": kept, raised; other marks are notes')
        text = _POWER_RE.sub(lambda m: m.group(1) + (m.group(2) or m.group(3)).translate(front._RAISED), text)
        # (a raised ordinal after a number, "4<sup>th</sup> generation", is the word's, kept on the line)
        text = _ORDINAL_MARK_RE.sub(r"\1", text)
        md.abstract = _drop_line_numbers(compose_accents(re.sub(r"\[\^[^\]]+\]|<sup>[^<]+</sup>", "", text)))
        for p in parts:
            if p in front_blocks_:
                p.attrs["front"] = "abstract"
    # arXiv stamp
    stamp_text = "\n".join(b.text for b in blocks if b.attrs.get("furniture") == "arxiv_stamp")
    if not stamp_text:
        # an OCR engine's page header, left out by the source reader, may be arXiv's margin stamp
        stamp_text = "\n".join([r["text"] for r in stream.removed if r["page"] == first_page
                                 and r["reason"] in ("page-header", "page-footer")] + [first_text])
    m = ARXIV_RE.search(stamp_text)
    if m:
        md.arxiv_id = m.group(1)
        if m.group(2):
            md.categories = [m.group(2)]
        md.date = _iso_date(m.group(3))
    if not md.date:
        created = str(stream.info.get("CreationDate", ""))
        mm = re.match(r"D:(\d{4})(\d{2})(\d{2})", created)
        if mm and md.arxiv_id is None:
            md.date = f"{mm.group(1)}-{mm.group(2)}-{mm.group(3)}"
    m = DOI_RE.search(first_text) if "10." in first_text else None
    if m:
        md.doi = m.group(1)
    # URLs of the text and captions in one scan: no URL holds a line break, so joining the
    # texts by one finds the same URLs in the same order
    texts = []
    for b in blocks:
        attrs = b.attrs
        if attrs.get("bibliography") or b.kind is Kind.REFERENCE:
            continue
        texts.append(b.text)
        if attrs.get("caption"):
            texts.append(attrs["caption"])
    joined = "\n".join(texts)
    # (dict: first-seen order without a list's quadratic `in`)
    md.urls = list(dict.fromkeys(URL_RE.findall(joined))) if "http" in joined else []


def _broken_start(blocks: list[Block], first: Block) -> list[Block]:
    """The paragraphs an abstract's opening lines were broken off into, where ``first`` (the
    abstract found) opens mid-sentence: a glyph taller than its line (a radical sign, a raised
    exponent) can split a paragraph at each line it touches. They are the paragraphs right above
    it, between the same left and right edges (full lines of one justified paragraph), none ending
    a sentence, the first of them opening with a capital; none where any of that fails."""
    if first not in blocks or first.bbox is None:
        return []
    i = blocks.index(first)
    lead: list[Block] = []
    cur = first
    while i > 0:
        b = blocks[i - 1]
        if b.kind is not Kind.PARAGRAPH or b.attrs.get("front") or b.page != first.page or b.bbox is None \
                or re.search(r"[.!?:]\s*$", b.text) or abs(b.bbox[0] - cur.bbox[0]) > 2 \
                or abs(b.bbox[2] - cur.bbox[2]) > 2 or not -(b.bbox[3] - b.bbox[1]) <= cur.bbox[1] - b.bbox[3] \
                < b.bbox[3] - b.bbox[1]:
            break
        lead.insert(0, b)
        cur = b
        i -= 1
    return lead if lead and lead[0].text[:1].isupper() else []


# a raised ordinal's letters after a number, as the block text writes them ("4<sup>th</sup>", "4[^th]")
_ORDINAL_MARK_RE = re.compile(r"(?<=\d)(?:\[\^|<sup>)(st|nd|rd|th)(?:\]|</sup>)(?!\w)")
_POWER_RE = re.compile(r"(?<![\w.])([A-Z])(?:\[\^(\d)\]|<sup>(\d)</sup>)(?!\w)")
_NOTE_START_RE = re.compile(r"\s*(?:\[\^[^\]]{1,8}\]|\^\S{1,8}\s)")  # "[^1] ...", "^◦ ...": a raised mark first
# a raised mark first, as the block text writes it: "[^1]", "<sup>1</sup>", "^1)" (aip's "1)")
_LEADING_MARK_RE = re.compile(r"\s*(?:\[\^([^\]]{1,8})\]|<sup>([^<]{1,8})</sup>|\^(\w{1,3})\)?)")


def _keyed_affiliations(text: str, marks: set[str]) -> bool:
    """``text`` opens with a raised mark that the byline gives an author, and names an
    institution: the authors' affiliations, not an abstract."""
    m = _LEADING_MARK_RE.match(text)
    if m is None:
        return False
    label = (m.group(1) or m.group(2) or m.group(3)).strip().rstrip(")")
    return label in marks and INSTITUTION_RE.search(text) is not None


_CONTACT_LINE_RE = re.compile(r"^(correspondence|corresponding author|contact|e-?mail)\b", re.I)
_NOT_AZ_RE = re.compile(r"[^a-z]")


def front_blocks(doc: Document) -> list[Block]:
    return [b for b in doc.blocks if b.attrs.get("front")]
