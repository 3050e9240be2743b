"""What a file is, from its first bytes, in plain words.

A user who drops a Word document or a photo on ctxmill should hear "This is a Word document"
and what to do, not "binary data" or an HTTP status. :func:`identify` says which road an
input takes (``pdf``, ``image`` — read with OCR like a scanned page —, ``text``) or, for a
format ctxmill does not read, what it is.
"""

from __future__ import annotations

import zipfile
from io import BytesIO

READS = "ctxmill reads PDFs, images (PNG, JPEG, TIFF, BMP, GIF, WebP) and text (raw OCR or Markdown)"

IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"II*\x00", "TIFF image"),
    (b"MM\x00*", "TIFF image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"BM", "BMP image"),
)

# (magic at offset 0, description, what to do)
UNSUPPORTED_MAGIC = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an older Microsoft Office file (.doc, .xls or .ppt)",
     "save it as PDF and try again"),
    (b"{\\rtf", "a Rich Text (RTF) document", "save it as PDF or plain text and try again"),
    (b"\x1f\x8b", "a gzip-compressed file", "unpack it first"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "unpack it and give the documents one by one"),
    (b"Rar!", "a RAR archive", "unpack it and give the documents one by one"),
    (b"\x7fELF", "a program (ELF executable)", "give a document instead"),
    (b"MZ", "a Windows program", "give a document instead"),
    (b"SQLite format 3\x00", "an SQLite database", "give a document instead"),
    (b"ID3", "an MP3 audio file", "give a document instead"),
    (b"OggS", "an Ogg audio or video file", "give a document instead"),
    (b"fLaC", "a FLAC audio file", "give a document instead"),
    (b"\x00\x00\x01\x00", "an icon (.ico)", "give a document instead"),
)

_ZIP_KINDS = (
    ("word/", "a Word document (.docx)", "save it as PDF and try again"),
    ("xl/", "an Excel workbook (.xlsx)", "save the sheets as PDF or CSV text and try again"),
    ("ppt/", "a PowerPoint presentation (.pptx)", "save it as PDF and try again"),
)


def identify(data: bytes, name: str | None = None) -> tuple[str, str]:
    """(kind, what): kind is ``pdf``, ``image``, ``text`` or ``unsupported``; ``what`` names
    the format, and for ``unsupported`` is a full sentence saying what to do."""
    head = data[:1024]
    if b"%PDF-" in head:
        return "pdf", "PDF"
    for magic, what in IMAGE_MAGIC:
        if head.startswith(magic):
            return "image", what
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image", "WebP image"
    if head[:4] == b"RIFF":
        return "unsupported", _sentence("a RIFF audio or video file (WAV or AVI)", "give a document instead")
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in (b"heic", b"heix", b"mif1", b"avif"):
            return "unsupported", _sentence("a HEIC/AVIF photo", "export it as JPEG or PNG and try again")
        return "unsupported", _sentence("an MP4/QuickTime video or audio file", "give a document instead")
    if head.startswith(b"PK\x03\x04"):
        return "unsupported", _zip(data)
    for magic, what, todo in UNSUPPORTED_MAGIC:
        if head.startswith(magic):
            if magic == b"MZ" and len(head) < 64:
                break  # two letters "MZ" starting a short text
            return "unsupported", _sentence(what, todo)
    return "text", "text"


def _zip(data: bytes) -> str:
    try:
        with zipfile.ZipFile(BytesIO(data)) as zf:
            names = zf.namelist()
            mimetype = zf.read("mimetype").decode("ascii", "replace").strip() if "mimetype" in names else ""
    except (zipfile.BadZipFile, OSError, KeyError, RuntimeError, ValueError):
        return _sentence("a ZIP archive (damaged)", "unpack it and give the documents one by one")
    if mimetype == "application/epub+zip":
        return _sentence("an EPUB e-book", "convert it to PDF and try again")
    if mimetype.startswith("application/vnd.oasis.opendocument"):
        return _sentence("an OpenDocument file (LibreOffice)", "save it as PDF and try again")
    for prefix, what, todo in _ZIP_KINDS:
        if any(n.startswith(prefix) for n in names):
            return _sentence(what, todo)
    return _sentence("a ZIP archive", "unpack it and give the documents one by one")


def _sentence(what: str, todo: str) -> str:
    return f"this is {what}, not a document ctxmill can read; {todo} ({READS})"
