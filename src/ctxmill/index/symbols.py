"""Where a symbol is defined and used, and what else relates to a place in a file.

Both answer from the index as it is stored: definitions are the chunks tree-sitter named
after the symbol; uses are found with the FTS index (the identifier as a token) and then
pinned to exact lines by scanning those chunks' text for the name as a whole word. A use
inside a string or a comment counts too: the index keeps no syntax below the chunk.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

IDENT = re.compile(r"^[A-Za-z_$][\w$]*$")


@dataclass
class Place:
    path: str
    line: int  # 1-based
    kind: str
    text: str  # the line itself, stripped
    symbol: str | None = None
    end_line: int | None = None  # definitions: the last line of the definition

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


def find_symbol(store, name: str, limit: int = 50) -> dict:
    """{definitions: [Place], uses: [Place], uses_total} for an identifier ``name``."""
    if not IDENT.match(name):
        raise ValueError(f"{name!r} is not an identifier (letters, digits, _ or $, not starting with a digit)")
    conn = store.conn
    defs: list[Place] = []
    def_spans: set[tuple[str, int]] = set()
    for path, start, end, kind, symbol, text in conn.execute(
            "SELECT path, start_line, end_line, kind, symbol, text FROM chunks "
            "WHERE symbol = ? OR symbol LIKE ? ORDER BY path, start_line", (name, f"%.{name}")):
        offset, head = _head(text, name)
        defs.append(Place(path, int(start) + offset, kind, head.strip()[:200], symbol, int(end)))
        def_spans.add((path, int(start) + offset))
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    uses: list[Place] = []
    total = 0
    rows = conn.execute(
        "SELECT c.path, c.start_line, c.kind, c.text FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
        "WHERE chunks_fts MATCH ? ORDER BY c.path, c.start_line", (f'body:"{_fts_words(name)}"',))
    seen: set[tuple[str, int]] = set()
    for path, start, kind, text in rows:
        for i, line in enumerate((text or "").split("\n")):
            if not word.search(line):
                continue
            key = (path, int(start) + i)
            if key in seen or key in def_spans:
                continue
            seen.add(key)
            total += 1
            if len(uses) < limit:
                uses.append(Place(path, key[1], kind, line.strip()[:200]))
    return {"definitions": defs[:limit], "uses": uses, "uses_total": total,
            "definitions_total": len(defs)}


def _fts_words(name: str) -> str:
    return " ".join(re.findall(r"\w+", name))  # the FTS tokenizer splits on "$"


def chunk_at(store, path: str, line: int) -> tuple[int, int, str] | None:
    """(start_line, end_line, text) of the smallest indexed chunk of ``path`` holding ``line``."""
    row = store.conn.execute(
        "SELECT start_line, end_line, text FROM chunks WHERE path = ? AND start_line <= ? AND end_line >= ? "
        "ORDER BY end_line - start_line LIMIT 1", (path, line, line)).fetchone()
    return (int(row[0]), int(row[1]), row[2]) if row else None


def _head(text: str, name: str) -> tuple[int, str]:
    """(line offset, line) of a definition chunk's line naming ``name`` (within its first 40
    lines, where the signature is), else its first line."""
    lines = (text or "").split("\n")
    for i, line in enumerate(lines[:40]):
        if name in line:
            return i, line
    return 0, lines[0]
