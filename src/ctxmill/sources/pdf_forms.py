"""How many Form XObject draws each page expands to, counted from the file's bytes before
pdfium loads any page (issue 26, round fourteen).

pdfium parses a page's content when the page is loaded (``FPDF_LoadPage``), and a Form
XObject drawn from it is parsed again for every draw: forms that each draw the next twice, 20
deep, are 2^20 draws from 6 KB of PDF - 18-30 CPU-s and the 4 GB memory limit, and the whole
document was refused. pdfium's API reads a page's objects only after that load, and it has no
call that reads a dictionary or a stream of the file, so the count is made here, from the
bytes: each form's content is searched for ``/Name Do``, the name looked up in the form's
/Resources /XObject, and the draws summed per form (memoised, so the count costs one pass per
form however large it is) and then per page, with the page tree walked as pdfium walks it.

Only what the count needs is read: the objects (in the file body and in object streams), the
Flate filter, the page tree with inherited /Resources. Anything this reader cannot follow
(another filter, a damaged tree, a page count that is not pdfium's) counts nothing, and pdfium
then reads the page as before: the check can only spare a page, never refuse one. It is
skipped without any parsing for a file where no Form XObject draws another one (the usual
case), after one ``bytes.find`` for /XObject inside a form.

The file is read through a read-only ``mmap`` (``sources/pdf._form_fanout``), not copied: every
function here takes bytes or an mmap alike (find, rfind, regular expressions, slices; no
``startswith``, which an mmap lacks), and keeps only slices it decodes.
"""

from __future__ import annotations

import array
import bisect
import re
import zlib

MAX_DECODED = 32 << 20  # bytes of one decoded content stream read for its Do operators
MAX_DECODED_TOTAL = 256 << 20  # ... and of all the streams one file's count decodes (Flate bombs)
MAX_DICT_BYTES = 64 << 10  # how far from a form's /Subtype its dictionary is looked at
MAX_DEPTH = 64  # form nesting followed (pdfium stops deeper still)

_OBJ_HEAD_RE = re.compile(rb"(?<![0-9])(\d{1,10})\s+(\d{1,5})\s+\Z")  # "N G" before an "obj"
_DO_RE = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s*Do\b")
_FORM_RE = re.compile(rb"/Subtype\s*/Form\b")
_STREAM_RE = re.compile(rb"stream")
_RESOURCES_REF_RE = re.compile(rb"/Resources\s+\d+\s+\d+\s+R")
_OBJSTM_RE = re.compile(rb"/Type\s*/ObjStm\b")
_XREF_RE = re.compile(rb"/Type\s*/XRef\b")
_DELIM = b"()<>[]{}/%"
_WS = b" \t\r\n\f\x00"
_SKIP_RE = re.compile(rb"(?:[ \t\r\n\f\x00]+|%[^\n]*)*")
_WORD_RE = re.compile(rb"[^ \t\r\n\f\x00()<>\[\]{}/%]*")
_STRING_RE = re.compile(rb"[\\()]")


class Ref(int):
    """An indirect reference (its object number)."""


class _Reader:
    """Objects of one PDF file by number: parsed on first need."""

    def __init__(self, data: bytes):
        self.data = data
        self.where: dict[int, int] = {}  # object number -> offset of its body (the last definition wins)
        self.ends = array.array("q")  # where each "endobj" is, in order
        # each "obj" keyword (a literal search, fast), then its number just before it
        at = data.find(b"obj")
        while at >= 0:
            if data[max(0, at - 3):at] != b"end":
                head = _OBJ_HEAD_RE.search(data, max(0, at - 24), at)
                if head is not None:
                    self.where[int(head.group(1))] = at + 3
            else:
                self.ends.append(at - 3)
            at = data.find(b"obj", at + 3)
        self.packed: dict[int, bytes] | None = None  # objects of object streams, read when one is missing
        self.cache: dict[int, object] = {}
        self.budget = MAX_DECODED_TOTAL  # bytes left to decode

    # ---------------------------------------------------------------- objects

    def get(self, ref):
        """The object ``ref`` names (a dict, list, number...; a stream is (dict, raw bytes))."""
        if not isinstance(ref, Ref):
            return ref
        num = int(ref)
        if num in self.cache:
            return self.cache[num]
        self.cache[num] = None  # (a reference to itself reads as nothing)
        at = self.where.get(num)
        if at is not None:
            got = self._object_at(self.data, at, stream_ok=True)
        else:
            body = self._packed().get(num)
            got = _Parser(body, 0).value() if body is not None else None
        self.cache[num] = got
        return got

    def _object_at(self, data: bytes, at: int, stream_ok: bool):
        # (a dictionary never closed ends with its object, not at the end of the file)
        close = None
        if data is self.data:
            k = bisect.bisect_left(self.ends, at)
            close = self.ends[k] if k < len(self.ends) else None
        p = _Parser(data, at, close)
        value = p.value()
        if stream_ok and isinstance(value, dict):
            start = p.stream_data()
            if start is not None:
                end = data.find(b"endstream", start)
                if end < 0:
                    end = len(data)
                return _Stream(value, data[start:end])
        return value

    def _objects_holding(self, pattern: re.Pattern) -> list[int]:
        """Numbers of the file-body objects whose text holds ``pattern`` (in their dictionary:
        found by bytes, so that no other object is parsed), last in the file first."""
        starts = sorted((at, num) for num, at in self.where.items())
        found: dict[int, None] = {}  # (in order, each once)
        import bisect

        for m in pattern.finditer(self.data):
            k = bisect.bisect_right(starts, (m.start(), 1 << 62)) - 1
            if k >= 0:
                found.setdefault(starts[k][1])
        return list(found)[::-1]

    def _packed(self) -> dict[int, bytes]:
        if self.packed is None:
            self.packed = {}
            for num in self._objects_holding(_OBJSTM_RE):
                obj = self.get(Ref(num))
                if isinstance(obj, _Stream) and obj.dict.get("Type") == "/ObjStm":
                    self._unpack(obj)
        return self.packed

    def _unpack(self, stream: _Stream) -> None:
        body = self.decoded(stream)
        first, n = stream.dict.get("First"), stream.dict.get("N")
        if body is None or not isinstance(first, int) or not isinstance(n, int):
            return
        head = body[:first].split()
        pairs = [(int(head[i]), int(head[i + 1])) for i in range(0, min(len(head) - 1, 2 * n), 2)
                 if head[i].isdigit() and head[i + 1].isdigit()]
        for k, (num, off) in enumerate(pairs):
            end = first + pairs[k + 1][1] if k + 1 < len(pairs) else len(body)
            self.packed.setdefault(num, body[first + off:end])

    def decoded(self, stream) -> bytes | None:
        """A stream's data with its filters undone (Flate only; None for any other)."""
        if not isinstance(stream, _Stream):
            return None
        filters = self.get(stream.dict.get("Filter"))
        if isinstance(filters, str):
            filters = [filters]
        data = stream.raw
        for f in filters or []:
            if self.get(f) not in ("/FlateDecode", "/Fl") or self.budget <= 0:
                return None
            d = zlib.decompressobj()
            try:
                data = d.decompress(data, min(MAX_DECODED, self.budget))
            except zlib.error:
                return None
            self.budget -= len(data)
        return data

    # ---------------------------------------------------------------- draws

    def page_draws(self, limit: int) -> list[int] | None:
        """Form draws of each page in pdfium's order (capped just over ``limit``); None when the
        page tree cannot be walked here."""
        trailer = self._trailer()
        root = self.get(trailer.get("Root")) if trailer else None
        pages = self.get(root.get("Pages")) if isinstance(root, dict) else None
        if not isinstance(pages, dict):
            return None
        memo: dict[int, int] = {}
        out: list[int] = []
        stack = [(pages, None, 0)]
        seen: set[int] = set()
        while stack:
            node, resources, depth = stack.pop()
            if isinstance(node, _Stream) or not isinstance(node, dict) or depth > 64:
                continue
            resources = self.get(node.get("Resources", resources))
            kids = self.get(node.get("Kids"))
            if node.get("Type") == "/Pages" or (isinstance(kids, list) and node.get("Type") != "/Page"):
                for kid in reversed(kids if isinstance(kids, list) else []):
                    if isinstance(kid, Ref):
                        if int(kid) in seen:
                            continue
                        seen.add(int(kid))
                    stack.append((self.get(kid), resources, depth + 1))
                continue
            out.append(self._draws(node.get("Contents"), resources, memo, 0, limit))
        return out

    def _draws(self, contents, resources, memo: dict, depth: int, limit: int) -> int:
        """Form draws of content streams ``contents`` (a stream, or a reference or array of
        them) with ``resources``: decoded only when the resources name any XObject."""
        resources = self.get(resources)
        xobjects = self.get(resources.get("XObject")) if isinstance(resources, dict) else None
        if not isinstance(xobjects, dict) or depth > MAX_DEPTH:
            return 0
        # (images only, the usual figure: nothing to multiply, no content to decode)
        if not any(isinstance(x, _Stream) and x.dict.get("Subtype") == "/Form" for x in map(self.get, xobjects.values())):
            return 0
        contents = self.get(contents)
        parts = contents if isinstance(contents, list) else [contents]
        content = b" ".join(d for d in (self.decoded(self.get(x)) for x in parts) if d)
        total = 0
        names: dict[bytes, int] = {}
        for m in _DO_RE.finditer(content):
            names[m.group(1)] = names.get(m.group(1), 0) + 1
        for name, times in names.items():
            ref = xobjects.get(name.decode("latin-1"))
            total += times * (1 + self._form_draws(ref, memo, depth + 1, limit))
            if total > limit:
                return limit + 1
        return total

    def _form_draws(self, ref, memo: dict, depth: int, limit: int) -> int:
        if not isinstance(ref, Ref):
            return 0
        num = int(ref)
        if num in memo:
            return memo[num]
        memo[num] = 0  # a form that draws itself: pdfium stops the loop
        form = self.get(ref)
        if not isinstance(form, _Stream) or form.dict.get("Subtype") != "/Form":
            return 0
        got = self._draws(form, form.dict.get("Resources"), memo, depth, limit)
        memo[num] = got
        return got

    def _trailer(self) -> dict | None:
        for _, got in trailers(self.data):
            if "Root" in got:
                return got
        # a cross-reference stream: the last /Type /XRef object holding /Root
        for num in self._objects_holding(_XREF_RE):
            obj = self.get(Ref(num))
            if isinstance(obj, _Stream) and obj.dict.get("Type") == "/XRef" and "Root" in obj.dict:
                return obj.dict
        return None


def trailers(data):
    """(where, dictionary) of each classic ``trailer`` of the file, the last first (each read no
    further than MAX_DICT_BYTES)."""
    at = data.rfind(b"trailer")
    while at >= 0:
        got = _Parser(data, at + 7, at + 7 + MAX_DICT_BYTES).value()
        if isinstance(got, dict):
            yield at, got
        at = data.rfind(b"trailer", 0, at)


class _Stream:
    __slots__ = ("dict", "raw")

    def __init__(self, d: dict, raw: bytes):
        self.dict = d
        self.raw = raw


class _Parser:
    """PDF objects from bytes: dicts (names as keys, without the slash), arrays, references,
    numbers, names ("/Form"); strings read as None. ``end``: where the text it may read ends
    (an object's "endobj": a dictionary never closed ends there, not at the end of the file)."""

    def __init__(self, data: bytes, pos: int, end: int | None = None):
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else min(end, len(data))

    # (expressions, not a loop a byte at a time: a run of 100 MB of whitespace or of one word
    # in a decoded stream is crossed in C)
    def skip_ws(self) -> None:
        """Past whitespace and % comments (a comment ends at a line feed)."""
        if self.pos < self.end:
            self.pos = _SKIP_RE.match(self.data, self.pos, self.end).end()

    def stream_data(self) -> int | None:
        """Where the data of a stream begins, read after its dictionary: past the ``stream``
        keyword and its end of line (CR LF, LF or a lone CR); None when no stream follows."""
        self.skip_ws()
        data = self.data
        if data[self.pos:self.pos + 6] != b"stream":
            return None
        start = self.pos + 6
        if data[start:start + 2] == b"\r\n":
            return start + 2
        return start + 1 if data[start:start + 1] in (b"\n", b"\r") else start

    def _word(self) -> bytes:
        start = self.pos
        if start >= self.end:
            return b""
        self.pos = _WORD_RE.match(self.data, start, self.end).end()
        return self.data[start:self.pos]

    def value(self, depth: int = 0):
        """The next object; None for what is not read (strings, stray delimiters, nesting
        deeper than 100). Always moves on by at least one byte unless at the end."""
        self.skip_ws()
        data, n = self.data, self.end
        if self.pos >= n:
            return None
        if depth > 100:
            self.pos += 1
            return None
        c = data[self.pos:min(self.pos + 2, n)]
        if c == b"<<":
            self.pos += 2
            out: dict = {}
            while True:
                self.skip_ws()
                if self.pos >= n:
                    return out
                if data[self.pos:self.pos + 2] == b">>" and self.pos + 2 <= n:
                    self.pos += 2
                    return out
                if data[self.pos] != 0x2F:  # not a name: skip the token
                    self.value(depth + 1)
                    continue
                self.pos += 1
                key = self._word().decode("latin-1")
                out[key] = self.value(depth + 1)
        if c[:1] == b"[":
            self.pos += 1
            items = []
            while True:
                self.skip_ws()
                if self.pos >= n:
                    return items
                if data[self.pos] == 0x5D:
                    self.pos += 1
                    return items
                items.append(self.value(depth + 1))
        if c[:1] == b"/":
            self.pos += 1
            return "/" + self._word().decode("latin-1")
        if c[:1] == b"(":
            self._skip_string()
            return None
        if c[:1] == b"<":
            close = data.find(b">", self.pos, n)
            self.pos = n if close < 0 else close + 1
            return None
        if c[:1] in b">)]{}":  # a stray closer
            self.pos += 1
            return None
        word = self._word()
        if not word:
            self.pos += 1
            return None
        if word.isdigit():
            # "N G R": a reference
            save = self.pos
            self.skip_ws()
            gen = self._word()
            if gen.isdigit():
                self.skip_ws()
                if data[self.pos:self.pos + 1] == b"R" and self.pos < n and (
                        self.pos + 1 >= n or data[self.pos + 1] in _WS or data[self.pos + 1] in _DELIM):
                    self.pos += 1
                    return Ref(int(word))
            self.pos = save
            return int(word)
        return word.decode("latin-1")

    def _skip_string(self) -> None:
        """Past a literal string: balanced parentheses, backslash escapes (from one special
        byte to the next by expression)."""
        data, n, level = self.data, self.end, 0
        while self.pos < n:
            m = _STRING_RE.search(data, self.pos, n)
            if m is None:
                self.pos = n
                return
            c = data[m.start()]
            self.pos = m.start() + 1
            if c == 0x5C:  # backslash: the next byte is escaped
                self.pos += 1
            elif c == 0x28:
                level += 1
            else:
                level -= 1
                if level == 0:
                    return


def forms_draw_forms(data: bytes) -> bool:
    """Whether some Form XObject of the file has an /XObject resource, so that it may draw other
    forms (the only way draws multiply). Form dictionaries are never inside object streams."""
    import bisect

    streams = None
    for m in _FORM_RE.finditer(data):
        head = data.rfind(b"obj", max(0, m.start() - MAX_DICT_BYTES), m.start())
        if head < 0:
            continue
        if streams is None:  # where each "stream" keyword is (one pass; not a search per form)
            streams = [s.start() for s in _STREAM_RE.finditer(data)]
        k = bisect.bisect_left(streams, m.end())
        end = min(streams[k] if k < len(streams) else len(data), m.end() + MAX_DICT_BYTES)
        after = data.find(b"obj", m.end(), end)  # (an "endobj": a form dictionary without a stream)
        if after >= 0:
            end = after
        # (resources given by reference may hold /XObject too)
        if data.find(b"/XObject", head, end) >= 0 or _RESOURCES_REF_RE.search(data, head, end):
            return True
    return False


def page_form_draws(data: bytes, limit: int) -> list[int] | None:
    """Form XObject draws of each page (at most ``limit + 1``: over means over), in page order;
    None when no form draws another (nothing can multiply) or the page tree is not readable here."""
    if not forms_draw_forms(data):
        return None
    try:
        return _Reader(data).page_draws(limit)
    except (RecursionError, ValueError, IndexError, MemoryError):
        return None
