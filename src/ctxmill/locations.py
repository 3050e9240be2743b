"""Where ctxmill keeps its state: light enough for the CLI's hot path (no index code)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def default_db_path(root: str | Path) -> Path:
    """Where the index of ``root`` lives unless told otherwise."""
    real = os.path.realpath(root)
    base = os.environ.get("CTXMILL_INDEX_DIR")
    if base:
        folder = Path(base)
    else:
        import platformdirs

        folder = Path(platformdirs.user_cache_dir("ctxmill")) / "index"
    name = os.path.basename(real.rstrip("/")) or "root"
    digest = hashlib.sha1(real.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return folder / f"{name}-{digest}.db"
