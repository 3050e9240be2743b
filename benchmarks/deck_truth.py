"""Build a slide-deck set: benchmarks/unseen_truth.py's builder over a deck manifest.

Same truth rules as the unseen set (a Beamer frame's title is a heading one level under its \\section's, once
per frame however many overlay pages print it); only the manifest and the output folder differ, so the unseen
manifest stays untouched. Two sets: `dev` (benchmarks/data/deck_dev.json, the decks deck handling was tuned
on), `heldout` (benchmarks/data/deck_heldout.json, decks of other themes it was not tuned on) and `heldout2`
(benchmarks/data/deck_heldout2.json, round 32: decks fixed before any round 32 change, since round 31 picked its
fixes on `heldout`); round 33 added `heldout3` (benchmarks/data/deck_heldout3.json, three more decks fixed before any
round 33 change, since rounds 31 and 32 picked their fixes on the first two). Any name N reads benchmarks/data/deck_N.json into benchmarks/.cache/decks_N.

    .venv/bin/python benchmarks/deck_truth.py                  # dev -> benchmarks/.cache/decks/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout    # -> benchmarks/.cache/decks_heldout/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout2   # -> benchmarks/.cache/decks_heldout2/<slug>/
    .venv/bin/python benchmarks/deck_truth.py --set heldout3   # -> benchmarks/.cache/decks_heldout3/<slug>/
    .venv/bin/python benchmarks/corpus.py --papers benchmarks/.cache/decks
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import unseen_truth  # noqa: E402

SETS = {"dev": ("deck_dev.json", "decks"), "heldout": ("deck_heldout.json", "decks_heldout")}

if __name__ == "__main__":
    name = "dev"
    if "--set" in sys.argv:  # ours, not unseen_truth's: taken out before its parser reads argv
        i = sys.argv.index("--set")
        name = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    manifest, folder = SETS.get(name, (f"deck_{name}.json", f"decks_{name}"))
    unseen_truth.MANIFEST = unseen_truth.REPO / "benchmarks" / "data" / manifest
    unseen_truth.OUT = unseen_truth.REPO / "benchmarks" / ".cache" / folder
    sys.argv += [] if "--out" in sys.argv else ["--out", str(unseen_truth.OUT)]
    unseen_truth.main()
