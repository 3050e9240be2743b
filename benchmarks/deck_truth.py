"""Build the slide-deck development set: benchmarks/unseen_truth.py's builder over benchmarks/data/deck_dev.json.

Same truth rules as the unseen set (a Beamer frame's title is a heading one level under its \\section's, once
per frame however many overlay pages print it); only the manifest and the output folder differ, so the unseen
manifest stays untouched.

    .venv/bin/python benchmarks/deck_truth.py            # -> benchmarks/.cache/decks/<slug>/
    .venv/bin/python benchmarks/corpus.py --papers benchmarks/.cache/decks
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import unseen_truth  # noqa: E402

unseen_truth.MANIFEST = unseen_truth.REPO / "benchmarks" / "data" / "deck_dev.json"
unseen_truth.OUT = unseen_truth.REPO / "benchmarks" / ".cache" / "decks"

if __name__ == "__main__":
    sys.argv += [] if "--out" in sys.argv else ["--out", str(unseen_truth.OUT)]
    unseen_truth.main()
