"""Write a large output file from its pieces, never as one whole string.

A file's text is a list of *segments*: a ``str``, or ``(items, sep)`` for ``sep.join(items)``
(the entries of references.json, the rows of citations.json, the lines of graph.graphml). Built
as one ``str``, a 36 MB citations.json (4 MB of cross-references) was copied whole by each
``+`` and ``join`` around it and once more as its UTF-8 bytes: fresh memory that the kernel
hands out page by page, ~0.2-0.5 s of system time for that file alone. :func:`write` joins a
batch of items at a time instead; the bytes written are the same as :func:`text`'s.
"""

from __future__ import annotations

from pathlib import Path

Segment = str | tuple[list[str], str]

_BATCH = 512  # items joined for one write


def text(segments: list[Segment]) -> str:
    """The whole text of ``segments``."""
    return "".join(s if type(s) is str else s[1].join(s[0]) for s in segments)


def write(path: Path, segments: list[Segment]) -> None:
    """Write the text of ``segments`` to ``path`` (UTF-8, as ``Path.write_text`` does)."""
    with open(path, "w", encoding="utf-8") as f:
        for s in segments:
            if type(s) is str:
                f.write(s)
                continue
            items, sep = s
            for i in range(0, len(items), _BATCH):
                if i:
                    f.write(sep)
                f.write(sep.join(items[i:i + _BATCH]))
