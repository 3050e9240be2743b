"""bundle.zip: every output file of the compile in one archive (last renderer to run).

With ``--include-source-text`` the bundle also holds ``source.txt``: the text of the source as
the compiler read it, page by page (the PDF text layer, or the OCR/Markdown text), so a
reader can check any output against it without the original file.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document

# A fixed timestamp keeps the archive byte-identical for identical outputs.
_EPOCH = (2000, 1, 1, 0, 0, 0)
_PIECE = 1 << 20  # bytes of a file read at a time into the archive


def source_text(doc: Document) -> str:
    parts = []
    for p in doc.stream.pages:
        parts.append(f"── page {p.number} ──")
        parts.extend(ln.text for ln in p.lines)
    return "\n".join(parts) + "\n"


def _add(z: zipfile.ZipFile, name: str, path: Path, compress_type: int) -> None:
    """Put the file at ``path`` into ``z`` as ``name``, read a piece at a time: the same archive
    as ``z.writestr`` of its bytes (deflate's output does not depend on how its input is cut),
    without a copy of the whole file in memory (references.json of a long list is 38 MB, every
    page of it memory the kernel hands out afresh)."""
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.compress_type = compress_type
    info._compresslevel = 1  # (what writestr(..., compresslevel=1) sets)
    info.file_size = path.stat().st_size  # (writestr's: zip64 records only for files near 2 GiB)
    with open(path, "rb") as src, z.open(info, "w") as dst:
        shutil.copyfileobj(src, dst, _PIECE)


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    folder = Path(folder)
    target = folder / "bundle.zip"
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name != "bundle.zip")
    # Level 1: a few times faster than the default for ~10% more bytes; compiles are timed.
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for p in files:
            _add(z, p.name, p, zipfile.ZIP_DEFLATED)
        figures = folder / "figures"
        for p in sorted(figures.glob("*.png")) if figures.is_dir() else []:
            _add(z, f"figures/{p.name}", p, zipfile.ZIP_STORED)  # PNG is compressed already: stored
        if options.include_source_text:
            info = zipfile.ZipInfo("source.txt", date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, source_text(doc).encode("utf-8"), compresslevel=1)
    return ["bundle.zip"]
