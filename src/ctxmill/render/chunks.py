"""Retrieval chunks: structure-aware, token-bounded slices of document.md.

Rules (see docs/outputs.md):
- a chunk never holds text of two sections; a heading always travels with the text after it
  (a heading with no text of its own before the next heading is left to the breadcrumb);
- a table, figure or code block and its caption stay together and whole when they fit;
  a table too big for the budget is split between rows, and each continued part carries the
  header rows in ``context`` (the text itself stays an exact slice of document.md);
- paragraphs are packed greedily up to the budget; one paragraph too big on its own is split
  at sentence ends (a single over-long sentence at token boundaries), code at line ends;
- ``text == document.md[char_span[0]:char_span[1]]`` for every chunk;
- ``id`` is a hash of the chunk's position and text, so identical input gives identical ids.

Tokens are counted with :mod:`ctxmill.tokens` (offline BPE).
"""

from __future__ import annotations

import gc
import hashlib
import json
import re
from bisect import bisect_left
from itertools import chain
from operator import attrgetter, itemgetter
from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Block, Chunk, Document, Kind
from ctxmill.render import token_pieces
from ctxmill.tokens import count_many, get_tokenizer, token_offsets

_ATOMIC = {Kind.TABLE, Kind.FIGURE, Kind.CODE, Kind.EQUATION}
_KIND_NAME = {
    Kind.PARAGRAPH: "text", Kind.LIST_ITEM: "text", Kind.FOOTNOTE: "text",
    Kind.CAPTION: "text", Kind.TABLE: "table", Kind.FIGURE: "figure",
    Kind.CODE: "code", Kind.EQUATION: "equation", Kind.REFERENCE: "references",
}
# Sentence ends: ". " before a capital/quote/bracket, not after common abbreviations.
# (The mark first, each lookbehind then reaching over it: re skips to the marks by its
# first-character set instead of trying the pattern at every character of a long paragraph,
# and the nine lookbehinds run at marks only. Same matches as "(?=[.!?])(?<!\bet al)...[.!?]".)
# A lookahead for what must follow the mark comes before the lookbehinds: assertions at one
# place, so the same matches, but a mark not followed by a space and a capital, digit or bracket
# (most dots of a list of "x . [1] x - x" lines: 450,000 in 4 MB, 80,000 sentence ends) is left
# after one test instead of nine.
_SENT_END = re.compile(
    r"[.!?](?=[\"”’)\]]*\s+[A-Z0-9(\[\"“*_`$])"
    r"(?<!\bet al.)(?<!\be\.g.)(?<!\bi\.e.)(?<!\bFig.)(?<!\bNo.)(?<!\bvs.)(?<!\bSec.)(?<!\bEq.)(?<!\b[A-Z].)"
    r"[\"”’)\]]*\s+(?=[A-Z0-9(\[\"“*_`$])"
)


# kinds that are a unit alone: no caption to glue, not atomic, not a table
_PLAIN_KINDS = frozenset(k for k in vars(Kind).values() if k not in _ATOMIC and k not in (
    Kind.HEADING, Kind.CAPTION, Kind.TABLE, Kind.FIGURE))


_KINDS_OF = {k: [_KIND_NAME.get(k, "text")] for k in _PLAIN_KINDS}


# A unit is a list [start, end, kinds, blocks, tokens, table]: a run of markdown that is never
# split unless it alone exceeds the budget. (A list, not a class: raw OCR text makes a unit of
# each of its 47,000 one-line paragraphs a MB, and a dataclass's __init__ cost 2.5x a list's.)
_S, _E, _KINDS, _BLOCKS, _TOK, _TABLE = range(6)


def _unit(start: int, end: int, kinds: list[str], blocks: list[Block], table: bool = False) -> list:
    return [start, end, kinds, blocks, 0, table]


def _section_path(doc: Document) -> dict[str | None, list[str]]:
    by_id = {s.id: s for s in doc.sections}
    paths: dict[str | None, list[str]] = {None: []}
    for s in doc.sections:
        chain, cur, seen = [], s, set()
        while cur is not None and cur.id not in seen:
            seen.add(cur.id)
            chain.append(f"{cur.number} {cur.title}" if cur.number else cur.title)
            cur = by_id.get(cur.parent_id) if cur.parent_id else None
        paths[s.id] = list(reversed(chain))
    return paths


def _units_of_section(doc: Document, blocks: list[Block]) -> list[list]:
    """Turn one section's blocks into units: captions glued to their table/figure."""
    units: list[list] = []
    pending_heading: list | None = None
    spans = doc.block_spans
    plain = _PLAIN_KINDS
    kinds_of = _KINDS_OF  # (a unit's kinds are read, never changed: one list per kind serves all)
    add = units.append
    i = 0
    n = len(blocks)
    while i < n:
        b = blocks[i]
        s, e = spans[b.id]
        if pending_heading is None and b.kind in plain:  # (most blocks: a unit of its own)
            add([s, e, kinds_of[b.kind], [b], 0, False])
            i += 1
            continue
        if b.kind is Kind.HEADING:
            # Glue to the next unit; a second heading replaces a bodiless first one.
            pending_heading = _unit(s, e, [], [b])
            i += 1
            continue
        u = _unit(s, e, [_KIND_NAME.get(b.kind, "text")], [b], table=b.kind is Kind.TABLE)
        # A caption sits before a table or after a figure: keep them in one unit.
        if b.kind is Kind.CAPTION and i + 1 < len(blocks) and blocks[i + 1].kind in (
            Kind.TABLE, Kind.FIGURE
        ):
            nb = blocks[i + 1]
            u = _unit(s, doc.block_spans[nb.id][1], [_KIND_NAME[nb.kind]], [b, nb], table=nb.kind is Kind.TABLE)
            i += 1
        elif b.kind in (Kind.TABLE, Kind.FIGURE) and i + 1 < len(blocks) and (
            blocks[i + 1].kind is Kind.CAPTION
        ):
            nb = blocks[i + 1]
            u = _unit(s, doc.block_spans[nb.id][1], u[_KINDS], [b, nb], table=u[_TABLE])
            i += 1
        if pending_heading is not None:
            u = _unit(pending_heading[_S], u[_E], u[_KINDS], pending_heading[_BLOCKS] + u[_BLOCKS], table=u[_TABLE])
            pending_heading = None
        units.append(u)
        i += 1
    return units


def _pieces(text: str, budget: int, table: bool, tokens: int | None = None,
            offsets: list | None = None, count=None, ends_at=None,
            no_cut: bool = False) -> list[tuple[int, int, str | None]]:
    """Split one over-budget unit into exact sub-spans (start, end, context); ``tokens`` is
    the unit's count when known (a unit with no place to cut is then not counted again),
    ``offsets`` its token offsets (windows of _offsets) when known, ``count(a, b)`` the token
    count of ``text[a:b]`` alone when the caller has it (document.md tokenized once; None for
    a slice it cannot read), ``ends_at(a, b, first, step)`` the end offsets of the tokens
    number first, first + step, ... of ``text[a:b]`` alone (or None), and ``no_cut`` that the
    caller found no sentence or line end in it (:func:`_no_cut`: not searched again)."""
    lines = text.split("\n")
    if table:
        header_idx = next((k for k, ln in enumerate(lines) if re.match(r"^\s*\|?\s*:?-{3,}", ln)), None)
        if header_idx is not None and header_idx >= 1:
            header = "\n".join(lines[header_idx - 1 : header_idx + 1])  # header row + separator
            offs, pos = [], 0
            for ln in lines:
                offs.append((pos, pos + len(ln)))
                pos += len(ln) + 1
            head_tokens = _count_many([header])[0]
            row_tokens = _count_many(lines)
            out: list[tuple[int, int, str | None]] = []
            part_start, first_row = 0, header_idx + 1
            cur = sum(row_tokens[: header_idx + 1]) + header_idx
            for k in range(header_idx + 1, len(lines)):
                cost = row_tokens[k] + 1
                if cur + cost > budget and k > first_row:
                    out.append((offs[part_start][0], offs[k - 1][1], header if out else None))
                    part_start, first_row = k, k
                    cur = head_tokens + 1 + row_tokens[k]
                else:
                    cur += cost
            out.append((offs[part_start][0], len(text), header if out else None))
            return out
    # Prose: sentence ends; code and lists: line ends.
    if no_cut:
        cuts = []
    else:
        cuts = [m.end() for m in _SENT_END.finditer(text)] if ("." in text or "!" in text or "?" in text) else []
        cuts += [m.end() for m in re.finditer(r"\n", text)]
        cuts = sorted(set(c for c in cuts if 0 < c < len(text)))
    bounds = [0, *cuts, len(text)]
    starts, stops = bounds[:-1], bounds[1:]  # the segments (two lists: no tuple per sentence)
    if len(starts) == 1 and tokens is not None:
        seg_tok = [tokens]
    elif count is not None:  # (a paragraph of 55,000 short sentences: each cut into pieces again)
        seg_tok = list(map(count, starts, stops))
        if None in seg_tok:  # (slices that are not all ASCII: the tokenizer counts them)
            miss = [k for k, t in enumerate(seg_tok) if t is None]
            for k, t in zip(miss, _count_many([text[starts[k] : stops[k]] for k in miss]), strict=True):
                seg_tok[k] = t
    else:
        seg_tok = _count_many([text[a:b] for a, b in zip(starts, stops, strict=True)])
    out = []
    cs, ce, ct = None, None, 0
    for a, b, t in zip(starts, stops, seg_tok, strict=True):
        if t > budget:
            if cs is not None:
                out.append((cs, ce, None))
                cs, ct = None, 0
            whole = offsets if (a, b) == (0, len(text)) else None
            ends = ends_at(a, b, budget - 2, budget - 1) if whole is None and ends_at is not None else None
            out.extend((a + x, a + y, None) for x, y in _token_cut(text[a:b], budget, whole, ends))
            continue
        if cs is None:
            cs, ce, ct = a, b, t
        elif ct + t <= budget:
            ce, ct = b, ct + t
        else:
            out.append((cs, ce, None))
            cs, ce, ct = a, b, t
    if cs is not None:
        out.append((cs, ce, None))
    return out


def _token_cut(text: str, budget: int, windows: list | None = None,
               ends: list[int] | None = None) -> list[tuple[int, int]]:
    """Last resort for one sentence longer than the budget: cut at token boundaries (after
    every ``budget - 1`` tokens). ``ends``: those tokens' end offsets, when the caller has them."""
    if ends is None:
        ends = _token_ends(windows if windows is not None else _offsets(text), budget - 2, budget - 1)
    out, start = [], 0
    for e in ends:
        out.append((start, e))
        start = e
    if start < len(text):
        out.append((start, len(text)))
    return [(a, b) for a, b in out if b > a]


def _token_ends(windows: list, first: int, step: int) -> list[int]:
    """End offsets of tokens number first, first + step, ... (0-based) over the windows."""
    out: list[int] = []
    base = 0  # number of the window's first token
    for shift, ends in windows:
        n = len(ends)
        if base + n > first:
            g = first if base <= first else first + -(-(base - first) // step) * step
            out.extend(shift + e for e in ends[g - base :: step])
        base += n
    return out


# Token offsets of a long text, window by window. The tokenizer (NFKC, then the byte-level
# pre-tokenizer's regex, then BPE inside each piece) always has a piece boundary where a space
# follows a character that is not whitespace: no regex piece holds a non-space then a space,
# and NFKC composes nothing with a space. So the text cut there tokenizes to the same tokens
# with the same offsets (shifted), and the windows cost ~half of one 500 KB encode, whose
# offset tracking grows with the length of the string.
_WINDOW = 8192
_CUT_BEFORE = re.compile(r"(?<=\S) ")
_windowed: bool | None = None


def _can_window() -> bool:
    global _windowed
    if _windowed is None:
        pre, norm = token_pieces.tokenizer_setup()
        _windowed = (pre.get("type") == "ByteLevel" and pre.get("use_regex", True)
                     and norm.get("type") in ("NFKC", "NFC"))
    return _windowed


def _count_many(texts: list[str]) -> list[int]:
    """``count_many``, with ASCII texts counted piece by piece (:mod:`token_pieces`)."""
    if not texts or not token_pieces.usable():
        return count_many(texts)
    ascii_idx = [k for k, t in enumerate(texts) if t.isascii()]
    if len(ascii_idx) == len(texts):
        return token_pieces.count_ascii(texts)
    out = [0] * len(texts)
    for k, n in zip(ascii_idx, token_pieces.count_ascii([texts[k] for k in ascii_idx]), strict=True):
        out[k] = n
    rest = [k for k, t in enumerate(texts) if not t.isascii()]
    for k, n in zip(rest, count_many([texts[k] for k in rest]), strict=True):
        out[k] = n
    return out


def _offsets(text: str) -> list[tuple[int, list[int]]]:
    """The end offsets of ``token_offsets(text)`` as (shift, ends within the window) per window
    of about _WINDOW characters (one window for a short text, and for ASCII text, whose ends
    come piece by piece from :mod:`token_pieces`)."""
    if text.isascii() and token_pieces.usable():
        return [(0, token_pieces.ends_ascii(text))]
    if len(text) <= 2 * _WINDOW or not _can_window():
        return [(0, [e for _, e in token_offsets(text)])]
    starts = [0]
    while True:
        m = _CUT_BEFORE.search(text, starts[-1] + _WINDOW)
        if m is None or len(text) - m.start() < _WINDOW // 2:
            break
        starts.append(m.start())
    ends = starts[1:] + [len(text)]
    encs = get_tokenizer().encode_batch([text[a:b] for a, b in zip(starts, ends, strict=True)],
                                        add_special_tokens=False)
    return [(a, [y for _, y in e.offsets]) for a, e in zip(starts, encs, strict=True)]


def _no_cut(text: str) -> bool:
    """_pieces finds no sentence end and no line end to cut ``text`` at (one segment)."""
    return "\n" not in text[:-1] and not (("." in text or "!" in text or "?" in text) and _SENT_END.search(text))


def _trim(md: str, s: int, e: int) -> tuple[int, int]:
    while s < e and md[s].isspace():
        s += 1
    while e > s and md[e - 1].isspace():
        e -= 1
    return s, e


def build_chunks(doc: Document, budget: int) -> list[Chunk]:
    md = doc.markdown
    paths = _section_path(doc)
    # Blocks in reading order that made it into document.md, grouped by section.
    groups: list[tuple[str | None, list[Block]]] = []
    spans, furniture, heading = doc.block_spans, Kind.FURNITURE, Kind.HEADING
    last = None  # (the last group's block list, appended to while the section goes on)
    for b in doc.blocks:
        if b.id not in spans or b.kind is furniture:
            continue
        sid = b.section_id
        if b.kind is heading:
            # A heading opens its own section even when section_id points at it.
            if not groups or groups[-1][0] != sid or any(x.kind is not heading for x in last):
                last = [b]
                groups.append((sid, last))
                continue
        if not groups or groups[-1][0] != sid:
            last = [b]
            groups.append((sid, last))
        else:
            last.append(b)

    # Count every unit in one batch; a run of whole units then costs the sum of its units plus
    # the whitespace between them (the BPE pre-tokenizer splits at that whitespace, so the sum
    # is exact -- tests/test_chunks*.py check it against a fresh count of every chunk).
    sections = [u for u in (_units_of_section(doc, blocks) for _, blocks in groups) if u]
    flat = [u for units in sections for u in units]
    # A long unit with no place to cut but token boundaries needs its token offsets anyway:
    # their number is its count (one pass over it instead of two).
    # The markdown is tokenized once, whole: the count of a unit or a chunk that is all ASCII
    # is then read from that (token_pieces.Tokenized: exact for such a slice that ends in a
    # non-space, as they do); the tokenizer counts the others. (Not when units that are all
    # ASCII hold under half the text: the cut would then be paid for little.) A markdown that
    # is not ASCII is read so too where token_pieces.read_as can (its own NFKC form, every
    # character's class asked of the tokenizer): then the units it reads must hold half the text.
    whole = None
    reading = token_pieces.read_as(md) if token_pieces.usable() else None
    if reading is not None:
        unread = reading[2]
        if unread is None or 2 * sum(u[_E] - u[_S] for u in flat if not unread.search(md, u[_S], u[_E])) >= len(md):
            whole = token_pieces.Tokenized(md)
    elif token_pieces.usable() and 2 * sum(u[_E] - u[_S] for u in flat if md[u[_S] : u[_E]].isascii()) >= len(md):
        whole = token_pieces.Tokenized(md)
    offsets: dict[int, list] = {}
    no_cut: set[int] = set()  # (ids of long units with no sentence or line end)
    for k, u in enumerate(flat):
        if u[_E] - u[_S] > 8 * budget and not u[_TABLE] and _no_cut(md[u[_S] : u[_E]]):
            no_cut.add(id(u))
            n = whole.count_any(u[_S], u[_E]) if whole is not None else None
            if n is not None:  # (its cuts are read from the whole text's pieces: see _pieces)
                u[_TOK] = n
                offsets[k] = None
                continue
            offsets[k] = _offsets(md[u[_S] : u[_E]])
            u[_TOK] = sum(len(offs) for _, offs in offsets[k])
    rest = [k for k in range(len(flat)) if k not in offsets] if offsets else range(len(flat))
    if whole is not None:
        # whole.count's first case inline (a unit of whole pieces of document.md: most units)
        bounds, before, nb, count_any = whole.bounds, whole.before, len(whole.bounds), whole.count_any
        ws = whole.ws
        plain = whole.can_count(0, len(md))
        for u in flat if type(rest) is range else map(flat.__getitem__, rest):
            s, e = u[_S], u[_E]
            i, j = bisect_left(bounds, s), bisect_left(bounds, e)
            if e > s and j < nb and bounds[j] == e and bounds[i] == s and md[e - 1] not in ws and (
                    plain or whole.can_count(s, e)):
                u[_TOK] = before[j] - before[i]
            else:
                u[_TOK] = count_any(s, e)
        rest = [k for k in rest if flat[k][_TOK] is None]
    for k, t in zip(rest, _count_many([md[flat[k][_S] : flat[k][_E]] for k in rest]), strict=True):
        flat[k][_TOK] = t
    unit_offsets = {id(flat[k]): o for k, o in offsets.items() if o is not None}
    gap_cache: dict[str, int] = {}

    def gap_cost(gap: str) -> int:
        if gap not in gap_cache:
            gap_cache[gap] = _count_many([f"a{gap}b"])[0] - 2 if gap.strip() == "" else -1
        return gap_cache[gap]

    # spec: (start, end, context, units, tokens or None when it must be counted afresh)
    specs: list[tuple[int, int, str | None, list[list], int | None]] = []
    for units in sections:
        cur: list[list] = []
        cur_t = 0

        def flush():
            nonlocal cur, cur_t
            if cur:
                specs.append((cur[0][_S], cur[-1][_E], None, cur, cur_t))
            cur, cur_t = [], 0

        for u in units:
            if u[_TOK] > budget:
                flush()
                text = md[u[_S] : u[_E]]
                # (its sentences counted from document.md's one cut into pieces, not each cut again)
                count = None if whole is None else (lambda a, b, at=u[_S]: whole.count_any(at + a, at + b))
                ends_at = None if whole is None else (
                    lambda a, b, first, step, at=u[_S]: whole.ends_every(at + a, at + b, first, step, True))
                for a, b, ctx in _pieces(text, budget, u[_TABLE], u[_TOK], unit_offsets.get(id(u)), count,
                                         ends_at, id(u) in no_cut):
                    specs.append((u[_S] + a, u[_S] + b, ctx, [u], None))
                continue
            if cur:
                gap = md[cur[-1][_E] : u[_S]]
                g = gap_cache.get(gap)
                if g is None:
                    g = gap_cost(gap)
                if g < 0 or cur_t + g + u[_TOK] > budget:
                    flush()
                else:
                    cur_t += g
            cur.append(u)
            cur_t += u[_TOK]
        flush()

    chunks: list[Chunk] = []
    trimmed = []
    for s, e, ctx, units, n in specs:
        s2, e2 = _trim(md, s, e)
        if e2 <= s2:
            continue
        if (s2, e2) != (s, e):
            n = None  # trimmed: the sum no longer describes this text
        trimmed.append((s2, e2, ctx, units, n))
    if whole is not None:
        for i, t in enumerate(trimmed):
            if t[4] is None and t[2] is None:
                trimmed[i] = (*t[:4], whole.count(t[0], t[1]))
    fresh = [i for i, t in enumerate(trimmed) if t[4] is None]
    counts = _count_many([
        md[trimmed[i][0] : trimmed[i][1]] if trimmed[i][2] is None
        else trimmed[i][2] + "\n" + md[trimmed[i][0] : trimmed[i][1]]
        for i in fresh
    ])
    for i, n in zip(fresh, counts, strict=True):
        trimmed[i] = (*trimmed[i][:4], n)
    for s, e, ctx, units, n in trimmed:
        text = md[s:e]
        if _only_heading(text):
            continue
        if len(units) == 1:
            kind_set, blocks = set(units[0][_KINDS]), units[0][_BLOCKS]
        else:
            kind_set = set(chain.from_iterable(map(_kinds_of, units)))
            blocks = list(chain.from_iterable(map(_blocks_of, units)))
        kind = kind_set.pop() if len(kind_set) == 1 else ("mixed" if kind_set else "text")
        sid = next((b.section_id for b in blocks if b.kind is not Kind.HEADING), blocks[0].section_id)
        pages = _pages(blocks)
        cid = "c-" + hashlib.sha1(f"{s}:{e}:{text}".encode()).hexdigest()[:16]
        chunks.append(Chunk(id=cid, text=text, tokens=n, kind=kind, section_path=list(paths.get(sid, [])),
                            pages=pages, char_span=(s, e), context=ctx))
    return chunks


_kinds_of, _blocks_of = itemgetter(_KINDS), itemgetter(_BLOCKS)
_page, _page_end = attrgetter("page"), attrgetter("page_end")


def _pages(blocks: list[Block]) -> tuple[int, int]:
    """(first page, last page) of the blocks (each block's ``last_page`` is its ``page_end``,
    or its ``page`` when it has none: asked block by block only when some have one and some
    do not)."""
    first = min(map(_page, blocks))
    ends = list(map(_page_end, blocks))
    if None not in ends:
        return first, max(ends)
    if ends.count(None) == len(ends):
        return first, max(map(_page, blocks))
    return first, max(b.last_page for b in blocks)


def _only_heading(text: str) -> bool:
    if "#" not in text:  # (a chunk is trimmed: it has a character that is not space)
        return False
    return all(ln.lstrip().startswith("#") or not ln.strip() for ln in text.split("\n"))


def run(doc: Document, options: CompileOptions) -> None:
    """Stage: build ``doc.chunks`` from the blocks and document.md."""
    if not doc.markdown:
        doc.chunks = []
        return
    # The cyclic collector is off while the chunks are built: they make no reference cycles
    # (lists, tuples and Chunk records, freed by their counts), so a collection here would only
    # walk them and the document's objects again (10-15% of this stage on 26,000 blocks a MB).
    paused = gc.isenabled()
    gc.disable()
    try:
        doc.chunks = build_chunks(doc, options.chunk_tokens)
    finally:
        if paused:
            gc.enable()


def chunk_dict(c: Chunk) -> dict:
    d = {
        "id": c.id,
        "text": c.text,
        "tokens": c.tokens,
        "kind": c.kind,
        "section_path": c.section_path,
        "pages": list(c.pages),
        "char_span": list(c.char_span),
        "citations": c.citations,
    }
    if c.context:
        # Header rows of a continued table part, or (with --llm) a context line an LLM wrote.
        d["context"] = c.context
        d["context_llm"] = bool(getattr(c, "context_llm", False))
    return d


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    path = Path(folder) / "chunks.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for c in doc.chunks:
            f.write(json.dumps(chunk_dict(c), ensure_ascii=False) + "\n")
    return ["chunks.jsonl"]
