"""A PDF that pdfium refuses to load, rebuilt from its objects (issue 26, round seventeen).

pdfium rebuilds a damaged cross-reference *table* itself (it scans the file for ``N G obj``),
but not an object stream whose header is wrong: a wrong /First, offsets that point beside the
objects, a /N far larger than the stream. When such a stream holds the catalog or the page tree,
the file is refused whole; pikepdf (qpdf) and pypdf recover none of these either (measured in
round fourteen on fuzz.py's cases). Yet the objects are all there, in order: an object stream is
a header of ``number offset`` pairs followed by the objects one after another.

:func:`rebuild` reads every ``N G obj`` of the file body (the last definition of a number wins,
as in an incremental update) and every object of each Flate object stream *in order*, the
header's numbers paired with the objects parsed one after another from the end of the header
(the /First and offsets it gives are not trusted: they are what is broken), and writes a plain
PDF of them with a fresh cross-reference table and a trailer naming the catalog. pdfium is then
handed that. It runs only after pdfium has refused a file, so a file that loads is never
touched; an encrypted file is not rebuilt (its objects' keys are tied to where they lived).

Bounded: one pass over the file (a literal search for ``obj``); each dictionary parsed no
further than its object's ``endobj``; ``MAX_PARSED`` bytes of object text parsed in the body
and again in object streams, which are decoded up to ``MAX_DECODED_TOTAL`` bytes in all; at most
``MAX_OBJECTS`` objects. What it cannot read it leaves out; a lost catalog is made for the pages
that are left; with no page it gives nothing (the file is refused as before).
"""

from __future__ import annotations

import re
import zlib
from itertools import islice

from ctxmill.sources import REBUILT_NOTE
from ctxmill.sources.pdf_forms import _OBJ_HEAD_RE, Ref, _Parser
from ctxmill.sources.pdf_forms import trailers as pdf_trailers

MAX_DECODED_TOTAL = 64 << 20  # bytes of object streams decoded for one rebuild (Flate bombs)
# bytes of object text parsed in the file body, and again in object streams (the parser is
# Python: ~2 MB of dense tokens a CPU-second, so each part is bounded at ~25 CPU-s)
MAX_PARSED = 48 << 20
MAX_OBJECTS = 2_000_000  # objects taken into one rebuild
MAX_OBJECT_NUMBER = 4_194_303  # pdfium's own limit on object numbers (CPDF_Parser::kMaxObjectNumber - 1)

_TOKEN_RE = re.compile(rb"\s*(\d+)(?=[\s%<\[/(]|\Z)")  # an integer of an object stream's header


class Rebuilt:
    """A rebuilt file's bytes and what went into it."""

    def __init__(self, data: bytes, body: int, packed: int, made: str = ""):
        self.data = data
        self.body = body  # objects taken from the file body
        self.packed = packed  # ... and from object streams
        self.made = made  # what was made up for what was lost ("" for nothing)

    def note(self) -> str:
        return (f"{REBUILT_NOTE}: it was rebuilt from its "
                f"{self.body + self.packed:,} objects ({self.packed:,} of them from object streams) before reading"
                + (f"; {self.made}" if self.made else ""))


def rebuild(data) -> Rebuilt | None:
    """The file ``data`` (bytes or an mmap) rebuilt from its objects, or None when it holds no
    catalog with pages, is encrypted, or gives nothing to rebuild."""
    # number -> (where in the file, generation, body text, from an object stream)
    found: dict[int, tuple[int, int, bytes, bool]] = {}
    streams: list[tuple[int, dict, bytes]] = []  # object streams: (where, dictionary, raw data)
    trailers: list[tuple[int, dict]] = []
    skip_to = 0  # (the end of the last stream read: an "obj" inside stream data is no object)
    close = -2  # the next "endobj", -1 for none (searched again only once passed: one pass in all)
    # bytes the objects' dictionaries took to parse, at most twice the file's (each is parsed
    # once): dictionaries that never close, with no "endobj" after them, each read on to the end
    # of the file, and stop the reading (the parser reads ~2 MB of dense tokens a CPU-second)
    spent = [0, min(2 * len(data) + (1 << 20), MAX_PARSED)]  # (bytes parsed, the most)
    at = data.find(b"obj")
    while at >= 0 and len(found) < MAX_OBJECTS and spent[0] <= spent[1]:
        if at >= skip_to and data[max(0, at - 3):at] != b"end":
            head = _OBJ_HEAD_RE.search(data, max(0, at - 24), at)
            if head is not None:
                if close == -2 or 0 <= close < at:
                    close = data.find(b"endobj", at)
                got = _object(data, at + 3, close if close >= 0 else None, spent)
                if got is not None:
                    value, end, stream_raw = got
                    num, gen = int(head.group(1)), int(head.group(2))
                    kind = value.get("Type") if isinstance(value, dict) else None
                    if stream_raw is not None:
                        skip_to = end
                    if kind == "/ObjStm" and stream_raw is not None:
                        streams.append((at, value, stream_raw))
                    elif kind == "/XRef":
                        trailers.append((at, value))
                    elif not (isinstance(value, dict) and "Linearized" in value) and num <= MAX_OBJECT_NUMBER:
                        found[num] = (at, gen, bytes(data[at + 3:end]), False)
        at = data.find(b"obj", at + 3)
    budget = [MAX_DECODED_TOTAL]
    spent[:] = [0, MAX_PARSED]
    for where, d, raw in streams:
        for num, body in _unpacked(d, raw, budget, found, spent):
            if num <= MAX_OBJECT_NUMBER and len(found) < MAX_OBJECTS:
                old = found.get(num)
                if old is None or old[0] < where:  # (a later definition wins)
                    found[num] = (where, 0, b" " + body + b" ", True)
    trailers += islice(pdf_trailers(data), 1000)
    trailers.sort(key=lambda t: t[0])
    if any("Encrypt" in t for _, t in trailers):
        return None
    root = info = None
    for _, t in trailers:  # the last trailer naming a catalog that is here
        if isinstance(t.get("Root"), Ref) and _is_catalog(found.get(int(t["Root"]))):
            root = int(t["Root"])
            info = t.get("Info") if isinstance(t.get("Info"), Ref) and int(t["Info"]) in found else None
    if root is None:
        root = _last_catalog(found)
    if not _has_pages(found):
        return None
    packed = sum(1 for v in found.values() if v[3])
    body = len(found) - packed
    made = ""
    if root is None:  # the catalog is lost (its object stream cut off or damaged): one for the pages
        got = _catalog_for_pages(found)
        if got is None:
            return None
        root, made = got
    return Rebuilt(_write(found, root, info), body, packed, made)


def _object(data, at: int, close: int | None, spent: list[int]):
    """(value, end, raw stream data or None) of the object whose body starts at ``at``; ``close``
    its "endobj" (a dictionary never closed ends there, not at the end of the file); the bytes
    its parse took are added to ``spent``."""
    p = _Parser(data, at, close)
    value = p.value()
    end = p.pos
    spent[0] += end - at
    if not isinstance(value, dict):
        return (value, end, None) if value is not None or end > at else None
    start = p.stream_data()
    if start is None:
        return value, end, None
    length = value.get("Length")
    if type(length) is int and length >= 0:  # (a Ref is an int too: an indirect length is not read)
        q = _Parser(data, start + length)
        q.skip_ws()
        if data[q.pos:q.pos + 9] == b"endstream":
            return value, q.pos + 9, data[start:start + length]
    # a wrong or indirect /Length: the stream ends at the next endstream
    stop = data.find(b"endstream", start)
    if stop < 0:
        return None
    return value, stop + 9, data[start:stop]


def _unpacked(d: dict, raw: bytes, budget: list[int], found: dict, spent: list[int]):
    """(number, body text) of each object of one object stream, in order: the header's numbers,
    the objects parsed one after another from the header's end (not from /First, nor at the
    offsets, which may be wrong). A stream cut short or damaged gives the objects before the
    damage (the last one, which may be cut, left out)."""
    got = _decoded(d, raw, budget, found)
    if got is None:
        return
    body, whole = got
    nums: list[int] = []
    ends = [0]  # where each integer of the header ends
    n = d.get("N") if type(d.get("N")) is int and d["N"] > 0 else None
    while n is None or len(nums) < 2 * n:  # the header: integers, two for each object
        m = _TOKEN_RE.match(body, ends[-1])
        if m is None:
            break
        nums.append(int(m.group(1)))
        ends.append(m.end())
    if len(nums) % 2:  # (the first object is itself an integer, read as one of the header's)
        nums.pop()
        ends.pop()
    p = _Parser(body, ends[-1])
    for k in range(0, len(nums), 2):
        p.skip_ws()
        start = p.pos
        if start >= len(body):
            return
        p.value()
        spent[0] += p.pos - start
        if (not whole and p.pos >= len(body)) or spent[0] > spent[1]:
            return
        yield nums[k], body[start:p.pos]


_PIECE = 4096  # compressed bytes inflated at a time (at most ~4 MB out of each: Flate's ratio)


def _decoded(d: dict, raw: bytes, budget: list[int], found: dict) -> tuple[bytes, bool] | None:
    """(data, whether it is whole) of an object stream with its Flate filter undone (a stream
    without a filter as it is; any other filter: None), within ``budget``. Damaged Flate data
    gives what it decoded until it failed: right up to the damage (deflate is read in order),
    perhaps garbage after it; the objects parsed from garbage are what pdfium then rejects."""
    f = d.get("Filter")
    if isinstance(f, Ref):  # (an indirect filter name, rare)
        got = found.get(int(f))
        f = _Parser(got[2], 0).value() if got else None
    if isinstance(f, list):
        f = f[0] if len(f) == 1 else None
    if budget[0] <= 0:
        return None
    if f is None and "Filter" not in d:
        out = bytes(raw[:budget[0]])
        budget[0] -= len(out)
        return out, len(out) == len(raw)
    if f not in ("/FlateDecode", "/Fl"):
        return None
    z = zlib.decompressobj()
    parts: list[bytes] = []
    size = 0
    whole = False
    for k in range(0, len(raw), _PIECE):
        before = z.copy()
        try:
            piece = z.decompress(raw[k:k + _PIECE])
        except zlib.error:
            # the damaged piece again, a byte at a time from where it began: what came before
            # the damage in it is kept
            z = before
            for j in range(k, min(k + _PIECE, len(raw))):
                try:
                    parts.append(z.decompress(raw[j:j + 1]))
                except zlib.error:
                    break
            break
        parts.append(piece)
        size += len(piece)
        if size >= budget[0] or z.eof:
            whole = z.eof and size <= budget[0]
            break
    out = b"".join(parts)[:budget[0]]
    budget[0] -= len(out)
    return out, whole


def _is_catalog(entry) -> bool:
    """Whether a found object is a document catalog (a dictionary naming its page tree)."""
    if entry is None:
        return False
    v = _Parser(entry[2], 0).value()
    return isinstance(v, dict) and isinstance(v.get("Pages"), Ref) and v.get("Type") in (None, "/Catalog")


def _last_catalog(found: dict) -> int | None:
    best = None
    for num, entry in found.items():
        if b"Catalog" in entry[2] and _is_catalog(entry) and (best is None or entry[0] > best[0]):
            best = (entry[0], num)
    return best[1] if best else None


def _catalog_for_pages(found: dict) -> tuple[int, str] | None:
    """(number, what was made) of a catalog added for the page tree when the file's own is
    lost: over its root when one /Pages node has no parent here, else over every page or
    subtree whose parent is lost, in the order of their object numbers."""
    nodes: dict[int, dict] = {}
    for num, entry in found.items():
        if b"/Page" in entry[2]:
            v = _Parser(entry[2], 0).value()
            if isinstance(v, dict) and v.get("Type") in ("/Pages", "/Page"):
                nodes[num] = v
    orphans = sorted(num for num, v in nodes.items()
                     if not (isinstance(v.get("Parent"), Ref) and nodes.get(int(v["Parent"]), {}).get("Type") == "/Pages"))
    if not orphans:
        return None
    top = max(found) + 1
    if len(orphans) == 1 and nodes[orphans[0]].get("Type") == "/Pages":
        tree, made = orphans[0], "its catalog was lost: one was made for its page tree"
    else:
        tree = top
        top += 1
        pages = sum(1 for v in nodes.values() if v.get("Type") == "/Page")
        kids = b" ".join(b"%d %d R" % (n, found[n][1]) for n in orphans)
        found[tree] = (0, 0, b" <</Type/Pages/Kids[%s]/Count %d>> " % (kids, pages), False)
        made = (f"its catalog and page tree were lost: {len(orphans):,} pages or groups of pages are read "
                f"in the order of their object numbers")
    found[top] = (0, 0, b" <</Type/Catalog/Pages %d %d R>> " % (tree, found[tree][1]), False)
    return top, made


def _has_pages(found: dict) -> bool:
    return any(b"/Page" in v[2] and re.search(rb"/Type\s*/Page(?![a-zA-Z])", v[2]) for v in found.values())


def _write(found: dict, root: int, info: int | None) -> bytes:
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets: dict[int, tuple[int, int]] = {}
    for num in sorted(found):
        _, gen, body, _ = found[num]
        offsets[num] = (len(out), gen)
        out += b"%d %d obj" % (num, gen)
        out += body
        out += b"\nendobj\n"
    xref = len(out)
    # subsections of consecutive numbers (object numbers far apart cost nothing)
    out += b"xref\n0 1\n0000000000 65535 f \n"
    nums = sorted(offsets)
    k = 0
    while k < len(nums):
        j = k
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out += b"%d %d\n" % (nums[k], j - k + 1)
        for num in nums[k:j + 1]:
            off, gen = offsets[num]
            out += b"%010d %05d n \n" % (off, gen)
        k = j + 1
    size = (nums[-1] + 1) if nums else 1
    out += b"trailer\n<</Size %d/Root %d %d R%s>>\nstartxref\n%d\n%%%%EOF\n" % (
        size, root, offsets[root][1], b"/Info %d %d R" % (info, offsets[info][1]) if info is not None else b"", xref)
    return bytes(out)
