"""Sources: every input becomes one :class:`~ctxmill.model.PageStream`.

``load_source`` sniffs the kind (PDF by extension or ``%PDF`` magic; raw OCR text by its page
markers, ``\\( \\)`` LaTeX or HTML tables; otherwise Markdown), refuses input that cannot be a
document (empty, binary junk, undecodable), and hands off to the reader of that kind. PDFs are
parsed in a resource-limited child process (see :mod:`ctxmill.sources.sandbox`).
"""

from __future__ import annotations

import re
from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.errors import InputRefused
from ctxmill.limits import MAX_TEXT_BYTES, check_text_bytes, check_text_lines
from ctxmill.model import PageStream

KINDS = ("pdf", "ocr_text", "markdown")
PDF_SUFFIXES = {".pdf"}
TEXT_SUFFIXES = {".txt", ".md", ".mmd", ".markdown", ".text"}
# how the note on a PDF rebuilt from its objects begins (sources/pdf_repair.py writes it; the QA
# report makes it a warning: the file was damaged, so what it gives may differ from what was printed)
REBUILT_NOTE = "the PDF's cross-reference data or object streams are damaged"
# ... on a PDF cut short or without its header that pdfium read without a rebuild (load_source)
DAMAGED_NOTE = "the PDF is damaged"
# how the note on text decoded line by line begins (decode_text: lines in different encodings)
MIXED_NOTE = "the text mixes encodings"
# the source notes the QA report makes warnings, not info: what they give may differ from the original
WARNING_NOTES = (REBUILT_NOTE, DAMAGED_NOTE, MIXED_NOTE)

_OCR_HINTS = (
    # ([^\S\n]*, not \s*: \s* crosses line ends, and a run of N blank lines was read from each of its N
    # line starts, N^2/2 steps; the search's answer is the same: round33_fuzz_rule.md C1)
    re.compile(r"^[^\S\n]*[─━—–=\-]{1,}\s*PAGE\s+\d+\s*(?:/|of)\s*\d+\s*[─━—–=\-]{1,}\s*$", re.M | re.I),
    re.compile(r"\\\(.{0,200}?\\\)", re.S),
    re.compile(r"<table\b[^>]*>\s*<tr", re.I),
    re.compile(r"!\[\]\(images/", re.I),
)


def sniff_kind(data: bytes, name: str | None = None) -> str:
    """Guess pdf | ocr_text | markdown from the name and the first bytes."""
    if looks_pdf(data, name):
        return "pdf"
    text = decode_text(data, name)
    return sniff_text_kind(text)


def looks_pdf(data: bytes, name: str | None) -> bool:
    """A PDF by its first bytes (``%PDF-`` in the first KiB) or, failing that, by its name."""
    head = data[:1024]
    if head.lstrip(b"\x00\t\r\n \xef\xbb\xbf")[:5] == b"%PDF-" or b"%PDF-" in head:
        return True
    # a .pdf name: the PDF reader refuses it with a reason if it is not one
    return (Path(name).suffix.lower() if name else "") in PDF_SUFFIXES


# an object's head, "N G obj": what a PDF body is made of (pdf_forms reads the same heads)
_PDF_OBJECT_RE = re.compile(rb"(?<![0-9])\d{1,10}[\x00\t\n\x0c\r ]+\d{1,5}[\x00\t\n\x0c\r ]+obj(?![A-Za-z])")
PDF_SNIFF_BYTES = 1 << 16  # where a PDF whose header is lost must show an object


def _named_pdf(name: str | None) -> bool:
    return bool(name) and Path(name).suffix.lower() in PDF_SUFFIXES


def holds_pdf_objects(data: bytes) -> bool:
    """Whether the first 64 KB hold a PDF object (``N G obj``): a PDF whose header was lost."""
    return _PDF_OBJECT_RE.search(data, 0, PDF_SNIFF_BYTES) is not None


def pdf_damage(data: bytes, label: str) -> str:
    """What is visibly wrong with a PDF's bytes ("" for nothing), or InputRefused when they are
    no PDF at all. A file with no ``%PDF-`` header in its first KiB (where PDF readers look for
    it) is a PDF only when its first 64 KB hold an object; one with no ``%%EOF`` near its end was
    cut short. Neither is refused here: pdfium reads what it can, and what it refuses is rebuilt
    from its objects (sources/pdf_repair.py); this says why, beside the rebuild's QA warning."""
    notes = []
    if data[:1024].find(b"%PDF-") < 0:
        if not holds_pdf_objects(data):
            raise InputRefused(f"{label}: not a PDF (no %PDF header)")
        notes.append("its %PDF header is missing")
    if b"%%EOF" not in data[-4096:]:
        # (data appended after a whole file's last %%EOF, as some mailers and uploaders leave,
        # is no damage; an object after it is an update that was cut)
        last = data.rfind(b"%%EOF")
        if last < 0 or _PDF_OBJECT_RE.search(data, last) is not None:
            notes.append("the file is truncated (no %%EOF marker at its end): what followed the cut is lost")
    return "; ".join(notes)


def sniff_text_kind(text: str) -> str:
    sample = text[:200_000]
    hits = sum(1 for rx in _OCR_HINTS if rx.search(sample))
    if hits:
        return "ocr_text"
    return "markdown"


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13))  # C0 controls but tab, LF, FF, CR
_ODD_ASCII = bytes(b for b in range(32) if b not in (9, 10, 12)) + b"\x7f"  # after decoding, CR is odd too
_LETTERS_ASCII = bytes(range(65, 91)) + bytes(range(97, 123))  # str.isalpha of an ASCII character
_ALNUM_ASCII = _LETTERS_ASCII + b"0123456789"
_SPACE_ASCII = b" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"  # str.isspace of an ASCII character
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"),
         (b"\xfe\xff", "utf-16"))
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]+")


def decode_text(data: bytes, name: str | None = None, notes: list[str] | None = None) -> str:
    """Bytes -> str for text inputs; refuses empty files, binary junk and undecodable bytes.
    Text whose lines are in different encodings is decoded line by line (:func:`_decode_lines`),
    and what was read so is said in ``notes`` (the QA report's warning)."""
    label = name or "input"
    if not data or not data.strip():
        raise InputRefused(f"{label}: empty input")
    check_text_bytes(len(data), label)
    text: str | None = None
    # a byte-order mark says the encoding (UTF-32's before UTF-16's: FF FE 00 00 starts both);
    # a file cut short inside its last character keeps the rest
    bom = next((enc for mark, enc in _BOMS if data.startswith(mark)), None)
    if bom == "utf-16" and b"\x00" not in data[2:65536]:
        # a UTF-16 mark before text with no NUL (UTF-16 of ASCII has one every other byte): UTF-8
        # behind a stray mark reads as UTF-16 without error, as a page of CJK-looking mojibake
        try:
            text = data[2:].decode("utf-8")
        except UnicodeDecodeError:
            pass
    if bom and text is None:
        try:
            text = data.decode(bom)
        except UnicodeDecodeError as exc:
            text = data.decode(bom, "replace") if exc.start >= len(data) - 4 else None
    elif data[:3] == b"\xef\xbb\xbf":
        text = data[3:].decode("utf-8", "replace")
    if text is None:
        sample = data[:65536]
        # binary junk: NUL bytes or many C0 control characters
        nul = sample.count(0)
        ctrl = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
        unit = _wide_unicode(sample) if nul else None
        if unit:  # UTF-16 or UTF-32 without a byte-order mark: its NULs are the high bytes of ASCII
            try:
                text = data.decode(unit)
            except UnicodeDecodeError as exc:
                # cut short inside its last character (as the marked road above): keep the rest
                if exc.start >= len(data) - 4:
                    text = data.decode(unit, "replace")
                else:
                    unit = None
        if not unit and (nul > 0 or ctrl > max(8, len(sample) // 100)):
            # NULs of lines in UTF-16 among lines in other encodings are no binary data
            text = _decode_lines(data, notes) if nul else None
            if text is None:
                raise InputRefused(f"{label}: binary data, not a text document or PDF")
    if text is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            strict = data.decode("utf-8", "replace")
            bad = strict.count("\ufffd")
            if bad <= max(3, len(strict) // 2000):
                text = strict
            else:
                # some lines UTF-8, others not: each read as what it is; else one encoding
                # throughout, the whole file read in it
                text = _decode_lines(data, notes) or _legacy_decode(data)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        check_text_lines(text, label)
    except InputRefused:
        # the line limit guards text: a JSON or XML engine output is read by its reader, which
        # parses it whole (a minified one is one line of a megabyte), before any line is a paragraph
        if not _structured_engine_output(text):
            raise
    # after decoding: mostly printable?
    sample = text[:65536]
    # the ASCII characters' two counts by bytes.translate (in UTF-8 every other character is
    # bytes >= 0x80, in neither set), then a Python step only per character outside ASCII
    raw = sample.encode("utf-8", "surrogatepass")
    odd = len(raw) - len(raw.translate(None, _ODD_ASCII))
    # readable: letters and digits, against the characters that are not white space or
    # combining marks (a 10,000-level nested list is mostly indentation, a table of numbers
    # has few letters, a mark belongs to the letter before it: all were "no readable text")
    alnum = len(raw) - len(raw.translate(None, _ALNUM_ASCII))
    ink = len(sample) - (len(raw) - len(raw.translate(None, _SPACE_ASCII)))
    if len(raw) != len(sample):
        import unicodedata

        wide = "".join(_NON_ASCII_RE.findall(sample))
        odd += sum(1 for ch in wide if ord(ch) < 0xA0 or ch == "\ufffd")
        alnum += sum(1 for ch in wide if ch.isalnum())
        ink -= sum(1 for ch in wide if ch.isspace() or unicodedata.category(ch)[0] == "M")
    if sample and odd > max(8, len(sample) // 50):
        raise InputRefused(f"{label}: binary data, not a text document or PDF")
    if not text.strip():
        raise InputRefused(f"{label}: empty input")
    if alnum < max(1, ink // 20) and (len(text) == len(sample) or not _readable(text)):
        raise InputRefused(f"{label}: no readable text")
    return text


def _json_document(text: str, engine: str | None) -> bool:
    """Whether ``text``, that no JSON reader took (``engine``), is as a whole a JSON object or array
    that holds something: the QA report's input_syntax error (its compile is the data's syntax)."""
    from ctxmill.sources.engines import STRUCTURED_ENGINES

    if engine in STRUCTURED_ENGINES:
        return False
    import json

    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, (dict, list)) and bool(value)


def _structured_engine_output(text: str) -> bool:
    """Whether a JSON or XML engine reader takes ``text`` whole (sniffed by its shape)."""
    if text.lstrip("\ufeff \t\n")[:1] not in ("{", "[", "<"):
        return False
    from ctxmill.sources.engines import STRUCTURED_ENGINES, sniff_engine

    return sniff_engine(text) in STRUCTURED_ENGINES


# a run of one character that is neither a letter, a digit nor white space: a rule, a row of dashes
_RULE_RUN_RE = re.compile(r"([^\w\s]|_)\1{15,}")


def _readable(text: str) -> bool:
    """The readable-text test on the whole text, a run of one punctuation character (a rule of
    500,000 dashes) counting as one: a document whose first 64 KB are such a run was refused as
    "no readable text", the text after it with it. Asked only when the first 64 KB fail."""
    text = _RULE_RUN_RE.sub(r"\1", text)
    raw = text.encode("utf-8", "surrogatepass")
    alnum = len(raw) - len(raw.translate(None, _ALNUM_ASCII))
    ink = len(text) - (len(raw) - len(raw.translate(None, _SPACE_ASCII)))
    if len(raw) != len(text):
        import unicodedata

        wide = "".join(_NON_ASCII_RE.findall(text))
        alnum += sum(1 for ch in wide if ch.isalnum())
        ink -= sum(1 for ch in wide if ch.isspace() or unicodedata.category(ch)[0] == "M")
    return alnum >= max(1, ink // 20)


def _wide_unicode(sample: bytes) -> str | None:
    """UTF-32 or UTF-16 (LE or BE) without a byte-order mark, told by where the NUL bytes of
    mostly-ASCII text fall: every code unit's high bytes; None when they fall anywhere else."""
    n = len(sample) - len(sample) % 4
    if n < 8:
        return None
    s = sample[:n]
    q = [s[i::4] for i in range(4)]
    if q[3].count(0) == n // 4 and q[2].count(0) * 10 >= n // 4 * 9:
        return "utf-32-le"
    if q[0].count(0) == n // 4 and q[1].count(0) * 10 >= n // 4 * 9:
        return "utf-32-be"
    return _utf16_unit(s, 1)


def _utf16_unit(s: bytes, stray_percent: int) -> str | None:
    """utf-16-le or utf-16-be when the NUL bytes of ``s`` fall as the high bytes of mostly-ASCII
    UTF-16 text do: in at least 3 of 10 of one half's bytes, and in at most ``stray_percent``
    per cent of the other's (0: none); else None."""
    even, odd = s[0::2], s[1::2]
    if odd.count(0) * 10 >= len(odd) * 3 and even.count(0) * 100 <= len(even) * stray_percent:
        return "utf-16-le"
    if even.count(0) * 10 >= len(even) * 3 and odd.count(0) * 100 <= len(odd) * stray_percent:
        return "utf-16-be"
    return None


def _legacy_decode(data: bytes) -> str:
    """Text that is not UTF-8: in a multi-byte encoding charset-normalizer finds (Shift-JIS,
    GBK, EUC-KR, Big5...: read as cp1252 or latin-1 before, mojibake, or refused as binary for
    latin-1's C1 controls); else cp1252 (Windows files) when every byte is one of its
    characters; else latin-1."""
    enc = _multi_byte_encoding(data)
    if enc:
        return data.decode(enc, "replace")
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _multi_byte_encoding(data: bytes) -> str | None:
    """The multi-byte encoding charset-normalizer finds for ``data`` (None for any other)."""
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(data[:1_000_000]).best()
        enc = best.encoding if best is not None else ""
        if enc.startswith(_MULTI_BYTE):
            "".encode(enc)  # (a name Python knows)
            return enc
    except (ImportError, LookupError):
        pass
    return None


def _decode_lines(data: bytes, notes: list[str] | None) -> str | None:
    """The text of a file whose lines are in different encodings (a file pieced together from
    several sources: fuzz.py's mixed_enc_lines), each line decoded as what it is: UTF-8 where it
    is valid UTF-8; UTF-16 where its NUL bytes fall as UTF-16's do in text (every other byte);
    else by the fallback of :func:`_legacy_decode`, its encoding found once over all such lines.
    Read whole, the file was refused as binary (the UTF-16 lines' NULs) or read in one legacy
    encoding (its UTF-8 lines mojibake). What was read so goes to ``notes`` (a QA warning). None
    when a line with NULs is not UTF-16 (binary data), or when no line is UTF-8 beyond ASCII and
    none UTF-16 (one encoding throughout)."""
    lines = data.split(b"\n")
    out: list[str | None] = []
    other: list[int] = []  # lines in neither UTF-8 nor UTF-16
    wide: dict[str, int] = {}  # UTF-16 lines by byte order
    utf8_wide = False  # a line of UTF-8 beyond ASCII
    high_zero: list[int] = []  # the UTF-16 lines' zero high bytes, and all their high bytes
    high_all: list[int] = []
    for i, ln in enumerate(lines):
        if b"\x00" in ln:
            got = _utf16_line(ln)
            if got is None:
                return None
            unit, ln = got
            high = ln[1::2] if unit == "utf-16-le" else ln[0::2]
            high_zero.append(high.count(0))
            high_all.append(len(high))
            out.append(ln.decode(unit, "replace"))
            wide[unit] = wide.get(unit, 0) + 1
            continue
        try:
            s = ln.decode("utf-8")
        except UnicodeDecodeError:
            out.append(None)
            other.append(i)
            continue
        utf8_wide = utf8_wide or not s.isascii()
        out.append(s)
    if not wide and not (other and utf8_wide):
        return None
    # UTF-16 lines beside text: a line of text without NULs, and the UTF-16 lines' high bytes
    # zero for at least half their characters together (ASCII's are; one short line may hold
    # more of other scripts); else binary data whose NULs happen to fall every other byte
    if wide and (not any(ln.strip() and b"\x00" not in ln for ln in lines) or sum(high_zero) * 2 < sum(high_all)):
        return None
    by: dict[str, int] = {}
    if other:
        enc = _multi_byte_encoding(b"\n".join(lines[i] for i in other))
        for i in other:
            out[i], used = _decode_legacy_line(lines[i], enc)
            by[used] = by.get(used, 0) + 1
    for unit, n in wide.items():
        by[unit.upper()] = n
    n_other = len(other) + sum(wide.values())
    how = ", ".join(f"{enc} {n:,}" for enc, n in sorted(by.items(), key=lambda kv: -kv[1]))
    note = (f"{MIXED_NOTE}: {n_other:,} of {len(lines):,} lines are not UTF-8 and were decoded line by "
            f"line ({how}); their accented and non-Latin characters may be wrong")
    if notes is not None:
        notes.append(note)
    return "\n".join(out)  # type: ignore[arg-type]


def _utf16_line(ln: bytes) -> tuple[str, bytes] | None:
    """(utf-16-le or utf-16-be, its bytes) for one line whose NUL bytes fall as in UTF-16 text
    (the high bytes of ASCII characters: in every other byte, and in the other half of none)."""
    if len(ln) % 2:  # the NUL of a UTF-16 newline left at either end (the split is on the byte 0A)
        ln = ln[1:] if ln[:1] == b"\x00" else ln[:-1] if ln[-1:] == b"\x00" else ln
        if len(ln) % 2:
            return None
    unit = _utf16_unit(ln, 0)  # (a line's: no stray NUL)
    return (unit, ln) if unit else None


def _decode_legacy_line(ln: bytes, enc: str | None) -> tuple[str, str]:
    """(text, encoding) of one line that is not UTF-8: as _legacy_decode reads a file."""
    for name in (enc, "cp1252"):
        if name:
            try:
                return ln.decode(name), name
            except UnicodeDecodeError:
                pass
    return ln.decode("latin-1"), "latin-1"


_MULTI_BYTE = ("shift_jis", "cp932", "euc_j", "iso2022", "gb", "hz", "big5", "cp950", "euc_kr", "cp949", "johab",
               "utf_16", "utf_32")


def load_source(
    source: Path | str | bytes,
    options: CompileOptions | None = None,
    *,
    kind: str | None = None,
    name: str | None = None,
    meanwhile=None,
) -> PageStream:
    """Read a PDF, raw OCR text or Markdown (a path, or the bytes) into a page stream.

    ``meanwhile()``, when given, is called while a PDF's child process reads the file (the
    caller's own start-up work, e.g. importing the compile stages, then costs no wall time)."""
    options = options or CompileOptions()
    if kind is not None and kind not in KINDS:
        raise InputRefused(f"unknown input kind {kind!r} (expected one of {', '.join(KINDS)})")
    path: Path | None = None
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.exists():
            raise InputRefused(f"{path}: no such file")
        if path.is_dir():
            raise InputRefused(f"{path}: is a folder, not a document")
        size = path.stat().st_size
        if size > MAX_TEXT_BYTES and path.suffix.lower() in TEXT_SUFFIXES:
            check_text_bytes(size, name or str(path))
        data = path.read_bytes()
        name = name or str(path)
    else:
        data = bytes(source)
    label = name or "input"
    if not data:
        raise InputRefused(f"{label}: empty input")
    import hashlib  # here, not at the top: the PDF sandbox's child imports this package and never hashes

    sha = hashlib.sha256(data).hexdigest()
    if kind is None:  # what the bytes are: a Word file or a photo is told apart from text here
        from ctxmill.sources import filetype

        found, what = filetype.identify(data, name)
        if found == "unsupported" and not (_named_pdf(name) and holds_pdf_objects(data)):
            raise InputRefused(f"{label}: {what}")
        if found == "unsupported":  # a .pdf whose first bytes were overwritten (PK, MZ...): its objects are read
            kind = "pdf"
        if found == "image":  # a photo or scan of a page: the PDF road, then OCR
            from ctxmill.sources.image import image_to_pdf

            data, kind, path = image_to_pdf(data, label), "pdf", None
    text: str | None = None
    notes: list[str] = []  # what decoding the text had to guess (a QA warning)
    if kind is None:  # sniff_kind, with text input decoded once (not once to sniff, once to read)
        if looks_pdf(data, name):
            kind = "pdf"
        else:
            try:
                text = decode_text(data, name, notes)
            except InputRefused:
                if not holds_pdf_objects(data):
                    raise
                kind = "pdf"  # binary, with PDF objects: a PDF whose header was lost, under another name
            else:
                kind = sniff_text_kind(text)
    if kind == "pdf":
        damage = pdf_damage(data, label)
        from ctxmill.sources.sandbox import load_pdf

        if path is None:
            import os
            import tempfile

            fd, tmp = tempfile.mkstemp(suffix=".pdf", prefix="ctxmill-")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                stream = load_pdf(tmp, options, meanwhile=meanwhile)
            except InputRefused as exc:
                raise InputRefused(f"{label}: {exc}" + (f"; {damage}" if damage else "")) from None
            finally:
                Path(tmp).unlink(missing_ok=True)
            stream.path = name or ""
        else:
            try:
                stream = load_pdf(path, options, meanwhile=meanwhile)
            except InputRefused as exc:
                raise InputRefused(f"{label}: {exc}" + (f"; {damage}" if damage else "")) from None
            stream.path = name or str(path)
        if damage:  # a QA warning says what was wrong: on the rebuild's note, or on its own
            if any(w.startswith(REBUILT_NOTE) for w in stream.warnings):
                stream.warnings = [w + f"; {damage}" if w.startswith(REBUILT_NOTE) else w for w in stream.warnings]
            else:  # (pdfium read it as it is: a lost cross-reference table it rebuilds itself)
                stream.warnings.insert(0, f"{DAMAGED_NOTE}: {damage}")
    else:
        text = decode_text(data, label, notes) if text is None else text
        # issue 14: which OCR engine wrote the text (or --from ENGINE) decides how it is cleaned
        from ctxmill.sources.engines import sniff_engine

        engine = options.engine or sniff_engine(text, name)
        if engine == "plain":
            kind = "ocr_text"
        if engine and engine != "plain":
            from ctxmill.sources.ocr_text import read_engine_text

            stream = read_engine_text(text, engine)
        elif kind == "ocr_text":
            from ctxmill.sources.ocr_text import read_ocr_text

            stream = read_ocr_text(text)
            if engine:
                stream.info["engine"] = engine
        else:
            from ctxmill.sources.markdown import plain_headings, read_markdown

            # (engine None: no OCR engine's signature; a text without any "#" heading may still
            # print its headings as lines of their own, round33_ocr_rule.md O)
            stream = read_markdown(plain_headings(text) if engine is None and not options.engine else text)
        stream.path = name or ""
        stream.warnings.extend(notes)
        if text.lstrip("\ufeff \t\n")[:1] in ("{", "[") and _json_document(text, engine):
            # (told here, on the text as given: a reader's reflow of its lines no longer parses)
            stream.info["input_syntax"] = "JSON"
    stream.sha256 = sha
    return stream
