"""fuzz.py --kinds wide3 (round 32): the OCR-engine kinds replay the same bytes for a seed, and every
planted word is in the input it must be kept from."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import fuzz  # noqa: E402


def test_wide3_replays_and_plants_words_in_its_input():
    assert fuzz.wide3_text(random.Random("7:text:wide3")) == fuzz.wide3_text(random.Random("7:text:wide3"))
    rnd = random.Random(11)
    kinds = set()
    for _ in range(60):
        planted: list[str] = []
        kind = rnd.choice(fuzz.W3_KINDS)
        kinds.add(kind)
        gen = {"deepseek": fuzz._deepseek, "dots": lambda r, n, p: fuzz._dots(r, n, p)[0], "chandra": fuzz._chandra,
               "doctags": fuzz._doctags, "mineru_list": fuzz._mineru_list, "front_matter": fuzz._front_matter,
               "engine_mix": fuzz._engine_mix}[kind]
        text = gen(rnd, 12, planted)
        assert all(w in text for w in planted)
        assert len(set(planted)) == len(planted)
    assert kinds == set(fuzz.W3_KINDS)
