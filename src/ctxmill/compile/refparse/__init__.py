"""Fields of one reference string, by a trained sequence labeller (issue 22).

    >>> from ctxmill.compile.refparse import parse
    >>> f = parse("Bahcall, J.N., Flynn, C., Gould, A., 1992, ApJ, 389, 234")
    >>> f["people"][0], f["container"], f["year"], f["volume"], f["pages"]
    ({'family': 'Bahcall', 'given': 'J.N.'}, 'ApJ', '1992', '389', '234')

The string is split into tokens (tokens.py), each token described by features (features.py)
and labelled by a linear-chain CRF trained on GROBID's and AnyStyle's labelled citations
(scripts/train_refparse.py, model in ctxmill/data). The labels become fields (fields.py);
authors and editors become people (names.py). ``confidence`` is the mean marginal
probability of the labels chosen: low where the model hesitated, as it does on styles unlike
anything it was trained on; ``doubtful`` says why a parse should not be trusted.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ctxmill.compile.refparse import fields
from ctxmill.compile.refparse.features import tag_tokens
from ctxmill.compile.refparse.fields import assemble, title_publisher
from ctxmill.compile.refparse.tokens import tokenize

# "[12]", "12.", "(12)" before the entry: the citation label, not part of the reference
# (numbers, or keys such as "[Flu+07b]", "[EFF 15]", "[CFA^+12]")
_LABEL = re.compile(r"^\s*(?:\[([^\]\s][^\]]{0,15})\]|(\d{1,4})\.(?=\s)|\((\d{1,4})\))\s*")
# Below this mean marginal an entry's parse is doubtful (reported by the QA report). On the
# held-out sets (1,996 strings, 18% with a wrong title, container, first author or year)
# 0.85 flags about one entry in twelve, half of them wrong, and every string of noise tried;
# over the four document folds of cross-validation (3,892 dev strings) 369 (9.5%), 57% of them
# wrong. It belongs to the model: another model's is chosen on the folds
# (benchmarks/references.py --cv ... --calibrate-against), docs/outputs.md.
DOUBTFUL = 0.85
# "33 Bergk, V., ...": a list number with no stop or bracket, taken only before what reads as the
# start of an author list (a capitalised word then a comma or initials, or initials then a
# capitalised word), so a volume before a journal ("33 Phys. Rev.") is not; a year has 4 digits.
# The labeller, trained on few such strings, reads the number as the volume and loses the first
# author (docs/outputs.md, rounds 24 and 24b). On since round 24b; use_bare_numbers(False) for
# the parses before it.
_BARE = re.compile(r"^(\d{1,3})\s+(?=[A-ZÀ-Þ][\w'’-]*(?:,|\s+(?:[A-ZÀ-Þ]\.|[A-Z]{1,3}(?:[\s,.]|$)))"
                   r"|(?:[A-ZÀ-Þ]\.\s?-?){1,3}\s?[A-ZÀ-Þ][\w'’-]*[\s,])")
BARE_NUMBERS = True
# The rules cut a title at commas and full stops, so where the labeller saw no title they often
# hand back the stretch that holds the entry's arXiv id, DOI or URL ("E. Cancellieri, et al.,
# arXiv:1101.1783."): no title holds the identifier of its own entry. On since round 25
# (docs/outputs.md: on the folds 24 of 89 invented GROBID titles go); use_ids_not_titles(False)
# for the product before it.
IDS_NOT_TITLES = True
# Under low confidence the labeller often finds the right title and the rules run on past its
# bounds, into the venue, a report number, the editors, or back over the head of the entry
# ("..., fusion product, Transform", '3GPP TS 23.228: "IP Multimedia ..."'): a rules title that
# holds the labeller's and is longer is refused. On since round 27 (docs/outputs.md: on the
# folds 13 GROBID titles won, none lost); use_within_titles(False) for the product before it.
WITHIN_TITLES = True
# Where the labeller rightly saw no title the rules often take the entry's note for one ("P.
# Richardson, private communication.", "D. MATTE. Thèse, Université de Nancy I, Nancy. 1986."):
# a rules title that starts with a note is refused. The status forms are the ones the labeller
# already reads as a note (fields.STATUS); "work in ...", a thesis and a talk are added here.
# On since round 28 (docs/outputs.md: on the folds 7 invented GROBID titles go, none lost);
# use_notes_not_titles(False) for the product before it.
NOTES_NOT_TITLES = True
# Where a confident labeller saw a volume and pages but no title and no journal ("B. A. Klumov, ...,
# JETP 100, 152 (2005)."), the entry is a physics-style one that prints no title and the labeller
# missed its journal: the rules, asked for a title, make one of the journal or the names ("JETP 100").
# Not under low confidence, where the volume and pages may be a misreading ("dswah/pyGAM: v0.8.0",
# a software release). On since round 28 (benchmarks/results/round28_refinvent_rule.md);
# use_volume_pages_only(False) for the product before it.
VOLUME_PAGES_ONLY = True
# Where the labeller saw no title the rules often cut one from the entry's names ("S. TAKANO, S.
# SATOH, Y. OSHIMA etK"), from a journal at its first abbreviation ("Nucl" of "Nucl. Phys. B110")
# or from a collaboration and its report number ("ALICE Collaboration, CERN-LHCC-2013-020"): on the
# folds the rules' titles were 6 right, 14 wrong and 15 invented, 12 of those of these three kinds.
# Such a rules title is refused (``_names_venue_or_collab``). On since round 30
# (benchmarks/results/round30_refparse_rule.md); use_names_not_titles(False) for the product before it.
NAMES_NOT_TITLES = True
# a name by its initials: capitals with full stops, spaced or not, then a capitalised word ("S. TAKANO",
# "A .Lehrach", "D.Hölscher", "J. A. Oller"); not an acronym before a word ("U.S. hurricane")
_INITIALS_NAME = re.compile(r"(?<![^\W\d_])(?:[A-ZÀ-Þ]\s?\.\s?-?){1,3}[A-ZÀ-Þ][^\W\d_]+")
# a collaboration's name that opens the title and a comma or the title's end closes
_COLLAB_HEAD = re.compile(r"^(?:\S+\s+){0,3}?(?:collaboration|consortium)\s*(?:,|$)", re.IGNORECASE)
_NOTE_TITLE = re.compile(r"(?:work\s+)?(?:" + fields.STATUS.pattern + r"|(?:ph\.?\s?d\.?|master'?s?|doctoral|diploma)"
                         r"\s*(?:thesis|dissertation)|(?:invited\s+)?talk\s+(?:given\s+)?at)(?=$|[\s,.;:()])"
                         # a bare "Thesis" only alone before a comma or the end ("Thesis writing ..." is a title)
                         r"|(?:th[eè]se(?:\s+de\s+[\w-]+)?|thesis|dissertation)(?=\s*(?:$|[,.;:()]))", re.IGNORECASE)
_LETTERS = re.compile(r"[^\W\d_]{2,}")


def use_bare_numbers(on: bool) -> None:
    """Strip a bare list number before an author list (``_BARE``) in this process, or not."""
    global BARE_NUMBERS
    BARE_NUMBERS = on


def use_ids_not_titles(on: bool) -> None:
    """Refuse a rules title that holds the entry's DOI, arXiv id or URL (``_plausible_title``) in
    this process, or not."""
    global IDS_NOT_TITLES
    IDS_NOT_TITLES = on


def use_within_titles(on: bool) -> None:
    """Refuse a rules title that holds the labeller's title and is longer (``_plausible_title``)
    in this process, or not."""
    global WITHIN_TITLES
    WITHIN_TITLES = on


def use_notes_not_titles(on: bool) -> None:
    """Refuse a rules title that starts with a note (``_NOTE_TITLE``) in this process, or not."""
    global NOTES_NOT_TITLES
    NOTES_NOT_TITLES = on


def use_volume_pages_only(on: bool) -> None:
    """Keep the rules' title from a confident parse with volume and pages but no title or
    container (``VOLUME_PAGES_ONLY``) in this process, or not."""
    global VOLUME_PAGES_ONLY
    VOLUME_PAGES_ONLY = on


def use_names_not_titles(on: bool) -> None:
    """Refuse a rules title that reads as names, a journal cut at its first abbreviation or a
    collaboration's name (``_names_venue_or_collab``) in this process, or not."""
    global NAMES_NOT_TITLES
    NAMES_NOT_TITLES = on


def _names_venue_or_collab(title: str, text: str) -> bool:
    """Whether a rules title is a list of names (a comma and two names by their initials), ends in a venue word
    abbreviated whose full stop the entry prints right after it, or opens with a collaboration."""
    if "," in title and len(_INITIALS_NAME.findall(title)) >= 2:
        return True
    if _COLLAB_HEAD.match(title):
        return True
    words = _LETTERS.findall(title)
    at = text.find(title)
    if words and at >= 0 and text[at + len(title) : at + len(title) + 1] == ".":
        from ctxmill.compile.refparse.lexicon import ABBREVIATIONS, gazetteers, lexkey

        last = lexkey(words[-1])
        return last in ABBREVIATIONS or last in gazetteers().venue_abbrev
    return False


def label(text: str) -> list[tuple[str, str]]:
    """[(token, label)] for one reference string."""
    toks = tokenize(text)
    labels, _ = tag_tokens(toks)
    return [(t, lab) for (t, _, _), lab in zip(toks, labels, strict=True)]


def parse(raw: str) -> dict:
    """Every field of one reference string; absent fields are None (lists empty)."""
    text = " ".join(raw.split())  # the same as collapsing \s+ and stripping, without the regex
    m = _LABEL.match(text)
    number = None
    if m:
        number = next(g for g in m.groups() if g)
        text = text[m.end() :]
    elif BARE_NUMBERS and text[:1].isdigit():
        m = _BARE.match(text)
        if m:
            number = m.group(1)
            text = text[m.end() :]
    toks = tokenize(text)
    labels, confidence = tag_tokens(toks)  # (summed and tagged in CRFsuite: no numpy import)
    out = assemble(text, toks, labels)
    out["label"] = number
    out["confidence"] = round(confidence, 3)
    out["doubtful"] = doubtful(out)
    return out


# What Reference (model.py) takes from a parse, beside id/raw/page/block_id
REFERENCE_FIELDS = ("authors", "year", "title", "venue", "doi", "url", "arxiv_id", "people", "editors",
                    "container", "collection", "volume", "issue", "pages", "publisher", "location",
                    "edition", "isbn", "note", "type", "confidence", "doubtful")


def reference_fields(raw: str, fallback: Callable[[str], dict] | None = None) -> dict:
    """The fields of one bibliography entry as ``Reference`` takes them (plus ``label``).

    ``fallback`` is a rule parser (compile/references.parse_entry). Where the labeller's parse
    is doubtful and the rules find a title, the rules' authors, year, title and venue are
    kept for those contract fields: a style the model has not learnt is often one the rules
    were written for (on the corpus papers this finds more titles than either alone). The
    labeller's other fields stay.
    """
    f = parse(raw)
    f["venue"] = f["container"]
    if fallback is None:
        return f
    # (not for "no authors and no year": there the rules' title is as unsure, on the held-out
    # sets and the corpus alike)
    # Nor where the labeller found a journal, volume or pages and no title: the physics and
    # astronomy styles print none, and the rules would make one up from the names or journal.
    journal_only = not f["title"] and f["container"] and (f["volume"] or f["pages"])
    # or only a volume and pages, the labeller sure of them (``VOLUME_PAGES_ONLY``)
    journal_only = journal_only or (VOLUME_PAGES_ONLY and not f["title"] and not f["container"]
                                    and f["volume"] and f["pages"] and f["confidence"] >= DOUBTFUL)
    doubted = f["doubtful"] and not f["doubtful"].startswith("no authors") and not journal_only
    if not (doubted or f["url"] or f["doi"]):
        return f  # nothing the rules' parse would change: not run (a seventh of a parse)
    r = fallback(raw)
    for k in ("url", "doi"):
        # a URL broken at a line end ("https://www.latent.space/p/ agent"): the rules know
        # how URLs continue after the space
        if r.get(k) and f[k] and r[k] != f[k] and r[k].startswith(f[k]):
            f[k] = r[k]
    if doubted:
        if _plausible_title(r.get("title"), f, _LABEL.sub("", " ".join(raw.split()), count=1)):
            # where both read the same title, the labeller read the entry's shape: its container
            # is the venue, the rules' being the whole run after the title ("Phys. Rev. E 66,
            # 016305", "In: Computer 35.7"), the volume and pages the labeller split off in it
            same = f["container"] and f["title"] and _bare(f["title"]) == _bare(r.get("title"))
            for k in ("authors", "year", "title") if same else ("authors", "year", "title", "venue"):
                f[k] = r.get(k)
            f["label"] = f["label"] or r.get("label")
            if f["title"]:  # (the rules' title, as the labeller's: no version or institution after it)
                f["title"], edition, publisher = title_publisher(f["title"])
                f["edition"] = f["edition"] or edition
                f["publisher"] = f["publisher"] or publisher
    return f


def _bare(text: str | None) -> str:
    """A title's letters and digits, case aside: what two parsers' titles are compared by."""
    return "".join(c for c in (text or "").casefold() if c.isalnum())


def _plausible_title(title: str | None, f: dict, text: str = "") -> bool:
    """Whether a title the rules found can stand: a word of three letters, and neither the
    year nor the venue the labeller saw ("(Fermi-LAT), JCAP 1509, 008 (2015)" is no title),
    nor the entry's own DOI, arXiv id or URL (``IDS_NOT_TITLES``), nor the labeller's title with the head of the entry, where the labeller read its authors,
    before it ("Vali, Ferenc A., The Turkish Straits and NATO, ...": the rules did not find
    where the names end; "Binder. http://mybinder.org, 2017", a web page named as its maker,
    keeps the rules' title), nor a piece of the names before the labeller's title ("ROUSSILLON,
    René. CHABERT, Catherine. Manuel de psychologie ..." is no work called "CHABERT, Catherine"),
    nor, wherever it starts (``WITHIN_TITLES``), a longer stretch that holds the labeller's title,
    nor a note ("private communication", "PhD thesis, ...": ``NOTES_NOT_TITLES``), nor names, a
    journal cut at its first abbreviation or a collaboration's name (``NAMES_NOT_TITLES``).
    Names are no test: a web page's title often is its publisher's name ("Jupyter Notebook")."""
    if not title or not re.search(r"[^\W\d_]{3}", title):
        return False
    if WITHIN_TITLES and f["title"] and f["title"] in title and len(title) > len(f["title"]):
        return False
    if NOTES_NOT_TITLES and _NOTE_TITLE.match(title.replace("-", "")):  # (a line broken in "prepara-tion")
        return False
    if NAMES_NOT_TITLES and _names_venue_or_collab(title, text):
        return False
    if f["people"] and f["title"]:
        if f["title"] in title and text.startswith(title[:12]):
            return False
        # a piece of the names before the labeller's title ("Becker. Ernest. The Denial ..."):
        # every word of it a word of the people the labeller found
        words = _LETTERS.findall(title)
        names = {w.lower() for p in f["people"] for v in p.values() for w in _LETTERS.findall(v)}
        at = text.find(title)
        if words and all(w.lower() in names for w in words) and 0 <= at and at + len(title) <= text.find(f["title"]):
            return False
    if f["year"] and f["year"][:4] in title:
        return False
    if f["container"] and len(f["container"]) >= 4 and f["container"] in title:
        return False
    if IDS_NOT_TITLES:
        low = title.lower()
        if fields.DAMAGED_IDS:  # the identifier unspaced, the title as printed ("arXiv :1005 . 0539")
            low = "".join(low.split())
        if any(f.get(k) and f[k].lower() in low for k in ("doi", "arxiv_id", "url")):
            return False
    return True


def doubtful(f: dict) -> str | None:
    """Why a parse should not be trusted, or None. A sentence of prose labels confidently
    as one long title, so the shape of a reference is checked too: who, when, where."""
    if f["confidence"] < DOUBTFUL:
        return f"low confidence {f['confidence']:.2f}"
    if not f["people"] and not f["year"]:
        return "no authors and no year"
    if not (f["title"] or f["container"] or f["publisher"]):
        return "no title and no venue"
    if f.get("authors_run_on"):
        return "the authors run past a sentence end"
    return None
