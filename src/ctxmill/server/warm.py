"""The warm indexes for long-running callers (the MCP server, the web page): ask the user's
background server when one is running, so every client shares one copy of each index's
vectors and one watcher; None when none runs, and the caller works in-process as before.

These callers never start a server themselves: a web page or an MCP session that outlives
its user's commands should not leave a daemon behind that nobody asked for.
"""

from __future__ import annotations

import os
from pathlib import Path


def search(query: str, root: str | Path, *, path_prefix: str | None = None, k: int = 10,
           db_path: str | Path | None = None) -> list | None:
    """``ctxmill.index.search`` answered by the running server (``Hit`` objects, best first),
    or None: no server, or it could not answer (the in-process path then gives the reason).

    The server first brings the index up to date when it has not synced this root since it
    began watching it (an edit made before it watched is then seen), and syncs whatever its
    watcher has seen change: the caller needs no sync of its own."""
    from ctxmill import server
    from ctxmill.team.settings import store_url

    if not server.enabled() or db_path is None and store_url(None, root):
        return None  # (a team store is searched in the calling process: ctxmill.team)
    try:
        reply = server.call("search", start=False, timeout=120, root=os.path.realpath(root),
                            db=os.path.realpath(db_path) if db_path else None, query=query, k=int(k),
                            path=path_prefix, full=True, fresh=True)
    except (server.ServerUnavailable, server.ServerError):
        return None
    from ctxmill.index.search import Hit

    return [Hit(**h) for h in reply["hits"]]
