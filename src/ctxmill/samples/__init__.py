"""The sample document that ships with ctxmill (written for ctxmill, not a copy of any paper).

``tidal-caching.txt`` is a short paper in raw-OCR form (MinerU-style page markers, ``\\( \\)``
LaTeX, an HTML table, an image placeholder, footnotes, author-year citations and a reference
list) so that every feature has something to show without downloading anything.
"""

from __future__ import annotations

from pathlib import Path

SAMPLE_NAME = "tidal-caching.txt"


def sample_path() -> Path:
    """Path of the bundled sample document."""
    return Path(__file__).with_name(SAMPLE_NAME)
