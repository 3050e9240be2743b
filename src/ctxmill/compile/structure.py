"""Structure: title, headings with true levels, captions, footnotes, lists, the bibliography,
paragraphs re-flowed across page breaks and floats, then sections and stable block ids.

Heading levels come from the section numbering ("3.2" is depth 2, so ``###``), from fonts when
a heading has no number, and from the PDF outline when there is one. Without an outline (raw
OCR text) numbering and fonts alone decide, with a sequence check so that numbered list items
are not mistaken for sections.
"""

from __future__ import annotations

import re
import unicodedata

from ctxmill.compile.blocks import (
    BIBLIOGRAPHY_TITLES,
    CAPTION_RE,
    HEADING_NUM_RE,
    LIST_RE,
    UNNUMBERED_HEADINGS,
)
from ctxmill.compile.options import CompileOptions
from ctxmill.model import Block, BlockKind, Document, Section

FLOATS = (BlockKind.FIGURE, BlockKind.TABLE, BlockKind.FOOTNOTE, BlockKind.FURNITURE, BlockKind.CAPTION)
FOOTNOTE_START_RE = re.compile(r"^\[\^([\w*†‡§¶]{1,4})\]\s*(\S.*)$", re.S)
SENTENCE_END_RE = re.compile(r"[.!?:;]['\"”’)\]]*$|[.!?]\)$")


def norm_title(text: str) -> str:
    t = unicodedata.normalize("NFKD", text)
    t = t.replace("’", "'").replace("–", "-").replace("—", "-")
    t = re.sub(r"\[\^[^\]]*\]", "", t)
    t = re.sub(r"[^\w]+", " ", t.lower())
    return re.sub(r"\s+", " ", t).strip()


def run(doc: Document, options: CompileOptions) -> None:
    blocks = [b for b in doc.blocks if not (b.kind is BlockKind.PARAGRAPH and not b.text.strip())]
    body_size = _body_size(blocks)
    _title(blocks, body_size)
    _headings(doc, blocks, body_size)
    blocks = _captions(blocks)
    blocks = _figure_text(blocks, body_size)
    _footnotes(blocks, body_size)
    _lists(blocks)
    blocks = _merge_continuations(blocks)
    _bibliography(blocks)
    _footnote_refs(blocks)
    for i, b in enumerate(blocks):
        b.id = f"b{i}"
    doc.blocks = blocks
    doc.sections = _sections(blocks, doc.pages or 1)
    for b in blocks:
        for k in [k for k in b.attrs if k.startswith("_")]:
            del b.attrs[k]


def _body_size(blocks: list[Block]) -> float:
    counts: dict[float, int] = {}
    for b in blocks:
        s = b.attrs.get("_size")
        if s and b.kind is BlockKind.PARAGRAPH:
            counts[s] = counts.get(s, 0) + len(b.text)
    return max(counts, key=counts.get) if counts else 0.0


# ---------------------------------------------------------------------------- title


def _title(blocks: list[Block], body: float) -> None:
    first_page = min((b.page for b in blocks), default=1)
    marked = [b for b in blocks if b.kind is BlockKind.HEADING and b.attrs.get("_markup")]
    if marked:
        if marked[0].level == 1 and sum(1 for b in marked if b.level == 1) == 1:
            _make_title(marked[0])
        return
    cands = [b for b in blocks if b.page == first_page and b.kind is BlockKind.PARAGRAPH]
    if not cands:
        return
    if body:
        sized = [b for b in cands if b.attrs.get("_size") and b.attrs["_size"] >= body * 1.3
                 and (b.bbox is None or b.bbox[1] < (b.attrs.get("_page_height") or 792) * 0.5)
                 and 3 <= len(b.text) <= 300]
        if sized:
            best = max(sized, key=lambda b: (b.attrs["_size"], -b.bbox[1] if b.bbox else 0))
            if best.attrs["_size"] >= body * 1.3:
                _make_title(best)
                return
    # plain text: the first short line that reads like a title
    for b in cands[:6]:
        t = b.text.strip()
        if b.attrs.get("_markup"):
            continue
        if 8 <= len(t) <= 250 and "[^" not in t and not SENTENCE_END_RE.search(t) and not HEADING_NUM_RE.match(t) \
                and "@" not in t and not t.lower().startswith(("abstract", "http")) and len(t.split()) >= 2:
            _make_title(b)
            return


def _make_title(b: Block) -> None:
    b.kind = BlockKind.HEADING
    b.level = 1
    b.attrs["title"] = True


# ---------------------------------------------------------------------------- headings


def _heading_candidate(b: Block, body: float) -> tuple[str | None, str] | None:
    """(number or None, title) when the block reads like a heading."""
    if b.kind is not BlockKind.PARAGRAPH or b.attrs.get("title"):
        return None
    text = b.text.strip()
    if not text or len(text) > 180 or "[^" in text:
        return None
    geo = b.attrs.get("_size") is not None
    if geo:
        size = b.attrs["_size"]
        strong = (b.attrs.get("_bold") and size >= body * 0.85) or size >= body * 1.15
        if not strong or b.attrs.get("_nlines", 1) > 3:
            return None
    else:
        if b.attrs.get("_markup") or len(text) > 150:
            return None
    m = HEADING_NUM_RE.match(text)
    if m:
        number, title = m.group(1), m.group(2).strip()
        if not title[:1].isupper() and not title[:1].isdigit():
            return None
        if SENTENCE_END_RE.search(title) and not title.endswith("?"):
            return None
        if not geo:
            if len(title) > 120 or title.count(",") > 3:
                return None
            if re.match(r"^\d+\.\s", text) and ":" in title[:60]:
                return None  # "1. User: Submits ..." is a list item
        return number, title
    if norm_title(text) in UNNUMBERED_HEADINGS and len(text) < 40:
        return None, text
    return None


def _number_ok(number: str, state: dict) -> bool:
    """Sequence check: 3 after 2, 3.2 after 3.1 inside 3, A after numbers (appendix)."""
    parts = number.split(".")
    top = parts[0]
    last = state.get("top")
    if len(parts) == 1:
        if top.isdigit():
            ok = last is None and int(top) <= 3 or (last is not None and last.isdigit() and 0 < int(top) - int(last) <= 2)
        else:
            ok = top == "A" and (last is None or last.isdigit()) or (
                last is not None and not last.isdigit() and 0 < ord(top) - ord(last) <= 2) or state.get("appendix", False)
        return bool(ok)
    if top != last:
        return False
    prev = state.get("sub", {}).get(len(parts))
    depth_prefix = ".".join(parts[:-1])
    if state.get("prefix", {}).get(len(parts)) != depth_prefix:
        prev = None
    try:
        n = int(parts[-1])
    except ValueError:
        return False
    if prev is None:
        return n <= 2
    return 0 < n - prev <= 2


def _advance(number: str, state: dict) -> None:
    parts = number.split(".")
    if len(parts) == 1:
        state["top"] = parts[0]
        state["sub"] = {}
        state["prefix"] = {}
    else:
        state.setdefault("sub", {})[len(parts)] = int(parts[-1])
        state.setdefault("prefix", {})[len(parts)] = ".".join(parts[:-1])
        for d in list(state["sub"]):
            if d > len(parts):
                del state["sub"][d]


def _set_heading(b: Block, level: int, number: str | None, title: str) -> None:
    b.kind = BlockKind.HEADING
    b.level = max(2, min(6, level))
    b.number = number
    b.attrs["_title"] = title


def _headings(doc: Document, blocks: list[Block], body: float) -> None:
    outline = doc.stream.outline
    matched: set[int] = set()
    if outline and len(outline) >= 3:
        matched = _apply_outline(outline, blocks, body)
    state: dict = {}
    bib_seen = False
    for idx, b in enumerate(blocks):
        if b.kind is BlockKind.HEADING:
            if b.number:
                _advance(b.number, state)
            if b.attrs.get("_markup"):
                b.attrs["_title"] = b.text
                # "## 3.2 Design" in Markdown: keep the printed number apart, like PDF headings
                m = HEADING_NUM_RE.match(b.text) if b.number is None else None
                if m:
                    b.number, b.attrs["_title"] = m.group(1), m.group(2).strip()
                    _advance(b.number, state)
            if norm_title(b.attrs.get("_title", b.text)) in BIBLIOGRAPHY_TITLES:
                bib_seen = True
            continue
        if idx in matched:
            continue
        cand = _heading_candidate(b, body)
        if cand is None:
            if norm_title(b.text) == "appendix" and b.kind is BlockKind.PARAGRAPH:
                state["appendix"] = True
            continue
        number, title = cand
        if number is None:
            if matched and norm_title(title) not in BIBLIOGRAPHY_TITLES:
                if norm_title(title) == "appendix":
                    state["appendix"] = True
                continue  # with an outline, unnumbered headings come from it
            _set_heading(b, 2, None, title)
            if norm_title(title) in BIBLIOGRAPHY_TITLES:
                bib_seen = True
            continue
        if number[0].isalpha() and not (bib_seen or state.get("appendix") or b.attrs.get("_size")):
            continue  # "A Package ..." in plain text only after the references/appendix
        if number[0].isalpha() and b.attrs.get("_size") and not b.attrs.get("_bold"):
            continue
        if not _number_ok(number, state):
            continue
        _advance(number, state)
        _set_heading(b, 1 + len(number.split(".")), number, title)
    # a heading broken over two blocks ("6.3" alone, then the title) is rare; nothing to do


def _apply_outline(outline, blocks: list[Block], body: float) -> set[int]:
    """Match outline entries to blocks on their page (±1); returns matched block indexes."""
    matched: set[int] = set()
    by_page: dict[int, list[int]] = {}
    for i, b in enumerate(blocks):
        if b.kind is BlockKind.PARAGRAPH:
            by_page.setdefault(b.page, []).append(i)
    for entry in outline:
        want = norm_title(entry.title)
        if not want:
            continue
        pages = [entry.page, entry.page + 1, entry.page - 1] if entry.page else []
        best = None
        for p in pages:
            for i in by_page.get(p, []):
                if i in matched:
                    continue
                b = blocks[i]
                text = b.text.strip()
                m = HEADING_NUM_RE.match(text)
                number = m.group(1) if m else None
                rest = m.group(2) if m else text
                got = norm_title(rest)
                full = norm_title(text)
                if got == want or full == want or (len(want) > 12 and got.startswith(want) and len(got) - len(want) < 8):
                    if len(text) > len(entry.title) + 20:
                        continue
                    best = (i, number, rest.strip())
                    break
            if best:
                break
        if best is None:
            continue
        i, number, rest = best
        matched.add(i)
        _set_heading(blocks[i], entry.level + 1, number, rest)
    return matched


# ---------------------------------------------------------------------------- captions, footnotes, lists


def _captions(blocks: list[Block]) -> list[Block]:
    out: list[Block] = []
    i = 0
    while i < len(blocks):
        b = blocks[i]
        if b.kind is BlockKind.PARAGRAPH and b.bbox is None:
            m = CAPTION_RE.match(b.text.strip())
            if m and m.group(3)[:1].isupper() and len(b.text) > len(m.group(0)) * 0 + 12:
                label, number, rest = m.group(1), m.group(2), m.group(3).strip()
                if label == "Table":
                    nxt = blocks[i + 1] if i + 1 < len(blocks) else None
                    prv = out[-1] if out else None
                    if nxt is not None and nxt.kind is BlockKind.TABLE and not nxt.attrs.get("caption"):
                        nxt.attrs["caption"] = rest
                        nxt.number = number
                        i += 1
                        continue
                    if prv is not None and prv.kind is BlockKind.TABLE and not prv.attrs.get("caption"):
                        prv.attrs["caption"] = rest
                        prv.number = number
                        i += 1
                        continue
                else:
                    prv = out[-1] if out else None
                    if prv is not None and prv.kind is BlockKind.FIGURE and not prv.number and prv.page == b.page:
                        prv.attrs["caption"] = rest
                        prv.number = number
                        i += 1
                        continue
                    # an image placeholder a few blocks up (a table drawn inside the figure in between)
                    back = [x for x in out[-3:] if x.kind is BlockKind.FIGURE and not x.number and x.page == b.page]
                    if back:
                        back[-1].attrs["caption"] = rest
                        back[-1].number = number
                        i += 1
                        continue
                    out.append(Block(BlockKind.FIGURE, "", b.page, number=number, attrs={"caption": rest, "image": None}))
                    i += 1
                    continue
        out.append(b)
        i += 1
    return out


def _figure_text(blocks: list[Block], body: float) -> list[Block]:
    """Text drawn inside a vector figure (labels, small tables) sits right before its caption in
    a smaller or different font: move it out of the running text into the figure's attrs."""
    if not body:
        return blocks
    drop: set[int] = set()
    for i, b in enumerate(blocks):
        if b.kind is not BlockKind.FIGURE or b.bbox is None:
            continue
        j = i - 1
        taken: list[str] = []
        while j >= 0:
            x = blocks[j]
            if x.page != b.page or x.kind not in (BlockKind.PARAGRAPH, BlockKind.CODE, BlockKind.TABLE) \
                    or x.bbox is None or x.attrs.get("rows"):
                break
            size = x.attrs.get("_size")
            if x.kind is BlockKind.PARAGRAPH and (size is None or abs(size - body) <= 0.4):
                break
            if x.kind is BlockKind.CODE:
                break
            taken.append(x.text)
            drop.add(j)
            j -= 1
        if taken:
            b.attrs["text"] = list(reversed(taken))
    return [b for k, b in enumerate(blocks) if k not in drop]


def _footnotes(blocks: list[Block], body: float) -> None:
    for b in blocks:
        if b.kind is not BlockKind.PARAGRAPH:
            continue
        m = FOOTNOTE_START_RE.match(b.text)
        if not m:
            continue
        if b.bbox is not None:
            size = b.attrs.get("_size") or body
            h = b.attrs.get("_page_height") or 792
            if not (size < body - 0.4 and b.bbox[1] > h * 0.45):
                continue
        b.kind = BlockKind.FOOTNOTE
        b.number = m.group(1)
        b.text = m.group(2).strip()


def _lists(blocks: list[Block]) -> None:
    for b in blocks:
        if b.kind is not BlockKind.PARAGRAPH:
            continue
        m = LIST_RE.match(b.text)
        if not m:
            continue
        bullet = m.group(1)
        num = m.group(2) or m.group(3) or m.group(4)
        if bullet in ("-", "–", "*") and b.bbox is not None and b.attrs.get("_x0", 0) < 0:
            continue
        if num and b.bbox is None and len(b.text) < 4:
            continue
        b.kind = BlockKind.LIST_ITEM
        b.text = m.group(5).strip()
        b.attrs["ordered"] = bool(num)
        b.number = num.strip() if num else None
        b.level = 1


# ---------------------------------------------------------------------------- flow


def _continues(prev: Block, nxt: Block) -> bool:
    a = prev.text.rstrip()
    c = nxt.text.lstrip()
    if not a or not c:
        return False
    if SENTENCE_END_RE.search(a):
        return False
    if a.endswith("-") and c[:1].isalpha():
        return True
    return c[:1].islower() or (c[:1] in "(" and not a.endswith(".")) or (a.endswith(",") and not c[:1].isupper())


def _new_column(prev: Block, nxt: Block) -> bool:
    """The next block starts higher on the same page: the text went on in the next column."""
    return bool(prev.bbox and nxt.bbox and nxt.bbox[1] < prev.bbox[1] and nxt.bbox[0] > prev.bbox[0] + 50)


def _merge_continuations(blocks: list[Block]) -> list[Block]:
    """Join a paragraph split by a page break or a float when the text clearly runs on."""
    out: list[Block] = []
    last_para: int | None = None  # index in out of the last paragraph/list item
    for b in blocks:
        if b.kind in (BlockKind.PARAGRAPH, BlockKind.LIST_ITEM) and last_para is not None:
            prev = out[last_para]
            between = out[last_para + 1:]
            only_floats = all(x.kind in FLOATS or x.kind is BlockKind.CODE for x in between)
            if only_floats and b.kind is BlockKind.PARAGRAPH and prev.kind in (BlockKind.PARAGRAPH, BlockKind.LIST_ITEM) \
                    and (b.page != prev.page or between or _new_column(prev, b)) and _continues(prev, b) \
                    and not prev.attrs.get("title") \
                    and len(prev.text) >= 60 and not prev.attrs.get("front"):
                if prev.text.endswith("-") and b.text[:1].islower():
                    prev.text = prev.text[:-1] + b.text.lstrip()
                else:
                    prev.text = prev.text.rstrip() + " " + b.text.lstrip()
                prev.page_end = b.last_page
                continue
        out.append(b)
        if b.kind in (BlockKind.PARAGRAPH, BlockKind.LIST_ITEM):
            last_para = len(out) - 1
        elif b.kind in (BlockKind.HEADING, BlockKind.EQUATION):
            last_para = None
    return out


def _bibliography(blocks: list[Block]) -> None:
    # Finding the list (titles in any case, per-chapter lists, lists without a title, the
    # appendix after it) lives with the entry segmentation that uses what it marks.
    from ctxmill.compile.references import mark_bibliography

    mark_bibliography(blocks)


def _footnote_refs(blocks: list[Block]) -> None:
    """``[^n]`` markers whose footnote is nowhere become plain superscripts."""
    have = {b.number for b in blocks if b.kind is BlockKind.FOOTNOTE and b.number}

    def fix(m: re.Match) -> str:
        marks = [x for x in m.group(1).split(",") if x]
        if all(x in have for x in marks):
            return "".join(f"[^{x}]" for x in marks)
        return "<sup>" + ",".join(marks) + "</sup>"

    first_sec = next((i for i, b in enumerate(blocks) if b.kind is BlockKind.HEADING and not b.attrs.get("title")),
                     len(blocks))
    for b in blocks[first_sec:]:
        if b.kind is BlockKind.FOOTNOTE:
            continue
        if "[^" in b.text:
            b.text = re.sub(r"\[\^([^\]]+)\]", fix, b.text)


# ---------------------------------------------------------------------------- sections


def section_id(number: str | None, title: str, used: set[str]) -> str:
    base = f"s{number}" if number else "s-" + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40] or "section")
    sid = base
    k = 2
    while sid in used:
        sid = f"{base}-{k}"
        k += 1
    used.add(sid)
    return sid


def _sections(blocks: list[Block], pages: int) -> list[Section]:
    sections: list[Section] = []
    stack: list[Section] = []
    used: set[str] = set()
    current: Section | None = None
    last_page = max((b.last_page for b in blocks), default=1)
    for b in blocks:
        if b.kind is BlockKind.HEADING and not b.attrs.get("title"):
            title = b.attrs.get("_title") or b.text
            if b.number and b.text.startswith(b.number):
                title = b.text[len(b.number):].strip()
            b.text = f"{b.number} {title}" if b.number else title
            sid = section_id(b.number, title, used)
            while stack and stack[-1].level >= (b.level or 2):
                stack.pop()
            sec = Section(id=sid, level=b.level or 2, title=title, page_start=b.page, page_end=b.page, number=b.number,
                          block_id=b.id, parent_id=stack[-1].id if stack else None)
            sections.append(sec)
            stack.append(sec)
            current = sec
        if current is not None:
            b.section_id = current.id
            for s in stack:
                s.page_end = max(s.page_end, b.last_page)
    # a section runs until the next section at the same or a higher level starts
    for i, s in enumerate(sections):
        end = last_page
        for t in sections[i + 1:]:
            if t.level <= s.level:
                end = max(s.page_start, t.page_start)
                break
        s.page_end = max(s.page_end, min(end, last_page))
    return sections
