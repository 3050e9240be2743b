"""Spacing accents: the glyphs a TeX Type 1 font sets apart from the letter they belong to
(``\\'e`` as ``´`` + ``e``, ``\\=o`` as ``¯`` + ``o``). One table for the PDF reader, which composes
an accent glyph onto the letter its box overlaps, and for the compiler, which composes what is
left in a title's or an abstract's text (``Jo˜ao`` -> ``João``)."""

from __future__ import annotations

import re
import unicodedata

# spacing accent -> its combining mark
SPACING_ACCENTS = {"´": "\u0301", "`": "\u0300", "¨": "\u0308", "˜": "\u0303", "ˆ": "\u0302", "ˇ": "\u030c",
                   "˘": "\u0306", "¸": "\u0327", "˚": "\u030a", "˝": "\u030b", "¯": "\u0304", "˙": "\u0307",
                   "˛": "\u0328"}
# an accent over i or j is set over the dotless letter
DOTLESS = {"ı": "i", "ȷ": "j"}

_ACCENT_RE = re.compile("([" + "".join(SPACING_ACCENTS) + "])\\s?([A-Za-zıȷ])")


def combine(letter: str, accent: str) -> str:
    """One letter with one spacing accent, precomposed where Unicode has the character."""
    return unicodedata.normalize("NFC", DOTLESS.get(letter[:1], letter[:1]) + letter[1:] + SPACING_ACCENTS[accent])


def compose_accents(text: str) -> str:
    """'Jo˜ao', 'Lud¨ascher', 'T´ecnico' -> 'João', 'Ludäscher', 'Técnico'."""
    if not any(a in text for a in SPACING_ACCENTS):
        return text
    return unicodedata.normalize(
        "NFC", _ACCENT_RE.sub(lambda m: DOTLESS.get(m.group(2), m.group(2)) + SPACING_ACCENTS[m.group(1)], text))
