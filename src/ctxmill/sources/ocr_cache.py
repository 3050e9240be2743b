"""OCR engine output kept on disk, so a scanned PDF compiled again does not pay the engine again.

Recompiling a scan (a new ctxmill version, a changed compile option, the same file in another
folder) reads the same page images; Tesseract is ~95% of such a compile. Each page's raw engine
output (Tesseract's hOCR, before any parsing or layout work, so every later improvement to page
assembly still applies) is stored under a key made of the exact image the engine was given (its
pixels, shape and render dpi) and the engine's identity (name, version and backend, language,
page segmentation mode, the settings ctxmill passes, the model files' size and date). Anything
that could change what the engine reads changes the key; a changed key is a miss, never a wrong hit.

Where: ``CTXMILL_OCR_CACHE`` (a folder; ``off`` turns the cache off), else the user's cache folder
(``platformdirs.user_cache_dir("ctxmill")/ocr``, on Linux ``~/.cache/ctxmill/ocr``). Per compile:
``ctxmill compile --no-ocr-cache`` / ``CompileOptions(ocr_cache=False)``. Size bound:
``CTXMILL_OCR_CACHE_MB`` [1024]; past it, the least recently used entries go.

An entry is written to a temporary file in the same folder and renamed into place, so a process
killed mid-write leaves no half entry (at most a temporary file, removed by a later prune). An
entry that is not what was written (wrong header, wrong key, a checksum that fails) is ignored,
deleted and written again. The cache never fails a compile: a folder that cannot be written is a
cache that misses.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
import zlib
from pathlib import Path

ENV = "CTXMILL_OCR_CACHE"
ENV_MB = "CTXMILL_OCR_CACHE_MB"
DEFAULT_MB = 1024
_OFF = {"0", "off", "no", "false", "none", "disabled"}
_MAGIC = b"ctxmill-ocr 1\n"
_STALE_TMP_SECONDS = 3600  # a temporary file this old belongs to a process that is gone


def cache_dir() -> Path | None:
    """The cache folder, or None when ``CTXMILL_OCR_CACHE`` turns it off."""
    value = os.environ.get(ENV, "").strip()
    if value.lower() in _OFF:
        return None
    if value:
        return Path(value).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("ctxmill")) / "ocr"


def max_bytes() -> int:
    try:
        mb = float(os.environ.get(ENV_MB, str(DEFAULT_MB)))
    except ValueError:
        mb = DEFAULT_MB
    return max(0, int(mb * 1024 * 1024))


class OcrCache:
    """Engine outputs by page image, for one engine identity (``identity``: any string that changes
    whenever the engine could read the same image differently)."""

    def __init__(self, root: Path, identity: str, limit: int | None = None):
        self.root = Path(root)
        self.identity = identity
        self.limit = max_bytes() if limit is None else limit
        self.hits = 0
        self.misses = 0
        self.written = 0
        self._lock = threading.Lock()

    def key(self, image, dpi: int, kind: str = "page") -> str:
        """The key of one page image (a 2-D uint8 array) as given to the engine at ``dpi``."""
        import hashlib  # (here, not at the top: a text-layer PDF's sandbox child imports this module but hashes nothing)

        h = hashlib.sha256()
        h.update(f"{self.identity}\n{kind}\n{dpi}\n{tuple(image.shape)}\n{image.dtype}\n".encode())
        h.update(memoryview(image).cast("B") if image.flags.c_contiguous else image.tobytes())
        return h.hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.z"

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        try:
            raw = path.read_bytes()
        except OSError:
            self._count(hit=False)
            return None
        head = _MAGIC + key.encode() + b"\n"
        data = None
        if raw.startswith(head):
            try:
                data = zlib.decompress(raw[len(head):])  # its Adler-32 catches a damaged body
            except zlib.error:
                data = None
        if data is None:  # not what we wrote: drop it, the page is read again and written anew
            try:
                path.unlink()
            except OSError:
                pass
            self._count(hit=False)
            return None
        try:
            os.utime(path)  # recently used: the last to go when the cache is pruned
        except OSError:
            pass
        self._count(hit=True)
        return data

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        body = _MAGIC + key.encode() + b"\n" + zlib.compress(data, 6)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(body)
                os.replace(tmp, path)  # atomic: a reader sees the old entry, none, or the whole new one
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            return  # a full disk or a read-only folder: no cache, same result
        with self._lock:
            self.written += 1

    def _count(self, hit: bool) -> None:
        with self._lock:
            if hit:
                self.hits += 1
            else:
                self.misses += 1

    def prune(self) -> None:
        """Remove the least recently used entries until the cache is under its bound (to 80% of
        it, so a cache at its bound is not walked after every document), and temporary files left
        by killed processes."""
        entries = []
        total = 0
        now = time.time()
        try:
            subdirs = [d for d in os.scandir(self.root) if d.is_dir(follow_symlinks=False)]
        except OSError:
            return
        for d in subdirs:
            try:
                files = list(os.scandir(d.path))
            except OSError:
                continue
            for f in files:
                try:
                    st = f.stat(follow_symlinks=False)
                except OSError:
                    continue
                if f.name.startswith(".tmp-"):
                    if now - st.st_mtime > _STALE_TMP_SECONDS:
                        _unlink(f.path)
                    continue
                entries.append((st.st_mtime, st.st_size, f.path))
                total += st.st_size
        if total <= self.limit:
            return
        entries.sort()
        goal = int(0.8 * self.limit)
        for _mtime, size, path in entries:
            if total <= goal:
                break
            if _unlink(path):
                total -= size


def _unlink(path: str) -> bool:
    try:
        os.unlink(path)
        return True
    except OSError:
        return False


def for_engine(engine, enabled: bool = True) -> OcrCache | None:
    """The cache for ``engine``'s outputs, or None: turned off, or an engine whose output is not
    kept (only engines with a ``cache_identity()`` and raw output to keep: Tesseract's hOCR)."""
    if not enabled or not hasattr(engine, "cache_identity"):
        return None
    root = cache_dir()
    if root is None:
        return None
    try:
        identity = engine.cache_identity()
    except Exception:  # noqa: BLE001 -- an engine that cannot say what it is gets no cache
        return None
    return OcrCache(root, identity)
