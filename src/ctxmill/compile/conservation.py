"""Conservation of text: every word a page holds reaches document.md or is listed as removed.

Words in are the words of each page as the source gave them (the PDF text layer, visible or
invisible, or what OCR read). Words out are the words of the rendered blocks of that page in
document.md. Text that a stage leaves out of document.md on purpose (running headers and
footers, page numbers, stamps, the labels inside a figure) is listed in ``doc.attrs["removed"]``
as ``{page, reason, text}`` (furniture blocks and figure text from the model, plus what earlier
stages noted with :func:`note_removed` in ``doc.attrs["noted_removed"]``); the renderer writes
that list to ``removed.json``.

This stage runs after the Markdown and before the QA report, and sets
``doc.attrs["conservation"]``::

    {"words_in", "words_out", "words_removed", "words_lost", "share",
     "pages": [{"page", "source", "chars_in", "words_in", "words_out", "words_removed",
                "words_lost", "share", "removed": {reason: words}, "ocr_confidence"?}]}

``share`` is (out + removed) / in: 1.0 means nothing vanished. A page with 50 or more characters
in and no word out is the bug this exists to catch (quality.py reports it by page).

The page-level helpers used by earlier stages live here too, so one module owns what counts as
removed: :func:`figure_boxes` (which picture boxes are figures, not the page's background) and
:func:`note_removed`.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from itertools import compress, groupby, repeat
from operator import attrgetter, is_not, itemgetter

from ctxmill.compile.options import CompileOptions
from ctxmill.model import BBox, Document, Kind, Page

BACKGROUND_SHARE = 0.7  # a picture covering this much of the page is its background, not a figure
_PAGE, _PAGE_END, _ID = attrgetter("page"), attrgetter("page_end"), attrgetter("id")
_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_WORD = re.compile(r"[^\W_]+")
# the same words in lower-case ASCII text (\w is [a-zA-Z0-9_] there): a plain character set,
# which the regex engine scans faster than a negated category
_WORD_ASCII = re.compile(r"[a-z0-9]+")


# ASCII bytes with every byte but a-z and 0-9 made a space: the words of ASCII text are then what
# str.split() finds, ~3x faster than the pattern's findall (a compile reads each word twice: the
# page's and document.md's)
_ASCII_WORD_BYTES = bytes(c if 97 <= c <= 122 or 48 <= c <= 57 else 32 for c in range(256))


def _ascii_words(lowered: str) -> list[str]:
    """``_WORD_ASCII.findall`` of lower-cased ASCII text."""
    return lowered.encode("ascii").translate(_ASCII_WORD_BYTES).decode("ascii").split()


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# ASCII text between two lines that are not is read by the pattern with them when shorter than
# this: a text that is not ASCII throughout stays one findall, not a step a line
_ASCII_GAP = 4096
# more non-ASCII characters than one in this many (by UTF-8's extra bytes): the text is read
# whole by the pattern (a step a line holding one costs more than it saves there: soup)
_DENSE = 1000


def _find_words(lowered: str) -> list[str]:
    """``_WORD.findall`` of lower-cased text."""
    if lowered.isascii():  # (_WORD_ASCII.findall)
        return _ascii_words(lowered)
    if (len(lowered.encode("utf-8")) - len(lowered)) * _DENSE > len(lowered):
        return _WORD.findall(lowered)
    # Lines holding a character outside ASCII by the pattern, the ASCII text between them (most
    # of a text with a few such lines: a paper's accented names above a long ASCII list) by
    # split. No word runs over a line break, so the pieces' words are the whole's, in order.
    out: list[str] = []
    pos, end = 0, len(lowered)
    m = _NON_ASCII.search(lowered)
    while m is not None:
        start = lowered.rfind("\n", pos, m.start()) + 1 or pos
        stop = lowered.find("\n", m.end())
        while stop >= 0:
            m = _NON_ASCII.search(lowered, stop)
            if m is None or m.start() - stop >= _ASCII_GAP:
                break
            stop = lowered.find("\n", m.end())
        else:
            m = None
        stop = end if stop < 0 else stop
        if start > pos:
            out.extend(_ascii_words(lowered[pos:start]))
        out.extend(_WORD.findall(lowered, start, stop))
        pos = stop
    if pos < end:
        out.extend(_ascii_words(lowered[pos:]))
    return out


# words of a page that went to a removal reason, placed by list.index scans before every word's
# places are listed once (a page's running header: a few words, each found in C)
_SCANS = 16


def figure_boxes(page: Page) -> list[BBox]:
    """Picture boxes whose text is figure text (labels of a diagram).

    A picture that covers most of the page is the page itself: a scan under its invisible OCR
    layer, a poster's background, a form XObject that wraps the whole page (note apps and slide
    exports draw every page that way). Text over it is the page's text.
    """
    area = (page.width * page.height) or 0.0
    if not area:
        return list(page.images)
    return [b for b in page.images if (b[2] - b[0]) * (b[3] - b[1]) < BACKGROUND_SHARE * area]


def note_removed(doc: Document, page: int, reason: str, text: str) -> None:
    """Record text a stage leaves out of document.md on purpose (shown in removed.json)."""
    if text.strip():
        doc.attrs.setdefault("noted_removed", []).append({"page": page, "reason": reason, "text": text.strip()})


def note_dropped(doc: Document, page: int, reason: str, before: list[str], after) -> None:
    """Record the words a step took out of a page's lines (``before``: the line texts before it,
    ``after``: the lines now), e.g. the margin line numbers of a review copy."""
    gone = Counter(words(" ".join(before))) - Counter(w for ln in after for w in words(ln.text))
    if gone:
        # taken out of the page stream itself, so later counts never see them: "dropped" makes
        # measure() count them as words in (and removed)
        doc.attrs.setdefault("noted_removed", []).append(
            {"page": page, "reason": reason, "text": " ".join(w for w, n in gone.items() for _ in range(n)),
             "dropped": True})


# superscript marks as document.md writes them ("Liu¹"): a word of their own, not part of the name
_SUPS = re.compile("([\u2070\u00b9\u00b2\u00b3\u2074-\u2079\u02d2\u1d43-\u1d5b\u02b0-\u02b8\u1da0-\u1dbf\u2071\u207f])")
# markup in pasted OCR and Markdown text: tags, entities, LaTeX command names, image paths
_MARKUP = re.compile(r"<[^<>]{1,200}>|&#?\w{1,8};|\\[A-Za-z]+|!\[([^\]]*)\]\([^)]*\)")
# the same without the image branch, for a text with no "](" (where that branch cannot match): it
# scans from each "![" to the next "]", and 100,000 "![" in a row took over 60 CPU-s (issue 26)
_MARKUP_NO_IMAGES = re.compile(r"<[^<>]{1,200}>|&#?\w{1,8};|\\[A-Za-z]+")


def words(text: str) -> list[str]:
    """Words as compared here: NFKC (ligatures, superscript digits), lower case, letters and digits."""
    if _SUPS.search(text):
        text = _SUPS.sub(r" \1", text)
    return _find_words(unicodedata.normalize("NFKC", text).lower())


def _strip_markup(text: str) -> str:
    """The words a reader sees in pasted OCR or Markdown text, without its markup."""
    if "](" not in text:
        return _MARKUP_NO_IMAGES.sub("  ", text)  # (what the branches but the image's put back)
    return _MARKUP.sub(lambda m: " " + (m.group(1) or "") + " ", text)


# the same markup as one line at a time would see it, for all of a page's lines joined by "\n":
# no match crosses a line end
_MARKUP_LINES = re.compile(r"<[^<>\n]{1,200}>|&#?\w{1,8};|\\[A-Za-z]+|!\[([^\]\n]*)\]\([^)\n]*\)")
_MARKUP_LINES_NO_IMAGES = re.compile(r"<[^<>\n]{1,200}>|&#?\w{1,8};|\\[A-Za-z]+")
_HYPHEN_END = re.compile(r"\w-[^\S\n]*$", re.M)


def _norm_lines(texts: list[str], markup: bool, joined: str | None = None) -> str | None:
    """Normalised text of the lines (NFKC, lower case, markup out), still joined by "\n", in
    one pass over the page: the per-line calls cost ~3 us a line, most of a page of one-word
    lines. None when a line holds a line break of its own. ``joined``: the lines so joined."""
    joined = "\n".join(texts) if joined is None else joined
    if joined.count("\n") != len(texts) - 1:
        return None
    if markup:
        if "](" not in joined:
            joined = _MARKUP_LINES_NO_IMAGES.sub("  ", joined)
        else:
            joined = _MARKUP_LINES.sub(lambda m: " " + (m.group(1) or "") + " ", joined)
    if _SUPS.search(joined):
        joined = _SUPS.sub(r" \1", joined)
    # NFKC composes nothing across "\n" and str.lower's final-sigma rule stops at it, so this
    # equals words() line by line
    return unicodedata.normalize("NFKC", joined).lower()


# A line end after a hyphen (the hyphen ends a word): marked with _MARK after the hyphen,
# so the page's words and its broken pairs come from one pass over the page, not a step a line
_MARK = "\x01"
_HYPHEN_MARK = re.compile(r"(?<=\w)-(?=[^\S\n]*$)", re.M)
# The loop of _page_words over the marked text: the last word of a marked line and the first
# word of the next (a pair), or, where the next line holds no word, the last word alone (lost:
# the loop drops its carried word there). Matches run left to right without overlapping, as the
# loop's carry does: a line whose only word closed a pair carries nothing on.
_PAIRS_ASCII = re.compile(r"([a-z0-9]+)[^a-z0-9\n\x01]*\x01[^a-z0-9\n]*\n(?:[^a-z0-9\n]*([a-z0-9]+)|(?=[^a-z0-9\n]*(?:\n|\Z)))")
# Where the pairs can be: marked lines in a row and the line after them, that line's "\n" left
# out (the patterns' \Z stands for it). No pair starts before a marked line or ends after the
# line that follows it, and a run's matches go left to right as over the whole page.
_MARKED_RUN = re.compile(r"^[^\n\x01]*\x01[^\n]*(?:\n[^\n\x01]*\x01[^\n]*)*(?:\n[^\n]*)?", re.M)
_RUNS_UNDER = 8  # run by run where under one line in 8 is marked
_PAIRS = re.compile(r"([^\W_]+)(?:[^\w\n\x01]|_)*\x01(?:[^\w\n]|_)*\n(?:(?:[^\w\n]|_)*([^\W_]+)|(?=(?:[^\w\n]|_)*(?:\n|\Z)))")


def _marked_words(marked: str) -> tuple[list[str], list[tuple[str, str]]]:
    """(words, firsts, seconds) of a page's normalised lines, hyphen ends marked: what
    _page_words' loop gives (its words in order less those of pairs and lost carries), in one
    scan in C. The pairs as two lists of strings, not a tuple each (a tuple is an object the
    garbage collector tracks: 300,000 of them set off full collections of a large document)."""
    # split: [text, a, b, text, a, b, ..., text], b None where the carry is lost; run by run,
    # the text parts outside the runs joined to the parts next to them
    pattern = _PAIRS_ASCII if marked.isascii() else _PAIRS
    texts: list[str] = []
    firsts: list[str] = []
    seconds: list[str] = []
    tail, pos = "", 0  # the last text part of the run before, and where the text after it starts
    for start, end in _pair_spans(marked):
        parts = pattern.split(marked[start:end])
        if len(parts) > 1:
            texts.append(tail + marked[pos:start] + parts[0])
            texts += parts[3:-1:3]
            firsts += parts[1::3]
            seconds += parts[2::3]
            tail, pos = parts[-1], end
    texts.append(tail + marked[pos:])
    if None in seconds:  # (a carry lost: no pair)
        firsts = list(compress(firsts, map(is_not, seconds, repeat(None))))
        seconds = [b for b in seconds if b is not None]
    return _find_words(" ".join(texts)), firsts, seconds


def _pair_spans(marked: str) -> list[tuple[int, int]]:
    """Where _marked_words tries its pattern: the runs of marked lines (a pair lies in a marked
    line and the line after it; 80 ms of a 340 KB page of OCR-engine text with three marks was
    the pattern tried at every letter), or the whole page where most lines are marked (the
    runs cost a step a line)."""
    if marked.count(_MARK) * _RUNS_UNDER >= marked.count("\n"):
        return [(0, len(marked))]
    return [m.span() for m in _MARKED_RUN.finditer(marked)]


def _page_words(page: Page, markup: bool = False) -> tuple[list[str], list[str], list[str]]:
    """A page's words, and the pairs broken by a hyphen at a line end ("conser-" "vation"): their
    first halves and their second halves."""
    texts = [ln.text for ln in page.lines]
    raw = "\n".join(texts)
    # (the pattern starts with \w: tried at every letter, so only where the page holds a hyphen)
    hyphens = "-" in raw and _HYPHEN_END.search(raw) is not None
    if hyphens and _MARK not in raw:
        marked = _HYPHEN_MARK.sub("-" + _MARK, raw)
        norm = _norm_lines(texts, markup, marked)
        if norm is not None and norm.count("\n") == len(texts) - 1 and norm.count(_MARK) == marked.count(_MARK):
            return _marked_words(norm)
    joined = _norm_lines(texts, markup, raw)
    if joined is not None and joined.count("\n") != len(texts) - 1:
        joined = None  # (normalising made or took a line break: line by line below)
    if joined is not None:
        if not hyphens:  # no pairs: every word of the page in one scan
            return _find_words(joined), [], []
        norm = joined.split("\n")
        ends = set()
        line_no, pos = 0, 0
        for m in _HYPHEN_END.finditer(raw):  # line index of each hyphen end
            line_no += raw.count("\n", pos, m.start())
            pos = m.start()
            ends.add(line_no)
        line_words = map(_WORD_ASCII.findall if joined.isascii() else _WORD.findall, norm)
        hyphen_end = ends.__contains__
    else:
        line_words = (words(_strip_markup(t) if markup else t) for t in texts)
        hyphen_end = lambda i: bool(re.search(r"\w-\s*$", texts[i]))  # noqa: E731
    out: list[str] = []
    firsts: list[str] = []
    seconds: list[str] = []
    carry = None
    for i, ws in enumerate(line_words):
        if carry is not None and ws:
            firsts.append(carry)
            seconds.append(ws[0])
            ws = ws[1:]
        carry = None
        if ws and hyphen_end(i):
            carry = ws.pop()
        out.extend(ws)
    if carry is not None:
        out.append(carry)
    return out, firsts, seconds


def _removed_pieces(doc: Document) -> list[dict]:
    """Everything left out of document.md on purpose: noted by the source reader and by stages,
    furniture, figure text."""
    # the reader's pieces never reached the pages: "dropped" counts them as words in (and removed)
    pieces = [{**r, "dropped": True} for r in doc.stream.removed]
    pieces += doc.attrs.get("noted_removed", [])
    for b in doc.blocks:
        if b.kind is Kind.FURNITURE:
            pieces.append({"page": b.page, "reason": (b.attrs.get("furniture") or "furniture").replace("_", "-"),
                           "text": b.text})
        elif b.kind is Kind.FIGURE:
            for t in list(b.attrs.get("figure_text") or []) + list(b.attrs.get("text") or []):
                pieces.append({"page": b.page, "reason": "figure-text", "text": t})
            if b.id not in doc.block_spans and b.attrs.get("caption"):
                pieces.append({"page": b.page, "reason": "figure-caption", "text": b.attrs["caption"]})
    return pieces


def _take(w: str, pools: list[Counter], rem_pools: list[tuple[str, Counter]]) -> str | None:
    """Use up one ``w`` from the first pool that has it: "out", a removal reason, or None."""
    for pool in pools:  # (get: a Counter's [] calls __missing__ in Python for a word it lacks)
        n = pool.get(w, 0)
        if n > 0:
            pool[w] = n - 1
            return "out"
    for reason, pool in rem_pools:
        n = pool.get(w, 0)
        if n > 0:
            pool[w] = n - 1
            return reason
    return None


def measure(doc: Document) -> tuple[dict, list[dict]]:
    """(conservation summary, removed pieces) for a compiled document (markdown already rendered)."""
    md = doc.markdown
    out_by_page: dict[int, Counter] = {}
    one_page: dict[int, list[str]] = {}  # the text of blocks on one page, counted in one call
    spans = doc.block_spans
    blocks = doc.blocks
    if list(map(_PAGE_END, blocks)).count(None) == len(blocks):
        # (no block runs over a page break: the lines of text input, most pages of a PDF) the loop
        # below in C: each rendered block's text in document.md, in order, joined to its page's
        span_of = list(map(spans.get, map(_ID, blocks)))
        kept = list(filter(None, span_of))  # (a span is a 2-tuple: None alone is false)
        texts = list(map(md.__getitem__, map(slice, map(_FIRST, kept), map(_SECOND, kept))))
        at = 0
        for p, run in groupby(compress(map(_PAGE, blocks), map(is_not, span_of, repeat(None)))):
            n = len(list(run))
            page_texts = one_page.get(p)
            if page_texts is None:
                page_texts = one_page[p] = []
            page_texts.extend(texts[at:at + n])
            at += n
        blocks = ()
    for b in blocks:
        span = spans.get(b.id)
        if span is None:
            continue
        if b.page_end is None or b.page_end == b.page:  # (b.last_page == b.page)
            texts = one_page.get(b.page)
            if texts is None:
                texts = one_page[b.page] = []
            texts.append(md[span[0]:span[1]])
            continue
        c = Counter(words(md[span[0]:span[1]]))
        for p in range(b.page, b.last_page + 1):
            out_by_page.setdefault(p, Counter()).update(c)
    # words of "a\nb" are the words of a, then of b. Counted only when a page's pool is read:
    # a page whose words out are its words in, in the same order (most pages of text input),
    # needs no count of either (two Counters of a million words, mostly distinct in a table of
    # numbers); its words are kept as a list until a neighbour reads them
    out_lists: dict[int, list[str]] = {}

    def out_pool(p: int) -> Counter | None:
        c = out_by_page.get(p)
        texts = one_page.pop(p, None)
        listed = words("\n".join(texts)) if texts is not None else out_lists.pop(p, None)
        if listed is not None:
            if c is None:
                c = out_by_page[p] = Counter()
            c.update(listed)
        return c

    removed = _removed_pieces(doc)
    removed_by_page: dict[int, list[tuple[str, Counter]]] = {}
    removed_by_dropped: dict[int, list[dict]] = {}
    for r in removed:
        if r.get("dropped"):
            removed_by_dropped.setdefault(r["page"], []).append(r)
            continue
        removed_by_page.setdefault(r["page"], []).append((r["reason"], Counter(words(r["text"]))))
    rows = []
    tot = Counter()
    for page in doc.stream.pages:
        ws, firsts, seconds = _page_words(page, markup=doc.stream.kind != "pdf")
        # a block re-flowed across a page break counts on both pages; a word may also have
        # moved one page with a float: look there after this page's own blocks
        n = page.number
        # (the words out of this page, in order, where no block over a page break added to them)
        listed = None
        if n not in out_by_page and n in one_page:
            listed = words("\n".join(one_page.pop(n)))
            if listed == ws:
                out_lists[n] = listed
            else:
                out_by_page[n] = Counter(listed)
                listed = None
        if listed is None:
            pools = [out_pool(n) or Counter(), out_pool(n - 1) or Counter(), out_pool(n + 1) or Counter()]
        rem_pools = [(reason, Counter(c)) for reason, c in removed_by_page.get(page.number, [])]
        kept = lost = 0
        rem: Counter[str] = Counter()

        # Single words first, each from the first pool that still has it: for k copies of one
        # word that is the same as taking them one by one, done once per distinct word.
        # removed.json lists reasons in the order their first word was met: kept from the page
        # position of the copy that first went to each reason.
        rem_n: dict[str, int] = {}
        rem_at: dict[str, int] = {}
        where_is: dict[str, list[int]] | None = None
        looked = 0
        if listed is not None:
            # the same words in the same order: the case below, told by one list comparison in
            # C without counting either side
            kept += len(ws)
            counted = {}
            pools = ([Counter(dict.fromkeys(out_pool(n), 0)), Counter(out_pool(n - 1) or ()),
                      Counter(out_pool(n + 1) or ())] if firsts else [Counter(), Counter(), Counter()])
        elif dict.__eq__(counted := Counter(ws), pools[0]):  # (Counter's own == is a Python loop)
            # (most pages of text input: every word of the page in its own blocks, no other;
            # one comparison in C instead of a step per distinct word, the same outcome)
            kept += len(ws)
            counted = {}
            if firsts:  # (else the pools are read no more: no copy of them, ~0.1 s a 4 MB page)
                pools = [Counter(dict.fromkeys(pools[0], 0)), Counter(pools[1]), Counter(pools[2])]
        else:  # (each page takes from copies: the next page reads this one's as they were)
            pools = [Counter(p) for p in pools]
        own = pools[0]

        def take(w: str, pools=pools, rem_pools=rem_pools) -> str | None:
            return _take(w, pools, rem_pools)

        for w, k in counted.items():
            have = own.get(w, 0)
            if have >= k:  # (most words: all copies are in this page's own blocks)
                own[w] = have - k
                kept += k
                continue
            for pool in pools:
                have = pool[w]
                if have > 0:
                    t = min(k, have)
                    pool[w] = have - t
                    kept += t
                    k -= t
                    if not k:
                        break
            if k:
                for reason, pool in rem_pools:
                    have = pool[w]
                    if have > 0:
                        t = min(k, have)
                        pool[w] = have - t
                        # the first copy of w taken here: its (copies - k)-th place on the page
                        looked += 1
                        if looked <= _SCANS:  # (a few words of a page: a running header) by list.index
                            at = -1
                            for _ in range(counted[w] - k + 1):
                                at = ws.index(w, at + 1)
                        else:  # (many: every place of every word, once)
                            if where_is is None:
                                where_is = {}
                                for i, x in enumerate(ws):
                                    where_is.setdefault(x, []).append(i)
                            at = where_is[w][len(where_is[w]) - k]
                        if reason not in rem_at or at < rem_at[reason]:
                            rem_at[reason] = at
                        rem_n[reason] = rem_n.get(reason, 0) + t
                        k -= t
                        if not k:
                            break
                lost += k
        for reason in sorted(rem_at, key=rem_at.__getitem__):
            rem[reason] = rem_n[reason]
        # a word in no pool is never taken: one set lookup instead of a walk over the pools
        # (a page of 'con-' lines holds a pair per line and none of them anywhere)
        known = set().union(*pools, *(pool for _, pool in rem_pools)) if firsts else set()
        pairs = zip(firsts, seconds, strict=True)
        if known.isdisjoint(firsts) and known.isdisjoint(seconds) and known.isdisjoint(map(str.__add__, firsts, seconds)):
            # (no piece of any pair in a pool: none is taken, each is lost; three set scans in
            # C, not a step a pair: a page of 'con-' lines re-flowed into one word)
            lost += 2 * len(firsts)
            pairs = ()
        for a, b in pairs:  # then the hyphenated pairs, in order
            # joined ("conservation") or kept as a compound ("context-collapse")
            ab = a + b
            where = take(ab) if ab in known else None
            if where is None:
                wa = take(a) if a in known else None
                wb = take(b) if b in known else None
                where = wa if wa is not None and wb is not None else None
            if where == "out":
                kept += 2
            elif where is not None:
                rem[where] += 2
            else:
                lost += 2
        for r in removed_by_dropped.get(page.number, []):
            rem[r["reason"]] += len(words(r["text"]))
        n_in = len(ws) + 2 * len(firsts) + sum(len(words(r["text"])) for r in removed_by_dropped.get(page.number, []))
        removed_n = sum(rem.values())
        row = {
            "page": page.number,
            "source": "ocr" if page.ocr else ("invisible" if page.invisible_chars else "text"),
            "chars_in": sum(map(len, map(str.strip, [ln.text for ln in page.lines]))),
            "words_in": n_in, "words_out": kept, "words_removed": removed_n, "words_lost": lost,
            "share": round((kept + removed_n) / n_in, 4) if n_in else 1.0,
            "removed": dict(rem),
        }
        if page.ocr and page.ocr_confidence is not None:
            row["ocr_confidence"] = page.ocr_confidence
        rows.append(row)
        tot.update({"in": n_in, "out": kept, "removed": removed_n, "lost": lost})
    summary = {
        "words_in": tot["in"], "words_out": tot["out"], "words_removed": tot["removed"], "words_lost": tot["lost"],
        "share": round((tot["out"] + tot["removed"]) / tot["in"], 4) if tot["in"] else 1.0,
        "pages": rows,
    }
    return summary, removed


def empty_pages(doc: Document, min_chars: int = 50) -> list[dict]:
    """Pages with at least ``min_chars`` characters in and not one word in document.md."""
    rows = (doc.attrs.get("conservation") or {}).get("pages", [])
    return [r for r in rows if r["chars_in"] >= min_chars and r["words_out"] == 0]


def run(doc: Document, options: CompileOptions) -> None:
    summary, removed = measure(doc)
    doc.attrs["conservation"] = summary
    doc.attrs["removed"] = removed
