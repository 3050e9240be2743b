"""Where the team store's URL comes from, first found wins:

1. ``--store URL`` (``ctxmill index``, ``ctxmill search``; ``store=`` in the Python API);
2. ``$CTXMILL_STORE``;
3. the project's settings, ``ROOT/.ctxmill/settings.toml`` (the file the agent's rules live in):

       [team]
       store = "postgresql://ctxmill@db.internal:5432/ctxmill"

A project's settings file is committed and shared, so a URL there must not carry a password:
one that does is refused (the password comes from ``PGPASSWORD`` or ``~/.pgpass``, libpq's
rules). ``--db FILE`` still means the local SQLite index.

Only ``os`` at import: the command's fast path (``ctxmill.entry``) asks this before it decides
whether the warm server (the local index) may answer.
"""

from __future__ import annotations

import os

STORE_ENV = "CTXMILL_STORE"
# What decides the key, repository, branch, local state and password of a team search: the warm
# server answers a command's team search only when these are the same in both processes
REQUEST_ENV = ("CTXMILL_TEAM_KEY", "CTXMILL_CONFIG_DIR", "CTXMILL_INDEX_DIR", "CTXMILL_STORE_REPO",
               "CTXMILL_STORE_BRANCH", "PGPASSWORD", "PGPASSFILE", "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")


def settings_file(root: str | os.PathLike) -> str:
    return os.path.join(os.fspath(root), ".ctxmill", "settings.toml")


def project_store(root: str | os.PathLike) -> str | None:
    """``[team] store`` of ROOT's settings, or None; a password in it is refused (exit 3)."""
    path = settings_file(root)
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError):
        return None
    if "store" not in text:
        return None  # no [team] store here (most settings files hold permissions and hooks)
    import tomllib

    from ctxmill.errors import InputRefused

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputRefused(f"{path}: not valid TOML ({exc})") from None
    team = data.get("team")
    url = team.get("store") if isinstance(team, dict) else None
    if url is None:
        return None
    if not isinstance(url, str) or not url.strip().startswith(("postgresql://", "postgres://")):
        raise InputRefused(f"{path}: [team] store must be a postgresql:// URL")
    url = url.strip()
    if _has_password(url):
        raise InputRefused(f"{path}: [team] store must not hold a password (the file is shared): remove it "
                           "from the URL and put it in PGPASSWORD or ~/.pgpass")
    return url


def _has_password(url: str) -> bool:
    from urllib.parse import parse_qs, urlsplit

    try:
        parts = urlsplit(url)
        return parts.password is not None or "password" in parse_qs(parts.query)
    except ValueError:
        return True  # unreadable: treat as unsafe to keep in a shared file


def store_url(explicit: str | None = None, root: str | os.PathLike | None = None) -> str | None:
    """The team store to use for ROOT (see the module's note); None means the local SQLite index."""
    url = explicit if explicit is not None else os.environ.get(STORE_ENV)
    if url is not None:
        return url.strip() or None
    return project_store(root) if root is not None else None
