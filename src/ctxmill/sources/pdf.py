"""PDF text layer -> pages of lines and spans (pypdfium2, Apache-2.0/BSD).

:func:`extract` runs inside the sandbox child; callers use ``ctxmill.sources.sandbox.load_pdf``,
which starts that child (this module never imports the sandbox). Per page we read every character with its loose box,
baseline origin and text object (font name, flags, weight and size are cached per object), then
group characters into visual lines by baseline, split lines into spans by font and by wide gaps
(table columns), and flag superscripts (smaller and raised). We also read the outline, link
annotations (URIs and internal destinations), page size, image/form boxes, and report pages
without any text layer.
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import unicodedata
from pathlib import Path

from ctxmill.accents import SPACING_ACCENTS, combine
from ctxmill.compile.options import CompileOptions
from ctxmill.errors import InputRefused
from ctxmill.limits import MAX_PAGE_CHARS, MAX_PAGE_FORM_DRAWS
from ctxmill.model import Line, Link, OutlineEntry, Page, PageStream, Span

_BOLD_RE = re.compile(r"(bold|black|heavy|semibold|demi|-bd\b|bd$|bx\d|cmbx|\bbx|sfbx|-b$|,b$|medium)", re.I)
_ITALIC_RE = re.compile(r"(italic|oblique|-it\b|it$|ti\d|cmti|sfti|cmmi|sfsl|slanted|-i$)", re.I)
# (nimbusmon: URW Nimbus Mono L, "NimbusMonL-Regu", the Courier psnfss gives pdfTeX output; it carries no
# fixed-pitch flag, and "MonL" holds no "mono")
_MONO_RE = re.compile(r"(mono|nimbusmon|courier|consol|typewriter|cmtt|sftt|sfvt|cmvtt|code|menlo|inconsolata|\btt\d)", re.I)

# Fonts that only carry symbols; a run of them is not evidence for the line's font.
_SUBSET_RE = re.compile(r"^[A-Z]{6}\+")

FONT_FIXED_PITCH = 1
FONT_ITALIC = 64
FONT_FORCE_BOLD = 1 << 18


class _FontInfo:
    __slots__ = ("name", "size", "bold", "italic", "mono", "rotated")

    def __init__(self, name: str, size: float, bold: bool, italic: bool, mono: bool, rotated: bool):
        self.name = name
        self.size = size
        self.bold = bold
        self.italic = italic
        self.mono = mono
        self.rotated = rotated


def _face(font: int | None) -> tuple[str, bool, bool, bool]:
    """(name, bold, italic, mono) of a pdfium font handle (its address): what the name, flags
    and weight say."""
    import pypdfium2.raw as pdfium_c

    name = ""
    flags = 0
    weight = 400
    if font:
        font = ctypes.cast(font, pdfium_c.FPDF_FONT)  # (once per font and page)
        buf = ctypes.create_string_buffer(256)
        n = pdfium_c.FPDFFont_GetBaseFontName(font, buf, 256)
        if n:
            name = buf.value.decode("latin-1", "replace")
        flags = pdfium_c.FPDFFont_GetFlags(font)
        weight = pdfium_c.FPDFFont_GetWeight(font)
    name = _SUBSET_RE.sub("", name)
    bold = bool(_BOLD_RE.search(name)) or weight >= 600 or bool(flags & FONT_FORCE_BOLD)
    italic = bool(_ITALIC_RE.search(name)) or bool(flags & FONT_ITALIC)
    mono = bool(_MONO_RE.search(name)) or bool(flags & FONT_FIXED_PITCH)
    return name, bold, italic, mono


_OBJ_CALLS = None


def _obj_calls():
    """(GetFont, GetFontSize, GetMatrix, GetTextRenderMode) of pdfium taking a text object as a
    plain address (what FPDFText_GetTextObject gives here, see _get_text_object_addr) and
    GetFont answering one: pypdfium2's own prototypes want pointer objects, a ctypes.cast
    (~3 us) for each of a page's ~120 text objects and one more for each font handle."""
    global _OBJ_CALLS
    if _OBJ_CALLS is None:
        import pypdfium2.raw as pdfium_c

        vp, c_int = ctypes.c_void_p, ctypes.c_int

        def raw(name, restype, *argtypes):
            return ctypes.CFUNCTYPE(restype, *argtypes)(ctypes.cast(getattr(pdfium_c, name), vp).value)

        _OBJ_CALLS = (raw("FPDFTextObj_GetFont", vp, vp),
                      raw("FPDFTextObj_GetFontSize", c_int, vp, ctypes.POINTER(ctypes.c_float)),
                      raw("FPDFPageObj_GetMatrix", c_int, vp, ctypes.POINTER(pdfium_c.FS_MATRIX)),
                      raw("FPDFTextObj_GetTextRenderMode", c_int, vp))
    return _OBJ_CALLS


def _font_info(obj: int, lin: tuple[float, float, float, float] | None = None,
               faces: dict | None = None) -> _FontInfo:
    """The font of a text object (its address) at its drawn size. ``faces`` caches
    :func:`_face` per font handle for one page (a page's text objects share a few fonts; the
    page keeps them alive, so a handle names one font while it is open)."""
    import pypdfium2.raw as pdfium_c

    get_font, get_size, get_matrix, _ = _OBJ_CALLS or _obj_calls()
    font = get_font(obj)  # an address, None for none
    if faces is None:
        name, bold, italic, mono = _face(font)
    else:
        face = faces.get(font)
        if face is None:
            face = faces[font] = _face(font)
        name, bold, italic, mono = face
    fs = ctypes.c_float(0)
    get_size(obj, ctypes.byref(fs))
    m = pdfium_c.FS_MATRIX()
    size = float(fs.value)
    rotated = False
    if get_matrix(obj, ctypes.byref(m)):
        scale = (m.c * m.c + m.d * m.d) ** 0.5
        if scale > 0:
            size *= scale
        if lin is None:
            # a shear (c != 0 with the baseline level and the glyphs upright: a synthetic
            # oblique, LuaTeX's FakeSlant) slants the type but the line still runs left to right
            sheared = m.a > 0 and m.d > 0 and abs(m.c) < m.d
            rotated = abs(m.b) > 1e-3 or (abs(m.c) > 1e-3 and not sheared)
        else:  # a /Rotate page: upright is the baseline running left to right on the display
            a, b, c, d = lin
            dx, dy = a * m.a + c * m.b, b * m.a + d * m.b
            ux = a * m.c + c * m.d
            rotated = dx <= 0 or abs(dy) > 1e-3 * abs(dx) or abs(ux) > 1e-3 * abs(dx)
    key = (name, round(size, 2), bold, italic, mono, rotated)
    f = _INTERNED.get(key)
    if f is None:
        f = _INTERNED[key] = _FontInfo(*key)
    return f


_INTERNED: dict[tuple, _FontInfo] = {}


class _LineBuilder:
    """Accumulates characters of one visual line."""

    __slots__ = ("chars", "base", "size", "x1", "top", "bottom", "last_x0", "cut", "left", "rtl")

    def __init__(self, ch, base, size, x1, top, bottom):
        self.cut = 0  # where a column-sized gap opens before smaller type (a margin note)
        self.left = ch[1]  # the leftmost x0 so far (kept on right-to-left lines only)
        self.rtl = 0  # a right-to-left line (its characters in logical order, x falling): _rtl_marks's mark
        self.chars = [ch]
        self.last_x0 = ch[1]
        self.base = base
        self.size = size
        self.x1 = x1
        self.top = top
        self.bottom = bottom


_FIG_END = set("0123456789%)")
_FIG_START = set("0123456789-−–+$€£¥(.")


def _finish_lines(lb: _LineBuilder) -> list[Line]:
    """The builder's line, or two where a margin note shares its baseline: Tufte's sidenotes
    stand in the outer margin on the baseline of the text line beside them, a column-sized gap
    (2 em) away and in smaller type. Only when the note holds words: a line number set after
    the line (digits only) stays a span of it, for the line-number finder."""
    if lb.rtl:
        line = _finish_line(lb.chars, lb.rtl)
        return [line] if line is not None else []
    k = lb.cut
    if k:
        tail = lb.chars[k:]
        ref = max(c[6].size for c in lb.chars[:k])
        if all(c[6].size <= 0.9 * ref for c in tail) and sum(c[0][:1].isalpha() for c in tail) >= 2:
            return [ln for ln in (_finish_line(lb.chars[:k]), _finish_line(tail)) if ln is not None]
    line = _finish_line(lb.chars)
    return [line] if line is not None else []


def _under_raised(chars: list, counts: dict[float, int], dom: float, base: float) -> tuple[float, float]:
    """The line's type when its commonest size is set raised above a larger one: marks longer than
    the name they follow (llncs's "Paul Dubois1,2[0009-0003-3856-8048]") are still superscripts.
    The larger type must hold some words (a big operator of display math is no line's type), and
    a mark must touch the word it follows (a fraction's numerator stands apart: "Hence f(x)")."""
    for size in sorted((s for s in counts if s > dom / 0.86), reverse=True):
        sized = [c for c in chars if c[6].size == size]
        if sum(ch.isalpha() for c in sized for ch in c[0]) < 4:
            continue
        lower = sorted(c[5] for c in sized)[len(sized) // 2]
        if lower - base > 0.18 * size and any(
                a[6].size == size and b[6].size == dom and b[1] - a[3] < 0.1 * size and not b[7]
                for a, b in zip(chars, chars[1:], strict=False)):
            return size, lower
    return dom, base


def _under_last_raised(cur: _LineBuilder, x0: float, ref: float) -> bool:
    """x0 lies under the raised run the line ends in (from its first character on, within 1 pt),
    and the line is a numbered heading's: it opens with a section number in its own type ("2.2 The
    ..."), and most of its characters are in a bold face (a body face flagged bold, eLife's, has
    no section numbers at its lines' starts; a line number there is set smaller)."""
    k = len(cur.chars)
    while k and cur.chars[k - 1][6].size < 0.86 * ref and cur.base - cur.chars[k - 1][5] > 0.18 * ref:
        k -= 1
    if k == len(cur.chars) or k == 0 or x0 < cur.chars[k][1] - 1.0 or cur.chars[0][6].size != ref:
        return False
    text = "".join((" " if c[7] else "") + c[0] for c in cur.chars[:k])
    return bool(_HEAD_NUMBER_RE.match(text)) and 2 * sum(1 for c in cur.chars[:k] if c[6].bold) > k


_HEAD_NUMBER_RE = re.compile(r"\d{1,2}(?:\.\d{1,2}){0,3}\.? +[A-Z]")


# Spacing accents that TeX fonts set as a glyph of their own, kerned over (or under) the letter
# they belong to: pdfTeX's Polish capitals and ogoneks, math's hats and tildes. In the text layer
# they stand beside the letter, or out of reading order at the end of the word or line.
_ACCENT_CHARS = frozenset(SPACING_ACCENTS)


def _lone_accent(item) -> bool:
    return len(item[0]) == 1 and item[0] in _ACCENT_CHARS and not item[6].mono


def _compose_accents(chars: list) -> list:
    """Each lone accent glyph onto the letter of its size whose box it overlaps most (at least half
    the narrower of the two), as one precomposed character (NFC): 'BADA ˙ N´' -> 'BADAŃ'. The item
    after a composed accent loses the space flag pdfium generated for the accent's jump back;
    a real gap still makes a space (_finish_line)."""
    out = list(chars)
    dropped = set()
    for i, a in enumerate(chars):
        if not _lone_accent(a):
            continue
        best, best_ov = None, 0.0
        for j, c in enumerate(out):
            t = c[0]
            if j == i or j in dropped or not t[:1].isalpha() or not all(
                    unicodedata.combining(x) for x in t[1:]) or abs(c[6].size - a[6].size) > 0.15 * a[6].size:
                continue  # (an accent comes in its letter's size: a hat over H is not the subscript m's)
            ov = min(a[3], c[3]) - max(a[1], c[1])
            if ov > best_ov and ov >= 0.5 * min(a[3] - a[1], c[3] - c[1]):
                best, best_ov = j, ov
        if best is None:
            continue
        c = out[best]
        out[best] = (combine(c[0], a[0]),) + tuple(c[1:])
        dropped.add(i)
    if not dropped:
        return chars
    res = []
    for k, item in enumerate(out):
        if k in dropped:
            continue
        if k - 1 in dropped and item[7]:
            item = item[:7] + (False,)
        res.append(item)
    return res


def _tracked(chars: list) -> set[int]:
    """Indexes of the characters whose gap before them is letter-spacing, not a word space.

    Letter-spaced capitals (classicthesis's titles, microtype's \\textls, soul's \\so) set every
    letter apart by one small equal gap (0.16 em in classicthesis) that is wider than the space
    threshold, so each letter would read as a word ("C O N T E N T S"). Four letters or more in a
    row, each a glyph of its own, set with one gap between 0.05 and 0.26 em is tracking; a gap of
    that size beside a lone letter elsewhere on the line is too (a short word of the same title);
    wider gaps stay spaces.
    A real word space is wider (a third of an em, a fifth at its most squeezed)."""
    ref = _tracking(chars, 0.05, 0.26)
    if ref is None:
        return _touching(chars)
    gaps, ref = ref
    tol = max(0.1, 0.08 * ref)
    return {i for i, g in gaps.items() if abs(g - ref) <= tol}


TOUCHING = 0.05  # em: two glyphs this close (or overlapping this far) stand in one word


def _touching(chars: list) -> set[int]:
    """Indexes of the letters that touch the letter before them on a line set glyph by glyph: a
    browser's CSS letter-spacing (Marp's themes) makes each glyph its own text object, and pdfium
    writes a space between some of them ('O u tli n e'), where the glyphs stand within TOUCHING of
    each other as in any word. Read so where four letters or more in a row, each a glyph of its own,
    touch so in one font (a formula's letters change font or stand apart), and then every two such
    letters of the line (a short word of the same title: 'to', 'the'); a word space is a fifth of an
    em at least."""
    touch: list[int] = []
    for i in range(1, len(chars)):
        a, b = chars[i - 1], chars[i]
        if a[0].isalpha() and b[0].isalpha() and len(a[0]) == len(b[0]) == 1 \
                and a[6] is b[6] and abs(b[1] - a[3]) <= TOUCHING * a[6].size:
            touch.append(i)
    at = set(touch)
    return at if any(i + 1 in at and i + 2 in at for i in touch) else set()


def _tracking(chars: list, low: float, high: float) -> tuple[dict[int, float], float] | None:
    """-> (the gaps between letters, by index, of low..high em; the letter-spacing) where four letters
    or more in a row, each a glyph of its own, are set with one such gap, or None."""
    gaps: dict[int, float] = {}
    for i in range(1, len(chars)):
        a, b = chars[i - 1], chars[i]
        size = max(a[6].size, b[6].size)
        g = b[1] - a[3]
        # (one of the two a letter of its own: pdfium's items are glyphs there, while a justified
        # line's words, items of their own, are set apart by equal gaps too)
        if a[0].isalpha() and b[0].isalpha() and min(len(a[0]), len(b[0])) == 1 and low * size <= g <= high * size:
            gaps[i] = g
    ref = None
    for i in gaps:
        run = [gaps.get(i + d) for d in range(3)]
        if None not in run and all(len(chars[i - 1 + d][0]) == 1 for d in range(4)) \
                and max(run) - min(run) <= max(0.1, 0.08 * run[0]):
            ref = sorted(run)[1]
            break
    return None if ref is None else (gaps, ref)


def _visual_gaps(chars: list) -> dict[int, float]:
    """A right-to-left line's gaps, by index: the line's items stand in logical order (pdfium's), so
    the gap before an item is the one between it and the item read before it where the two stand side
    by side; where they do not (an embedded left-to-right run's first word stands left of its second,
    not beside the word read before it) no gap is known, and the text's own blank decides."""
    order = sorted(range(len(chars)), key=lambda i: chars[i][1])
    pos = [0] * len(chars)
    for p, i in enumerate(order):
        pos[i] = p
    gaps: dict[int, float] = {}
    for k in range(1, len(chars)):
        a, b = chars[k - 1], chars[k]
        if pos[k] == pos[k - 1] + 1:
            gaps[k] = b[1] - a[3]
        elif pos[k] == pos[k - 1] - 1:
            gaps[k] = a[1] - b[3]
    return gaps


def _strong(text: str) -> str:
    """'R' for a piece holding right-to-left letters, 'L' for one holding other letters, else 'N'
    (digits, punctuation, symbols: they take the direction of the text around them)."""
    if _RTL_RE.search(text) and any(unicodedata.bidirectional(c) in ("R", "AL") for c in text):
        return "R"
    return "L" if any(c.isalpha() for c in text) else "N"


def _logical_order(chars: list, base: str) -> list:
    """A right-to-left line's pieces in reading (logical) order. pdfium gives most such lines in
    logical order, and they are kept so; a line it took for left-to-right (one holding a URL or a
    formula) comes in visual order, its right-to-left words following each other rightwards: that
    line is read again from where its pieces stand. base: the page's direction ("R" where most of its
    letters are right-to-left). Pieces that touch are one cluster; a cluster of right-to-left letters
    reads leftwards, one of other letters rightwards; a cluster of neither (a number, a stop) goes
    with a left-to-right run where the letters before it (a number after 'm =') or on both sides of it
    are left-to-right, else with the line. Clusters are set apart by a blank (pdfium's, or a gap)."""
    n = len(chars)
    kinds = [_strong(c[0]) for c in chars]
    if "R" not in kinds:
        return chars
    vis = sorted(range(n), key=lambda i: chars[i][1] + chars[i][3])
    blank = {frozenset((k - 1, k)) for k in range(1, n) if chars[k][7]}
    clusters: list[list[int]] = []
    home = [0] * n  # each piece's cluster: clusters stand apart by a gap or a blank
    for p, i in enumerate(vis):
        if not (p and chars[i][1] - chars[vis[p - 1]][3] <= 0.18 * chars[i][6].size
                and frozenset((vis[p - 1], i)) not in blank):
            clusters.append([])
        clusters[-1].append(i)
        home[i] = len(clusters) - 1
    ck = []
    for cl in clusters:
        ks = {kinds[i] for i in cl}
        ck.append("R" if "R" in ks else "L" if "L" in ks else "N")
    # pdfium's order stands unless its right-to-left clusters (words) follow each other rightwards
    seen: list[int] = []
    for i in range(n):
        q = home[i]
        if ck[q] == "R" and (not seen or seen[-1] != q):
            if seen and q < seen[-1]:
                return chars  # (a step leftwards: pdfium's logical order)
            seen.append(q)
    if len(seen) < 2:
        return chars
    strong = list(ck)
    for q, k in enumerate(ck):  # a number after left-to-right letters is theirs
        if k == "N" and any(ch.isdigit() for i in clusters[q] for ch in chars[i][0]):
            left = next((ck[r] for r in range(q - 1, -1, -1) if ck[r] != "N"), base)
            if left == "L":
                strong[q] = "L"
    res = list(strong)
    for q, k in enumerate(strong):
        if k == "N":
            left = next((strong[r] for r in range(q - 1, -1, -1) if strong[r] != "N"), base)
            right = next((strong[r] for r in range(q + 1, len(strong)) if strong[r] != "N"), base)
            res[q] = left if left == right else base
    runs: list[tuple[str, list[int]]] = []  # (direction, cluster numbers)
    for q in range(len(clusters)):
        if runs and runs[-1][0] == res[q]:
            runs[-1][1].append(q)
        else:
            runs.append((res[q], [q]))
    order: list[int] = []
    for kind, qs in (reversed(runs) if base == "R" else runs):
        for q in (reversed(qs) if kind == "R" else qs):
            order.extend(reversed(clusters[q]) if ck[q] == "R" else clusters[q])
    return [chars[i][:7] + (j > 0 and home[i] != home[order[j - 1]],) for j, i in enumerate(order)]


def _finish_line(chars: list, rtl: int = 0) -> Line | None:
    """chars: (text, x0, top, x1, bottom, base, font, space_before); rtl: a right-to-left line, its
    characters in logical order (kept so: the text reads as written, not as drawn), 2 where the page
    reads right to left, 1 where it reads left to right (_rtl_marks)."""
    # dominant size by character count
    counts: dict[float, int] = {}
    for c in chars:
        if not c[0].isspace():
            counts[c[6].size] = counts.get(c[6].size, 0) + 1
    if not counts:
        return None
    dom = max(counts.items(), key=lambda kv: (kv[1], kv[0]))[0]
    bases = [c[5] for c in chars if c[6].size == dom]
    base = sorted(bases)[len(bases) // 2]
    if len(counts) > 1:
        dom, base = _under_raised(chars, counts, dom, base)
    if any(_lone_accent(c) for c in chars):  # (after the line's type is read: accents count in it)
        chars = _compose_accents(chars)
    runs: list[list] = []  # [key, sep, [chars], box]
    sup_size, rise, wide_gap, half_em = dom * 0.86, dom * 0.18, max(dom, 6.0), 0.5 * dom
    run_f = run_sup = None  # key of runs[-1]
    prev_x1 = None
    prev_text = ""
    if rtl:
        chars = _logical_order(chars, "R" if rtl == 2 else "L")
    tracked = _tracked(chars) if len(chars) >= 4 and not rtl else ()
    vgaps = _visual_gaps(chars) if rtl else None
    for k, (text, x0, top, x1, bottom, cbase, f, space) in enumerate(chars):
        if k in tracked:
            space = False
        sup = f.size < sup_size and (base - cbase) > rise
        if vgaps is not None:
            gap = vgaps.get(k, 0.0)
            wide = gap > wide_gap
            prev_x1 = x1
            if space and gap <= rise and ((text == "." and prev_text[-1:].isdigit()) or (
                    prev_text == "." and text[:1].isdigit())):
                # pdfium's reordering writes blanks around the dot of a section number ('۲ . ۱')
                # that stands touching its digits
                space = False
        elif prev_x1 is None:
            gap = 0.0
            wide = False
        else:
            gap = x0 - prev_x1
            wide = gap > wide_gap
        # two figures set more than half an em apart are two cells of a table ("6.58  6.68"),
        # whatever the width of the gap: they start a span of their own
        figures = vgaps is None and gap > half_em and prev_text[-1:] in _FIG_END and text[:1] in _FIG_START
        prev_text = text
        if not runs or wide or figures or f is not run_f or sup != run_sup:
            spaced = space or (gap > rise and k not in tracked)
            runs.append([(f, sup), "  " if wide else (" " if spaced and runs else ""), [text], [x0, top, x1, bottom]])
            run_f, run_sup = f, sup
        else:
            r = runs[-1]
            if space or (gap > rise and k not in tracked):
                r[2].append(" ")
            r[2].append(text)
            box = r[3]
            if x0 < box[0]:
                box[0] = x0
            if top < box[1]:
                box[1] = top
            if x1 > box[2]:
                box[2] = x1
            if bottom > box[3]:
                box[3] = bottom
        if prev_x1 is None or x1 > prev_x1:
            prev_x1 = x1
    spans: list[Span] = []
    parts: list[str] = []
    for (f, sup), sep, texts, box in runs:
        t = "".join(texts)
        parts.append(sep)
        parts.append(t)
        spans.append(Span(text=t, bbox=(round(box[0], 2), round(box[1], 2), round(box[2], 2), round(box[3], 2)),
                          size=f.size, font=f.name, bold=f.bold, italic=f.italic, mono=f.mono, superscript=sup))
    text = "".join(parts).strip()
    if not spans or not text:
        return None
    x0 = min(s.bbox[0] for s in spans)
    x1 = max(s.bbox[2] for s in spans)
    top = min(s.bbox[1] for s in spans)
    bottom = max(s.bbox[3] for s in spans)
    return Line(text=text, bbox=(round(x0, 2), round(top, 2), round(x1, 2), round(bottom, 2)), spans=spans)


_TEXTOBJ_FN = None


def _get_text_object_addr():
    """FPDFText_GetTextObject returning a plain address (int or None): much cheaper than casting
    the pointer object it returns for every character."""
    global _TEXTOBJ_FN
    if _TEXTOBJ_FN is None:
        import pypdfium2.raw as pdfium_c

        proto = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)
        _TEXTOBJ_FN = proto(ctypes.cast(pdfium_c.FPDFText_GetTextObject, ctypes.c_void_p).value)
    return _TEXTOBJ_FN


def _page_text(textpage_raw, n: int) -> str | None:
    """All characters of the page in one call; None when indexes would not line up."""
    import pypdfium2.raw as pdfium_c

    if n <= 0:
        return ""
    buf = (ctypes.c_ushort * (n + 1))()
    got = pdfium_c.FPDFText_GetText(textpage_raw, 0, n, buf)
    if got <= 0:
        return None
    text = bytes(memoryview(buf).cast("B")[: 2 * n]).decode("utf-16-le", "surrogatepass")
    if _NOT_BMP_RE.search(text):
        return None  # surrogate pairs (decoded to one character) or halves: one character, two indexes
    # FPDFText_GetText can drop a character and pad at the end (seen around soft hyphens), which
    # shifts every later index onto the wrong box: check a spread of indexes against the
    # per-character value ("\x02" comes back as U+FFFE there) and read one by one when off
    step = max(1, n // 24)
    for k in list(range(0, n, step)) + [n - 1]:
        u = pdfium_c.FPDFText_GetUnicode(textpage_raw, k)
        if u != ord(text[k]) and not (u == 2 and text[k] == "\ufffe"):
            return None
    return text


_NOT_BMP_RE = re.compile("[\ud800-\udfff\U00010000-\U0010ffff]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


# pdfium keeps a character outside the Basic Multilingual Plane (math italic U+1D45B, emoji) as
# two entries, its UTF-16 halves, each with its own index and the character's whole box. Words
# and single characters are cut by index: the two halves are placed as their one character, so
# no later step (superscript runs, line splits, sorting by x) can part them, which left each half
# alone and a U+FFFD for it once the text was repaired.
def _pair_at(text: str, k: int) -> bool:
    return "\ud800" <= text[k] <= "\udbff" and k + 1 < len(text) and "\udc00" <= text[k + 1] <= "\udfff"


def _pairs_joined(s: str) -> str:
    """UTF-16 halves in ``s`` as their characters (a lone half becomes U+FFFD)."""
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


_WORD_RE = re.compile(r"[^\s\ufffe\x02]+[\ufffe\x02]?|[\ufffe\x02]")

# letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, NKo, ... and their
# presentation forms): Unicode's bidi classes R and AL live in these blocks
_RTL_RE = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


def _rtl_marks(text: str) -> bytearray | None:
    """Per character index: 2 where the character stands in a right-to-left text line of a page whose
    letters are mostly right-to-left, 1 in such a line of a page mostly of other letters, 0 elsewhere;
    None when the page has no right-to-left letter. A text line is pdfium's own (it writes a line break
    between lines): pdfium puts most lines holding right-to-left letters in logical order, so their
    characters run leftwards, with left-to-right runs (digits, Latin words) inside them."""
    if not _RTL_RE.search(text):
        return None
    rtl_letters = sum(1 for c in _RTL_RE.findall(text) if unicodedata.bidirectional(c) in ("R", "AL"))
    mark = 2 if 2 * rtl_letters >= sum(1 for c in text if c.isalpha()) else 1
    marks = bytearray(len(text))
    start = 0
    for seg in text.split("\n"):
        end = start + len(seg) + 1
        if any(unicodedata.bidirectional(c) in ("R", "AL") for c in _RTL_RE.findall(seg)):
            marks[start:end] = bytes([mark]) * len(marks[start:end])
        start = end
    return marks


def _display_transform(page_raw, width: float, height: float):
    """(a, b, c, d, e, f): page space (x, y) -> display (a x + c y + e, b x + d y + f), top-left
    origin, for a page with /Rotate (pdfium measures text in the unrotated page space)."""
    import pypdfium2.raw as pdfium_c

    k = 100.0  # FPDF_PageToDevice answers whole device pixels: work at 1/100 point
    X, Y = ctypes.c_int(), ctypes.c_int()

    def dev(x, y):
        pdfium_c.FPDF_PageToDevice(page_raw, 0, 0, round(width * k), round(height * k), 0, x, y,
                                   ctypes.byref(X), ctypes.byref(Y))
        return X.value / k, Y.value / k

    e, f = dev(0.0, 0.0)
    ax, ay = dev(100.0, 0.0)
    cx, cy = dev(0.0, 100.0)
    return ((ax - e) / 100, (ay - f) / 100, (cx - e) / 100, (cy - f) / 100, e, f)


def _to_display(box, xf, height: float):
    """A box measured as (left, height - top, right, height - bottom) of the unrotated page
    (what _image_boxes and _links write) -> its box on the rotated display."""
    a, b, c, d, e, f = xf
    x0, t, x1, bt = box
    pts = [(x, height - y) for x in (x0, x1) for y in (t, bt)]
    xs = [a * x + c * y + e for x, y in pts]
    ys = [b * x + d * y + f for x, y in pts]
    return (round(min(xs), 2), round(min(ys), 2), round(max(xs), 2), round(max(ys), 2))


# Fixed pitch measured where a font names nothing (_fixed_pitch_fonts): a glyph narrow in any
# proportional face and one wide in it; a typewriter face advances both alike
_NARROW_GLYPHS = frozenset("iljtfr.,:;'!|")
_WIDE_GLYPHS = frozenset("mwMWOQ@%")


def _fixed_pitch_fonts(textpage_raw, text: str, nameless: dict[int, int]) -> set[int]:
    """The font handles among ``nameless`` (text object -> its font, fonts with no name and no
    fixed-pitch flag: Type 3 bitmap fonts, dvips' PK fonts, XeTeX's fallback to them) whose glyphs
    all advance the same on this page: a typewriter face. Measured between neighbouring
    characters of one font on one baseline: at least 8 advances, a narrow and a wide glyph among
    the characters they start from, each within 2 % of their median."""
    import pypdfium2.raw as pdfium_c

    get_obj = _get_text_object_addr()
    get_origin = pdfium_c.FPDFText_GetCharOrigin
    ox = ctypes.c_double()
    oy = ctypes.c_double()
    advances: dict[int, list[tuple[str, float]]] = {}
    prev = None  # (character, font, x, y) of the character before, when it may start an advance
    for k, ch in enumerate(text):
        font = nameless.get(get_obj(textpage_raw, k)) if not ch.isspace() and ch not in "\ufffe\x02" else None
        if font is None:
            prev = None
            continue
        get_origin(textpage_raw, k, ctypes.byref(ox), ctypes.byref(oy))
        if prev is not None and prev[1] == font and abs(oy.value - prev[3]) < 0.01 and ox.value > prev[2]:
            advances.setdefault(font, []).append((prev[0], ox.value - prev[2]))
        prev = (ch, font, ox.value, oy.value)
    fixed = set()
    for font, got in advances.items():
        if len(got) < 8 or not any(c in _NARROW_GLYPHS for c, _ in got) or not any(c in _WIDE_GLYPHS for c, _ in got):
            continue
        med = sorted(a for _, a in got)[len(got) // 2]
        if all(abs(a - med) <= 0.02 * med for _, a in got):
            fixed.add(font)
    return fixed


def _extract_page_lines(textpage_raw, height: float, xf=None,
                        fixed_pitch: frozenset = frozenset()) -> tuple[list[Line], int, int]:
    """Characters -> visual lines. Works word by word (a run of characters of one text object
    between spaces needs two boxes, not one per character) and falls back to single
    characters where a word mixes fonts (superscripts) or jumps lines.

    Returns (lines, visible characters, invisible characters). Invisible text (render mode 3)
    is read like any other: over a scan it is the page's OCR layer (OCRmyPDF, the Internet
    Archive, Google Books), the best text the page has; the count tells later stages so.

    This loop runs once per word of every page (most of a text PDF's reading time): the
    per-word state lives in local and closure variables, not attributes or dicts.

    A font that names nothing (a Type 3 bitmap font) says not whether it is a typewriter face: its
    glyphs' advances are measured once the page is read (_fixed_pitch_fonts), and the page is read
    again with those in ``fixed_pitch`` taken for monospace (code in them is code)."""
    import pypdfium2.raw as pdfium_c

    n = pdfium_c.FPDFText_CountChars(textpage_raw)
    rect = pdfium_c.FS_RECTF()
    rect_ref = ctypes.byref(rect)
    ox = ctypes.c_double()
    oy = ctypes.c_double()
    text = _page_text(textpage_raw, n)
    if text is None:  # rare: characters outside the BMP; read them one by one
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage_raw, k)) for k in range(n))
        text = text if len(text) == n else None
    get_obj = _get_text_object_addr()
    get_box = pdfium_c.FPDFText_GetLooseCharBox
    get_origin = pdfium_c.FPDFText_GetCharOrigin
    fonts: dict[int, _FontInfo] = {}
    faces: dict = {}  # font handle -> _face(), for this page
    get_font = _obj_calls()[0]
    for font in fixed_pitch:
        name, bold, italic, _ = _face(font)
        faces[font] = (name, bold, italic, True)
    nameless: dict[int, int] = {}  # text object -> its font, for fonts that name nothing
    descent: dict[int, float] = {}  # per text object: baseline minus loose-box bottom
    lines: list[Line] = []
    rotated_chars: list[str] = []
    cur: _LineBuilder | None = None
    visible = invisible = 0
    hidden: dict[int, bool] = {}  # per text object: drawn in render mode 3

    render_mode = _obj_calls()[3]
    invisible_mode = pdfium_c.FPDF_TEXTRENDERMODE_INVISIBLE

    def font_of(obj: int) -> _FontInfo:
        f = fonts.get(obj)
        if f is None:
            f = fonts[obj] = _font_info(obj, xf[:4] if xf else None, faces)
            hidden[obj] = render_mode(obj) == invisible_mode
            if not f.name and not f.mono:
                handle = get_font(obj)
                if handle:
                    nameless[obj] = handle
        return f

    def box(k: int, obj):
        if xf is not None:
            return rbox(k, obj)
        get_box(textpage_raw, k, rect_ref)
        bottom = rect.bottom
        d = descent.get(obj)
        if d is None:
            get_origin(textpage_raw, k, ctypes.byref(ox), ctypes.byref(oy))
            d = descent[obj] = bottom - oy.value
        return rect.left, height - rect.top, rect.right, height - bottom, height - bottom + d

    def origin_base(k: int) -> float:
        get_origin(textpage_raw, k, ctypes.byref(ox), ctypes.byref(oy))
        return height - oy.value

    def rbox(k: int, obj):
        # a /Rotate page: the box's corners and the origin taken to the display
        a, b, c, d, e, f = xf
        get_box(textpage_raw, k, rect_ref)
        pts = [(x, y) for x in (rect.left, rect.right) for y in (rect.bottom, rect.top)]
        xs = [a * x + c * y + e for x, y in pts]
        ys = [b * x + d * y + f for x, y in pts]
        x0, top, x1, bottom = min(xs), min(ys), max(xs), max(ys)
        dd = descent.get(obj)
        if dd is None:
            get_origin(textpage_raw, k, ctypes.byref(ox), ctypes.byref(oy))
            dd = descent[obj] = (b * ox.value + d * oy.value + f) - bottom
        return x0, top, x1, bottom, bottom + dd

    def place(item, rtl: int = 0) -> None:
        # item: (text, x0, top, x1, bottom, base, font, space_before); rtl: the item stands in a
        # right-to-left text line (_rtl_marks)
        nonlocal cur
        x0 = item[1]
        base = item[5]
        size = item[6].size or (item[4] - item[2]) or 1.0
        if cur is not None:
            ref = cur.size
            dy = base - cur.base
            dx = x0 - cur.x1
            big = size if size > ref else ref
            if rtl and -0.3 * big <= dy <= 0.3 * big and (
                    item[3] <= cur.last_x0 + 0.3 * big or x0 > cur.last_x0 - 0.3 * big
                    or unicodedata.combining(item[0][0])):
                # a right-to-left line goes on leftwards (pdfium gives most such lines in logical
                # order), or rightwards: through a left-to-right run inside it (digits, a Latin
                # word), or to its next word where pdfium gives the line in visual order; a vowel
                # mark stands over its letter
                cur.chars.append(item)
                cur.rtl = rtl
                cur.last_x0 = x0
                if x0 < cur.left:
                    cur.left = x0
                if item[3] > cur.x1:
                    cur.x1 = item[3]
                return
            if (-0.3 * big <= dy <= 0.3 * big and len(item[0]) == 1 and item[0] in _ACCENT_CHARS
                    and cur.chars[0][1] - 0.3 * big <= x0 <= cur.x1):
                # an accent set after the word or line it belongs to (pdfTeX's 'BADA ˙ N´', the dot
                # of a Z earlier on the line): it stays on the line, the reading place unmoved
                cur.chars.append(item)
                return
            if (-0.3 * big <= dy <= 0.3 * big and x0 > cur.last_x0 - 0.3 * big and dx > -2.0 * big) or (
                    size < 0.86 * ref and -0.75 * ref <= dy <= 0.45 * ref and -0.6 * ref < dx < 1.2 * ref):
                # the same line, or a super/subscript inside it
                if dx > 2.0 * ref and size < 0.9 * ref and not cur.cut:
                    cur.cut = len(cur.chars)
                cur.chars.append(item)
                if not (len(item[0]) == 1 and item[0] in _ACCENT_CHARS):
                    cur.last_x0 = x0  # (an accent stands over its letter, which may start left of it)
                if item[3] > cur.x1:
                    cur.x1 = item[3]
                return
            if size < 0.86 * ref and 0 < dy <= 0.45 * ref and dx <= 0 and _under_last_raised(cur, x0, ref):
                # a subscript set under the superscript the line ends in (E^miss_T) on a line in
                # bold (a heading's): the same line. (Only in bold: on a body line the subscript's
                # depth would make the line taller than the paragraph's pitch.)
                cur.chars.append(item)
                cur.last_x0 = x0
                return
            if ref < 0.86 * size and 0 < dy <= 0.75 * size and -0.6 * size < dx < 1.2 * size:
                # the line started with a superscript (footnote or affiliation mark)
                cur.base = base
                cur.size = size
                cur.chars.append(item)
                cur.last_x0 = x0
                if item[3] > cur.x1:
                    cur.x1 = item[3]
                return
            lines.extend(_finish_lines(cur))
        ch, x0, top, x1, bottom, base, f, _ = item
        cur = _LineBuilder((ch, x0, top, x1, bottom, base, f, False), base, size, x1, top, bottom)

    def one_char(k: int, space: bool) -> bool:
        """Place character k on its own; returns the space flag for what follows. A surrogate
        pair (k and k + 1, see _pair_at) is placed as its one character."""
        nonlocal visible, invisible
        obj = get_obj(textpage_raw, k)
        ch = text[k] if text is not None else chr(pdfium_c.FPDFText_GetUnicode(textpage_raw, k))
        if text is not None and _pair_at(text, k):
            ch = _pairs_joined(text[k:k + 2])
        if not obj:
            return space or ch.isspace()
        if ch in "\ufffe\x02":
            ch = "-"
        if ch.isspace():
            return True
        f = font_of(obj)
        if f.rotated:
            rotated_chars.append(ch)
            return False
        visible += 1
        if hidden.get(obj):
            invisible += 1
        x0, top, x1, bottom, base = box(k, obj)
        rtl = rtl_at[k] if rtl_at is not None else 0
        if rtl and xf is None:
            base = origin_base(k)  # (see the word loop)
        place((ch, x0, top, x1, bottom, base, f, space), rtl)
        return False

    # where accent glyphs stand: a word under or beside one is read character by character, so
    # that _compose_accents finds the letter by its own box
    acc_boxes = []
    if text is not None and not _ACCENT_CHARS.isdisjoint(text):
        for k, ch in enumerate(text):
            if ch in _ACCENT_CHARS:
                obj = get_obj(textpage_raw, k)
                if obj:
                    ax0, atop, ax1, abottom, _ = box(k, obj)
                    acc_boxes.append((ax0, atop, ax1, abottom))

    def near_accent(x0: float, top: float, x1: float, bottom: float) -> bool:
        h = bottom - top
        return any(ax0 < x1 and ax1 > x0 and atop < bottom + h and abottom > top - h
                   for ax0, atop, ax1, abottom in acc_boxes)

    def chars(s: int, e: int, space: bool) -> bool:
        """Place characters s..e-1 one by one (a surrogate pair as one); returns the space flag."""
        k = s
        while k < e:
            space = one_char(k, space)
            k += 2 if text is not None and k + 1 < e and _pair_at(text, k) else 1
        return space

    rtl_at = _rtl_marks(text) if text is not None else None
    if text is None:
        space = False
        for k in range(n):
            space = one_char(k, space)
    else:
        prev_end = 0
        for m in _WORD_RE.finditer(text):
            s, e = m.span()
            space = s > prev_end  # whitespace (real or generated) before the word
            prev_end = e
            obj = get_obj(textpage_raw, s)
            if not obj or (e - s > 1 and obj != get_obj(textpage_raw, e - 1)):
                space = chars(s, e, space)
                continue
            f = fonts.get(obj) or font_of(obj)
            word = m.group(0)
            if word[-1] in "\ufffe\x02":
                word = word[:-1] + "-"
            if _SURROGATE_RE.search(word):  # pairs to their characters (see _pair_at)
                word = _pairs_joined(word)
            if f.rotated:
                rotated_chars.append((" " if space else "") + word)
                continue
            if xf is None:  # box() inline: two calls a word
                get_box(textpage_raw, s, rect_ref)
                x0, top, x1, bottom = rect.left, height - rect.top, rect.right, height - rect.bottom
                d = descent.get(obj)
                if d is None:
                    get_origin(textpage_raw, s, ctypes.byref(ox), ctypes.byref(oy))
                    d = descent[obj] = rect.bottom - oy.value
                base = bottom + d
                if e - s > 1:
                    get_box(textpage_raw, e - 1, rect_ref)
                    lx0 = rect.left
                    lx1 = rect.right
                    lbase = height - rect.bottom + d
            else:
                x0, top, x1, bottom, base = box(s, obj)
                if e - s > 1:
                    lx0, _, lx1, _, lbase = box(e - 1, obj)
            rtl = rtl_at[s] if rtl_at is not None else 0
            if rtl and xf is None:
                # an Arabic face's loose boxes differ glyph by glyph (a final meem hangs lower):
                # the baseline is the glyphs' origin
                base = origin_base(s)
                if e - s > 1:
                    lbase = origin_base(e - 1)
            if e - s > 1:
                if rtl and lx1 < x0 and abs(lbase - base) <= 0.3 * max(f.size, 1.0):
                    x0 = lx0  # a right-to-left word: its last letter stands leftmost
                    lx1 = x1
                if abs(lbase - base) > 0.3 * max(f.size, 1.0) or lx1 < x0:
                    space = chars(s, e, space)  # the word jumps lines or runs backwards
                    continue
                if lx1 > x1:
                    x1 = lx1
                if acc_boxes and near_accent(x0, top, x1, bottom):
                    space = chars(s, e, space)
                    continue
            visible += e - s
            if hidden[obj]:
                invisible += e - s
            place((word, x0, top, x1, bottom, base, f, space), rtl)
    if cur is not None:
        lines.extend(_finish_lines(cur))
    if nameless and not fixed_pitch and text is not None:
        fixed = _fixed_pitch_fonts(textpage_raw, text, nameless)
        if fixed:
            return _extract_page_lines(textpage_raw, height, xf, frozenset(fixed))
    if rotated_chars:
        rtext = "".join(rotated_chars).strip()
        if rtext:
            lines.append(Line(text=rtext, bbox=None, spans=[]))
    return lines, visible, invisible


# Above this many named destinations a link's name is looked up in a table read once per
# document (_named_dests), not by pdfium per link: pdfium searches a name tree's leaf from its
# start, and a PDF whose 20,000 links name 20,000 destinations in one flat leaf took 34 CPU-s
# (quadratic: 10,000 took 8). A paper has tens to a few thousand, in a balanced tree.
_MANY_NAMED_DESTS = 1000
# The table is read when a link first names a destination, and for at most this many CPU
# seconds: pdfium answers FPDF_GetNamedDest(i) for PDF 1.1's /Dests dictionary by walking it
# from its start (100,000 names: ~190 CPU-s to read them all, fuzz seed 8 PDF case 166), where
# its own lookup by name is a map's. A name the table lacks goes to that lookup, which gives the
# same page: where the read stops changes the time, not the links.
_NAMED_DESTS_CPU_S = 1.0


class _NameTable:
    """{name: page index} of a document's named destinations, read on first use (most pages,
    and many documents, have no link that names one)."""

    def __init__(self, pdf_raw, count: int):
        self._pdf_raw, self._count = pdf_raw, count
        self._table: dict[str, int] | None = None

    def _read(self) -> dict[str, int]:
        if self._table is None:
            import time

            import pypdfium2.raw as pdfium_c

            pdf_raw = self._pdf_raw
            table: dict[str, int] = {}
            size = ctypes.c_long(0)
            stop = time.process_time() + _NAMED_DESTS_CPU_S
            for i in range(self._count):
                if i % 256 == 255 and time.process_time() > stop:
                    break
                size.value = 0
                pdfium_c.FPDF_GetNamedDest(pdf_raw, i, None, ctypes.byref(size))
                if size.value <= 0:
                    continue
                buf = ctypes.create_string_buffer(size.value)
                dest = pdfium_c.FPDF_GetNamedDest(pdf_raw, i, buf, ctypes.byref(size))
                if dest:
                    name = buf.raw[:size.value].decode("utf-16-le", "replace").rstrip("\x00")
                    table.setdefault(name, pdfium_c.FPDFDest_GetDestPageIndex(pdf_raw, dest))
            self._table = table
        return self._table

    def __contains__(self, name: str) -> bool:
        return name in self._read()

    def __getitem__(self, name: str) -> int:
        return self._read()[name]

    def __len__(self) -> int:
        return len(self._read())


def _named_dests(pdf_raw) -> _NameTable | None:
    """The document's named destinations as a :class:`_NameTable` when it has many, else None
    (each link asks pdfium, as before). The first of two equal names wins, as in pdfium's walk."""
    import pypdfium2.raw as pdfium_c

    count = pdfium_c.FPDF_CountNamedDests(pdf_raw)
    if count <= _MANY_NAMED_DESTS:
        return None
    return _NameTable(pdf_raw, count)


def _dest_name(annot) -> str | None:
    """The /Dest of a link annotation when it is a name or string (pdfium gives no text for an
    explicit [page /XYZ ...] array)."""
    import pypdfium2.raw as pdfium_c

    need = pdfium_c.FPDFAnnot_GetStringValue(annot, b"Dest", None, 0)
    if need <= 2:
        return None
    buf = ctypes.create_string_buffer(need)
    pdfium_c.FPDFAnnot_GetStringValue(annot, b"Dest", ctypes.cast(buf, ctypes.POINTER(pdfium_c.FPDF_WCHAR)), need)
    return buf.raw[:need].decode("utf-16-le", "replace").rstrip("\x00") or None


def _links(pdf_raw, page_raw, height: float, named: _NameTable | None = None) -> list[Link]:
    import pypdfium2.raw as pdfium_c

    out: list[Link] = []
    n = pdfium_c.FPDFPage_GetAnnotCount(page_raw)
    rect = pdfium_c.FS_RECTF()
    for i in range(n):
        annot = pdfium_c.FPDFPage_GetAnnot(page_raw, i)
        if not annot:
            continue
        try:
            if pdfium_c.FPDFAnnot_GetSubtype(annot) != pdfium_c.FPDF_ANNOT_LINK:
                continue
            if not pdfium_c.FPDFAnnot_GetRect(annot, ctypes.byref(rect)):
                continue
            bbox = (round(rect.left, 2), round(height - rect.top, 2), round(rect.right, 2), round(height - rect.bottom, 2))
            link = pdfium_c.FPDFAnnot_GetLink(annot)
            if not link:
                continue
            uri = None
            dest_page = None
            idx = -1
            name = _dest_name(annot) if named is not None else None
            listed = name is not None and name in named  # (a name the table lacks: pdfium's own lookup)
            if listed:
                idx, dest = named[name], None
            else:
                dest = pdfium_c.FPDFLink_GetDest(pdf_raw, link)
            action = pdfium_c.FPDFLink_GetAction(link)
            if action:
                atype = pdfium_c.FPDFAction_GetType(action)
                if atype == pdfium_c.PDFACTION_URI:
                    size = pdfium_c.FPDFAction_GetURIPath(pdf_raw, action, None, 0)
                    if size > 0:
                        buf = ctypes.create_string_buffer(size)
                        pdfium_c.FPDFAction_GetURIPath(pdf_raw, action, buf, size)
                        uri = buf.value.decode("utf-8", "replace") or None
                elif atype == pdfium_c.PDFACTION_GOTO and not dest and not listed:
                    dest = pdfium_c.FPDFAction_GetDest(pdf_raw, action)
            if dest:
                idx = pdfium_c.FPDFDest_GetDestPageIndex(pdf_raw, dest)
            if idx >= 0:
                dest_page = idx + 1
            if uri is None and dest_page is None:
                continue
            out.append(Link(bbox=bbox, uri=uri, dest_page=dest_page))
        finally:
            pdfium_c.FPDFPage_CloseAnnot(annot)
    return out


def _image_boxes(page, height: float) -> list[tuple[float, float, float, float]]:
    """Boxes of top-level image and form objects (figures drawn from included files)."""
    import pypdfium2.raw as pdfium_c

    boxes = []
    n = pdfium_c.FPDFPage_CountObjects(page.raw)
    left, bottom, right, top = ctypes.c_float(), ctypes.c_float(), ctypes.c_float(), ctypes.c_float()
    for i in range(n):
        obj = pdfium_c.FPDFPage_GetObject(page.raw, i)
        t = pdfium_c.FPDFPageObj_GetType(obj)
        if t not in (pdfium_c.FPDF_PAGEOBJ_IMAGE, pdfium_c.FPDF_PAGEOBJ_FORM):
            continue
        if not pdfium_c.FPDFPageObj_GetBounds(obj, ctypes.byref(left), ctypes.byref(bottom), ctypes.byref(right),
                                              ctypes.byref(top)):
            continue
        x0, y0, x1, y1 = left.value, bottom.value, right.value, top.value
        clip = _clip_box(obj)
        if clip is not None:
            # what is painted is the object inside its clip: a TikZ/PGF shading (a poster's header
            # bar, a shaded box) is a form far larger than the clipped area it shows
            x0, y0, x1, y1 = max(x0, clip[0]), max(y0, clip[1]), min(x1, clip[2]), min(y1, clip[3])
        w, h = x1 - x0, y1 - y0
        if w < 20 or h < 20:
            continue
        boxes.append((round(x0, 2), round(height - y1, 2), round(x1, 2), round(height - y0, 2)))
    return boxes


def _clip_box(obj) -> tuple[float, float, float, float] | None:
    """The box (PDF space) of a page object's clip path: the intersection of its paths' boxes,
    or None where it has no clip path."""
    import pypdfium2.raw as pdfium_c

    clip = pdfium_c.FPDFPageObj_GetClipPath(obj)
    if not clip:
        return None
    box = None
    x, y = ctypes.c_float(), ctypes.c_float()
    for i in range(pdfium_c.FPDFClipPath_CountPaths(clip)):
        xs, ys = [], []
        for j in range(pdfium_c.FPDFClipPath_CountPathSegments(clip, i)):
            seg = pdfium_c.FPDFClipPath_GetPathSegment(clip, i, j)
            if seg and pdfium_c.FPDFPathSegment_GetPoint(seg, ctypes.byref(x), ctypes.byref(y)):
                xs.append(x.value)
                ys.append(y.value)
        if not xs:
            continue
        b = (min(xs), min(ys), max(xs), max(ys))
        box = b if box is None else (max(box[0], b[0]), max(box[1], b[1]), min(box[2], b[2]), min(box[3], b[3]))
    return box


def _outline(pdf) -> list[OutlineEntry]:
    out: list[OutlineEntry] = []
    try:
        for bm in pdf.get_toc(max_depth=8):
            title = (bm.get_title() or "").strip()
            if not title:
                continue
            page = None
            try:
                dest = bm.get_dest()
                if dest is not None:
                    idx = dest.get_index()
                    if idx is not None and idx >= 0:
                        page = idx + 1
            except Exception:  # noqa: BLE001 -- a broken bookmark must not fail the document
                page = None
            out.append(OutlineEntry(level=bm.level + 1, title=title, page=page))
    except Exception:  # noqa: BLE001  (a broken outline keeps the entries read before it)
        pass
    return _without_root(out)


def _without_root(out: list[OutlineEntry]) -> list[OutlineEntry]:
    """A lone first bookmark above all the others is the document's title (REVTeX, some thesis
    classes write one): the entries under it are the document's top level."""
    if len(out) >= 3:
        top = min(o.level for o in out)
        if out[0].level == top and sum(o.level == top for o in out) == 1:
            return [OutlineEntry(level=o.level - 1, title=o.title, page=o.page) for o in out[1:]]
    return out


def extract(path: str | Path, options: CompileOptions | None = None, *, max_pages: int | None = None,
            progress=None, figures: bool = False) -> PageStream:
    """Read a PDF's text layer in this process. Raises InputRefused for unreadable files.

    ``progress(what, done, total)``, when given, hears of the pages read ("read") and OCRed ("ocr").
    With ``figures``, each page's figure boxes are located as it is read (compile/figures.py
    ``locate``, without opening the page a second time; in the page workers when there are any)."""
    import pypdfium2 as pdfium

    options = options or CompileOptions()
    path = str(path)
    warnings: list[str] = []
    read = path  # the file pdfium reads: the input, or its copy rebuilt from its objects
    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        msg = str(exc).lower()
        if "password" in msg:
            raise InputRefused("PDF is encrypted (password required)") from None
        got = _rebuilt(path)
        if got is None:
            if not _has_page_objects(path):
                raise InputRefused("PDF has zero pages") from None
            if "format" in msg or "file" in msg or "success" in msg:
                raise InputRefused("PDF is damaged or not a PDF (the parser could not read its structure)") from None
            raise InputRefused(f"cannot open PDF ({str(exc).strip()})") from None
        pdf, read, note = got
        warnings.append(note)
    try:
        n = len(pdf)
        if n == 0:
            raise InputRefused("PDF has zero pages")
        if max_pages is not None and n > max_pages:
            raise InputRefused(f"PDF has {n} pages, more than the limit of {max_pages}")
        workers = _workers(n)
        locate = figures and _figure_dpi() > 0
        fanout = _form_fanout(read, n)
        if workers > 1:
            pages = _extract_parallel(read, n, workers, progress, locate, fanout)
        else:
            pages = _extract_pages(pdf, 0, n, (lambda k: progress("read", k, n)) if progress else None, locate,
                                   fanout)
        info = {}
        try:
            info = {k: v for k, v in pdf.get_metadata_dict(skip_empty=True).items()}
        except Exception:  # noqa: BLE001
            info = {}
        outline = _outline(pdf)
    finally:
        pdf.close()
    from ctxmill.sources import clean_text, ocr

    # every stage below (and the sandbox's UTF-8 reply) needs valid str: see clean_text.py
    clean_text.clean_pages(pages)
    clean_text.clean_outline(outline)
    info = clean_text.clean_info(info)

    pages = ocr.apply(read, pages, options, warnings=warnings,
                      progress=(lambda done, total, _page: progress("ocr", done, total)) if progress else None)
    for p in pages:  # figures are located on text-layer pages only (figures._wanted), not on OCR's
        if p.figures and (p.ocr or p.error or not p.has_text_layer):
            p.figures = []
    # reported after OCR: only pages that are still without text (OCR off, failed or unavailable)
    damaged = [p.number for p in pages if p.error]
    if damaged:
        warnings.append(f"{len(damaged)} damaged page(s) could not be read: {_ranges(damaged)}")
    empty = [p.number for p in pages if not p.has_text_layer and not p.ocr and not p.error]
    if empty:
        warnings.append(f"{len(empty)} page(s) without a text layer: {_ranges(empty)}")
    return PageStream(pages=pages, kind="pdf", path=path, outline=outline, declared_pages=len(pages), info=info,
                      input_chars=sum(len(line.text) + 1 for p in pages for line in p.lines), warnings=warnings)


def _figure_dpi() -> int:
    from ctxmill.compile.figures import dpi

    return dpi()


FORM_SCAN_MAX_BYTES = 256 << 20  # a larger file's forms are not counted (pdfium reads it as before)


REPAIR_MAX_BYTES = 256 << 20  # a larger file pdfium refuses is not rebuilt (refused as before)
_REPAIRED: dict[str, str] = {}  # input path -> its rebuilt copy, in this process (readable, discard_repaired)


def _rebuilt(path: str):
    """(document, path of the copy, QA note) of a file pdfium refused, rebuilt from its objects
    (``pdf_repair``: a damaged object stream holding the catalog); None when it cannot be rebuilt
    or pdfium refuses the copy too. The copy is a temporary file, so that everything that opens
    the PDF by path (page workers, OCR, figure crops) reads it (``readable``);
    ``discard_repaired`` removes it."""
    import os
    import tempfile

    import pypdfium2 as pdfium

    from ctxmill.sources.pdf_repair import rebuild

    with _mapped(path, REPAIR_MAX_BYTES) as data:
        if data is None:
            return None
        try:
            got = rebuild(data)
        except (RecursionError, ValueError, IndexError, MemoryError):
            got = None
    if got is None:
        return None
    _serial[0] += 1
    copy = os.path.join(tempfile.gettempdir(), f"{REBUILT_PREFIX}{os.getpid()}-{_serial[0]}.pdf")
    try:
        with contextlib.suppress(FileNotFoundError):  # (a leftover of a process of the same id)
            os.unlink(copy)
        fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with open(fd, "wb") as fh:
            fh.write(got.data)
        pdf = pdfium.PdfDocument(copy)
    except (OSError, pdfium.PdfiumError):  # (pdfium refuses a document of no pages too)
        with contextlib.suppress(OSError):
            os.unlink(copy)
        return None
    discard_repaired(path)
    _REPAIRED[path] = copy
    return pdf, copy, got.note()


# A rebuilt copy is named after the process that made it, so that the sandbox's parent removes
# it when it has to kill that child (sandbox._kill_group); the child removes it when it ends.
REBUILT_PREFIX = "ctxmill-rebuilt-"
_serial = [0]


def readable(path) -> str:
    """The file to open for ``path``'s pages: its rebuilt copy when :func:`extract` made one."""
    return _REPAIRED.get(str(path), str(path))


def discard_repaired(path=None) -> None:
    """Remove the rebuilt copy of ``path`` (of every input, without one)."""
    import os

    for key in [str(path)] if path is not None else list(_REPAIRED):
        copy = _REPAIRED.pop(key, None)
        if copy is not None:
            try:
                os.unlink(copy)
            except OSError:
                pass


@contextlib.contextmanager
def _mapped(path: str, max_bytes: int):
    """The file's bytes as a read-only mmap (None for an empty file, one over ``max_bytes``, or
    one that cannot be read), closed on leaving."""
    import mmap
    import os

    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if 0 < size <= max_bytes else None
    except (OSError, ValueError):
        data = None
    try:
        yield data
    finally:
        if data is not None:
            # (a search still holding the map, were one left behind, lets it close when freed)
            with contextlib.suppress(BufferError):
                data.close()


def _form_fanout(path: str, n: int) -> frozenset[int]:
    """Pages (from 0) that draw Form XObjects more than MAX_PAGE_FORM_DRAWS times, counted from
    the file's bytes before pdfium loads any page (``pdf_forms``: pdfium parses a form anew for
    each draw, when the page is loaded); none when the count cannot be made.

    The bytes are read through a read-only mmap, not copied: the count mostly searches them
    (one ``find`` for /Subtype /Form in a paper without nested forms), and pdfium reads the
    file on its own (benchmarks/pdf_form_scan.py: on the 17 corpus papers the count's Python
    allocations fall from 34.9 to 12.6 MB in all, the time stays what it was)."""
    from ctxmill.sources.pdf_forms import page_form_draws

    with _mapped(path, FORM_SCAN_MAX_BYTES) as data:
        if data is None:
            return frozenset()
        draws = page_form_draws(data, MAX_PAGE_FORM_DRAWS)
    if draws is None or len(draws) != n:  # a page tree read otherwise than pdfium reads it: no verdict
        return frozenset()
    return frozenset(i for i, d in enumerate(draws) if d > MAX_PAGE_FORM_DRAWS)


def _extract_pages(pdf, start: int, end: int, tick=None, locate: bool = False,
                   fanout: frozenset[int] = frozenset()) -> list[Page]:
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    if locate:
        from ctxmill.compile.figures import captioned, page_figures
        from ctxmill.sources.clean_text import clean_pages
    pages: list[Page] = []
    named = _named_dests(pdf.raw)
    for i in range(start, end):
        if tick is not None and i > start:
            tick(i)  # pages read so far
        if i in fanout:  # never loaded: pdfium would parse every one of the draws (_form_fanout)
            pages.append(Page(number=i + 1, has_text_layer=False, error=(
                f"Form XObjects drawn over {MAX_PAGE_FORM_DRAWS:,} times, over MAX_PAGE_FORM_DRAWS "
                f"({MAX_PAGE_FORM_DRAWS:,})")))
            continue
        try:
            page = pdf[i]
        except pdfium.PdfiumError as exc:  # one damaged page: the others still compile
            pages.append(Page(number=i + 1, has_text_layer=False, error=f"pdfium: {str(exc).strip()[:120]}"))
            continue
        try:
            width, height = page.get_size()
            # a page with /Rotate (a landscape table in a paper) is read as it is displayed
            rotation = page.get_rotation() % 360
            xf = _display_transform(page.raw, width, height) if rotation else None
            tp = page.get_textpage()
            try:
                chars = pdfium_c.FPDFText_CountChars(tp.raw)
                if chars > MAX_PAGE_CHARS:  # one hostile page: an error of its own, the others compile
                    pages.append(Page(number=i + 1, has_text_layer=False, error=(
                        f"{chars:,} characters, over MAX_PAGE_CHARS ({MAX_PAGE_CHARS:,})")))
                    continue
                lines, visible, invisible = _extract_page_lines(tp.raw, height, xf)
            finally:
                tp.close()
            links = _links(pdf.raw, page.raw, height, named)
            images = _image_boxes(page, height)
            if xf is not None:
                images = [_to_display(b, xf, height) for b in images]
                for k in links:
                    k.bbox = _to_display(k.bbox, xf, height)
            found = []
            if locate and visible > 0:
                # as figures.locate does after extract() (its _wanted pages, cleaned text),
                # while this page is still open
                clean_pages([Page(number=i + 1, lines=lines)])  # (in place)
                if captioned(lines):
                    found = page_figures(page, lines, round(width, 2), round(height, 2))
        finally:
            page.close()
        pages.append(Page(number=i + 1, lines=lines, width=round(width, 2), height=round(height, 2), links=links,
                          images=images, has_text_layer=visible > 0, invisible_chars=invisible, figures=found))
    return pages


def _workers(n_pages: int) -> int:
    """Worker processes for the text layer: one per available core (at most 4), none for short files."""
    import os

    env = os.environ.get("CTXMILL_PDF_WORKERS")
    if env:
        want = max(1, int(env))
    else:
        try:
            cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cpus = os.cpu_count() or 1
        want = min(4, cpus)
    return max(1, min(want, n_pages // 12))


def _range_worker(args) -> list[Page]:
    import pypdfium2 as pdfium

    path, start, end, locate, fanout = args
    pdf = pdfium.PdfDocument(path)
    try:
        return _extract_pages(pdf, start, end, locate=locate, fanout=fanout)
    finally:
        pdf.close()


def _extract_parallel(path: str, n: int, workers: int, progress=None, locate: bool = False,
                      fanout: frozenset[int] = frozenset()) -> list[Page]:
    """Split the pages into contiguous ranges for forked processes (this process is the
    single-threaded sandbox child, so fork is safe here). A worker that dies (memory or CPU
    limit) fails the whole parse instead of hanging it. With ``progress``, a few ranges per
    worker, so that pages read are reported as each range ends."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    parts_n = workers * 4 if progress else workers
    parts_n = max(workers, min(parts_n, n // 4))
    bounds = [round(i * n / parts_n) for i in range(parts_n + 1)]
    ranges = [(path, bounds[i], bounds[i + 1], locate, fanout) for i in range(parts_n) if bounds[i + 1] > bounds[i]]
    try:
        ctx = mp.get_context("fork")
    except ValueError:
        return [p for r in ranges for p in _range_worker(r)]
    try:
        from ctxmill.procs import die_with_parent

        parts = []
        with ProcessPoolExecutor(max_workers=min(workers, len(ranges)), mp_context=ctx,
                                 initializer=die_with_parent) as pool:
            results = pool.map(_range_worker, ranges)  # (the workers are forked by now)
            # extract() runs every page past ocr.apply: its module loads on this thread, idle
            # otherwise until the workers are done (numpy only once a page needs OCR)
            from ctxmill.sources import ocr  # noqa: F401
            for (_, _, end, _, _), part in zip(ranges, results, strict=True):
                parts.append(part)
                if progress is not None:
                    progress("read", end, n)
    except BrokenProcessPool:
        raise MemoryError("a PDF worker process died") from None
    return [p for part in parts for p in part]


def _has_page_objects(path: str) -> bool:
    """Whether the file contains any /Type /Page object (when the parser gave up)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(64 * 1024 * 1024)
    except OSError:
        return True
    if b"/ObjStm" in data:
        return True  # pages may hide in compressed object streams
    return re.search(rb"/Type\s*/Page(?![a-zA-Z])", data) is not None


def _ranges(nums: list[int]) -> str:
    out = []
    start = prev = nums[0]
    for x in nums[1:]:
        if x == prev + 1:
            prev = x
            continue
        out.append(f"{start}-{prev}" if prev != start else str(start))
        start = prev = x
    out.append(f"{start}-{prev}" if prev != start else str(start))
    return ", ".join(out)

