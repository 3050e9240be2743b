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

_OCR_HINTS = (
    re.compile(r"^\s*[─━—–=\-]{1,}\s*PAGE\s+\d+\s*(?:/|of)\s*\d+\s*[─━—–=\-]{1,}\s*$", re.M | re.I),
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


def sniff_text_kind(text: str) -> str:
    sample = text[:200_000]
    hits = sum(1 for rx in _OCR_HINTS if rx.search(sample))
    if hits:
        return "ocr_text"
    return "markdown"


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13))  # C0 controls but tab, LF, FF, CR
_ODD_ASCII = bytes(b for b in range(32) if b not in (9, 10, 12)) + b"\x7f"  # after decoding, CR is odd too
_LETTERS_ASCII = bytes(range(65, 91)) + bytes(range(97, 123))  # str.isalpha of an ASCII character
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]+")


def decode_text(data: bytes, name: str | None = None) -> str:
    """Bytes -> str for text inputs; refuses empty files, binary junk and undecodable bytes."""
    label = name or "input"
    if not data or not data.strip():
        raise InputRefused(f"{label}: empty input")
    check_text_bytes(len(data), label)
    text: str | None = None
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            text = None
    elif data[:3] == b"\xef\xbb\xbf":
        text = data[3:].decode("utf-8", "replace")
    if text is None:
        sample = data[:65536]
        # binary junk: NUL bytes or many C0 control characters
        nul = sample.count(0)
        ctrl = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
        if nul > 0 or ctrl > max(8, len(sample) // 100):
            raise InputRefused(f"{label}: binary data, not a text document or PDF")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            strict = data.decode("utf-8", "replace")
            bad = strict.count("\ufffd")
            if bad <= max(3, len(strict) // 2000):
                text = strict
            else:
                # a legacy 8-bit encoding: cp1252 covers Windows files, latin-1 everything else
                try:
                    text = data.decode("cp1252")
                except UnicodeDecodeError:
                    text = data.decode("latin-1")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    check_text_lines(text, label)
    # after decoding: mostly printable?
    sample = text[:65536]
    # the ASCII characters' two counts by bytes.translate (in UTF-8 every other character is
    # bytes >= 0x80, in neither set), then a Python step only per character outside ASCII
    raw = sample.encode("utf-8", "surrogatepass")
    odd = len(raw) - len(raw.translate(None, _ODD_ASCII))
    letters = len(raw) - len(raw.translate(None, _LETTERS_ASCII))
    if len(raw) != len(sample):
        wide = "".join(_NON_ASCII_RE.findall(sample))
        odd += sum(1 for ch in wide if ord(ch) < 0xA0 or ch == "\ufffd")
        letters += sum(1 for ch in wide if ch.isalpha())
    if sample and odd > max(8, len(sample) // 50):
        raise InputRefused(f"{label}: binary data, not a text document or PDF")
    if not text.strip():
        raise InputRefused(f"{label}: empty input")
    if letters < max(1, len(sample.strip()) // 20):
        raise InputRefused(f"{label}: no readable text")
    return text


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
        if found == "unsupported":
            raise InputRefused(f"{label}: {what}")
        if found == "image":  # a photo or scan of a page: the PDF road, then OCR
            from ctxmill.sources.image import image_to_pdf

            data, kind, path = image_to_pdf(data, label), "pdf", None
    text: str | None = None
    if kind is None:  # sniff_kind, with text input decoded once (not once to sniff, once to read)
        if looks_pdf(data, name):
            kind = "pdf"
        else:
            text = decode_text(data, name)
            kind = sniff_text_kind(text)
    if kind == "pdf":
        if data[:1024].find(b"%PDF-") < 0:
            raise InputRefused(f"{label}: not a PDF (no %PDF header)")
        if b"%%EOF" not in data[-4096:]:
            raise InputRefused(f"{label}: PDF is truncated (no %%EOF marker at the end)")
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
                raise InputRefused(f"{label}: {exc}") from None
            finally:
                Path(tmp).unlink(missing_ok=True)
            stream.path = name or ""
        else:
            try:
                stream = load_pdf(path, options, meanwhile=meanwhile)
            except InputRefused as exc:
                raise InputRefused(f"{label}: {exc}") from None
            stream.path = name or str(path)
    else:
        text = decode_text(data, label) if text is None else text
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
            from ctxmill.sources.markdown import read_markdown

            stream = read_markdown(text)
        stream.path = name or ""
    stream.sha256 = sha
    return stream
