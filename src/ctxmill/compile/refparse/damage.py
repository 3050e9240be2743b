"""More labelled reference strings by damage: copies of training strings with the faults a PDF
text layer or OCR leaves in them, at the rates GROBID's own training strings show (issue 22,
training only; the product never imports this module).

GROBID's citation strings were cut from real PDFs, and about three in ten carry such faults:
the space on the wrong side of a punctuation mark ("Gu,L .,Kaastra ,J .", "Nucl . Instrum."),
words glued where a space was lost ("OralTradition", "Giambiagi:Il", "Prosthodont1997"), a space
inside a word ("t he"), a line-break hyphen left in ("single- photon"), a ligature ("classiﬁer"),
a list label left at the start ("[15] R. M. Wald"). A title whose words are glued or spaced so
reads to the labeller as something else. ``measure`` counts these faults in labelled strings
(the GROBID strings being trained on, never a held-out one); ``damage`` makes a copy of one
string with faults drawn at those rates (all but the list label, which parse() strips before it
labels). Labels travel with the characters: every character
keeps the label it had, so the copy's spans are the original's, moved by the edits.
"""

from __future__ import annotations

import random
import re
import zlib

from ctxmill.compile.refparse.datasets import Example

# the faults that ``measure`` finds and ``damage`` makes; each pattern finds one occurrence
_URLISH = re.compile(r"\S*(?:/|www\.)\S*")  # URLs, DOIs, arXiv ids: their dots and case are no damage
PATTERNS = {
    "space_punct": re.compile(r"(?<=\w) [.,;:](?!\.)"),            # "Phys . Rev", "Kaastra ,J"
    "glue": re.compile(r"[a-z]{2}[A-Z][a-z]|[a-z]{2}[.,;:][A-Za-z]{2}|[A-Z]\.[A-Z][a-z]{2}"
                       r"|\d[A-Za-z]{3}|[a-z]{3}\d"),                # "OralTradition", "Giambiagi:Il", "J.Smith"
    "split": re.compile(r"(?<![\w.'’])[b-hj-z] [a-z]{2,}"),         # "t he"
    "hyphen": re.compile(r"[a-z]- [a-z]"),                          # "single- photon"
    "ligature": re.compile(r"[\ufb00-\ufb04]"),                     # "classiﬁer"
    "label": re.compile(r"^(?:\[\d+\]|\d+\.|\(\d+\))\s"),           # "[15] ", "102. "
}
_IDENTIFIER = re.compile(r"\S*(?:/|www\.|arXiv:|doi:)\S*", re.I)
_HOLD = 0xF0000  # placeholders for identifiers: a private-use plane no reference string uses
_PUNCT_OPPORTUNITY = re.compile(r"(?<=\w)[.,;:](?!\.)")
_LIGATURES = {"ffi": "\ufb03", "ffl": "\ufb04", "ff": "\ufb00", "fi": "\ufb01", "fl": "\ufb02"}


def measure(texts: list[str]) -> dict:
    """The rates of each fault in ``texts``: ``damaged``, the share of strings with any fault;
    per fault, ``share`` of the damaged strings that hold it and ``mean`` occurrences in a string
    that holds it; for the space before a punctuation mark also ``per_mark`` (of the marks in
    such strings, how many) and ``moved`` (how often the space after the mark is gone too)."""
    with_kind = dict.fromkeys(PATTERNS, 0)
    found = dict.fromkeys(PATTERNS, 0)
    damaged = marks = moved = 0
    for text in texts:
        t = _URLISH.sub(" ", text)
        hit = False
        for kind, pat in PATTERNS.items():
            occ = list(pat.finditer(t))
            if occ:
                hit = True
                with_kind[kind] += 1
                found[kind] += len(occ)
                if kind == "space_punct":
                    marks += len(_PUNCT_OPPORTUNITY.findall(t)) + len(occ)
                    moved += sum(1 for m in occ if m.end() < len(t) and not t[m.end()].isspace())
        damaged += hit
    rates: dict = {"strings": len(texts), "damaged": round(damaged / max(1, len(texts)), 4)}
    for kind in PATTERNS:
        n = with_kind[kind]
        rates[kind] = {"share": round(n / max(1, damaged), 4), "mean": round(found[kind] / n, 3) if n else 1.0}
    k = rates["space_punct"]
    k["per_mark"] = round(found["space_punct"] / marks, 4) if marks else 0.0
    k["moved"] = round(moved / found["space_punct"], 4) if found["space_punct"] else 0.0
    return rates


def _count(rng: random.Random, mean: float) -> int:
    """1, 2, ... with the given mean (geometric)."""
    n, more = 1, max(0.0, (mean - 1) / mean)
    while rng.random() < more and n < 20:
        n += 1
    return n


def _glue_places(cs: list[str]) -> list[int]:
    """The spaces whose loss ``measure`` would see (so the copies hold the kinds of glue it
    counted, at its rates): after a punctuation mark before a letter ("Giambiagi:Il"), before a
    capital after a lower-case letter or an initial ("OralTradition", "J.Smith"), between a
    number and a word ("Prosthodont1997")."""
    out = []
    for i in range(1, len(cs) - 1):
        if cs[i] != " ":
            continue
        a, b = cs[i - 1], cs[i + 1]
        if (a in ".,;:" and b.isalpha()) or (b.isupper() and (a.islower() or a == ".")) \
                or (a.isdigit() and b.isalpha()) or (a.isalpha() and b.isdigit()):
            out.append(i)
    return out


def _words(cs: list[str], least: int) -> list[tuple[int, int]]:
    """(start, end) of each run of ``least`` or more letters."""
    out, i, n = [], 0, len(cs)
    while i < n:
        if cs[i].isalpha():
            j = i
            while j < n and cs[j].isalpha():
                j += 1
            if j - i >= least:
                out.append((i, j))
            i = j
        else:
            i += 1
    return out


def damage(example: Example, rates: dict, salt: str = "") -> Example | None:
    """A copy of ``example`` with one or more faults drawn at ``rates`` (from ``measure``),
    chosen by a hash of its text (the same string gets the same copy); None when no fault
    could be made in it."""
    text, spans = example
    rng = random.Random(zlib.crc32((salt + "damage:" + text).encode()))
    labels: list[str | None] = [None] * len(text)
    for s, e, lab in spans:
        for i in range(s, min(e, len(text))):
            labels[i] = lab
    # identifiers (URLs, DOIs, arXiv ids) stay whole: each is one placeholder character while the
    # faults are made (no letter, digit, space or mark, so no edit touches it or the spaces beside
    # it), then its text again; measure() does not count faults in them either
    cs: list[str] = []
    ls: list[str | None] = []
    whole: list[tuple[str, list]] = []
    at = 0
    for m in _IDENTIFIER.finditer(text):
        cs += text[at:m.start()]
        ls += labels[at:m.start()]
        cs.append(chr(_HOLD + len(whole)))
        ls.append(labels[m.start()])
        whole.append((m[0], labels[m.start():m.end()]))
        at = m.end()
    cs += text[at:]
    ls += labels[at:]
    kinds = [k for k in PATTERNS if rates.get(k, {}).get("share", 0) > 0]
    if not any(k in _EDITS for k in kinds):
        return None
    chosen: list[str] = []
    for _ in range(10):  # a damaged copy holds at least one fault, kinds as often as in the data
        # every measured kind is drawn (so each copy's draws do not depend on which kinds are made),
        # only those in _EDITS are made
        chosen = [k for k in kinds if rng.random() < rates[k]["share"] and k in _EDITS]
        if chosen:
            break
    if not chosen:
        chosen = [max((k for k in kinds if k in _EDITS), key=lambda k: rates[k]["share"])]
    made = 0
    for kind in PATTERNS:  # a fixed order: the edits of one kind see the others' text
        if kind not in chosen:
            continue
        made += _EDITS[kind](cs, ls, rng, rates[kind])
    if not made:
        return None
    if whole:
        out_c: list[str] = []
        out_l: list[str | None] = []
        for c, lab in zip(cs, ls, strict=True):
            k = ord(c) - _HOLD
            if 0 <= k < len(whole):
                out_c += whole[k][0]
                out_l += whole[k][1]
            else:
                out_c.append(c)
                out_l.append(lab)
        cs, ls = out_c, out_l
    return _spans_of(cs, ls)


def _space_punct(cs, ls, rng, r) -> int:
    """The space after a punctuation mark moved before it ("Kaastra ,J"), or one added before it
    ("Nucl . Instrum."), for about ``per_mark`` of the marks."""
    made = 0
    i = len(cs) - 2
    while i > 0:
        if cs[i] in ".,;:" and cs[i + 1] == " " and cs[i - 1].isalnum() and rng.random() < r.get("per_mark", 0.3):
            lab = ls[i - 1] if ls[i - 1] == ls[i] else None
            if rng.random() < r.get("moved", 0.5):
                del cs[i + 1], ls[i + 1]
            cs.insert(i, " ")
            ls.insert(i, lab)
            made += 1
        i -= 1
    return made


def _glue(cs, ls, rng, r) -> int:
    """Spaces lost between words ("OralTradition", "Giambiagi:Il")."""
    made = 0
    for _ in range(_count(rng, r["mean"])):
        sp = _glue_places(cs)
        if not sp:
            break
        i = rng.choice(sp)
        del cs[i], ls[i]
        made += 1
    return made


def _split(cs, ls, rng, r) -> int:
    """A space inside a word ("t he")."""
    return _inside_words(cs, ls, rng, r, 4, " ", 1, 0)


def _hyphen(cs, ls, rng, r) -> int:
    """A line-break hyphen left in a word ("single- photon")."""
    return _inside_words(cs, ls, rng, r, 6, "- ", 2, 1)


def _inside_words(cs, ls, rng, r, least: int, mark: str, lo: int, hi: int) -> int:
    """``mark`` put inside words of ``least`` or more letters, at least ``lo`` letters after a
    word's start and ``hi`` before its end, as many times as ``_count`` draws (``_split``'s space
    and ``_hyphen``'s "- " alike); the mark takes the word's label."""
    made = 0
    for _ in range(_count(rng, r["mean"])):
        words = _words(cs, least)
        if not words:
            break
        s, e = rng.choice(words)
        i = rng.randrange(s + lo, e - hi)
        cs[i:i] = mark
        ls[i:i] = [ls[s]] * len(mark)
        made += 1
    return made


def _ligature(cs, ls, rng, r) -> int:
    """"fi", "fl", "ff", "ffi", "ffl" printed as one ligature character ("classiﬁer")."""
    text = "".join(cs)
    hits = [m for m in re.finditer("ffi|ffl|ff|fi|fl", text)]
    if not hits:
        return 0
    made = 0
    for m in sorted(rng.sample(hits, min(len(hits), _count(rng, r["mean"]))), key=lambda m: -m.start()):
        s, e = m.span()
        cs[s:e] = [_LIGATURES[m[0]]]
        ls[s:e] = [ls[s]]
        made += 1
    return made


# The faults made. A list label left at the start ("[15] ", "102. ") is measured but not made:
# parse() strips exactly those before it labels (refparse._LABEL), so the labeller never meets
# one, and copies that open with a number labelled O taught it that a number opening a string
# is no date (round 19's --damage 1.0 read "1933, Ranque, M.G., ..." as an author there).
_EDITS = {"space_punct": _space_punct, "glue": _glue, "split": _split, "hyphen": _hyphen,
          "ligature": _ligature}
MADE = tuple(_EDITS)


def _spans_of(cs: list[str], ls: list[str | None]) -> Example:
    """The text and the spans of its labelled runs (a run's spaces at either end left out)."""
    text = "".join(cs)
    spans: list[tuple[int, int, str]] = []
    i, n = 0, len(cs)
    while i < n:
        lab = ls[i]
        j = i
        while j < n and ls[j] == lab:
            j += 1
        if lab is not None:
            s, e = i, j
            while s < e and cs[s].isspace():
                s += 1
            while e > s and cs[e - 1].isspace():
                e -= 1
            if e > s:
                spans.append((s, e, lab))
        i = j
    return text, spans
