"""The team key and everything derived from it.

The key lives in the user's config (``$CTXMILL_TEAM_KEY``, else the file
``$CTXMILL_CONFIG_DIR/team.key``, default the platform's config folder), never on the server.
Every machine of a team uses the same key; the server only ever sees what it derives:

* path components as keyed HMACs (``src/app.py`` -> ``<hmac(src)>/<hmac(app.py)>``), so a client
  maps a hit back to its own file by hashing the paths of its walk;
* lexical terms as keyed HMACs, so the full-text index holds no identifier of the code;
* symbols and chunk contexts sealed with AES-GCM (the ranker needs them in the clear on the
  client; the server holds only ciphertext);
* a check value, so a client with another key is refused instead of writing a second,
  unreadable copy of the tree.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from functools import lru_cache
from pathlib import Path

from ctxmill.errors import InputRefused

KEY_ENV = "CTXMILL_TEAM_KEY"
TERM_BYTES = 8  # 64-bit term hashes: collisions among a repository's ~1e6 distinct terms ~ 3e-8
PART_BYTES = 12  # per path component


def config_dir() -> Path:
    base = os.environ.get("CTXMILL_CONFIG_DIR")
    if base:
        return Path(base)
    import platformdirs

    return Path(platformdirs.user_config_dir("ctxmill"))


def key_path() -> Path:
    return config_dir() / "team.key"


def load_key(*, create: bool = False) -> bytes:
    """The team key: ``$CTXMILL_TEAM_KEY``, else the key file (made with a fresh random key
    when ``create`` and absent)."""
    raw = os.environ.get(KEY_ENV, "").strip()
    if not raw:
        path = key_path()
        try:
            raw = path.read_text().strip()
        except FileNotFoundError:
            if not create:
                raise InputRefused(f"no team key: set {KEY_ENV} or put the team's key in {path} "
                                   "(`ctxmill store start` makes one)") from None
            path.parent.mkdir(parents=True, exist_ok=True)
            raw = secrets.token_hex(32)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(raw + "\n")
        except OSError as exc:
            raise InputRefused(f"team key {path}: {exc.strerror or exc}") from None
    if len(raw) < 16:
        raise InputRefused("the team key is too short (at least 16 characters; `ctxmill store start` makes one)")
    return hashlib.sha256(raw.encode()).digest()


_keyed: dict[bytes, Keyed] = {}


def keyed_for(key: bytes) -> Keyed:
    """The Keyed of ``key``, one per key in a process: its caches of path-component and term
    hashes then serve every sync and search of a long-lived process."""
    got = _keyed.get(key)
    if got is None:
        got = _keyed[key] = Keyed(key)
    return got


class Keyed:
    """What one team key derives: path, term and check HMACs, and sealing of small texts."""

    def __init__(self, key: bytes):
        # separate sub-keys, so no derived value can be replayed as another kind
        self._path = hmac.new(key, b"ctxmill path", hashlib.sha256).digest()
        self._term = hmac.new(key, b"ctxmill term", hashlib.sha256).digest()
        self._seal = hmac.new(key, b"ctxmill seal", hashlib.sha256).digest()
        self.check = hmac.new(key, b"ctxmill check", hashlib.sha256).hexdigest()[:32]
        self.part = lru_cache(maxsize=200_000)(self._part)
        self.term = lru_cache(maxsize=500_000)(self._term_hash)
        self._aead = None

    def _part(self, name: str) -> str:
        return hmac.new(self._path, name.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:2 * PART_BYTES]

    def path(self, path: str) -> str:
        """``a/b/c.py`` -> the HMAC of each component, joined by ``/`` (folders stay folders)."""
        if not path:
            return ""
        return "/".join(self.part(p) for p in path.split("/"))

    def _term_hash(self, term: str) -> str:
        # keyed BLAKE2b is a MAC in its own right, and ~4x cheaper than hmac.new per call
        return hashlib.blake2b(term.encode("utf-8", "surrogatepass"), key=self._term,
                               digest_size=TERM_BYTES).hexdigest()

    def repo(self, name: str) -> str:
        return hmac.new(self._path, b"repo\0" + name.encode(), hashlib.sha256).hexdigest()[:32]

    def seal(self, text: str | None) -> bytes | None:
        """AES-GCM ciphertext of ``text`` (a fresh nonce each time), None for None/empty."""
        if not text:
            return None
        nonce = secrets.token_bytes(12)
        return nonce + self._cipher().encrypt(nonce, text.encode("utf-8", "surrogatepass"), None)

    def open(self, blob: bytes | None) -> str | None:
        if not blob:
            return None
        blob = bytes(blob)
        try:
            return self._cipher().decrypt(blob[:12], blob[12:], None).decode("utf-8", "surrogatepass")
        except Exception:  # another key or a damaged row: the hit is dropped by its hash check
            return None

    def _cipher(self):
        if self._aead is None:
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM

            self._aead = AESGCM(self._seal)
        return self._aead
