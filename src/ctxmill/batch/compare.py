"""Are two output folders the same compile? What the batch tests and benchmarks/batch.py check.

Everything must be byte-identical except the timings: metrics.json (seconds per stage) and its
copy inside bundle.zip, whose other members must match too.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

TIMINGS = {"metrics.json"}


def _files(folder: Path) -> dict[str, Path]:
    return {str(p.relative_to(folder)): p for p in sorted(folder.rglob("*")) if p.is_file()}


def _bundle(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist() if n not in TIMINGS}


def differences(a: Path, b: Path) -> list[str]:
    """The relative paths whose content differs between folders ``a`` and ``b`` ([] = same)."""
    fa, fb = _files(Path(a)), _files(Path(b))
    diff = sorted(set(fa) ^ set(fb))
    for name in sorted(set(fa) & set(fb)):
        if name in TIMINGS:
            continue
        if name.endswith("bundle.zip"):
            if _bundle(fa[name]) != _bundle(fb[name]):
                diff.append(name)
        elif fa[name].read_bytes() != fb[name].read_bytes():
            diff.append(name)
    return diff
