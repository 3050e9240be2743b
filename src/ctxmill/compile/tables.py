"""Tables from page geometry: lines of a page -> rows of cells, header rows and spanning cells.

Two ways in, one grid builder:

- :func:`table_after` reads the lines after a "Table N:" caption (papers);
- :func:`table_at` recognises a table nobody captioned (a 10-K statement, a ruled grid in a
  report) from the lines themselves: a run of lines split into short, column-aligned pieces
  with numbers in them.

The grid: a line's spans that sit close together form one fragment (a "$" set apart from its
number joins it); columns are the x coverage of the fragments of the fullest lines, so that a
header centred over several columns ("Year Ended" over three dates) or a group label does not
fuse them; every other fragment goes to the column it overlaps, or spans the columns it is
centred over. Rows follow the vertical gaps (a wrapped cell stays one cell); rows above the
first row of data are header rows.

Input lines are the blocks stage's derived lines (``_L``: a line with its spans, box and font
features). Output is the table block's attrs: ``rows`` (first row the header; a spanning cell's
text sits in its first column, the columns it covers are ""), ``header_rows`` and ``spans``
(``[row, col, colspan]``), the last two only when they say more than GFM can.
"""

from __future__ import annotations

import re

CURRENCY = set("$€£¥")
_NUMERIC = re.compile(r"^[(\[]?[-−–+]?[$€£¥]?\s?[-−–+]?(\d[\d,.]*|\.\d+)\s?(%|[KMBTkmbx×]|pp)?[)\]]?[*†‡]*$")


def _blocks():
    # blocks imports this module; its regexes and helpers are read at call time
    from ctxmill.compile import blocks

    return blocks


def numeric(text: str) -> bool:
    """A cell that holds a figure: 1,234  $ 178  (1,234)  12.5%  3.7B  -0.4  ±0.2."""
    t = text.strip().replace(" ", "")
    if "±" in t:
        return all(numeric(p) for p in t.split("±") if p)
    return bool(t) and len(t) <= 16 and bool(_NUMERIC.match(t))


# ---------------------------------------------------------------------------- fragments


class _Frag:
    __slots__ = ("x0", "x1", "top", "bottom", "text", "bold", "line", "col")

    def __init__(self, x0, x1, top, bottom, text, bold, line):
        self.x0, self.x1, self.top, self.bottom, self.text, self.bold, self.line = x0, x1, top, bottom, text, bold, line
        self.col = None  # the column, where it is known before placing (a header split by words)

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2


def _line_frags(x, index: int) -> list[_Frag]:
    """One line's spans -> fragments: spans closer than about a character join."""
    frags: list[_Frag] = []
    cur = None
    for s in x.line.spans:
        if not s.bbox:
            continue
        t = f"[^{s.text.strip()}]" if s.superscript else s.text
        gap = s.bbox[0] - cur.x1 if cur is not None else 0.0
        # two figures half an em apart stay two cells (the PDF source splits them so)
        apart = gap > 0.5 * max(x.size, 6.0) and numeric(cur.text) and numeric(t) if cur is not None else False
        if cur is not None and gap <= max(x.size, 6.0) * 0.9 and not apart:
            sep = "" if s.superscript or s.bbox[0] - cur.x1 < x.size * 0.12 else " "
            cur.x1 = max(cur.x1, s.bbox[2])
            cur.top = min(cur.top, s.bbox[1])
            cur.bottom = max(cur.bottom, s.bbox[3])
            cur.text += sep + t
            cur.bold = cur.bold and s.bold
        else:
            if cur is not None:
                frags.append(cur)
            cur = _Frag(s.bbox[0], s.bbox[2], s.bbox[1], s.bbox[3], t, s.bold, index)
    if cur is not None:
        frags.append(cur)
    # a currency sign set apart at the left of a right-aligned number belongs to it
    out: list[_Frag] = []
    for f in frags:
        if out and out[-1].text.strip() in CURRENCY and numeric(f.text):
            prev = out[-1]
            prev.x1, prev.text = f.x1, prev.text.strip() + " " + f.text.strip()
            prev.top, prev.bottom = min(prev.top, f.top), max(prev.bottom, f.bottom)
            continue
        out.append(f)
    for f in out:
        f.text = f.text.strip()
    return [f for f in out if f.text]


def _levels(frags: list[_Frag]) -> list[list[_Frag]]:
    """Fragments at one height, whatever text line the PDF put them in (a PDF may write a
    table cell by cell): the visual lines of the table. Sets each fragment's ``line``."""
    levels: list[list[_Frag]] = []
    for f in sorted(frags, key=lambda f: (f.top, f.x0)):
        if levels and abs(f.top - levels[-1][0].top) < 0.35 * max(f.bottom - f.top, 4.0):
            levels[-1].append(f)
        else:
            levels.append([f])
    for i, lv in enumerate(levels):
        lv.sort(key=lambda f: f.x0)
        for f in lv:
            f.line = i
    return levels


# ---------------------------------------------------------------------------- columns


def _merge(ivs: list[tuple[float, float]], slack: float = 2.0) -> list[list[float]]:
    cols: list[list[float]] = []
    for a, b in sorted(ivs):
        if cols and a <= cols[-1][1] + slack:
            cols[-1][1] = max(cols[-1][1], b)
        else:
            cols.append([a, b])
    return cols


def _columns(lines: list[list[_Frag]]) -> list[list[float]]:
    """Column intervals from the lines with the most fragments (the body of the table)."""
    counts = sorted((len(fs) for fs in lines if len(fs) >= 2), reverse=True)
    if not counts:
        return _merge([(f.x0, f.x1) for fs in lines for f in fs])
    # lines at least as full as the typical full line; the fullest third of them sets the grid
    top = counts[: max(1, (len(counts) + 2) // 3)]
    floor = max(2, min(top))
    if counts.count(counts[0]) >= max(2, 0.2 * len(counts)):
        # enough lines hold a piece in every column: they alone set the grid, so a cell centred
        # over two sub-columns in a less full line ("KCU1500" over "Inference Training") does
        # not fuse them
        floor = counts[0]
    basis = [f for fs in lines if len(fs) >= floor for f in fs]
    cols = _merge([(f.x0, f.x1) for f in basis])
    # fragments of other lines that overlap no column (a column empty in the fullest rows)
    for fs in lines:
        for f in fs:
            if not any(f.x0 <= c[1] + 2 and f.x1 >= c[0] - 2 for c in cols) and not _between(f, cols):
                cols.append([f.x0, f.x1])
                cols.sort()
    return cols


def _between(f: _Frag, cols) -> bool:
    """Centred on the gap between two columns (a spanning header), not a column of its own."""
    for a, b in zip(cols, cols[1:], strict=False):
        if a[1] < f.cx < b[0]:
            mid = (a[1] + b[0]) / 2
            return (abs(f.cx - mid) < max(3.0, 0.25 * (b[0] - a[1])) and f.x1 - f.x0 < (b[1] - a[0])
                    and len(f.text) <= 24)
    return False


def _place(f: _Frag, cols, line_frags: list[_Frag], ncols: int) -> tuple[int, int]:
    """(first column, colspan) of a fragment."""
    over = [i for i, c in enumerate(cols) if f.x0 < c[1] - 1 and f.x1 > c[0] + 1]
    if len(over) >= 2:
        first, span = over[0], over[-1] - over[0] + 1
    elif over:
        first, span = over[0], 1
    else:
        first, span = _nearest(f, cols), 1
        for i, (a, b) in enumerate(zip(cols, cols[1:], strict=False)):
            if a[1] < f.cx < b[0] and _between(f, cols):
                first, span = i, 2
    # a header over several columns: the widest run of columns, empty in this line, that it
    # is centred over ("Year Ended" over three dates, "Sobel filter" over four image sizes)
    if first > 0 and f.line < 3 and len(line_frags) * 2 <= ncols and len(f.text) <= 24 and not numeric(f.text):
        # the run stays between this line's other pieces
        lo = max((g.x1 for g in line_frags if g is not f and g.cx < f.cx), default=-1e9)
        hi = min((g.x0 for g in line_frags if g is not f and g.cx > f.cx), default=1e9)
        best = (first, span)
        for a in range(1, first + 1):
            for b in range(first + span - 1, ncols):
                if cols[a][0] <= lo or cols[b][1] >= hi:
                    continue
                mid = (cols[a][0] + cols[b][1]) / 2
                if abs(mid - f.cx) <= max(3.0, 0.06 * (cols[b][1] - cols[a][0])) and b - a + 1 > best[1]:
                    best = (a, b - a + 1)
        return best
    return first, span


def _nearest(f: _Frag, cols) -> int:
    for i, c in enumerate(cols):
        if c[0] - 2 <= f.cx <= c[1] + 2:
            return i
    return min(range(len(cols)), key=lambda i: abs((cols[i][0] + cols[i][1]) / 2 - f.cx))


# ---------------------------------------------------------------------------- glued columns

_GLUED = re.compile(r"^(.*[^\d\s,.])\s+(\d[\d,.]*)$")


def _unglue(frags: list[_Frag], nlines: int) -> tuple[list[_Frag], float | None]:
    """A column of figures set a word space from the text column before it ("colorado 1854",
    "north dakota 445": names flush right against counts flush right) comes out of the PDF as
    one run per row. Where most rows end so, all the pieces' right edges in line while their
    left edges wander, each piece is cut in two: the text and the figure (its place estimated
    from character widths). A stub of names with numbers in them ("ResNet 50") is set flush
    left, so its right edges wander and it stays whole."""
    glued = [f for f in frags if _GLUED.match(f.text)]
    if len(glued) < 4 or len(glued) < 0.6 * nlines:
        return frags, None
    em = max(f.bottom - f.top for f in glued)
    rights = sorted(f.x1 for f in glued)
    lefts = sorted(f.x0 for f in glued)
    mid = rights[len(rights) // 2]
    glued = [f for f in glued if abs(f.x1 - mid) <= em]
    if len(glued) < 4 or len(glued) < 0.6 * nlines or lefts[-1] - lefts[0] < 2 * em:
        return frags, None
    cut = {id(f): _words(f) for f in glued}
    # one boundary for the column pair (the estimates wander by a point or two per row), kept
    # clear of both so the two columns do not merge again
    gaps = sorted((w[-2].x1 + w[-1].x0) / 2 for w in cut.values())
    edge = gaps[len(gaps) // 2]
    out: list[_Frag] = []
    for f in frags:
        if id(f) not in cut:
            words = _words(f) if f.x0 < edge - 2 and f.x1 > edge + 2 and " " in f.text else []
            left = [w for w in words if w.cx < edge]
            if left and len(left) < len(words):  # a header run over both ("State Tweets")
                right = words[len(left):]
                out.append(_Frag(f.x0, min(left[-1].x1, edge - 2), f.top, f.bottom, " ".join(w.text for w in left),
                                 f.bold, f.line))
                out.append(_Frag(max(right[0].x0, edge + 2), f.x1, f.top, f.bottom, " ".join(w.text for w in right),
                                 f.bold, f.line))
            else:
                out.append(f)
            continue
        text, num = _GLUED.match(f.text).groups()
        out.append(_Frag(f.x0, min(cut[id(f)][-2].x1, edge - 2), f.top, f.bottom, text, f.bold, f.line))
        out.append(_Frag(max(cut[id(f)][-1].x0, edge + 2), f.x1, f.top, f.bottom, num, f.bold, f.line))
    return out, edge


# ---------------------------------------------------------------------------- headers in one piece

# rough advance widths (em) by character class: enough to place a word inside a run of text
_NARROW, _WIDE = set("fijlrtI.,;:'!|()[]/ "), set("mwMW%@")


def _width(ch: str) -> float:
    if ch in _NARROW:
        return 0.3
    if ch in _WIDE:
        return 0.85
    return 0.65 if ch.isupper() else 0.52


def _words(f: _Frag) -> list[_Frag]:
    """The words of a fragment, each with its place estimated from character widths scaled to
    the fragment's box (the PDF gives one box for the run)."""
    total = sum(_width(ch) for ch in f.text) or 1.0
    scale = (f.x1 - f.x0) / total
    out, x = [], f.x0
    for m in re.finditer(r"\S+|\s+", f.text):
        w = sum(_width(ch) for ch in m.group()) * scale
        if not m.group().isspace():
            out.append(_Frag(x, x + w, f.top, f.bottom, m.group(), f.bold, f.line))
        x += w
    return out


def _assign(words: list[_Frag], cols) -> tuple[list[int], float]:
    """Each word's column: the words cut into consecutive groups, one per column (a column
    may get none), so that every group sits over its column as headers do, flush left, flush
    right or centred: the cut with the least misalignment (a small dynamic programme)."""
    n, m = len(words), len(cols)
    empty = 24.0  # cost of a column left without header words

    def cost(i: int, j: int, c: int) -> float:  # words[i:j] over column c
        x0, x1 = words[i].x0, words[j - 1].x1
        a, b = cols[c]
        if a - 2 <= x0 and x1 <= b + 2:
            return 0.0  # within the column's cells
        return min(abs(x0 - a), abs(x1 - b), abs((x0 + x1) / 2 - (a + b) / 2))

    inf = float("inf")
    best = [[inf] * (n + 1) for _ in range(m + 1)]  # best[c][j]: words[:j] over cols[:c]
    back = [[0] * (n + 1) for _ in range(m + 1)]
    best[0][0] = 0.0
    for c in range(1, m + 1):
        for j in range(n + 1):
            v, k = best[c - 1][j] + empty, j
            for i in range(j):
                if best[c - 1][i] < inf:
                    w = best[c - 1][i] + cost(i, j, c - 1)
                    if w < v:
                        v, k = w, i
            best[c][j], back[c][j] = v, k
    out = [0] * n
    j = n
    for c in range(m, 0, -1):
        i = back[c][j]
        for t in range(i, j):
            out[t] = c - 1
        j = i
    return out, best[m][n]


def _split_headers(lines: list[list[_Frag]], cols) -> bool:
    """A header line set in one piece across the columns ("State Tweets LabMT Ranking Gallup
    Ranking ...", word spaces the only gaps) is split into the columns its words sit over.
    Only above the first line of figures, only a piece over four columns or more with at least
    as many words as columns, and only where the words fall into place over their columns: a
    spanning header ("Weight Gradient (WG)" over four columns) stays whole."""
    changed = False
    for lv in lines:
        if sum(numeric(f.text) for f in lv) >= 2:
            break
        for f in list(lv):
            under = [i for i, c in enumerate(cols) if f.x0 < c[1] - 1 and f.x1 > c[0] + 1]
            if len(under) < 4 or len(f.text.split()) < len(under):
                continue
            groups: dict[int, list[_Frag]] = {}
            words = _words(f)
            where, cost = _assign(words, cols[under[0]: under[-1] + 1])
            # each column's words sit over it (half an em of misalignment at most, on average)
            if cost > 0.5 * (f.bottom - f.top) * len(under):
                continue
            for w, c in zip(words, where, strict=True):
                groups.setdefault(under[0] + c, []).append(w)
            if len(groups) < 0.75 * len(under):
                continue
            pieces = []
            for c, ws in groups.items():
                pieces.append(_Frag(ws[0].x0, ws[-1].x1, f.top, f.bottom, " ".join(w.text for w in ws), f.bold, f.line))
                pieces[-1].col = c
            k = lv.index(f)
            lv[k: k + 1] = pieces
            changed = True
    return changed


# ---------------------------------------------------------------------------- rows


def _units(frags: list[_Frag]) -> bool:
    """A units row: pieces in brackets ("(M)", "[ms]", "(%)"), at most half of them the second
    word of a two-line header instead ("(GOP) (us) (GOP/s) type rate" under "Comp. Time Perf.
    bound Utilize"), never a figure."""
    if not frags:
        return False
    unit = sum(bool(re.fullmatch(r"[(\[].{0,12}[)\]]", f.text)) for f in frags)
    words = sum(bool(re.fullmatch(r"[^\W\d]{1,8}\.?", f.text)) for f in frags)
    return unit >= 1 and unit * 2 >= len(frags) and unit + words == len(frags)


def _rows(frags: list[_Frag], cols, placed: dict) -> list[list[_Frag]]:
    """Rows: lines separated by a gap are separate rows (a wrapped cell stays one cell); lines
    set without spacing are split where a line starts a row of its own: it holds figures, as
    the line before it does; it has a spanning header or is a units row; its first column
    starts after a line that had none ("Year Ended" over "(In millions) Jan 26, 2025")."""
    order = sorted(frags, key=lambda f: (f.top, f.x0))
    groups: list[list[_Frag]] = []
    bottom = None
    for f in order:
        h = f.bottom - f.top
        if bottom is None or f.top - bottom > max(2.5, 0.4 * h):
            groups.append([])
            bottom = f.bottom
        else:
            bottom = max(bottom, f.bottom)
        groups[-1].append(f)
    out: list[list[_Frag]] = []
    for group in groups:
        by_line: dict[int, list[_Frag]] = {}
        for f in group:
            by_line.setdefault(f.line, []).append(f)
        levels = [by_line[k] for k in sorted(by_line, key=lambda k: min(f.top for f in by_line[k]))]

        def stub(lv):
            return any(placed[id(f)][0] == 0 for f in lv)

        def figures(lv):
            return stub(lv) and any(placed[id(f)][0] > 0 and numeric(f.text) for f in lv)

        def spanning(lv):
            return any(placed[id(f)][1] > 1 for f in lv)

        full = sum(figures(lv) for lv in levels) >= 2
        if not full:
            # text cells: lines without spacing are wrapped cells of one row, except a spanning
            # header or a units row above the figures
            parts: list[list[_Frag]] = []
            last = None  # the last line of figures in the row being built
            for k, lv in enumerate(levels):
                # figures do not wrap: a line of them under figures in the same columns is a row
                # of its own, even past a stub label set between the two lines (\multirow)
                nums = sum(numeric(f.text) for f in lv) >= 2
                numbers = nums and last is not None and _shared_figures(lv, last, placed) >= 2
                if not parts or spanning(lv) or spanning(levels[k - 1]) or _units(lv) or numbers:
                    parts.append([])
                    last = None
                parts[-1].extend(lv)
                if nums:
                    last = lv
            out.extend(_split_flat(parts, cols) if len(groups) <= 3 else parts)
            continue
        cur: list[_Frag] = []
        prev = None
        for lv in levels:
            if prev is not None:
                lower = len(lv) == 1 and stub(lv) and lv[0].text[:1].islower()
                new = (spanning(lv) or spanning(prev) or _units(lv)
                       or (stub(lv) and not lower)
                       or (figures(lv) and figures(prev)))
                if new:
                    out.append(cur)
                    cur = []
            cur.extend(lv)
            prev = lv
        if cur:
            out.append(cur)
    return out


def _shared_figures(a: list[_Frag], b: list[_Frag], placed: dict) -> int:
    """Columns in which both lines hold a figure."""
    ca = {placed[id(f)][0] for f in a if numeric(f.text)}
    return len(ca & {placed[id(f)][0] for f in b if numeric(f.text)})


def _split_flat(rows: list[list[_Frag]], cols) -> list[list[_Frag]]:
    """Tables without extra space between rows come out of the gap rule as one block. When the
    gap rule found at most three rows, start a row at every line that has text in the first
    column (lines with text only in other columns continue the row above)."""
    if len(cols) < 2:
        return rows
    out: list[list[_Frag]] = []
    for row in rows:
        levels: list[list[_Frag]] = []
        for f in sorted(row, key=lambda f: f.top):
            if levels and abs(f.top - levels[-1][0].top) < 2.5:
                levels[-1].append(f)
            else:
                levels.append([f])
        starts = [lv for lv in levels if any(_nearest(f, cols) == 0 for f in lv)]
        if len(starts) < 3:
            out.append(row)
            continue
        made: list[list[_Frag]] = []
        last: dict[int, tuple[_Frag, int]] = {}  # column -> (its last fragment, the row it is in)
        for lv in levels:
            starts = not made or any(_nearest(f, cols) == 0 for f in lv)
            if starts:
                made.append([])
            for f in lv:
                col = _nearest(f, cols)
                row = len(made) - 1
                prev = last.get(col)
                # the next line of a paragraph in a column the current row left empty is still
                # the cell above (a tall cell set beside several rows: \multirow, a p{} column)
                # (the next line of a wrapped sentence goes with it even on the next row's line)
                # (a sentence: a long line, a list of short items "openat, fstat" is no wrap)
                wrapped = (len(prev[0].text) >= 40 and f.text[:1].islower()
                           and not prev[0].text.endswith(".")) if prev is not None else False
                if (prev is not None and prev[1] < row and (not starts or wrapped)
                        and not any(_nearest(g, cols) == col and g is not f for g in made[row] + lv)
                        and 0 <= f.top - prev[0].bottom < 0.6 * (f.bottom - f.top)):
                    row = prev[1]
                made[row].append(f)
                last[col] = (f, row)
        out.extend(made)
    return out


def _header_rows(table: list[list[str]], spans: list[list[int]]) -> int:
    """Rows above the first row of figures (or the first group label) are header rows."""
    if len(table) < 3 or not any(numeric(c) for r in table for c in r[1:]):
        return 1
    for k, row in enumerate(table):
        data = any(numeric(c) for c in row[1:])
        label_only = k > 0 and row[0].strip() and not any(c.strip() for c in row[1:])
        if data or label_only:
            return max(1, min(k, 3, len(table) // 2))
    return 1


def build(region: list) -> dict:
    """Lines of one table -> {"rows", "header_rows"?, "spans"?}; rows [] when there is no grid."""
    frags = [f for i, x in enumerate(region) for f in _line_frags(x, i)]
    if not frags:
        return {"rows": []}
    frags, edge = _unglue(frags, len(region))
    lines = _levels(frags)
    cols = _columns(lines)
    if edge is not None:  # the two glued columns stay two, whatever header bridges them
        cols = [part for c in cols for part in ([[c[0], edge - 1], [edge + 1, c[1]]] if c[0] < edge < c[1] else [c])]
    ncols = len(cols)
    if ncols >= 3 and _split_headers(lines, cols):
        frags = [f for lv in lines for f in lv]
    by_line = {i: fs for i, fs in enumerate(lines)}
    placed = {id(f): (f.col, 1) if f.col is not None else _place(f, cols, by_line[f.line], ncols) for f in frags}
    if edge is not None:  # a header over the glued pair is the header of the side its centre is on
        right = next((i for i, c in enumerate(cols) if c[0] == edge + 1), None)
        for f in frags:
            if right and placed[id(f)] == (right - 1, 2):
                placed[id(f)] = (right, 1) if f.cx > edge else (right - 1, 1)
    table: list[list[str]] = []
    spans: list[list[int]] = []
    for row in _rows(frags, cols, placed):
        cells: list[list[_Frag]] = [[] for _ in cols]
        width = [1] * ncols
        for f in row:
            first, span = placed[id(f)]
            cells[first].append(f)
            width[first] = max(width[first], span)
        texts = []
        for c in cells:
            c.sort(key=lambda f: (round(f.top / 3), f.x0))
            texts.append(_blocks()._join([f.text for f in c]))
        for i in range(ncols):  # a span only over cells this row leaves empty
            if width[i] > 1 and texts[i] and not any(texts[i + 1: i + width[i]]):
                spans.append([len(table), i, width[i]])
        table.append(texts)
    keep = [i for i in range(ncols) if any(r[i].strip() for r in table) or any(s[1] < i < s[1] + s[2] for s in spans)]
    if len(keep) < ncols:
        remap = {old: new for new, old in enumerate(keep)}
        table = [[r[i] for i in keep] for r in table]
        spans = [[s[0], remap[s[1]], sum(1 for i in keep if s[1] <= i < s[1] + s[2])] for s in spans if s[1] in remap]
        spans = [s for s in spans if s[2] > 1]
    out: dict = {"rows": table}
    header = _header_rows(table, spans)
    if header > 1:
        out["header_rows"] = header
    if spans:
        out["spans"] = spans
    return out


# ---------------------------------------------------------------------------- regions


def table_after(ls: list, j: int, body: float, ctx) -> tuple[int, dict, list]:
    """The table lines after a caption: (index after them, attrs, lines). Nothing is taken
    when what follows is prose (a caption set under its table)."""
    b = _blocks()
    region: list = []
    k = j
    while k < len(ls):
        x = ls[k]
        if (b.CAPTION_RE.match(x.text) or b._CAPS_CAPTION_RE.match(x.text)) and (x.first_bold or not _tabular(x)) \
                and region:
            break  # the next caption ("Figure 2: ...", IEEE Access's "FIGURE 1." under the table) is not a row
        body_line = (abs(x.size - body) <= 0.3 and not x.wide and x.x0 <= ctx.left + 3
                     and (x.x1 - x.x0) > 0.6 * ctx.width)
        if body_line and (region or not _tabular(x)) or _prose(x, body, ctx):
            break
        if region and x.top - max(r.bottom for r in region) > 6.0 * max(x.size, 6) and x.size >= body - 0.3:
            break
        if region and abs(x.size - body) <= 0.3 and x.top > max(r.bottom for r in region) \
                and all(r.size < body - 0.5 for r in region) and not _tabular(x):
            break  # body text again under a table set smaller than it
        if x.bold and x.size >= body * 0.95 and b.HEADING_NUM_RE.match(x.text) and len(x.text) < 120:
            break
        if region and _head_under(x, region, body):
            break
        if region and label_over_title(ls, k):
            break  # the next table's "TABLE 8" over its title
        region.append(x)
        k += 1
    attrs = build(region) if region else {"rows": []}
    if not attrs["rows"] or max(len(r) for r in attrs["rows"]) < 2:
        return j, {"rows": []}, []  # one column of text is the prose after the caption
    return k, attrs, region


def _head_under(x, region: list, body: float) -> bool:
    """A heading right under a table's rows: one piece in bold, in larger type than every line the
    table has taken (IEEE Access's 9 pt "B. COMPARISON ..." under its 8 pt rows, a 12.9 pt head
    under 12 pt rows), not a row of it. A head in plain type (classes that set their heads in a
    larger roman face) ends the rows when it is clearly larger: 2 pt over every row and 1 pt over
    the body, a size no row nor running text takes."""
    if _tabular(x) or len(x.text) >= 120:
        return False
    top = max(r.size for r in region)
    return x.size >= top + 0.5 if x.bold else x.size >= top + 2.0 and x.size >= body + 1.0


def _prose(x, body: float, ctx) -> bool:
    """A line of running text: body size, one piece, as wide as its text column (in a
    two-column paper the column beside a table's caption must not become its rows)."""
    if x.wide or abs(x.size - body) > 0.6 or _tabular(x):
        return False
    cols = getattr(ctx, "columns", None) or [(ctx.left, ctx.right)]
    col = next((c for c in cols if c[0] - 3 <= (x.x0 + x.x1) / 2 <= c[1] + 3), (ctx.left, ctx.right))
    return x.x1 - x.x0 >= 0.85 * (col[1] - col[0])


def _tabular(x) -> bool:
    """A line split into at least two short pieces by wide gaps."""
    fs = _line_frags(x, 0)
    return len(fs) >= 2 and max(len(f.text) for f in fs) <= 60


def table_at(ls: list, i: int, body: float, ctx) -> tuple[int, dict, list] | None:
    """A table without a caption starting at line i: (index after it, attrs, lines) or None.

    A run of at least three lines split into column-aligned pieces (group labels and lone
    headers may sit between them), at least three columns, and figures in a third of the rows
    (a grid of names on a title page or aligned equations are not tables)."""
    n = len(ls)
    start = i
    if not _tabular(ls[i]):
        # a lone header line over the columns of the table below ("Year Ended"), or the header
        # row set in one piece across them (word spaces its only gaps), a stub label between
        if not (i + 1 < n and _close(ls[i], ls[i + 1])):
            return None
        nxt = i + 1 if _tabular(ls[i + 1]) else i + 2
        if nxt >= n or not _tabular(ls[nxt]) or not _close(ls[nxt - 1], ls[nxt]) or len(ls[nxt - 1].text) > 40:
            return None
        first = _line_frags(ls[nxt], 0)
        x = ls[i]
        over = len(x.text) <= 40 and nxt == i + 1 and x.x0 > first[0].x1
        # the header row in one piece: as wide as the columns under it, no wider
        across = (abs(x.x1 - first[-1].x1) <= 3 and x.x0 >= min(first[0].x0, ls[i + 1].x0) - 3 and not _prose(x, body, ctx)
                  and len(x.text.split()) >= len(first) + 1 and len(x.text) <= 160
                  and not re.search(r"[.:;,]$", x.text))
        if not (over or across):
            return None
    k = i + 1
    lone = 0
    while k < n and _close(ls[k - 1], ls[k]) and abs(ls[k].size - ls[start].size) <= 1.5:
        if _head_under(ls[k], ls[start:k], body):
            break
        if _tabular(ls[k]):
            lone = 0
        elif lone >= 2 or len(ls[k].text) > 60:
            break
        else:
            lone += 1
        k += 1
    k -= lone  # trailing lines without columns are the text after the table
    region = ls[start:k]
    if sum(_tabular(x) for x in region) < 3:
        return None
    attrs = build(region)
    rows = attrs["rows"]
    if not rows or len(rows[0]) < 3 or len(rows) < 3:
        return None
    cells = [c for r in rows for c in r if c.strip()]
    if sum(len(c) for c in cells) / len(cells) > 30:
        return None
    data = sum(1 for r in rows if sum(numeric(c) for c in r) >= 2)
    if data * 3 < len(rows):
        return None
    # equation numbers down the right edge: aligned display math, not a table
    if all(re.fullmatch(r"\(\d+[a-z]?\)", r[-1].strip() or "(0)") for r in rows):
        return None
    if _contents(rows):
        return None
    return k, attrs, region


_SECTION_NUMBER = re.compile(r"(?:[A-Z]|\d{1,2})(?:\.\d{1,2})*\.?(?=\s|$)")


def _contents(rows: list[list[str]]) -> bool:
    """Rows of a table of contents: a section number leading each entry and its page number
    last, the page numbers never falling (their figures made the entries look like data)."""
    pages: list[int] = []
    entries = 0
    leaders = False  # a cell of dot leaders (". . . . .") between an entry and its page
    for r in rows:
        cells = [c.strip() for c in r if c.strip()]
        leaders = leaders or any(_LEADERS.fullmatch(c) for c in cells)
        if len(cells) < 2 or not cells[-1].isdigit():
            continue
        if _SECTION_NUMBER.match(cells[0]) and re.search(r"[^\W\d_]{3}", " ".join(cells[:-1])):
            entries += 1  # (a number, a title in words, a page: a matrix of counts has no title)
        pages.append(int(cells[-1]))
    return (entries >= 3 and entries >= 0.75 * len(rows) or leaders and entries >= 1) \
        and all(a <= b for a, b in zip(pages, pages[1:], strict=False))


_LEADERS = re.compile(r"(?:\.\s*){4,}")


def _close(a, b) -> bool:
    """b follows a within the same table: no more than about a blank line between them."""
    if 0 <= b.top - a.bottom <= 1.6 * max(a.size, b.size, 4.0) or (b.top >= a.top and b.top - a.bottom < 0):
        return True
    # b starts higher but reaches into a: a cell the PDF wrote after its row (a \multirow label
    # centred between two rows, the lines of a tall cell beside short ones)
    return b.top < a.top < b.bottom


# ---------------------------------------------------------------------------- captions

# "TABLE II:" (IEEE), "Tab. 5.1:" (KOMA), "Table A.3." -- labels the caption finder of the
# blocks stage does not take, next to a table found by table_at
_CAPTION = re.compile(r"^(?:TABLE|Table|Tab\.)\s*((?:[A-Z]\.)?\d+(?:[.\-]\d+)*|[IVX]+|[A-Z]\.?\d+)\s*[:.|]\s*(\S.*)$", re.S)


# IEEE's (and IEEE compsoc's) table label on a line of its own, in capitals, centred over the
# title line(s): "TABLE III" / "TABLE 3" over "COMPARISON OF ..." or "Details of the ..."
_LABEL_ALONE = re.compile(r"TABLE\s+([IVXLC]+|\d+)\.?")


def colon_captions(ls: list, body: float, ctx) -> set[int]:
    """Lines that start a "Table 1.2: ..." caption in the body's own type (a thesis class sets
    it so, a full-width paragraph) with a grid right under it: the colon after the number and the
    rows the table finder reads below vouch for it. Running text puts neither there."""
    b = _blocks()
    out: set[int] = set()
    for i, x in enumerate(ls):
        if not x.text.startswith("Table"):
            continue
        m = b.CAPTION_RE.match(x.text)
        if not m or m.group(1) != "Table" or x.text[m.end(2):m.end(2) + 1] != ":":
            continue
        lines, j = [x], i + 1
        while j < len(ls) and b._continues_caption(lines, ls[j], ctx, ls[j + 1] if j + 1 < len(ls) else None):
            lines.append(ls[j])
            j += 1
        rows = table_after(ls, j, body, ctx)[1]["rows"]
        if len(rows) >= 2 and sum(len(r) >= 2 and sum(1 for c in r if c.strip()) >= 2 for r in rows) >= 2:
            out.add(i)
    return out


def table_under_title(ls: list, j: int, body: float, ctx) -> tuple[int, dict, list]:
    """The rows under a label-and-title caption (IEEE's): :func:`table_at`'s grid where it finds
    one, else :func:`table_after`'s, which ends them at a blank of two lines' height too: a centred head in the caption's size ("VIII.
    ALGORITHMS") is set that far below the last row, a row never is."""
    found = table_at(ls, j, body, ctx) if j < len(ls) else None
    if found:  # (the stricter finder, where it vouches for the grid on its own, bounds it best)
        return found
    k, attrs, region = table_after(ls, j, body, ctx)
    for m in range(1, len(region)):
        if region[m].top - max(x.bottom for x in region[:m]) > 2.0 * max(region[m].size, 4.0):
            k, region = j + m, region[:m]
            attrs = build(region)
            break
    if len(attrs["rows"]) < 2 or max(len(r) for r in attrs["rows"]) < 2:
        return j, {"rows": []}, []  # (two lines read as one row: the caption alone, the lines stay text)
    return k, attrs, region


def label_over_title(ls: list, i: int) -> tuple[int, str] | None:
    """(index after the title, number) when line i is a table's label alone ("TABLE II") with
    its title centred under it, each title line right under the one before. The label vouches
    for what follows as the table's title (the blocks stage then reads the rows under it)."""
    m = _LABEL_ALONE.fullmatch(ls[i].text.strip())
    if not m:
        return None
    cur = ls[i]
    centre = (cur.x0 + cur.x1) / 2
    j = i + 1
    prev = cur
    while j < len(ls):
        x = ls[j]
        gap = x.top - prev.bottom
        if x.page != cur.page or _tabular(x) or abs((x.x0 + x.x1) / 2 - centre) > 6 \
                or not 0 <= gap <= (1.0 if j == i + 1 else 0.5) * max(prev.size, 4.0) \
                or j > i + 1 and abs(x.size - prev.size) > 0.6:
            break
        prev = x
        j += 1
    return (j, m.group(1)) if j > i + 1 else None


def attach_captions(blocks: list) -> list:
    """A table without a caption takes the caption paragraph right above it, or else right
    below it; that paragraph leaves the text (it is the table's caption now)."""
    from ctxmill.model import Kind

    drop: set[int] = set()
    for i, b in enumerate(blocks):
        if b.kind is not Kind.TABLE or b.attrs.get("caption") or b.number or not b.attrs.get("rows") or not b.bbox:
            continue
        for j in (i - 1, i + 1):
            if not 0 <= j < len(blocks) or j in drop:
                continue
            p = blocks[j]
            m = _CAPTION.match(p.text.strip())
            if p.kind is not Kind.PARAGRAPH or not m or len(p.text) > 600 or not p.bbox:
                continue
            gap = b.bbox[1] - p.bbox[3] if j < i else p.bbox[1] - b.bbox[3]
            if not -2 <= gap <= 30:
                continue
            b.number, b.attrs["caption"] = m.group(1), re.sub(r"\s+", " ", m.group(2)).strip()
            b.attrs["_label"] = f"Table {m.group(1)}"
            drop.add(j)
            break
    return [b for k, b in enumerate(blocks) if k not in drop]


def _heading(x, b) -> bool:
    """A section heading ("A Mode Profiles", "Appendices"): where a table above a caption stops."""
    if not x.bold or _tabular(x):
        return False
    return bool(b.HEADING_NUM_RE.match(x.text)) or x.text.strip().lower() in b.UNNUMBERED_HEADINGS


def _within(x, region: list, cap) -> bool:
    """x lies in the band the table lines already taken cover, above the caption: a tall cell's
    lines come in the PDF before the rows they sit beside."""
    top = min(r.top for r in region)
    return x.top < cap.top and x.bottom >= top - 1.6 * max(x.size, 4.0) and x.top <= max(r.bottom for r in region)


def _cell_line(x, below: list) -> bool:
    """A line of text that starts where a column right of the stub starts in the table lines
    below it: a line of a tall cell (a description wrapped in its column), not running text."""
    frags = [f for y in below for f in _line_frags(y, 0)]
    if not frags:
        return False
    left = min(f.x0 for f in frags)
    return x.x0 > left + 2 * max(x.size, 4.0) and any(abs(f.x0 - x.x0) <= 3 for f in frags)


def tables_above_captions(ls: list, body: float, ctx) -> dict[int, tuple[int, dict, list]]:
    """Tables set above their caption ("Table 2: ..." under the grid, as USENIX, LNCS and KOMA
    print them): {first line index: (index after the table, attrs, lines)}. The caption
    vouches for the table, so two columns of text are enough here."""
    out: dict[int, tuple[int, dict, list]] = {}
    taken = -1
    for c, cap in enumerate(ls):
        m = _CAPTION.match(cap.text)
        if not m or c == 0 or not m.group(2)[:1].isupper():
            continue
        k = c - 1
        if not _close(ls[k], cap) and not 0 <= cap.top - ls[k].bottom <= 3.0 * max(cap.size, 4.0):
            continue
        start = c
        b = _blocks()
        while k > taken and (k == c - 1 or _close(ls[k], ls[k + 1]) or _within(ls[k], ls[k + 1: c], cap)) \
                and not _prose(ls[k], body, ctx):
            x = ls[k]
            if _CAPTION.match(x.text) or b.CAPTION_RE.match(x.text) or _heading(x, b):
                break
            if not _tabular(x) and (len(x.text) > 45 or x.text.endswith("-")) and not _cell_line(x, ls[k + 1: c]):
                # a line of running text ends the table, unless it is the header row set in
                # one piece right on top of it ("State Tweets LabMT Ranking ...")
                head = (k < c - 1 and start == k + 1 and abs(x.size - ls[k + 1].size) <= 0.3
                        and not re.search(r"[-.:;,]$", x.text) and _close(x, ls[k + 1]))
                if head:
                    start = k
                break
            start = k
            k -= 1
        found = _grid_above(ls[start:c])
        if found is None and not _tabular(ls[start]):
            # the lines above the grid taken with it (a page's running head and number over a
            # table at the top of the page) spoil it: the grid from its first row of columns
            first = next((n for n in range(start, c) if _tabular(ls[n])), c)
            start, found = first, _grid_above(ls[first:c])
        if found is None:
            continue
        out[start] = (c, found, ls[start:c])
        taken = c
    return out


def _grid_above(region: list) -> dict | None:
    """The grid of the lines over a caption, or None when they hold none."""
    if len(region) < 2 or sum(_tabular(x) for x in region) < max(2, 0.5 * len(region)):
        return None
    attrs = build(region)
    rows = attrs["rows"]
    if len(rows) < 2 or max(len(r) for r in rows) < 2:
        return None
    # the first lines may be the end of a paragraph: drop leading rows of one long cell
    cells = [x for r in rows for x in r if x.strip()]
    if sum(len(x) for x in cells) / len(cells) > 40:
        return None
    return attrs
