"""Raw OCR text generated for the tests of the OCR-text road (sources/ocr_text.py reads it): pages
each opened by the '── PAGE p / n ──' marker, then lines drawn at random from a test's own kinds
among plain 'line k of the page' ones. A test picks the kinds that fire the rules it checks."""

from __future__ import annotations

import random


def ocr_pages(rnd: random.Random, pages: int, kinds: list[str], *, lines: tuple[int, int] = (5, 40),
              share: float = 0.5, i: tuple[int, int] = (1, 12), j: tuple[int, int] | None = None) -> str:
    """``pages`` pages of ``lines`` (a range) lines each, a ``share`` of them from ``kinds``, whose
    ``{i}`` (and ``{j}``, when its range is given) take a random number in that range."""
    out = []
    for p in range(1, pages + 1):
        out.append(f"── PAGE {p} / {pages} ──")
        for k in range(rnd.randint(*lines)):
            if rnd.random() < share:
                kind = rnd.choice(kinds)  # (drawn before its numbers, as the tests first drew them)
                numbers = {"i": rnd.randint(*i)}
                if j:
                    numbers["j"] = rnd.randint(*j)
                out.append(kind.format(**numbers))
            else:
                out.append(f"line {k} of the page")
    return "\n".join(out) + "\n"
