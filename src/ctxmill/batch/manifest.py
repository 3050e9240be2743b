"""OUT/manifest.jsonl: one line per finished input, appended the moment it finishes.

Only the batch driver writes it, one ``write`` of one whole line per record on a file opened
with O_APPEND, then fsync: a driver killed at any instant leaves every earlier record intact
and at worst a torn last line, which the reader skips and the next writer closes off with a
newline. The last record of an input wins, so a redone document simply appends again.

Record: ``{input, sha256, status: done|refused|failed|timeout, reason?, pages, seconds,
qa_score?, output}`` (``output`` relative to OUT).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

STATUSES = ("done", "refused", "failed", "timeout")
NAME = "manifest.jsonl"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read(path: Path) -> dict[str, dict]:
    """{input name: its last complete record}; torn or foreign lines are skipped."""
    records: dict[str, dict] = {}
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return records
    for line in data.split(b"\n"):
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a line torn by a kill, or empty
        if isinstance(rec, dict) and rec.get("status") in STATUSES and isinstance(rec.get("input"), str):
            records[rec["input"]] = rec
    return records


class Writer:
    """Appends records; ``fresh`` starts a new manifest (a batch run without --resume)."""

    def __init__(self, path: Path, fresh: bool = False):
        self.path = path
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_TRUNC if fresh else 0)
        self._fd = os.open(path, flags, 0o644)
        size = os.fstat(self._fd).st_size
        if size:
            with open(path, "rb") as fh:  # close off a line torn by a killed driver
                fh.seek(size - 1)
                if fh.read(1) != b"\n":
                    os.write(self._fd, b"\n")

    def append(self, record: dict) -> None:
        line = (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
        os.write(self._fd, line)
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
