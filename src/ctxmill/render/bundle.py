"""bundle.zip: every output file of the compile in one archive (last renderer to run).

With ``--include-source-text`` the bundle also holds ``source.txt``: the text of the source as
the compiler read it, page by page (the PDF text layer, or the OCR/Markdown text), so a
reader can check any output against it without the original file.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document

# A fixed timestamp keeps the archive byte-identical for identical outputs.
_EPOCH = (2000, 1, 1, 0, 0, 0)


def source_text(doc: Document) -> str:
    parts = []
    for p in doc.stream.pages:
        parts.append(f"── page {p.number} ──")
        parts.extend(ln.text for ln in p.lines)
    return "\n".join(parts) + "\n"


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    folder = Path(folder)
    target = folder / "bundle.zip"
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name != "bundle.zip")
    # Level 1: a few times faster than the default for ~10% more bytes; compiles are timed.
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for p in files:
            info = zipfile.ZipInfo(p.name, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, p.read_bytes(), compresslevel=1)
        figures = folder / "figures"
        for p in sorted(figures.glob("*.png")) if figures.is_dir() else []:
            # PNG is compressed already: stored, not deflated again
            z.writestr(zipfile.ZipInfo(f"figures/{p.name}", date_time=_EPOCH), p.read_bytes(),
                       compress_type=zipfile.ZIP_STORED)
        if options.include_source_text:
            info = zipfile.ZipInfo("source.txt", date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, source_text(doc).encode("utf-8"), compresslevel=1)
    return ["bundle.zip"]
