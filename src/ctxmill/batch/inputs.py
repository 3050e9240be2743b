"""What a batch compiles: a folder, a glob pattern or a list file, expanded to input files.

``ctxmill compile X`` stays a one-document compile when X is a file to compile; it becomes a
batch when X is a folder, a glob pattern that names no file itself (``papers/**/*.pdf``), or a
``.txt``/``.lst`` file every line of which names an existing file (blank lines and ``#``
comments allowed). Raw OCR text never looks like that, so a text document is never mistaken
for a list.
"""

from __future__ import annotations

import glob
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from ctxmill.errors import InputRefused

# What a folder walk picks up: the inputs `ctxmill compile` reads (PDF, raw OCR text,
# Markdown, page images). Anything else in a collection (.bib, .tex, .zip ...) is left alone.
SUFFIXES = {".pdf", ".txt", ".md", ".markdown", ".mmd", ".png", ".jpg", ".jpeg", ".tif", ".tiff"}
LIST_SUFFIXES = {".txt", ".lst", ".list"}
_GLOB_CHARS = set("*?[")
_MAX_LIST_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Input:
    """One document of a batch: ``name`` as the user will see it (manifest, metadata.json's
    source.path), ``path`` absolute (what a worker opens, on this machine or a cluster node)."""

    name: str
    path: Path

    @property
    def folder(self) -> str:
        """``<stem>-<short hash>``: the stem for people, a hash of the absolute path so that two
        ``paper.pdf`` in different folders never share an output folder."""
        digest = hashlib.sha256(str(self.path).encode("utf-8", "surrogateescape")).hexdigest()[:10]
        stem = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in self.path.stem)[:60] or "doc"
        return f"{stem}-{digest}"


def _list_lines(path: Path) -> list[str] | None:
    """The lines of a list file when every one names an existing file, else None."""
    if path.suffix.lower() not in LIST_SUFFIXES or path.stat().st_size > _MAX_LIST_BYTES:
        return None
    try:
        text = path.read_text("utf-8")
    except (UnicodeDecodeError, OSError):
        return None
    lines = [ln.strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if not lines:
        return None
    for ln in lines:
        p = Path(ln) if os.path.isabs(ln) else path.parent / ln
        try:
            if not p.is_file():
                return None
        except (OSError, ValueError):  # a line too long to be a name, or one with a NUL: text, not a list
            return None
    return lines


def is_batch(arg: str) -> bool:
    """Does ``ctxmill compile ARG`` mean a batch? (A plain file keeps today's single compile.)"""
    if arg == "-":
        return False
    p = Path(arg)
    if p.is_dir():
        return True
    if p.is_file():
        return _list_lines(p) is not None
    return any(ch in _GLOB_CHARS for ch in arg)


def _walk(root: Path, skip: Path | None) -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        # hidden folders (.git, our own temp folders) and the batch's own output folder
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                             and (skip is None or (here / d).resolve() != skip))
        for f in sorted(filenames):
            if not f.startswith(".") and Path(f).suffix.lower() in SUFFIXES:
                found.append(here / f)
    return found


def expand(arg: str, out_dir: Path | None = None) -> list[Input]:
    """The inputs ARG names, in a stable order, each once. Refuses ARG naming nothing."""
    skip = out_dir.resolve() if out_dir is not None else None
    p = Path(arg)
    if p.is_dir():
        paths = _walk(p, skip)
        what = f"{arg}: no PDF, text or Markdown files in this folder"
    elif p.is_file():
        lines = _list_lines(p)
        if lines is None:
            raise InputRefused(f"{arg}: not a list of files (every line must name an existing file)")
        paths = [Path(ln) if os.path.isabs(ln) else p.parent / ln for ln in lines]
        what = f"{arg}: the list names no files"
    else:
        paths = sorted(Path(m) for m in glob.glob(arg, recursive=True) if Path(m).is_file())
        if skip is not None:
            paths = [q for q in paths if skip not in q.resolve().parents]
        what = f"{arg}: no such file, and no file matches it as a pattern"
    seen: set[Path] = set()
    inputs = []
    for q in paths:
        absolute = Path(os.path.abspath(q))
        if absolute in seen:
            continue
        seen.add(absolute)
        inputs.append(Input(name=str(q), path=absolute))
    if not inputs:
        raise InputRefused(what)
    return inputs
