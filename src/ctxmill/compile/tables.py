"""Tables from page geometry: the lines after a table caption -> rows of cells.

Moved out of :mod:`ctxmill.compile.blocks` so that the table finder can grow on its own.
Input is the blocks stage's derived lines (``_L``: a line with its spans, box and font
features); output is rows of cell texts, the first row being the header.
"""

from __future__ import annotations


def _blocks():
    # blocks imports this module; its regexes and helpers are read at call time
    from ctxmill.compile import blocks

    return blocks


def table_after(ls: list, j: int, body: float, ctx) -> tuple[int, list[list[str]], list]:
    """Collect the table lines after a caption and rebuild rows and columns from positions."""
    b = _blocks()
    region: list = []
    k = j
    while k < len(ls):
        x = ls[k]
        if b.CAPTION_RE.match(x.text) and x.first_bold and region:
            break
        body_line = (abs(x.size - body) <= 0.3 and not x.wide and x.x0 <= ctx.left + 3
                     and (x.x1 - x.x0) > 0.6 * ctx.width)
        if body_line and region:
            break
        if region and x.top - max(r.bottom for r in region) > 6.0 * max(x.size, 6) and x.size >= body - 0.3:
            break
        if x.bold and x.size >= body * 0.95 and b.HEADING_NUM_RE.match(x.text) and len(x.text) < 120:
            break
        region.append(x)
        k += 1
    if not region:
        return j, [], []
    return k, _grid(region), region


def _fragments(region: list):
    frags = []  # (x0, x1, top, bottom, text)
    for x in region:
        cur = None
        for s in x.line.spans:
            if not s.bbox:
                continue
            t = f"[^{s.text.strip()}]" if s.superscript else s.text
            if cur is not None and s.bbox[0] - cur[1] <= max(x.size, 6.0) * 0.9:
                sep = "" if s.superscript or s.bbox[0] - cur[1] < x.size * 0.12 else " "
                cur = [cur[0], max(cur[1], s.bbox[2]), min(cur[2], s.bbox[1]), max(cur[3], s.bbox[3]),
                       cur[4] + sep + t]
            else:
                if cur is not None:
                    frags.append(cur)
                cur = [s.bbox[0], s.bbox[2], s.bbox[1], s.bbox[3], t]
        if cur is not None:
            frags.append(cur)
    return frags


def _col_of(f, cols) -> int:
    cx = (f[0] + f[1]) / 2
    for i, c in enumerate(cols):
        if c[0] - 2 <= cx <= c[1] + 2:
            return i
    return min(range(len(cols)), key=lambda i: abs((cols[i][0] + cols[i][1]) / 2 - cx))


def _split_flat_rows(rows: list[list], cols) -> list[list]:
    """Tables without extra space between rows come out of the gap rule as one block. When the
    gap rule found at most two body rows, start a row at every line that has text in the first
    column (lines with text only in other columns continue the row above)."""
    if len(cols) < 2 or len(rows) > 3:
        return rows
    out: list[list] = []
    for row in rows:
        levels: list[list] = []
        for f in sorted(row, key=lambda f: f[2]):
            if levels and abs(f[2] - levels[-1][0][2]) < 2.5:
                levels[-1].append(f)
            else:
                levels.append([f])
        starts = [lv for lv in levels if any(_col_of(f, cols) == 0 for f in lv)]
        if len(starts) < 3:
            out.append(row)
            continue
        cur: list = []
        for lv in levels:
            if cur and any(_col_of(f, cols) == 0 for f in lv):
                out.append(cur)
                cur = []
            cur.extend(lv)
        if cur:
            out.append(cur)
    return out


def _grid(region: list) -> list[list[str]]:
    frags = _fragments(region)
    if not frags:
        return []
    # columns: connected components of the x coverage of all fragments
    ivs = sorted((f[0], f[1]) for f in frags)
    cols: list[list[float]] = []
    for a, b in ivs:
        if cols and a <= cols[-1][1] + 2.0:
            cols[-1][1] = max(cols[-1][1], b)
        else:
            cols.append([a, b])
    # rows: gaps in the vertical coverage
    order = sorted(frags, key=lambda f: (f[2], f[0]))
    rows: list[list] = []
    bottom = None
    for f in order:
        h = f[3] - f[2]
        if bottom is None or f[2] - bottom > max(2.5, 0.4 * h):
            rows.append([])
            bottom = f[3]
        else:
            bottom = max(bottom, f[3])
        rows[-1].append(f)
    rows = _split_flat_rows(rows, cols)
    table: list[list[str]] = []
    for row in rows:
        cells: list[list] = [[] for _ in cols]
        for f in row:
            cx = (f[0] + f[1]) / 2
            ci = next((i for i, c in enumerate(cols) if c[0] - 2 <= cx <= c[1] + 2), None)
            if ci is None:
                ci = min(range(len(cols)), key=lambda i: abs((cols[i][0] + cols[i][1]) / 2 - cx))
            cells[ci].append(f)
        texts = []
        for c in cells:
            c.sort(key=lambda f: (round(f[2] / 3), f[0]))
            texts.append(_blocks()._join([f[4] for f in c]))
        table.append(texts)
    # drop columns that are empty everywhere
    keep = [i for i in range(len(cols)) if any(r[i].strip() for r in table)]
    return [[r[i] for i in keep] for r in table]
