"""The Merkle tree over the indexed folder: file leaves, folder nodes, one root.

A file's leaf is its content hash (stored in ``files.hash``). A folder's hash is the hash of
its sorted ``name \\0 kind \\0 child-hash`` lines, so two trees with the same content have the
same root whatever order they were indexed in, and any change anywhere changes the root and
exactly the folders on the way to it. A sync recomputes only the folders above changed or
deleted files (deepest first); after an interrupted sync it recomputes them all.
"""

from __future__ import annotations

import hashlib


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def parent_of(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def folder_hash(children: list[tuple[str, str, str]]) -> str:
    """``children``: (name, "f" or "d", hash)."""
    h = hashlib.blake2b(digest_size=16)
    for name, kind, child in sorted(children):
        h.update(f"{name}\0{kind}\0{child}\n".encode())
    return h.hexdigest()


def update(conn, changed_paths, *, full: bool = False) -> str:
    """Recompute folder nodes above ``changed_paths`` (or all when ``full``); returns the root hash.

    Call inside a transaction.
    """
    if full:
        conn.execute("DELETE FROM nodes")
        folders = {""}
        for (d,) in conn.execute("SELECT DISTINCT dir FROM files"):
            while d:
                folders.add(d)
                d = parent_of(d)
    else:
        folders = {""}
        for p in changed_paths:
            d = parent_of(p)
            while d and d not in folders:
                folders.add(d)
                d = parent_of(d)
    # Deepest first, so a parent sees its children's new hashes.
    for folder in sorted(folders, key=lambda f: (-f.count("/") - (1 if f else 0), f)):
        children = [(p.rsplit("/", 1)[-1], "f", h) for p, h in conn.execute(
            "SELECT path, hash FROM files WHERE dir=?", (folder,))]
        children += [(p.rsplit("/", 1)[-1], "d", h) for p, h in conn.execute(
            "SELECT path, hash FROM nodes WHERE parent=? AND path != ''", (folder,))]
        if not children and folder:
            conn.execute("DELETE FROM nodes WHERE path=?", (folder,))
            continue
        conn.execute("INSERT OR REPLACE INTO nodes(path, parent, hash) VALUES (?,?,?)",
                     (folder, None if folder == "" else parent_of(folder), folder_hash(children)))
    row = conn.execute("SELECT hash FROM nodes WHERE path=''").fetchone()
    return row[0] if row else ""


def changed_folders(conn, other: dict[str, str]) -> list[str]:
    """Folders whose hash differs from ``other`` (path -> hash), walking down from the root only
    through folders that differ: equal subtrees are never visited."""
    mine = dict(conn.execute("SELECT path, hash FROM nodes"))
    out, stack = [], [""]
    while stack:
        folder = stack.pop()
        if mine.get(folder) == other.get(folder):
            continue
        out.append(folder)
        stack.extend(p for (p,) in conn.execute("SELECT path FROM nodes WHERE parent=?", (folder,)))
    return sorted(out)
