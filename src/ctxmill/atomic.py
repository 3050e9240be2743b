"""Write a file so that a reader, or a process killed mid-write, sees the old bytes or the new
ones, never a mix: a temporary file beside it, flushed to disk, renamed over it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes(p: Path, data: bytes) -> None:
    """Put ``data`` at ``p``; an existing file's mode is kept. (``p`` itself is replaced: resolve
    a symlink first to write through it.)"""
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".ctxmill", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.chmod(tmp, p.stat().st_mode & 0o7777)
        except FileNotFoundError:
            pass  # a new file keeps mkstemp's 0600
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise

