"""Page layout before blocks are built: margin line numbers and the reading order of columns.

Two things a PDF's character stream gets wrong for the block builder:

- **Line numbers** of review copies (ACL, ICML, NeurIPS submissions) sit in the margin on the
  baseline of each text line, so they join the line ("282 5.1 Ablation Study") and break
  heading and paragraph detection. A column of short numbers at one x position that count up
  down the page is that, and its spans are removed.
- **Columns.** LaTeX writes a two-column page column by column, but other producers (Word,
  some PDF printers, tagged exports) write it in drawing order, which can alternate between
  the columns line by line. When the stream order on a page jumps between two columns
  separated by a gutter, the lines are re-ordered: full-width lines (title, abstract, wide
  figures and tables) cut the page into bands, and each band is read left column first.
  A page whose stream already reads column by column is left as it is: the stream order also
  knows about floats and footnotes, which geometry alone would have to guess.
"""

from __future__ import annotations

from itertools import pairwise

from ctxmill.model import Line, Page

# ---------------------------------------------------------------------------- line numbers


def strip_line_numbers(page: Page, carry: dict | None = None) -> int:
    """Remove a margin column of line numbers from the page's lines; returns how many.

    ``carry`` (kept by the caller from page to page): the column the pages before were numbered
    in and their last number. On a page of figures a review copy numbers only a line or two
    ("521 Supplemental Information", eLife): too few to tell a column by themselves, they are
    line numbers where they stand in that column and go on from that number."""
    if len(page.lines) < 8 and not carry and len(page.lines) < 4:
        return 0
    # x bucket -> (top, value, line, span); the numbers of a column share their left edge or
    # (set flush right, as lineno does: "99" then "100") their right edge
    cands: dict[tuple[str, int], list[tuple[float, int, Line, object]]] = {}
    for line in page.lines:
        spans = line.spans
        if not spans or line.bbox is None:
            continue
        for k in (0, len(spans) - 1) if len(spans) > 1 else (0,):
            s = spans[k]
            t = s.text.strip()
            if not t.isdigit() or len(t) > 4 or not s.bbox:
                continue
            if len(spans) > 1:
                other = spans[1] if k == 0 else spans[-2]
                if other.bbox is None:
                    continue
                gap = other.bbox[0] - s.bbox[2] if k == 0 else s.bbox[0] - other.bbox[2]
                if gap < 7:
                    continue  # a number inside the text ("Table 3", "in 2019")
            entry = (s.bbox[1], int(t), line, s)
            cands.setdefault(("x0", round(s.bbox[0] / 4)), []).append(entry)
            cands.setdefault(("x1", round(s.bbox[2] / 4)), []).append(entry)
    removed = 0
    done: set[int] = set()
    for key, group in cands.items():
        group.sort(key=lambda g: g[0])
        if not _goes_on(carry, key, group, page) and not _first_run(carry, group, page):
            if len(group) < 3 or len(page.lines) < 8:
                continue
            if not (_every_fifth(group) and (len(group) >= 5 or _in_margin(page, group))):
                if len(group) < 8 and not (len(group) >= 5 and _small_run(group)):
                    continue
                rising = sum(1 for a, b in pairwise(group) if 0 < b[1] - a[1] <= 3)
                if rising < 0.8 * (len(group) - 1) or _item_labels(page, group):
                    continue
        if carry is not None:
            carry.update(key=key, last=group[-1][1])
        for _, _, line, span in group:
            k = next((i for i, sp in enumerate(line.spans) if sp is span), None)
            if id(span) in done or k is None:
                continue  # (in both buckets of its column, or gone with its line)
            done.add(id(span))
            _drop_span(line, k)
            removed += 1
    if removed:
        page.lines = [ln for ln in page.lines if ln.text.strip()]
    return removed


def _goes_on(carry: dict | None, key: tuple, group: list, page: Page) -> bool:
    """The group is the column the pages before were numbered in, going on from their last number
    (within a page's lines), rising line by line, each number left of the rest of its line."""
    if not carry or carry.get("key") != key or not 0 < group[0][1] - carry["last"] <= 80:
        return False
    return all(0 < b[1] - a[1] <= 3 for a, b in pairwise(group)) and _in_margin(page, group)


def _first_run(carry: dict | None, group: list, page: Page) -> bool:
    """The first numbered lines of a document, on a title page of few lines (ametsoc's draft: "1"
    beside the title, "2" beside the byline, "3" beside the address): 1, 2, 3, ... down the page,
    no numbering before it, in the margin left of every other line, in type smaller than all of it."""
    if carry is None or carry.get("key") is not None or len(group) < 3 or group[0][1] != 1:
        return False
    if any(b[1] - a[1] != 1 for a, b in pairwise(group)) or not _in_margin(page, group):
        return False
    numbered = {id(g[3]) for g in group}
    others = [sp.size for ln in page.lines for sp in ln.spans if id(sp) not in numbered and sp.text.strip()]
    return bool(others) and max(g[3].size for g in group) < 0.6 * sorted(others)[len(others) // 2]


def _every_fifth(group: list) -> bool:
    """Line numbers printed on every fifth or tenth line ("290", "295", "300": lineno's
    \\modulolinenumbers, Copernicus manuscripts), in order down the page."""
    step = group[1][1] - group[0][1]
    return step in (5, 10) and all(g[1] % step == 0 for g in group) \
        and all(b[1] - a[1] == step for a, b in pairwise(group))


def _in_margin(page: Page, group: list) -> bool:
    """The numbers stand left of every other line on the page (a page of display equations
    leaves lineno only three numbers: 185, 190, 195)."""
    x1 = max(g[3].bbox[2] for g in group)
    numbered = {id(g[2]) for g in group}
    return all(ln.bbox[0] > x1 for ln in page.lines if ln.bbox and id(ln) not in numbered)


def _small_run(group: list) -> bool:
    """A short column that is still line numbers: consecutive numbers (n, n+1, ...) in smaller
    type than the lines they sit on (PLOS: lines 1-7 on page 1, under the abstract)."""
    nums = sorted(g[1] for g in group)
    if any(b - a != 1 for a, b in pairwise(nums)):
        return False
    return all(len(g[2].spans) > 1 and g[3].size < 0.8 * max(sp.size for sp in g[2].spans) for g in group)


def _item_labels(page: Page, group: list) -> bool:
    """Numbers of multi-line items (a numbered bibliography set flush right in the margin, LIPIcs),
    not line numbers: a line number sits on every line beside it, an item's label on its first line
    only, so most steps from one number to the next pass unnumbered lines of text beside them.
    A label opens its item's line; numbers on lines of their own, at a pitch of their own (a
    review copy's margin, ScholarOne), are line numbers whatever lies beside them."""
    if sum(len(g[2].spans) > 1 for g in group) < 0.8 * len(group):
        return False
    x0 = min(g[3].bbox[0] for g in group)
    x1 = max(g[3].bbox[2] for g in group)
    lo, hi = (x1, x1 + 60) if x1 < page.width / 2 else (x0 - 60, x0)
    numbered = {id(g[2]) for g in group}
    beside = sorted(ln.bbox[1] for ln in page.lines if ln.bbox and id(ln) not in numbered
                    and ln.bbox[0] < hi and ln.bbox[2] > lo)
    over = []
    for a, b in pairwise(group):
        between = sum(1 for t in beside if a[0] + 1 < t < b[0] - 1)
        over.append(between - max(b[1] - a[1] - 1, 0))
    over.sort()
    return over[len(over) // 2] >= 1


def _drop_span(line: Line, k: int) -> None:
    num = line.spans[k].text.strip()
    spans = [s for i, s in enumerate(line.spans) if i != k]
    line.spans = spans
    text = line.text.strip()
    if not spans:
        text = ""
    elif k == 0 and text.startswith(num):
        text = text[len(num):].strip()
    elif k > 0 and text.endswith(num):
        text = text[: -len(num)].strip()
    line.text = text
    boxes = [s.bbox for s in spans if s.bbox]
    if boxes:
        line.bbox = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                     max(b[3] for b in boxes))


# ---------------------------------------------------------------------------- columns


def _pieces(line: Line) -> list[tuple]:
    """The parts of a line between wide gaps, as boxes: the line builder joins text on one
    baseline, so a line can hold a left-column line and a right-column line side by side."""
    if line.bbox is None:
        return []
    spans = [sp for sp in line.spans if sp.bbox]
    if len(spans) < 2:
        return [line.bbox]
    out = []
    cur = list(spans[0].bbox)
    for sp in spans[1:]:
        b = sp.bbox
        if b[0] - cur[2] > max(sp.size, 6.0) * 1.5:
            out.append(tuple(cur))
            cur = list(b)
        else:
            cur = [min(cur[0], b[0]), min(cur[1], b[1]), max(cur[2], b[2]), max(cur[3], b[3])]
    out.append(tuple(cur))
    return out


def split_columns(page: Page) -> float | None:
    """Find the page's gutter (None for one column) and split every line that runs across it
    into its left and right parts, so each column holds only its own lines."""
    pieces = [pc for ln in page.lines for pc in _pieces(ln)]
    g = _gutter_of(pieces, page.width)
    if g is None:
        return None
    # only a line whose two parts start where the columns start (or a paragraph indent in) is
    # two column lines; a table row across the gutter stays one line, in its place
    left_edge = _edge([b[0] for b in pieces if b[2] <= g], min)
    right_edge = _edge([b[0] for b in pieces if b[0] >= g], min)
    out: list[Line] = []
    for ln in page.lines:
        if ln.bbox is None or not (ln.bbox[0] < g < ln.bbox[2]) or len(ln.spans) < 2:
            out.append(ln)
            continue
        left = [sp for sp in ln.spans if sp.bbox and (sp.bbox[0] + sp.bbox[2]) / 2 < g]
        right = [sp for sp in ln.spans if sp.bbox and (sp.bbox[0] + sp.bbox[2]) / 2 >= g]
        if not left or not right or left[-1].bbox[2] > g or right[0].bbox[0] < g \
                or not (-2 <= left[0].bbox[0] - left_edge <= 14) or not (-2 <= right[0].bbox[0] - right_edge <= 14):
            out.append(ln)  # a full-width line (title, abstract, wide table row)
            continue
        out.extend([_line_of(left), _line_of(right)])
    page.lines = out
    return g


def _line_of(spans: list) -> Line:
    parts = []
    for i, sp in enumerate(spans):
        if i and sp.bbox[0] - spans[i - 1].bbox[2] > 0.18 * max(sp.size, 1.0):
            parts.append(" ")
        parts.append(sp.text)
    boxes = [sp.bbox for sp in spans]
    return Line(text="".join(parts).strip(), spans=list(spans),
                bbox=(min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                      max(b[3] for b in boxes)))


def gutter(lines: list[Line], width: float) -> float | None:
    """x of the gap between two text columns, or None for a one-column page."""
    return _gutter_of([ln.bbox for ln in lines if ln.bbox is not None], width)


def _gutter_of(boxes: list[tuple], width: float) -> float | None:
    """The gutter is the widest vertical strip in the middle third of the page that no box
    crosses, among boxes that fit in one half and do not cross the page's middle (a centred
    title or a full-width abstract is no column line); at least a quarter of them must lie on
    each side of it."""
    if len(boxes) < 10 or width <= 0:
        return None
    mid = width / 2
    narrow = [b for b in boxes if b[2] - b[0] < width * 0.48 and not (b[0] < mid - 6 < mid + 6 < b[2])]
    if len(narrow) < 0.6 * len(boxes):
        return None
    lo, hi = width / 3, 2 * width / 3
    # the uncovered stretches of [lo, hi] once every narrow line's extent is laid on it
    best = None
    x = lo
    for a, b in sorted((b[0], b[2]) for b in narrow if b[2] > lo and b[0] < hi):
        if a > x and (best is None or a - x > best[1] - best[0]):
            best = (x, a)
        x = max(x, b)
    if x < hi and (best is None or hi - x > best[1] - best[0]):
        best = (x, hi)
    if best is None or best[1] - best[0] < 4:
        return None
    g = (best[0] + best[1]) / 2
    # both sides hold lines of text, not a column of page numbers (a table of contents) or of
    # labels: pieces a sixth of the page wide or more
    wide = [b for b in narrow if b[2] - b[0] >= width / 6]
    left = sum(1 for b in wide if b[2] <= g)
    right = sum(1 for b in wide if b[0] >= g)
    if left < 0.25 * len(wide) or right < 0.25 * len(wide) or len(wide) < 0.5 * len(narrow):
        return None
    return g


def _switches(lines: list[Line], g: float) -> int:
    """How often the stream jumps between the columns and back within one band of the page."""
    sides = [(ln.bbox[0] >= g) for ln in lines if ln.bbox is not None and not (ln.bbox[0] < g < ln.bbox[2])]
    return sum(1 for a, b in pairwise(sides) if a != b)


def order_columns(page: Page, g: float | None) -> bool:
    """Re-order an interleaved two-column page (gutter at ``g``) into reading order; True when
    it changed."""
    if g is None:
        return False
    geo = [ln for ln in page.lines if ln.bbox is not None]
    n = len(geo)
    # column by column, a page switches sides a few times (floats, footnotes); interleaved
    # text switches on most lines
    if _switches(geo, g) < max(8, n // 4):
        return False
    # both sides must read as text columns: lines of a good part of the page's width sharing a
    # left edge; a glossary (term | definition) or an equation with justifications on the
    # right also alternates sides line by line, and must keep its row order
    for side in ([ln for ln in geo if ln.bbox[2] <= g], [ln for ln in geo if ln.bbox[0] >= g]):
        if len(side) < 4:
            return False
        widths = sorted(ln.bbox[2] - ln.bbox[0] for ln in side)
        extent = max(ln.bbox[2] for ln in side) - min(ln.bbox[0] for ln in side)
        if widths[len(widths) // 2] < 0.5 * extent:
            return False
        edges: dict[int, int] = {}
        for ln in side:
            edges[round(ln.bbox[0] / 3)] = edges.get(round(ln.bbox[0] / 3), 0) + 1
        if max(edges.values()) < 0.5 * len(side):
            return False
    rest = [ln for ln in page.lines if ln.bbox is None]
    geo.sort(key=lambda ln: (ln.bbox[1], ln.bbox[0]))
    out: list[Line] = []
    band_left: list[Line] = []
    band_right: list[Line] = []

    def flush() -> None:
        out.extend(band_left)
        out.extend(band_right)
        band_left.clear()
        band_right.clear()

    for ln in geo:
        x0, _, x1, _ = ln.bbox
        if x0 < g - 2 and x1 > g + 2:  # spans the gutter: a full-width line closes the band
            flush()
            out.append(ln)
        elif x0 >= g:
            band_right.append(ln)
        else:
            band_left.append(ln)
    flush()
    page.lines = out + rest
    return True


def column_bounds(page: Page, g: float | None, left: float, right: float) -> list[tuple[float, float]]:
    """The text columns of a page as (x0, x1): the two sides of the gutter ``g``, or the
    document's text block (``left``..``right``) for a one-column page."""
    if g is None:
        return [(left, right)]
    boxes = [ln.bbox for ln in page.lines if ln.bbox is not None]
    lefts = [b for b in boxes if b[2] <= g]
    rights = [b for b in boxes if b[0] >= g]
    if not lefts or not rights:
        return [(left, right)]
    return [(_edge([b[0] for b in lefts], min), _edge([b[2] for b in lefts], max)),
            (_edge([b[0] for b in rights], min), _edge([b[2] for b in rights], max))]


def _edge(xs: list[float], pick) -> float:
    """The column edge most lines share (a margin note or a stray label must not move it)."""
    counts: dict[int, int] = {}
    for x in xs:
        counts[round(x)] = counts.get(round(x), 0) + 1
    common = [x for x, c in counts.items() if c >= max(2, len(xs) // 10)]
    return float(pick(common)) if common else float(pick(xs))


def drop_text_frames(boxes: list, lines: list[Line], body: float, text_width: float, ocr: bool = False) -> list:
    """Picture boxes that are not figures: a form XObject or a background drawn behind a stretch
    of running text (ACM's two-column figures are placed in a frame as wide as the page and as
    tall as the figure plus the text below it). Three or more lines of body-size text as long
    as most of a column (40% of the document's text width) inside the box mean the box holds
    text, not labels. ``ocr``: the boxes are the OCR figure finder's, drawn around ink no word
    explains, so a rule framing a heading is one too (_heading_frame; a text layer's drawings
    with large type on them are left to the figure tests)."""
    if not boxes or text_width <= 0:
        return boxes
    keep = []
    for box in boxes:
        inside = _centred_in(box, lines)
        if _text_band(box, inside) or ocr and _heading_frame(box, inside, body):
            continue
        full = 0
        for ln in inside:
            b = ln.bbox
            size = max((s.size for s in ln.spans if not s.superscript), default=0.0)
            if abs(size - body) <= 0.6 and b[2] - b[0] >= 0.4 * text_width:
                full += 1
                if full >= 3:
                    break
        if full < 3:
            keep.append(box)
    return keep


def _centred_in(box, lines: list[Line]) -> list[Line]:
    """The lines of text whose centre stands inside ``box`` (2 pt of slack)."""
    out = []
    for ln in lines:
        b = ln.bbox
        if b is None or not ln.spans:
            continue
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        if box[0] - 2 <= cx <= box[2] + 2 and box[1] - 2 <= cy <= box[3] + 2:
            out.append(ln)
    return out


def _heading_frame(box, inside: list[Line], body: float) -> bool:
    """A rule drawn around a heading: a box at least four times as wide as tall, no taller than
    four times its tallest line, holding one to three lines, every one in type larger than the
    body's (fncychap's chapter openings: "CHAPTER 1" over "BACKGROUND" between two rules, which
    a scan's figure finder sees as a drawing). The lines are the heading, not a figure's labels."""
    w, h = box[2] - box[0], box[3] - box[1]
    if h <= 0 or w < 4 * h or not 1 <= len(inside) <= 3:
        return False
    sizes = [max((s.size for s in ln.spans if not s.superscript), default=0.0) for ln in inside]
    tallest = max(max(ln.bbox[3] - ln.bbox[1] for ln in inside), max(sizes))
    return min(sizes) >= 1.2 * body and h <= 4 * tallest


def _text_band(box, inside: list[Line]) -> bool:
    """A drawing no taller than 2.5 times the tallest line of text on it (``inside``: _centred_in),
    and at least four times as wide as tall, is that text's background (a poster's coloured header
    bar, a highlight band, a \\colorbox), not a picture whose labels the text would be."""
    w, h = box[2] - box[0], box[3] - box[1]
    if h <= 0 or w < 4 * h:
        return False
    tallest = max((ln.bbox[3] - ln.bbox[1] for ln in inside), default=0.0)
    return tallest > 0 and h <= 2.5 * tallest
