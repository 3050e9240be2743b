"""Slide decks: tell a deck from a paper, and merge a frame's overlay pages into one.

A slide deck (Beamer, PowerPoint, Keynote, Impress export) prints one frame on several pages when it
builds it up step by step (Beamer's ``\\pause``, ``\\item<2->``, ``\\only<2>``): each page repeats
the frame's title and everything shown so far. Read page by page, the title becomes a heading per
page and the text is repeated in document.md and the chunks.

This stage runs before the blocks. In a deck, a page that continues the page before it (most of
that page's lines are on it again) keeps only what it adds: the lines the page before already
showed are taken out of it and counted as removed (``overlay-repeat`` in removed.json). A text an
overlay shows once (``\\only<1>{A}\\only<2>{B}``) is on one page only and stays. Lines that are the
deck's furniture (the same text, digits aside, on many pages: a footline, a page number) stay
on every page, so that the furniture finder still sees them as before.

:func:`is_deck` is the detector; it is deliberately narrow: landscape pages (a paper is portrait)
and either a slide tool named in the PDF's Creator/Producer or few lines a page.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter

from ctxmill.compile import conservation
from ctxmill.compile.headings import roman_value
from ctxmill.compile.options import CompileOptions
from ctxmill.model import BBox, Block, Document, Kind, Line, Page, PageStream

_SLIDE_TOOL = re.compile(r"beamer|powerpoint|keynote|impress|google slides", re.I)
_DIGITS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")
LANDSCAPE = 1.15  # width / height of a slide (4:3 is 1.33, 16:10 1.6, 16:9 1.78); A4 landscape is 1.41
FEW_LINES = 25  # median lines a page in a deck without a named tool
FURNITURE_SHARE = 0.25  # a text (digits masked) on this share of the pages is furniture, as in normalize
TITLE_BAND = 0.2  # a frame's title stands in the top fifth of the page
SLIDE_TITLE_CHARS = 120  # ... and is one short line
SECTION_SLIDE_WORDS = 10  # a section slide holds one short line and nothing else
FRAME_STRETCH = 0.6  # ... unless it stands on fewer consecutive pages than this share (one frame's builds)
_TEXTLESS = (Kind.FIGURE, Kind.TABLE, Kind.EQUATION, Kind.CODE)  # content a slide may hold without text
NAV_SHARE = 0.25  # a head bar's link slot showing a text on this share of the pages is navigation
NAV_SLOT = 2.0  # points: one slot's link box moves no more than this from page to page
CONTENTS_LINKS = 3  # a page with this many linked entries in its body is a contents frame
CONTENTS_COLUMN = 40.0  # points: entries whose text starts further apart than this stand in two columns
CONTENTS_INDENT = 1.5  # points: entries starting within this of each other are one level
FOOT_BAND = 0.1  # a foot line's links (the current section, the navigation symbols) stand in the bottom tenth


def _key(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _plain(text: str) -> str:
    """A title as compared with a contents entry: its words, without a leading section number."""
    return re.sub(r"^\d+(\.\d+)*\s+", "", _key(text)).replace("\u2019", "'").casefold()


def _same_list_name(a: str, b: str) -> bool:
    """Two bibliography titles of one name, a frame's count aside ("References" / "References II")."""
    def name(t: str) -> str:
        return re.sub(r"\s+(?:[ivx]{1,4}|\d{1,2})$", "", _plain(t).strip(" .:")).replace(" ", "")
    return name(a) == name(b)


def _masked(text: str) -> str:
    return _DIGITS.sub("#", _key(text))


def is_deck(stream: PageStream) -> bool:
    """A PDF of slides: at least 3 pages, at least 80% of them landscape, and its Creator/Producer
    names a slide tool or its pages hold few lines (median <= FEW_LINES)."""
    if stream.kind != "pdf" or len(stream.pages) < 3:
        return False
    wide = sum(1 for p in stream.pages if p.height > 0 and p.width >= LANDSCAPE * p.height)
    if wide < 0.8 * len(stream.pages):
        return False
    info = stream.info or {}
    tool = " ".join(str(info.get(k, "")) for k in ("Creator", "Producer"))
    if _SLIDE_TOOL.search(tool):
        return True
    return statistics.median(len(p.lines) for p in stream.pages) <= FEW_LINES


def furniture_texts(pages: list[Page]) -> set[str]:
    """Masked line texts found on at least a quarter of the pages (and on 3 or more), unless those
    pages are one stretch of consecutive pages covering less than FRAME_STRETCH of the deck: that is
    one frame built over several pages (its title), not the deck's furniture."""
    where: dict[str, list[int]] = {}
    for i, p in enumerate(pages):
        for t in {_masked(ln.text) for ln in p.lines if ln.text.strip()}:
            where.setdefault(t, []).append(i)
    least = max(3, FURNITURE_SHARE * len(pages))
    return {t for t, at in where.items() if len(at) >= least
            and (at[-1] - at[0] + 1 > len(at) or len(at) >= FRAME_STRETCH * len(pages))}


def _body(page: Page, furniture: set[str]) -> list[Line]:
    return [ln for ln in page.lines if ln.text.strip() and _masked(ln.text) not in furniture]


def drawn(box: BBox, height: float) -> bool:
    """A line or block drawn on the page: its middle lies on it. A build's lines not shown yet are
    drawn far outside the page; a title set flush with the top edge (Jambro's frame title) has its
    line box start a point or two above it, and is shown."""
    return 0 <= (box[1] + box[3]) / 2 < height


def _top(page: Page, lines: list[Line]) -> str | None:
    """The topmost line drawn on the page (a build's hidden lines are drawn far outside it)."""
    inside = [ln for ln in lines if ln.bbox is not None and drawn(ln.bbox, page.height)
              and ln.bbox[0] < page.width and ln.bbox[2] > 0]
    return _key(min(inside, key=lambda ln: (ln.bbox[1], ln.bbox[0])).text) if inside else None


def frame_title(page: Page, body: float) -> Line | None:
    """The line that reads as a frame's title, for the blocks stage: the topmost line drawn on the
    page, in its top fifth, set larger than the body (as :func:`outline` asks of a title block). A
    picture may run under it (a full-page screenshot, a background photo): it is still the title,
    not a label drawn inside the picture."""
    inside = [ln for ln in page.lines if ln.bbox is not None and ln.spans and ln.text.strip()
              and drawn(ln.bbox, page.height) and ln.bbox[0] < page.width and ln.bbox[2] > 0]
    if not inside:
        return None
    top = min(inside, key=lambda ln: (ln.bbox[1], ln.bbox[0]))
    if top.bbox[1] < TITLE_BAND * page.height and len(top.text) <= SLIDE_TITLE_CHARS \
            and max(s.size for s in top.spans) > body + 0.5:
        return top
    return None


def in_bar(box: BBox | None, bar: list[BBox] | tuple) -> bool:
    """A line or block whose centre lies in one of the head bar's link boxes: the bar's own text."""
    if box is None:
        return False
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(b[0] - 1 <= cx <= b[2] + 1 and b[1] - 1 <= cy <= b[3] + 1 for b in bar)


def _in_span(box: BBox | None, bar: list[BBox] | tuple) -> bool:
    """A block lying within the head bar's extent (all its link boxes together): the bar's line of
    section names, read as one block across the gaps between its links."""
    if box is None or not bar:
        return False
    return min(b[0] for b in bar) - 1 <= box[0] and min(b[1] for b in bar) - 1 <= box[1] \
        and box[2] <= max(b[2] for b in bar) + 1 and box[3] <= max(b[3] for b in bar) + 1


def bar_bottom(bar: list[BBox] | tuple) -> float:
    """Where the head bar ends: a frame's title band starts under it (Warsaw's bar is 46 pt high)."""
    return max((b[3] for b in bar), default=0.0)


_CONTINUED = re.compile(r"^(.*\S)\s+([IVXLC]+|[ivxlc]+)$")


def _continued(title: str) -> tuple[str, int] | None:
    """``Complete Sources II`` -> ("Complete Sources", 2): Beamer's title on an ``allowframebreaks``
    frame's pages carries the continuation's Roman numeral (a well-formed one: headings.roman_value)."""
    m = _CONTINUED.match(title)
    value = roman_value(m.group(2).upper()) if m else None
    return (m.group(1), value) if value else None


def navigation(pages: list[Page]) -> tuple[dict[int, list[tuple[int, str]]], dict[int, list[BBox]]]:
    """The deck's head bar, read from its links: -> ({destination page: [(level, text)]}, {page: [link box]}).

    Themes that print the sections (Berlin, Warsaw, Frankfurt, miniframes) or the current section's
    name (a university theme) in a head bar make each name an internal link to the section's first
    page: the deck says itself where each section starts, though it prints no section slide. A link
    in the top fifth whose box holds text is an entry; its slot (its box's place, within NAV_SLOT)
    is navigation when it shows a linked text on at least a quarter of the pages (and on 3): one
    page's links (a contents frame) are not. Levels: a slot showing one text on every page names a
    section, a slot whose text changes (the current subsection) the level under it, or the top
    level where no slot is constant. Where every slot is constant and they stand in two aligned
    groups (one row, one column) of which one's destinations are all among the other's (a
    section starts where its first subsection does: Warsaw's split bar), that one is the upper."""
    numbers = {p.number for p in pages}
    slots: list[tuple[BBox, list[tuple[int, str, int, BBox]]]] = []  # (first box, [(page, text, dest, box)])
    for p in pages:
        spans = [sp for ln in p.lines for sp in ln.spans if sp.bbox is not None and sp.text.strip()]
        for lk in p.links:
            if lk.uri is not None or lk.dest_page not in numbers or not 0 <= lk.bbox[1] < TITLE_BAND * p.height:
                continue
            x0, y0, x1, y1 = lk.bbox
            text = _key(" ".join(sp.text for sp in spans if x0 <= (sp.bbox[0] + sp.bbox[2]) / 2 <= x1
                                 and y0 <= (sp.bbox[1] + sp.bbox[3]) / 2 <= y1))
            if not text:
                continue  # a mini-frame's dot
            at = next((s for s in slots if abs(s[0][0] - x0) <= NAV_SLOT and abs(s[0][1] - y0) <= NAV_SLOT), None)
            if at is None:
                at = (lk.bbox, [])
                slots.append(at)
            at[1].append((p.number, text, lk.dest_page, lk.bbox))
    least = max(3, NAV_SHARE * len(pages))
    kept = [s for s in slots if len({e[0] for e in s[1]}) >= least]
    if not kept:
        return {}, {}
    const = [s for s in kept if len({e[1] for e in s[1]}) == 1]
    level = {id(s): 1 if s in const or len(const) == 0 else 2 for s in kept}
    if len(const) == len(kept) > 1:
        groups: list[list] = []
        for s in kept:  # aligned: the same row or the same column (union of the groups it touches)
            near = [g for g in groups if any(abs(t[0][0] - s[0][0]) <= NAV_SLOT or abs(t[0][1] - s[0][1]) <= NAV_SLOT
                                             for t in g)]
            merged = [s] + [t for g in near for t in g]
            groups = [g for g in groups if g not in near] + [merged]
        if len(groups) == 2:
            dests = [{e[2] for t in g for e in t[1]} for g in groups]
            for upper, lower in ((0, 1), (1, 0)):
                if dests[upper] < dests[lower]:
                    for t in groups[lower]:
                        level[id(t)] = 2
    heads: dict[int, list[tuple[int, str]]] = {}
    boxes: dict[int, list[BBox]] = {}
    for s in kept:
        for page, text, dest, box in s[1]:
            boxes.setdefault(page, []).append(box)
            if (level[id(s)], text) not in heads.setdefault(dest, []):
                heads[dest].append((level[id(s)], text))
    return {d: sorted(v, key=lambda e: e[0]) for d, v in heads.items()}, boxes


def contents(pages: list[Page]) -> dict[int, list[tuple[int, str]]]:
    """The deck's contents frames, read from their links: -> {destination page: [(level, text)]}.

    Beamer's ``\\tableofcontents`` makes each entry an internal link to the page where its section
    or subsection starts; a theme that prints its sections nowhere else (Boadilla, the
    ``\\AtBeginSection`` outline frame) or in a side bar says so only there. A page with at least
    CONTENTS_LINKS such links in its body (not in the head's title band, not in the foot's tenth)
    whose boxes hold text is a contents frame. An entry is its link's text (a wrapped entry's next
    line, linked again to the same page at the same indent, joins it); its level is the rank of its
    indent in its column. Over all contents frames, each (destination, level) keeps the text it
    shows most often (a side bar adds the frame number to the current section: ``Kapitel  2``)."""
    numbers = {p.number for p in pages}
    shown: dict[tuple[int, int], Counter] = {}
    for p in pages:
        spans = [sp for ln in p.lines for sp in ln.spans if sp.bbox is not None and sp.text.strip()]
        entries: list[list] = []  # [x0 of its text, y0, destination, text]
        for lk in p.links:
            x0, y0, x1, y1 = lk.bbox
            if lk.uri is not None or lk.dest_page not in numbers or y0 < TITLE_BAND * p.height \
                    or y1 > (1 - FOOT_BAND) * p.height:
                continue
            inside = [sp for sp in spans if x0 <= (sp.bbox[0] + sp.bbox[2]) / 2 <= x1
                      and y0 <= (sp.bbox[1] + sp.bbox[3]) / 2 <= y1]
            text = _key(" ".join(sp.text for sp in inside))
            if not text:
                continue
            left = min(sp.bbox[0] for sp in inside)
            last = entries[-1] if entries else None
            if last is not None and last[2] == lk.dest_page and abs(last[0] - left) <= CONTENTS_INDENT \
                    and 0 < y0 - last[1] <= 2 * (y1 - y0):
                last[1], last[3] = y0, last[3] + " " + text  # a wrapped entry's next line
                continue
            entries.append([left, y0, lk.dest_page, text])
        if len(entries) < CONTENTS_LINKS:
            continue
        if len({e[2] for e in entries}) == 1:
            # every entry links to one page (sections all declared before the first frame: the PDF's
            # bookmarks and the contents' links all point at it): the frame says nothing of where they start
            continue
        columns: list[list[float]] = []  # each column's indents, left to right
        for x in sorted(e[0] for e in entries):
            if not columns or x - columns[-1][0] > CONTENTS_COLUMN:
                columns.append([x])
            elif x - columns[-1][-1] > CONTENTS_INDENT:
                columns[-1].append(x)
        for x, _, dest, text in entries:
            col = next(c for c in reversed(columns) if x >= c[0] - CONTENTS_INDENT)
            level = 1 + max(k for k, at in enumerate(col) if x >= at - CONTENTS_INDENT)
            shown.setdefault((dest, level), Counter())[text] += 1
    found: dict[int, list[tuple[int, str]]] = {}
    for (dest, level), texts in sorted(shown.items()):
        found.setdefault(dest, []).append((level, texts.most_common(1)[0][0]))
    return found


_OF_TOTAL = re.compile(r"(\d+)\s*/\s*(\d+)")
_TRAILING = re.compile(r"(\d+)\s*$")
COUNTER_BAND = 0.2  # a frame counter stands in the foot or the head of the page


def printed_numbers(pages: list[Page], furniture: set[str]) -> list[tuple[int, int] | int | None]:
    """The number each page prints in its head or foot: the ``(n, N)`` of an ``n / N``, or else the
    number a furniture line there ends with, or None."""
    found: list[tuple[int, int] | int | None] = []
    for p in pages:
        band = [ln for ln in p.lines if ln.bbox is not None and ln.text.strip()
                and (ln.bbox[1] >= (1 - COUNTER_BAND) * p.height or ln.bbox[3] <= COUNTER_BAND * p.height)]
        band.sort(key=lambda ln: (ln.bbox[1], ln.bbox[0]))
        of = [(int(m.group(1)), int(m.group(2))) for ln in band for m in _OF_TOTAL.finditer(ln.text)]
        if of:
            found.append(of[-1])
            continue
        ends = [int(m.group(1)) for ln in band if _masked(ln.text) in furniture
                for m in [_TRAILING.search(ln.text)] if m]
        found.append(ends[-1] if ends else None)
    return found


def frame_counter(pages: list[Page], furniture: set[str]) -> list[int | None] | None:
    """The frame number each page prints (Beamer's ``\\insertframenumber``: the same on every build
    of a frame, one more on the next frame), or None where the deck prints no such counter.

    A page's number is the ``n`` of an ``n / N`` in its head or foot (N the same on every page), or
    else the number a furniture line there ends with (``Seite 3``, a bare ``15``). It is a frame
    counter when it stands on at least half of the pages, never falls from one page to the next,
    never rises by more than the pages between, and some page repeats the number of the page
    before (a page counter rises on every page: it tells nothing of builds)."""
    found = printed_numbers(pages, furniture)
    totals = {f[1] for f in found if isinstance(f, tuple)}
    if len(totals) == 1:
        total = totals.pop()
        numbers = [f[0] if isinstance(f, tuple) and f[1] == total else None for f in found]
    elif not totals:
        numbers = [f if isinstance(f, int) else None for f in found]
    else:
        return None
    at = [(i, n) for i, n in enumerate(numbers) if n is not None]
    if len(at) * 2 < len(pages) or len(at) < 2:
        return None
    repeat = False
    for (i, a), (j, b) in zip(at, at[1:], strict=False):
        if b < a or b - a > j - i:
            return None
        repeat = repeat or (j == i + 1 and a == b)
    return numbers if repeat else None


def _title_line(page: Page, lines: list[Line]) -> str | None:
    """The largest line drawn in the page's top fifth (the topmost of those): the frame's title, though
    a head bar's smaller print (Berlin's subsection line, a navigation bar) stands above it."""
    band = [ln for ln in lines if ln.bbox is not None and ln.spans and drawn(ln.bbox, page.height)
            and ln.bbox[1] < TITLE_BAND * page.height
            and ln.bbox[0] < page.width and ln.bbox[2] > 0]
    if not band:
        return None
    big = max(max(s.size for s in ln.spans) for ln in band)
    return _key(min((ln for ln in band if max(s.size for s in ln.spans) >= big - 0.5),
                    key=lambda ln: (ln.bbox[1], ln.bbox[0])).text)


def _title_size(page: Page, lines: list[Line], title: str) -> float:
    """The largest size the page's title line (:func:`_title_line`) is set in."""
    return max((sp.size for ln in lines if ln.spans and _key(ln.text) == title for sp in ln.spans), default=0.0)


def continues(before: list[Line], after: list[Line], top_before: str | None, top_after: str | None,
              counters: tuple[int | None, int | None] | None = None,
              titles: tuple[str | None, str | None] = (None, None), titled: bool = False) -> bool:
    """Page ``after`` is an overlay build of page ``before``: both open with the same topmost line
    (the frame's title; two frames that share a body under two titles are two frames) and at least
    half of ``before``'s lines are on it again. Where the deck prints a frame counter
    (:func:`frame_counter`) on both pages, it decides: the same number is the same frame, whatever
    the build shows (``\\only`` may replace all but the title), another number another frame, though
    it holds the same title and picture (``titles``, :func:`_title_line`). Elsewhere (no counter,
    or a page without one) the lines shared decide, as before, or the title: ``titled`` says both
    pages open with one frame title set larger than the deck's body in a deck that prints no number
    on its pages (:func:`merge_overlays`): such a deck builds a frame by ``\\only`` replacements under
    its one title (one build shows a formula and its verdict, the next another formula and another
    verdict), sharing nothing else, and nothing but the title tells its frames apart."""
    if not before or not after or top_before is None:
        return False
    if counters is not None and None not in counters:
        head = (titles[0] or top_before, titles[1] or top_after)
        return head[0] == head[1] and counters[0] == counters[1]
    if top_before != top_after:
        return False
    if titled and counters is None:
        return True
    have = Counter(_key(ln.text) for ln in after)
    shared = sum((Counter(_key(ln.text) for ln in before) & have).values())
    # the title alone shared is no build of a page that held more (a picture frame and the next
    # frame under one title), only of a page that held nothing else (a section slide)
    return shared * 2 >= len(before) and (shared >= 2 or len(before) == 1)


def _pictures(page: Page) -> list[tuple[int, ...]]:
    """A page's pictures as their boxes, to the point."""
    return sorted(tuple(round(v) for v in box) for box in page.images)


def merge_overlays(doc: Document) -> int:
    """Take out of each overlay page the lines the page before it showed; returns the pages changed."""
    pages = doc.stream.pages
    furniture = furniture_texts(pages)
    numbers = frame_counter(pages, furniture)
    # the deck's body size: the size most of its characters are set in (a frame title stands larger)
    sizes = Counter()
    for p in pages:
        for ln in p.lines:
            for sp in ln.spans:
                sizes[round(sp.size, 1)] += len(sp.text.strip())
    body_size = sizes.most_common(1)[0][0] if sizes else 0.0
    # a deck that prints no number on most pages (no frame counter, no page counter) tells its frames
    # apart by their titles only; one that numbers its pages, though every page a new number, may
    # hold two frames under one title (a theme's `n / N`: two listings under one title are two frames)
    bare = sum(n is not None for n in printed_numbers(pages, furniture)) * 2 < len(pages)
    # a deck not made by TeX (Marp, a browser's print) has no builds of a picture: two pages under one title
    # that hold nothing else but two different pictures are two slides (Beamer's \includegraphics<2> builds one)
    info = doc.stream.info or {}
    tex = re.search(r"tex|beamer", " ".join(str(info.get(k, "")) for k in ("Creator", "Producer")), re.I)
    changed = 0
    prev_body: list[Line] = []  # the page before's own lines, as printed
    frame_shown: list[Line] = []  # every line its frame showed so far
    prev_top: str | None = None
    prev_title: str | None = None
    prev_big = False
    for i, page in enumerate(pages):
        body = _body(page, furniture)
        top = _top(page, body)
        counters = None if numbers is None else (numbers[i - 1] if i else None, numbers[i])
        # (compared with the page before as printed: a frame whose \only text is replaced build
        # after build shows more and more in all, and a later build shares under half of that)
        title = _title_line(page, body)
        # (both pages open with one title, the topmost line, set larger than the body)
        titled = bare and title is not None and title == top == prev_title == prev_top \
            and _title_size(page, body, title) > body_size + 0.5
        # a page whose title band holds a frame title (set larger than the body) where the page before held
        # none (a section page: its name stands lower, the head bar's small print above) opens a frame:
        # a build repeats its frame's title
        big = any(sp.size > body_size + 0.5 for ln in body if ln.bbox is not None and drawn(ln.bbox, page.height)
                  and ln.bbox[1] < TITLE_BAND * page.height for sp in ln.spans)
        opens = big and i > 0 and not prev_big
        if not tex and i > 0 and len(prev_body) == 1 and page.images and pages[i - 1].images \
                and _pictures(page) != _pictures(pages[i - 1]):
            opens = True
        by_lines = not opens and continues(prev_body, body, prev_top, top, counters, (prev_title, title))
        by_title = not opens and not by_lines \
            and continues(prev_body, body, prev_top, top, counters, (prev_title, title), titled)
        if by_lines or by_title:
            # a build told by its title alone replaced the frame's body (\only): only its repeated title
            # goes; a line it shares with an earlier build stays where it stands (a
            # variable's name over a new formula), so every build reads as it printed
            shown = Counter([title]) if by_title else Counter(_key(ln.text) for ln in frame_shown)
            before = [ln.text for ln in page.lines]
            kept: list[Line] = []
            for ln in page.lines:
                k = _key(ln.text)
                if shown[k] > 0 and _masked(ln.text) not in furniture:
                    shown[k] -= 1
                    continue
                kept.append(ln)
            page.lines = kept
            conservation.note_dropped(doc, page.number, "overlay-repeat", before, kept)
            doc.attrs.setdefault("_overlay_pages", []).append(page.number)
            changed += 1
            # what the frame showed so far: the lines a later build repeats from any earlier one go
            frame_shown = frame_shown + _body(page, furniture)
        else:
            frame_shown = body
        prev_body, prev_top, prev_title, prev_big = body, top, title, big
    return changed


def run(doc: Document, options: CompileOptions) -> None:
    if is_deck(doc.stream):
        doc.attrs["slide_deck"] = True
        # (read before the builds are merged: a build's page keeps its bar, but not its other lines)
        doc.attrs["_nav"], doc.attrs["_nav_boxes"] = navigation(doc.stream.pages)
        doc.attrs["_contents"] = contents(doc.stream.pages)
        doc.attrs["overlay_pages"] = merge_overlays(doc)


_WORD = re.compile(r"[\"'(\[«“‘]*([^\W\d_]+(?:[-'’][^\W\d_]+)*)[\"')\].,:;!?»”’]*")
WORDS_SHARE = 2 / 3  # of a line's tokens, to read as words


def reads_as_words(text: str) -> bool:
    """A line read by OCR that reads as words: at least two thirds of its tokens are words (letters
    only, punctuation at their ends, brackets paired in the line, set in lower case, Title case or
    upper case). OCR of a picture or of a page in a script the engine's model does not know gives
    tokens with digits, brackets and signs inside them and letters in mixed case ('Meli=mal',
    'laa)', 'AbIe')."""
    tokens = text.split()
    # (brackets that do not pair in the line are no punctuation: 'laa)' is no word, '(en bref)' two)
    paired = all(text.count(a) == text.count(b) for a, b in ("()", "[]"))
    words = 0
    for t in tokens:
        m = _WORD.fullmatch(t) if paired or not any(c in t for c in "()[]") else None
        w = m.group(1) if m else ""
        words += bool(w) and (w.islower() or w.isupper() or w.istitle())
    return bool(tokens) and words >= WORDS_SHARE * len(tokens)


def _named(text: str) -> str:
    """A title as compared with an outline entry: its letters and digits, without a section number."""
    return re.sub(r"\W+", "", _plain(text.replace("\u2026", "...")))


def _bookmarked(doc: Document, blocks: list[Block], pages: dict[int, list[Block]], head: dict[int, Block],
                slide: dict[int, int], builds: set[int], sizes: dict[int, tuple[float, float]], body: float,
                read: set[int]) -> None:
    """Frame titles where the PDF's outline names the deck's frames (Typst writes a bookmark for each
    slide's heading, at its first page): the outline says which line of a page is its title and
    where a frame starts. Read so only where it names frames: on at least half of the frame pages it
    points to (and 3), a line set larger than the body reads as its entry (an outline of sections,
    Beamer's, points to frames under other titles, or to section slides). Then a page
    without a title, or whose top line the outline does not name, has for its title the line the
    outline names there (a slide whose heading stands under a small label line); a frame continued
    on the next page under the same title (a title the outline names on the page before, not on
    this one) is one frame, one heading; and a page read by OCR whose title the outline names but
    no line prints (a picture of text) gets the outline's title. A page taken for a build of the page
    before (slides.merge_overlays: it repeats that page's one line, a label) whose title the outline
    names starts a frame. ``read``: the pages an OCR engine read."""
    # (a page the head bar or a contents frame links to starts a section: its entry names the section)
    linked = set(doc.attrs.get("_nav") or {}) | set(doc.attrs.get("_contents") or {})
    marks: dict[int, set[str]] = {}  # page -> the titles the outline names there
    named: dict[int, list[str]] = {}
    for e in doc.stream.outline:
        if e.page is not None and (key := _named(e.title)):
            marks.setdefault(e.page, set()).add(key)
            if e.page in pages and e.page not in slide and e.page not in linked:
                named.setdefault(e.page, []).append(e.title)
    found: dict[int, Block] = {}  # page -> the line the outline names there, set larger than the body
    for n in named:
        keys = marks[n]  # (every entry of a page in ``named`` is in ``marks`` too)
        h = sizes.get(n, (0.0, 0.0))[1]
        match = [b for b in pages[n] if b.kind in (Kind.PARAGRAPH, Kind.HEADING) and b.bbox is not None
                 and drawn(b.bbox, h) and (b.attrs.get("_size") or 0) > body + 0.5 and _named(b.text) in keys]
        if match:
            found[n] = min(match, key=lambda b: (b.bbox[1], b.bbox[0]))
    if len(found) < max(3, len(named) / 2):
        return
    for n, titles in named.items():
        if n in head and _named(head[n].text) in marks[n]:
            continue
        if n in found:
            head[n] = found[n]
        elif n in read and n not in builds and len(titles) == 1:
            at = next((i for i, b in enumerate(blocks) if b.page >= n), len(blocks))
            made = Block(Kind.PARAGRAPH, _key(titles[0]), n)
            blocks.insert(at, made)
            pages[n].insert(0, made)
            head[n] = made
    prev: tuple[int, str] | None = None  # the page of the frame title before, and its title
    for n in sorted(head):
        key = _named(head[n].text)
        if n in slide:
            prev = None
            continue
        if prev is not None and n - prev[0] == 1 + sum(1 for k in range(prev[0] + 1, n) if k in builds) \
                and key == prev[1] and key not in marks.get(n, set()):
            del head[n]  # (its line stays the page's text)
        prev = (n, key)


def _subheads(pages: dict[int, list[Block]], head: dict[int, Block], slide: dict[int, int],
              body: float) -> list[Block]:
    """A slide's own sub-heads (Markdown slides' '####' under the slide's '###' title): lines the blocks
    stage read as headings, one line each, under a frame's title and set in a size between the title's
    and the body's. Read so only where the deck sets nothing else in that size: two or more such lines,
    and no line of text in it (a list or a table's head set larger than the body is text)."""
    found: list[Block] = []
    for n, t in head.items():
        if n in slide or t.bbox is None:
            continue
        for b in pages.get(n, []):
            if b is not t and b.kind is Kind.HEADING and b.bbox is not None and b.bbox[1] > t.bbox[1] \
                    and b.attrs.get("_nlines", 1) == 1 and len(b.text) <= SLIDE_TITLE_CHARS \
                    and body + 0.5 < _size(b) < _size(t) - 0.5 and not b.text.rstrip().endswith(("?", "!")):
                found.append(b)
    chosen = {id(b) for b in found}
    sizes = {_size(b) for b in found}
    kept = []
    for z in sizes:
        alike = [b for bs in pages.values() for b in bs if abs(_size(b) - z) <= 0.3 and b.text.strip()]
        if len(alike) >= 2 and all(id(b) in chosen for b in alike):
            kept.extend(alike)
    return kept


TITLE_STEP = 1.15  # a deck's frame title sizes, as levels, stand at least this ratio apart


def _sized(pages: dict[int, list[Block]], head: dict[int, Block], frame_level: int) -> dict[int, int]:
    """Frame title levels from their sizes, where a deck sets its frames' titles in several sizes
    (Markdown slides: remark.js and xaringan print a slide's '#', '##' and '###' titles in three
    sizes): -> {id(title block): level}. A title size is one that titles two frames or more and
    that most lines set in it are titles of; read as levels where there are two or more, each at
    least TITLE_STEP times the next (a title shrunk to fit its line is no level), the largest at
    ``frame_level``. A frame's top line in a size most lines of the deck's text are set in (a bold
    line opening a slide's text) goes one level under the deepest. Elsewhere nothing changes: one
    size, sizes that do not read as levels, or a title in a size of its own."""
    heads = {id(b) for b in head.values()}
    size = {n: round(b.attrs.get("_size") or 0, 1) for n, b in head.items()}
    count = Counter(size.values())
    text = Counter(round(b.attrs.get("_size") or 0, 1) for bs in pages.values() for b in bs if id(b) not in heads)
    classes = sorted((z for z, k in count.items() if k >= 2 and z > 0 and k >= text[z]), reverse=True)
    if len(classes) < 2 or any(a < TITLE_STEP * b for a, b in zip(classes, classes[1:], strict=False)):
        return {}
    if any(z not in classes and text[z] < 2 * count[z] for z in size.values()):
        return {}
    return {id(head[n]): frame_level + (classes.index(z) if z in classes else len(classes)) for n, z in size.items()}


_BAR = re.compile(r"(.*\S)\s*\|\s*(\S.*)")


def _subtitled(blocks: list[Block], pages: dict[int, list[Block]], head: dict[int, Block],
               slide: dict[int, int]) -> None:
    """Frame titles printed as ``subtitle | title`` on one line (a theme's ``\\insertframesubtitle
    \\hfill | \\insertframetitle``): the part after the bar is the frame's title, the part before it
    its subtitle, kept as the frame's first line of text. The \\hfill may split the line in two
    blocks, the second opening with the bar. Read so only where the deck says which side is the
    title: two or more frames print such a line, and one title stands over two of them with two
    different subtitles (consecutive frames of one title, each with its own subtitle); a frame's
    title with a bar in it elsewhere stays as it is."""
    found: dict[int, tuple[str, str, Block | None]] = {}
    for n, b in head.items():
        if n in slide or b.bbox is None:
            continue
        text = " ".join(b.text.split())
        m = _BAR.fullmatch(text)
        if m and "|" not in m.group(1) + m.group(2):
            found[n] = (m.group(1), m.group(2), None)
            continue
        right = [o for o in pages.get(n, []) if o is not b and o.bbox is not None and o.kind is Kind.PARAGRAPH
                 and abs(o.bbox[1] - b.bbox[1]) <= 2 and abs(o.bbox[3] - b.bbox[3]) <= 2
                 and o.text.lstrip().startswith("|")]
        rest = " ".join(right[0].text.lstrip()[1:].split()) if len(right) == 1 else ""
        if rest and "|" not in text + rest:
            found[n] = (text, rest, right[0])
    subtitles: dict[str, set[str]] = {}
    for sub, title, _ in found.values():
        subtitles.setdefault(title, set()).add(sub)
    if len(found) < 2 or not any(len(v) >= 2 for v in subtitles.values()):
        return
    for n, (sub, title, right) in found.items():
        b = head[n]
        b.text = title
        if right is not None:  # (the title's own block keeps its place, before the frame's text)
            right.text = sub
        else:
            blocks.insert(blocks.index(b) + 1, Block(Kind.PARAGRAPH, sub, n, bbox=b.bbox))


FRAME_ALIKE = 2.0  # points: a frame title stands where the others do, within this
_COUNTED = re.compile(r"\S.*?\s(\d+)\s*/\s*(\d+)")  # 'Method 7/14': a text and the frame counter's n / N


def _counter_lines(blocks: list[Block]) -> None:
    """A head or foot line that names the current section beside the frame counter ('Introduction 3/14')
    is furniture where normalize saw it on enough pages to call it a running head; the same line of a
    section on too few pages ('Method 7/14' on two) stays text, and a section slide under it then holds
    two lines. Such a line is furniture too: it stands where the furniture's counter lines stand (within
    FRAME_ALIKE), in their size, and ends with the counter out of the same total."""
    kinds = {"running_header", "running_footer", "page_number"}
    seen = [(b.bbox, b.attrs.get("_size"), int(m.group(2)), b.attrs["furniture"]) for b in blocks
            if b.kind is Kind.FURNITURE and b.attrs.get("furniture") in kinds and b.bbox is not None
            for m in [_COUNTED.fullmatch(_key(b.text))] if m]
    if len(seen) < 2:
        return
    for b in blocks:
        m = _COUNTED.fullmatch(_key(b.text)) if b.kind is Kind.PARAGRAPH and b.bbox is not None else None
        if m is None:
            continue
        like = next((k for box, size, total, k in seen if total == int(m.group(2)) and size == b.attrs.get("_size")
                     and all(abs(box[i] - b.bbox[i]) <= FRAME_ALIKE for i in (1, 3))), None)
        if like is not None:
            b.kind, b.level = Kind.FURNITURE, None
            b.attrs["furniture"] = like


def _opens_as_frame(blocks: list[Block], first: int, sizes: dict[int, tuple[float, float]], body: float,
                    builds: set[int]) -> Block | None:
    """The first page's title block where the deck has no title page: that page is a frame like the
    others (a handout that opens on its first frame), its largest line a frame title set where and as
    the others are. So read when the title block stands in the title band, larger than the body, and
    at least half of the other frames (not builds, and at least 2) open with a block at its place
    (within FRAME_ALIKE) in its size: a title page sets its title apart (larger, lower, centred)."""
    title = next((b for b in blocks if b.page == first and b.attrs.get("title") and b.bbox is not None), None)
    size = (title.attrs.get("_size") or 0) if title is not None else 0
    if title is None or title.bbox[1] >= TITLE_BAND * sizes.get(first, (0.0, 0.0))[1] or size <= body + 0.5:
        return None
    tops: dict[int, Block] = {}
    for b in blocks:
        if b.page != first and b.page not in builds and b.kind is not Kind.FURNITURE and b.bbox is not None \
                and b.text.strip() and b.bbox[1] + b.bbox[3] >= 0 \
                and (b.page not in tops or (b.bbox[1], b.bbox[0]) < (tops[b.page].bbox[1], tops[b.page].bbox[0])):
            tops[b.page] = b
    alike = sum(1 for b in tops.values() if abs(b.bbox[0] - title.bbox[0]) <= FRAME_ALIKE
                and abs(b.bbox[1] - title.bbox[1]) <= FRAME_ALIKE and abs((b.attrs.get("_size") or 0) - size) <= 0.5)
    frames = {b.page for b in blocks if b.page != first and b.page not in builds}
    return title if alike >= max(2, len(frames) / 2) else None


def _outline_under_bar(doc: Document, nav: dict[int, list[tuple[int, str]]]) -> dict[int, list[tuple[int, str]]]:
    """The head bar's sections (:func:`navigation`) with the levels under them the PDF's outline
    adds: read so only where the outline's top-level entries are exactly the bar's top-level
    names, each on the page the bar links it to (Beamer writes a bookmark for each section and
    subsection); an entry deeper than the bar's deepest level joins its page's list."""
    top = {(d, _plain(t)) for d, v in nav.items() for lvl, t in v if lvl == 1}
    entries = [e for e in doc.stream.outline if e.page is not None]
    if not entries or not top:
        return nav
    least = min(e.level for e in entries)
    if {(e.page, _plain(e.title)) for e in entries if e.level == least} != top:
        return nav
    deepest = max(lvl for v in nav.values() for lvl, _ in v)
    out = {d: list(v) for d, v in nav.items()}
    for e in entries:
        lvl = 1 + e.level - least
        if lvl > deepest and _key(e.title):
            out.setdefault(e.page, []).append((lvl, _key(e.title)))
    return {d: sorted(v, key=lambda x: x[0]) for d, v in out.items()}


SIZE_ALIKE = 0.5  # points: two lines set in one size
TITLES_ALIKE = 0.5  # of a deck's frame titles, set in one size
LEFT_ALIKE = 2 / 3  # of those, standing at one left edge


def _size(b: Block) -> float:
    return round(b.attrs.get("_size") or 0, 1)


def _title_style(head: dict[int, Block], low: dict[int, Block], slide: dict[int, int]) -> float | None:
    """Frame titles told by the deck's own title style, where its frames' titles (at least 3) are
    set in one size, TITLES_ALIKE of them at least (within SIZE_ALIKE). A page's top block set in
    that size is its title though it stands below the title band (``low``: Slidev centres a slide's content,
    title and all, on the page). Where those titles also stand at one left edge (LEFT_ALIKE of
    them, within FRAME_ALIKE), a top line set smaller than the title size and starting elsewhere
    is the first line of a frame without a title (a list item, a sentence), not its title."""
    frames = {n: b for n, b in head.items() if n not in slide}
    count = Counter(_size(b) for b in frames.values())
    if not count:
        return _centred(head, low)
    size, k = count.most_common(1)[0]
    if k < 3 or k < TITLES_ALIKE * len(frames):
        return None
    alike = [b for b in frames.values() if abs(_size(b) - size) <= SIZE_ALIKE and b.bbox is not None]
    left = Counter(round(b.bbox[0]) for b in alike).most_common(1)[0][0] if alike else None
    if left is not None and sum(abs(b.bbox[0] - left) <= FRAME_ALIKE for b in alike) < LEFT_ALIKE * len(alike):
        left = None
    for n, b in frames.items():
        if left is not None and b.bbox is not None and _size(b) < size - SIZE_ALIKE \
                and abs(b.bbox[0] - left) > FRAME_ALIKE:
            del head[n]
    for n, b in low.items():
        if abs(_size(b) - size) <= SIZE_ALIKE:
            head[n] = b
    return size


def _centred(head: dict[int, Block], low: dict[int, Block]) -> float | None:
    """Frame titles of a deck that centres every slide's content vertically (Marp's themes): no frame has
    its title in the top fifth, but the pages' top blocks (at least 3) are set in one size, TITLES_ALIKE
    of them at least (within SIZE_ALIKE), at one left edge (LEFT_ALIKE of those, within FRAME_ALIKE):
    those are the frames' titles, and that size the deck's title size."""
    count = Counter(_size(b) for b in low.values() if b.bbox is not None)
    if not count:
        return None
    size, k = count.most_common(1)[0]
    if k < 3 or k < TITLES_ALIKE * len(low):
        return None
    alike = {n: b for n, b in low.items() if b.bbox is not None and abs(_size(b) - size) <= SIZE_ALIKE}
    left = Counter(round(b.bbox[0]) for b in alike.values()).most_common(1)[0][0]
    if sum(abs(b.bbox[0] - left) <= FRAME_ALIKE for b in alike.values()) < LEFT_ALIKE * len(alike):
        return None
    for n, b in alike.items():
        if abs(b.bbox[0] - left) <= FRAME_ALIKE:
            head[n] = b
    return size


def _section_slides(ones: dict[int, Block], body: float) -> tuple[set[int], set[int]]:
    """Which one-line pages (not builds) are section slides: -> (section slides, lone pages).

    A theme sets its section slides alike, one per section: a one-line page is a section slide
    where its line is set larger than the body (a list line left alone on a page is no section)
    and at least one other such page is set in its size (within SIZE_ALIKE), no two of that
    size printing the same line. A size whose one-line pages repeat a line (a divider, 'Example',
    printed before each example) sets dividers, none of them a section. A one-line page set
    larger than the body in a size no other one-line page shares is a lone page: set larger than
    the frames' titles, a statement slide (Slidev's and Marp's centred one-liners), a frame whose
    title is that line, at the frames' level (:func:`outline`)."""
    big = sorted((n for n, b in ones.items() if (b.attrs.get("_size") or 0) > body + 0.5),
                 key=lambda n: ones[n].attrs.get("_size") or 0)
    classes: list[list[int]] = []
    for n in big:
        size = ones[n].attrs.get("_size") or 0
        if classes and size - (ones[classes[-1][0]].attrs.get("_size") or 0) <= SIZE_ALIKE:
            classes[-1].append(n)
        else:
            classes.append([n])
    sections: set[int] = set()
    statements: set[int] = set()
    for c in classes:
        texts = Counter(_key(ones[n].text) for n in c)
        if len(c) == 1:
            statements.update(c)
        elif max(texts.values()) == 1:
            sections.update(c)
    return sections, statements


def outline(doc: Document, blocks: list[Block], body: float) -> None:
    """A deck's headings, for structure.py (its blocks before sections are built): a page holding
    one short line and nothing else is a section slide (a second one-line page built on it is a
    subsection slide); on any other page the topmost block, in the top fifth and set larger than
    the body, is the frame's title. A frame's title is one level under the deepest slide level
    used. Every other heading on a deck's page is text: a table of contents' entries, a numbered
    list item. An overlay build's page (slides.merge_overlays) adds to its frame: no title of its
    own, unless it builds a section slide into a subsection slide. A deck with a head bar
    (:func:`navigation`) and no section slide has its sections where the bar's links say they
    start, and its frames' titles under the bar (with the levels under the bar's sections that a
    Beamer outline adds). Section slides are a family (:func:`_section_slides`): a lone one-line
    page is a statement slide, a frame; one whose line repeats through the deck is a divider, text.
    The deck's title size places a title below the top fifth and rules out an untitled frame's
    first line (:func:`_title_style`)."""
    if not doc.attrs.get("slide_deck"):
        return
    nav: dict[int, list[tuple[int, str]]] = doc.attrs.get("_nav") or {}
    bars: dict[int, list[BBox]] = doc.attrs.get("_nav_boxes") or {}
    sizes = {p.number: (p.width, p.height) for p in doc.stream.pages}
    builds = set(doc.attrs.get("_overlay_pages", []))
    first = min((b.page for b in blocks), default=1)
    # a frame title that repeats on many frames (the 'Outline' of each \AtBeginSection frame) is
    # taken for a running head by normalize; on a page where it is the topmost block, in the title
    # band, set larger than the body, and no other block there is, it is that frame's title
    heads = [b for b in blocks if b.kind is Kind.FURNITURE and b.attrs.get("furniture") == "running_header"
             and b.page != first and b.bbox is not None and b.attrs.get("_nlines", 1) == 1]
    for b in heads:
        w, h = sizes.get(b.page, (0.0, 0.0))
        rest = [o for o in blocks if o.page == b.page and o is not b and o.kind is not Kind.FURNITURE
                and o.bbox is not None and drawn(o.bbox, h)]
        if b.bbox[1] < TITLE_BAND * h and len(b.text) <= SLIDE_TITLE_CHARS \
                and (b.attrs.get("_size") or 0) > body + 0.5 \
                and all(o.bbox[1] > b.bbox[1] for o in rest) \
                and not any(o.bbox[1] < TITLE_BAND * h and (o.attrs.get("_size") or 0) > body + 0.5 for o in rest):
            b.kind = Kind.PARAGRAPH
            b.attrs.pop("furniture", None)
    _counter_lines(blocks)
    untitled = _opens_as_frame(blocks, first, sizes, body, builds)
    if untitled is not None:
        # no title page: the first page is a frame like the others, its title one of theirs
        untitled.attrs.pop("title", None)
        untitled.kind, untitled.level = Kind.PARAGRAPH, None
        first = 0
        # (metadata.py reads page 1 on its own: it learns here that no title is printed there)
        doc.attrs["_untitled_deck"] = True
    read = {p.number for p in doc.stream.pages if p.ocr}  # pages whose text an OCR engine read
    pages: dict[int, list[Block]] = {}
    for b in blocks:
        if b.kind is Kind.HEADING and b.page == first and not b.attrs.get("title"):
            # the title page holds one heading, the deck's title: a name set as large under it (the
            # speaker's) is its text
            b.kind, b.level, b.number = Kind.PARAGRAPH, None, None
            b.attrs.pop("_title", None)
        if b.kind is not Kind.FURNITURE and not b.attrs.get("title") and b.page != first:
            pages.setdefault(b.page, []).append(b)
    slide: dict[int, int] = {}  # page -> 2 (section slide) or 3 (subsection slide)
    head: dict[int, Block] = {}  # page -> its slide's line or its frame's title
    ones: dict[int, Block] = {}  # page -> its one line, where it holds nothing else
    low: dict[int, Block] = {}  # page -> its top block, a title but that it stands below the title band
    numbered: dict[int, Block] = {}  # page -> its top block, a numbered list item in the title band
    shown_at: dict[int, list[Block]] = {}  # page -> its blocks drawn on it, the head bar's aside
    # (a line in the title band set no larger than the body, inside a link to a page of the deck, is
    # the head bar's: Dresden prints the current subsection so under its bar, on too few pages for
    # :func:`navigation` to call its slot the bar's)
    numbers = set(sizes)
    jumps = {p.number: [lk.bbox for lk in p.links if lk.uri is None and lk.dest_page in numbers
                        and 0 <= lk.bbox[1] < TITLE_BAND * p.height] for p in doc.stream.pages}
    for n in sorted(pages):
        bs = [b for b in pages[n] if b.text.strip() or b.kind in _TEXTLESS]
        h = sizes.get(n, (0.0, 0.0))[1]
        # a section slide's line stands below the title band (a frame holding only a picture has
        # its title in the band), and is no closing "Questions?" frame
        # (a section slide's one block is a line of words: a figure alone is a frame's content, and
        # made a heading it would take its caption with it)
        if len(bs) == 1 and bs[0].kind in (Kind.PARAGRAPH, Kind.HEADING) \
                and 0 < len(bs[0].text.split()) <= SECTION_SLIDE_WORDS \
                and bs[0].bbox is not None and bs[0].bbox[1] >= TITLE_BAND * h \
                and not bs[0].text.rstrip().endswith(("?", "!")):
            ones[n] = bs[0]
    sections, lone = _section_slides({n: b for n, b in ones.items() if n not in builds}, body)
    for n in sorted(pages):
        bs = [b for b in pages[n] if b.text.strip() or b.kind in _TEXTLESS]
        w, h = sizes.get(n, (0.0, 0.0))
        if n in builds:
            if n in ones and slide.get(n - 1) == 2:
                slide[n], head[n] = 3, ones[n]
            continue
        if n in sections:
            slide[n], head[n] = 2, ones[n]
            continue
        # (a build's lines not shown yet are drawn far outside the page)
        # (a head bar's own line above the title, the current section's name, is passed over)
        bar = bars.get(n, ())
        shown = [b for b in bs if b.bbox is not None and drawn(b.bbox, h) and b.bbox[0] < w
                 and not in_bar(b.bbox, bar) and not _in_span(b.bbox, bar)
                 and not (in_bar(b.bbox, jumps.get(n, ())) and (b.attrs.get("_size") or 0) <= body + 0.5)]
        if not shown:
            continue
        shown_at[n] = shown
        top = min(shown, key=lambda b: (b.bbox[1], b.bbox[0]))
        # a line in print smaller than the body over the page's title (a theme's deck-title line over a
        # frame it centres: ufalslides' summary frame) is furniture of the frame, not its first line
        larger = [b for b in shown if _size(b) >= body]
        if _size(top) < body - 0.25 and larger:
            top = min(larger, key=lambda b: (b.bbox[1], b.bbox[0]))
        if top.kind is Kind.LIST_ITEM and top.number and top.attrs.get("_nlines", 1) == 1 \
                and len(top.text) <= SLIDE_TITLE_CHARS and _size(top) > body + 0.5 \
                and top.bbox[1] < bar_bottom(bar) + TITLE_BAND * h:
            # a frame title numbered by hand ('2. Edit the file'): read as a list item for its number;
            # it is the title where it is set in the deck's title size (below, with _title_style)
            numbered[n] = top
            continue
        if (top.kind in (Kind.PARAGRAPH, Kind.HEADING)
                and len(top.text) <= SLIDE_TITLE_CHARS and (top.attrs.get("_size") or 0) > body + 0.5
                and (n not in read or reads_as_words(top.text))):
            if top.bbox[1] < bar_bottom(bar) + TITLE_BAND * h:
                head[n] = top
            else:
                low[n] = top
    title_size = _title_style(head, low, slide)
    for n, b in numbered.items():
        if title_size is not None and abs(_size(b) - title_size) <= SIZE_ALIKE:
            b.text, b.number = f"{b.number} {b.text}", None
            b.attrs.pop("ordered", None)
            b.kind, b.level = Kind.PARAGRAPH, None
            head[n] = b
    for n, names in nav.items():
        # a section's own page, where the head bar says the section starts: its name and a label over it
        # ('Parte 1' over 'Introduzione', a \partpage's) and nothing else; the bar's section heading stands
        # for the page, the label is no frame's title
        shown = shown_at.get(n, [])
        if n in head and n not in slide and len(shown) == 2 and head[n].bbox[1] >= bar_bottom(bars.get(n, ())) \
                + TITLE_BAND * sizes[n][1] and all(len(b.text.split()) <= SECTION_SLIDE_WORDS for b in shown) \
                and any(b is not head[n] and _plain(b.text) == _plain(t) for b in shown for _, t in names):
            del head[n]
    for n in lone:
        # a statement slide, its one line set larger than the frames' titles: a frame titled so (a
        # lone line in the title size is a title already, one set smaller a frame's text)
        if title_size is None or _size(ones[n]) > title_size + SIZE_ALIKE:
            head[n] = ones[n]
    _bookmarked(doc, blocks, pages, head, slide, builds, sizes, body, read)
    # a frame continued by allowframebreaks prints its title on each page with the continuation's
    # numeral (I, II, ... XII): one frame, one heading; the later pages' titles stay their text
    last: tuple[str, int] | None = None
    for n in sorted(head):
        if n in slide:
            last = None
            continue
        cont = _continued(" ".join(head[n].text.split()))
        if cont is not None and last is not None and cont[1] >= 2 and cont == (last[0], last[1] + 1):
            del head[n]
        last = cont
    _subtitled(blocks, pages, head, slide)
    frame_level = 2 + any(v == 2 for v in slide.values()) + any(v == 3 for v in slide.values())
    for n, bar in bars.items():
        # the head bar's own text (section names, the current subsection) is the deck's navigation,
        # as its footline is furniture: listed in removed.json, not read as the frame's text
        x0, y0 = min(b[0] for b in bar) - 1, min(b[1] for b in bar) - 1
        x1, y1 = max(b[2] for b in bar) + 1, max(b[3] for b in bar) + 1
        for b in blocks:  # (the title page's too)
            if b.page == n and b.bbox is not None and b.kind in (Kind.PARAGRAPH, Kind.HEADING) \
                    and b is not head.get(n) and not b.attrs.get("title") \
                    and x0 <= b.bbox[0] and y0 <= b.bbox[1] and b.bbox[2] <= x1 and b.bbox[3] <= y1:
                b.kind, b.level, b.number = Kind.FURNITURE, None, None
                b.attrs["furniture"] = "navigation"
                b.attrs.pop("_title", None)
    if nav and not slide:
        from ctxmill.compile.references import is_bibliography_title

        # the sections the head bar names, each before the first block of the page it links to (a
        # bibliography's own name there is no section: its frame's title is the list's heading)
        # (a PDF outline whose top entries are the bar's sections, Beamer's, adds the levels
        # under them the bar does not show: a subsection printed only under the bar, or nowhere)
        nav = _outline_under_bar(doc, nav)
        frame_level = 2 + max(lvl for v in nav.values() for lvl, _ in v)
        for dest in sorted((d for d in nav if d > first), reverse=True):
            at = next((i for i, b in enumerate(blocks) if b.page >= dest), len(blocks))
            own = head.get(dest)
            for lvl, text in reversed(nav[dest]):
                # (unless the frame there is the list's own head by another name, under the
                # section: Turkish "KAYNAKÇA" over a frame "Kaynaklar I")
                if not is_bibliography_title(text) or (own is not None and is_bibliography_title(own.text)
                                                       and not _same_list_name(text, own.text)):
                    blocks.insert(at, Block(Kind.HEADING, text, dest, level=1 + lvl, attrs={"_title": text}))
    toc: dict[int, list[tuple[int, str]]] = doc.attrs.get("_contents") or {}
    # (a head-bar link to the title page alone, a side bar's short title, places no section)
    if toc and not slide and not any(d > first for d in nav):
        from ctxmill.compile.references import is_bibliography_title

        # the sections the contents frames link to, each before the first block of its page, unless
        # it is the title of the frame there (a subsection holding one frame of its name is that
        # frame's heading); levels left empty so close up, and frames go one under the deepest
        # (a section, the contents' top level, named as its first frame is both: a
        # sidebar deck's course overview over two frames of that title)
        titles = {n: _plain(b.text) for n, b in head.items()}
        top = min((lvl for v in toc.values() for lvl, _ in v), default=1)
        keep = {d: [(lvl, t) for lvl, t in v if not is_bibliography_title(t)
                    and (lvl == top or _plain(t) != titles.get(d))]
                for d, v in toc.items() if d > first}
        rank = {lvl: k + 1 for k, lvl in enumerate(sorted({lvl for v in keep.values() for lvl, _ in v}))}
        if rank:
            frame_level = 2 + len(rank)
        for dest in sorted(keep, reverse=True):
            at = next((i for i, b in enumerate(blocks) if b.page >= dest), len(blocks))
            for lvl, text in reversed(keep[dest]):
                blocks.insert(at, Block(Kind.HEADING, text, dest, level=1 + rank[lvl], attrs={"_title": text}))
    sized = _sized(pages, head, frame_level) if not slide and not nav and not toc else {}
    chosen = {id(b): slide.get(n, frame_level) for n, b in head.items()} | sized
    if not sized:
        chosen |= {id(b): frame_level + 1 for b in _subheads(pages, head, slide, body)}
    for bs in pages.values():
        for b in bs:
            level = chosen.get(id(b))
            if level is not None:
                b.kind, b.level, b.number = Kind.HEADING, level, None
                b.attrs["_title"] = " ".join(b.text.split())
            elif b.kind is Kind.HEADING:
                b.kind, b.level, b.number = Kind.PARAGRAPH, None, None
                b.attrs.pop("_title", None)
