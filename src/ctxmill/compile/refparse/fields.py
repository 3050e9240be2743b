"""Labelled tokens -> the fields of one reference (values cleaned, identifiers exact).

Each label's tokens are grouped into runs (punctuation labelled "O" between two tokens of one
field does not end the field); a field's text is the slice of the original string from its
first token to its last, so spacing and punctuation inside it are kept as printed.
DOIs, arXiv ids, URLs and ISBNs are taken with patterns from the string itself, so they are
kept exactly even where the model labels a neighbouring token wrongly.
"""

from __future__ import annotations

import re
from itertools import groupby
from operator import itemgetter

from ctxmill.compile.refparse.features import journal_marks
from ctxmill.compile.refparse.lexicon import (
    ABBREVIATIONS,
    JOURNAL,
    MARKERS,
    PARTICLES,
    PUBLISHER,
    gazetteers,
    lexkey,
)
from ctxmill.compile.refparse.names import display_name, is_name, split_people
from ctxmill.compile.refparse.tokens import tokenize

_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+")
_ARXIV = re.compile(
    r"(?:arxiv[:\s]\s*|arxiv\.org/(?:abs|pdf)/)(\d{4}\.\d{4,5}(?:v\d+)?|[a-z\-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)"
    r"|\b((?:hep|astro|gr|nucl|cond|quant|math|physics|cs|nlin|q-bio|stat)[a-z\-]*(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)",
    re.IGNORECASE,
)
_URL = re.compile(r"(?:https?|ftp)://[^\s<>\"]+|\bwww\.[^\s<>\"]+", re.IGNORECASE)
# The same identifiers as PDF text layers and OCR print them, spaced around their marks
# ("arXiv :1411.4088", "arXiv:1005 . 0539", "http ://cern.ch/garfield", "doi :10.1103 /PhysRevE.49.55"):
# taken only where the exact patterns find none, and kept as the identifier itself, unspaced. A
# spaced DOI needs its "doi" before it (a bare "10. 1103/" could be a volume and a page); a URL
# may be glued to the word before it ("URLhttp ://..."), and its host holds a dot where it is
# whole ("http : //link. aps.org/..." gives none: a cut host is no address). So the product's
# refusal of a rules title that holds the entry's identifier applies to them too. On since round 26
# (docs/outputs.md); use_damaged_ids(False) for the fields before it.
DAMAGED_IDS = True
_ARXIV_SPACED = re.compile(r"arxiv\s*:?\s*(\d{4})\s*\.\s*(\d{4,5}(?:v\d+)?)(?!\d)"
                           r"|arxiv\s*:\s*([a-z\-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)", re.IGNORECASE)
_URL_SPACED = re.compile(r"(https?|ftp)\s*:\s*/\s*/\s*([\w-]+(?:\.[\w-]+)+[^\s<>\"]*)", re.IGNORECASE)
_DOI_SPACED = re.compile(r"\bdoi\s*:?\s*10(\s*)\.(\s*)(\d{4,9})\s*/\s*([^\s\"<>]+)", re.IGNORECASE)
# biblatex breaks a DOI with a space on both sides of each "." and "/" ("doi: 10 . 1145 / 2384616 .
# 2384633"): there, and only there, the DOI goes on over such a mark; a stop after it has no space
# before it ("2384633. url: ...")
_DOI_MORE = re.compile(r"\s+([./])\s+([^\s\"<>]+)")
_ISBN = re.compile(r"\bISBN(?:-1[03])?:?\s*([\dX][\d\- X]{8,16}[\dX])", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)([a-z])?(?![\d])")
_NUM = re.compile(r"[A-Za-z]?\d+[A-Za-z]?(?:\s*[-–—/]\s*[A-Za-z]?\d+[A-Za-z]?)?")
_TRAIL = ".,;:"
_TRAILING_NUMBER = re.compile(r"[\s,]+(\d+)$")
# a series whose number is part of its name: "US Geological Survey Circular 1292"
_NUMBERED = re.compile(r"\b(?:circular|series|report|bulletin|paper|memoirs?|no|nr|number|part)\.?$", re.IGNORECASE)
STATUS = re.compile(r"(?:personal|private) communications?|in (?:preparation|press|prep\.?)|unpublished(?: \w+)?"
                     r"|submitted(?: to \w+)?|to ?appear|forthcoming|preprint"
                     # a talk or paper printed in the same book: "K. Kebkal et al., these proceedings."
                     r"|(?:in )?th(?:ese|is) (?:proceedings|volume|conference|workshop|meeting|issue)", re.IGNORECASE)  # "toappear": a lost space
# the patterns of the clean-up rules, compiled once
_QUOTE_ENDS = re.compile(r"^\s*(?:[“\"'‘])|(?:[”\"'’])\s*[,.]?\s*$")
_INITIAL_END = re.compile(r"\b[A-Z]\.$")
_IN = re.compile(r"^(?:In|in|IN)\s*:?\s+")
_WORD_END = re.compile(r"(?:^|\s)[A-Za-z][a-z]{5,}\.$")
_ABBR_INSIDE = re.compile(r"\b\w{1,6}\.\s")
_SPACES = re.compile(r"\s+")
_PAGES_WORD = re.compile(r"^(?:pp?\.?|pages?|S\.)\s*", re.IGNORECASE)
_DASH = re.compile(r"\s*[-–—]+\s*")
_VOLUME_WORD = re.compile(r"^(?:vol(?:ume)?\.?|bd\.?|t\.)\s*", re.IGNORECASE)
_VOLUME_BEFORE = re.compile(r"(?i)\b(?:vol|volume|bd)\s*\.?\s*$")
_VOLUME_ISSUE = re.compile(r"\s*([A-Za-z]?\d+[A-Za-z]?(?:[-–/]\d+)?)\s*(?:\(([^)]+)\)|,?\s*(?:no|nr|issue)\.?\s*(\w+))?", re.IGNORECASE)
_NAME_LIST = re.compile(r",|\band\b|&")
_SENTENCE_END = re.compile(r"[^\W\d_]{3,}\.\s+[A-Z]")
_CLOSING_QUOTE = re.compile(r"[\"”“»]")
_ABBR_SPACE = re.compile(r"\w\.\s")
_ALNUM = re.compile(r"\w")
_ABBR_ANY = re.compile(r"[^\W\d_]\.(?:\s|$)")
_PROC = re.compile(r"(?i)proc|conf|in\b")
_THESIS = re.compile(r"\b(?:ph\.?\s?d|doctoral|dissertation|thesis)\b")
_MASTER = re.compile(r"\bmaster|m\.?sc|b\.?sc|bachelor")
_PROCEEDINGS = re.compile(r"\b(?:proc\.?|proceedings|advances in|conference|conf\.|workshop|symposium|meeting|congress)\b")
_REPORT = re.compile(r"\b(?:tech(?:nical)?\.?\s+rep|report)\b")


_LAB = itemgetter(0)


def _runs(tokens: list[tuple[str, int, int]], labels: list[str]) -> list[tuple[str, int, int]]:
    """[(label, start, end)] in string order."""
    runs: list[tuple[str, int, int]] = []
    # (the labelled tokens grouped by label in C; a run is its first token's start to its last's end)
    for lab, group in groupby([(lab, s, e) for (_, s, e), lab in zip(tokens, labels, strict=True) if lab != "O"],
                              key=_LAB):
        run = list(group)
        runs.append((lab, run[0][1], run[-1][2]))
    return runs


def _run_end(labels: list[str], i: int) -> int:
    """The last index of the run of ``labels[i]``'s label that starts at ``i``."""
    lab = labels[i]
    while i + 1 < len(labels) and labels[i + 1] == lab:
        i += 1
    return i


def _relabelled(labels: list[str], a: int, b: int, field: str) -> list[str]:
    """A copy of ``labels`` where tokens ``a``..``b-1`` are ``field`` and token ``b``, the
    punctuation that ends that run, is "O": how the rules below hand a run to another field."""
    out = list(labels)
    out[a:b] = [field] * (b - a)
    out[b] = "O"
    return out


def _clean(text: str) -> str:
    return " ".join(text.split()).strip(" ,;:")


_QUOTED = re.compile(r"^[\"“„«]([^\"“”„«»]{3,})[\"”“»]")


def _title(text: str) -> str:
    # A title opened by a quote ends at the closing one, whatever the labels ran on to
    q = _QUOTED.match(_clean(text))
    if q:
        text = q.group(1)
    t = _clean(text).strip("\"“”‘’'«»„")
    t = _QUOTE_ENDS.sub("", t).strip()
    if t.endswith(".") and not _INITIAL_END.search(t):
        t = t[:-1]
    return t.strip(" ,;:\"“”")


def _container(text: str) -> str:
    t = _clean(text)
    t = _IN.sub("", t)
    t = t.strip("\"“”")
    # "Review." ends a sentence; "Phys." / "J." are abbreviations and keep their full stop
    if t.endswith(".") and _WORD_END.search(t) and not _ABBR_INSIDE.search(t):
        t = t[:-1]
    return t


def _number(text: str) -> str | None:
    m = _NUM.search(text)
    return _SPACES.sub("", m.group(0)) if m else None


def _pages(text: str) -> str | None:
    t = _PAGES_WORD.sub("", _clean(text))
    m = _NUM.search(t)
    if not m:
        return None
    return _DASH.sub("-", m.group(0))


def _volume_issue(text: str) -> tuple[str | None, str | None]:
    # "63 (5)", "Vol. 3, Part A", "61(8-B)", "vol. 12, no. 4"
    t = _VOLUME_WORD.sub("", _clean(text))
    m = _VOLUME_ISSUE.match(t)
    if not m:
        return _number(t), None
    return m.group(1), (m.group(2) or m.group(3))


def identifiers(raw: str) -> dict:
    """DOI, arXiv id, URL and ISBN as printed in the string (None where absent)."""
    out: dict = {"doi": None, "arxiv_id": None, "url": None, "isbn": None}
    low = raw.lower()
    # each pattern is searched only where the text it needs is in the string: a DOI, a URL
    # and an old-style arXiv id hold a "/", a URL may begin "www.", an arXiv id "arXiv", an
    # ISBN says so (most entries have none of them, many a ":")
    slash = "/" in raw
    if slash:
        m = _DOI.search(raw)
        if m:
            out["doi"] = m.group(0).rstrip(".,;)]")
    if slash or "arxiv" in low:
        m = _ARXIV.search(raw)
        if m:
            out["arxiv_id"] = (m.group(1) or m.group(2)).rstrip(".,;")
    if slash or "www." in low:
        m = _URL.search(raw)
        if m:
            _set_url(out, m.group(0))
    if DAMAGED_IDS:
        _damaged_ids(raw, low, out)
    if "isbn" in low:
        m = _ISBN.search(raw)
        if m:
            out["isbn"] = m.group(1).strip()
    return out


def _set_url(out: dict, url: str) -> None:
    """The entry's URL, and its DOI where the URL is a doi.org link and no DOI was printed."""
    out["url"] = url.rstrip(".,;)]")
    if out["doi"] is None and "doi.org/" in out["url"]:
        out["doi"] = out["url"].split("doi.org/", 1)[1]


def use_damaged_ids(on: bool) -> None:
    """Find spaced identifiers (``_damaged_ids``) in this process, or not."""
    global DAMAGED_IDS
    DAMAGED_IDS = on


def _damaged_ids(raw: str, low: str, out: dict) -> None:
    """The identifiers the exact patterns missed, where printed with spaces around their marks."""
    if out["arxiv_id"] is None and "arxiv" in low:
        m = _ARXIV_SPACED.search(raw)
        if m:
            out["arxiv_id"] = f"{m.group(1)}.{m.group(2)}" if m.group(1) else m.group(3)
    if out["url"] is None and "//" in raw:
        m = _URL_SPACED.search(raw)
        if m:
            _set_url(out, f"{m.group(1)}://{m.group(2)}")
    if out["doi"] is None and "doi" in low:
        m = _DOI_SPACED.search(raw)
        if m:
            doi, end = f"10.{m.group(3)}/{m.group(4)}", m.end()
            while m.group(1) and m.group(2) and (more := _DOI_MORE.match(raw, end)):
                doi, end = doi + more.group(1) + more.group(2), more.end()
            out["doi"] = doi.rstrip(".,;)]")


def _reads_as_names(piece: str) -> bool:
    people, _ = split_people(piece)
    return bool(people) and all(is_name(p) for p in people) and bool(_NAME_LIST.search(piece))


_CUT_TOKENS = frozenset((".", "al."))
_JOURNAL_PARTS = frozenset(("volume", "issue", "pages"))
_BOOK_PARTS = frozenset(("publisher", "location"))


def one_sentence_title(text: str, tokens, labels: list[str]) -> list[str]:
    """A title is one sentence. Where the title's tokens run over a full stop that ends a
    sentence (a "." token: abbreviations and initials keep theirs), the labels went wrong:
    a sentence of names before it is the rest of the author list ("He, X. Zhang, | S. Ren,
    and J. Sun. Deep residual ..."), and what follows the title is its venue ("... devices.
    Black Hat USA")."""
    if labels.count("title") < 3:
        return labels
    a = b = labels.index("title")
    # "et al. Autogen: Enabling next-gen ...": a short head before a colon, right after the
    # sentence that ends the names, is the title's first words
    if a >= 3 and tokens[a - 1][0] == ":":
        k = a - 2
        while k > 0 and a - 1 - k < 3 and tokens[k - 1][0] not in (".", "al."):
            k -= 1
        if k > 0 and tokens[k - 1][0] in (".", "al.") and labels[k - 1] in ("O", "author"):
            labels = list(labels)
            for j in range(k, a):
                labels[j] = "title"
            a = k
    b = _run_end(labels, b)
    def ends(i: int) -> bool:  # "." before a word that is not lower-case ASCII, or "et al."
        nxt = tokens[i + 1][0][:1]
        starts = nxt.isalnum() and not ("a" <= nxt <= "z")
        if nxt.isdigit() and tokens[i - 1][0][-1:].isdigit():
            return False  # a decimal point the text layer spaced out: "at 2 . 76 TeV", "JEWEL 2.0 . 0"
        return starts and (tokens[i][0] == "." or (tokens[i][0] == "al." and tokens[i - 1][0] == "et"))

    # (only a "." or "al." token can end a sentence: ends() is asked of those alone)
    cuts = [i for i in range(a + 1, b) if tokens[i][0] in _CUT_TOKENS and ends(i)]
    if not cuts:
        return labels
    labels = list(labels)
    before = next((labels[j] for j in range(a - 1, -1, -1) if labels[j] != "O"), None)
    start = a
    if before == "author" and _reads_as_names(text[tokens[a][1] : tokens[cuts[0]][2]]):
        for j in range(a, cuts[0] + 1):
            labels[j] = "author"
        if tokens[cuts[0]][0] == ".":
            labels[cuts[0]] = "O"
        start = cuts[0] + 1
        cuts = cuts[1:]
    # What follows the sentence end is the venue unless the model found the venue further on:
    # then it is the title's second sentence ("A diagnostic score for the irritable bowel
    # syndrome. Its value in the exclusion of organic disease. Gastroenterology 1984"), unless
    # it reads as a venue itself ("In ...", "2019 IEEE/CVF ...", a known journal, Title Case
    # after a title in sentence case)
    words = [t for t, _, _ in tokens[cuts[0] + 1 : b + 1]] if cuts else []
    # nor where a publisher or place follows and no volume, issue or pages: one more sentence
    # is a book's subtitle ("Metaphors We Live By. With a new afterword. Chicago: University of
    # Chicago Press"); with names or a date before the title (a title that opens the entry may
    # begin with its maker, "The tokio contributors. Tokio - The asynchronous run-time ..."),
    # and no subtitle repeats the title ("Handbook of Materials Modeling. Handbook of ...")
    after = set(labels[b + 1 :])
    book = ("container" not in labels and not after & _JOURNAL_PARTS and bool(after & _BOOK_PARTS)
            and before in ("author", "date") and len(cuts) == 1
            and text[tokens[start][1] : tokens[cuts[0]][1]].strip().lower()
            != text[tokens[cuts[0] + 1][1] : tokens[b][2]].strip().lower())
    if (cuts and tokens[cuts[0]][0] == "."
            and (("container" not in labels and not book)
                 or _venue_like([t for t, _, _ in tokens[start : cuts[0]]], words))):
        rest = "container" if "container" not in labels else "note"
        labels[cuts[0]] = "O"
        for j in range(cuts[0] + 1, b + 1):
            labels[j] = rest
    return labels


def _venue_like(head: list[str], words: list[str]) -> bool:
    """Whether the words after a title's sentence end read as a venue, not its subtitle."""
    if not words:
        return False
    if words[0] in ("In", "in", "IN") or words[0][:1].isdigit():
        return True
    if journal_marks(words)[0] in ("jB", "j1"):
        return True
    return _cases(words) == {True} and False in _cases(head)


def _cases(words: list[str]) -> set[bool]:
    # whether the words of four letters or more are capitalised: {True} for Title Case
    return {w[:1].isupper() for w in words if len(w) >= 4 and w[:1].isalpha()}


_INITIALS_TOKEN = re.compile(r"(?:[A-ZÀ-Þ]\.)+|[A-ZÀ-Þ]{1,3}")
# the words that join the last name of a list ("Haldane, R. and P. Okonkwo", "Meyer, K. und H. Albers")
_AND_WORDS = frozenset(("and", "&", "und", "et", "y", "e"))
# round 39 (issue 22): authors_end_at_initials leaves a list alone whose last name, after "and", is printed
# initials first (benchmarks/results/round39_tRef_rule.md); use_initials_after_and(False) for the fields before it
INITIALS_AFTER_AND = True


def use_initials_after_and(on: bool) -> None:
    """Keep the family name after "and I." a name (``authors_end_at_initials``) in this process, or not."""
    global INITIALS_AFTER_AND
    INITIALS_AFTER_AND = on


def authors_end_at_initials(tokens, labels: list[str]) -> list[str]:
    """In a list that prints each family name before its initials ("Liaw D.", "Le, Q. V."),
    a name ends with its initials: words the authors' labels ran on to after the last
    initials, right before the title, begin the title ("Li J, Yen C, Liaw D. PTEN, a
    putative protein ...", "Le, Q. V. Xlnet: Generalized autoregressive ...")."""
    if "author" not in labels or "title" not in labels:
        return labels
    a = labels.index("author")
    b = _run_end(labels, a)
    t = b + 1
    while t < len(labels) and labels[t] == "O" and not tokens[t][0][:1].isalnum():
        t += 1
    if t >= len(labels) or labels[t] != "title" or b - a < 3:
        return labels
    words = [w for w, _, _ in tokens]
    # family first: a word, then (after a comma or not) its initials
    second = words[a + 2] if words[a + 1] == "," else words[a + 1]
    if _INITIALS_TOKEN.fullmatch(words[a]) or not _INITIALS_TOKEN.fullmatch(second):
        return labels
    k = max((i for i in range(a, b + 1) if _INITIALS_TOKEN.fullmatch(words[i]) and words[i].endswith(".")), default=None)
    if k is None or not 1 <= b - k <= 3 or not all(
            w[:1].isupper() and w[:1].isalnum() and not _INITIALS_TOKEN.fullmatch(w) for w in words[k + 1 : b + 1]):
        return labels
    if t - b > 2 or (t - b == 2 and words[b + 1] not in ":,"):  # "PTEN, a putative", "Xlnet: Generalized"
        return labels
    # every name family first: no initials before a name ("Loven, J., H.A. Hoke, ...")
    if any(_INITIALS_TOKEN.fullmatch(words[i]) and words[i + 1][:1].isupper() and not _INITIALS_TOKEN.fullmatch(words[i + 1])
           for i in range(a, k)):
        return labels
    if INITIALS_AFTER_AND:
        # nor the last name: initials right after "and" open a name printed initials first, whose family name
        # follows them ("Okafor, B.T. and M. Lindqvist, Thermal drift ...": Lindqvist is a person, not the title's
        # first word)
        j = k
        while j > a and (_INITIALS_TOKEN.fullmatch(words[j - 1]) or words[j - 1] in ("-", "‐")):
            j -= 1
        if j > a and words[j - 1].lower() in _AND_WORDS:
            return labels
    out = list(labels)
    for i in range(k + 1, b + 1):
        out[i] = "title"
    for i in range(b + 1, t):  # the punctuation between joins the title ("Xlnet: Generalized")
        out[i] = "title"
    return out


# lower-case words a list of names holds: particles, connectives, "et al.", "on behalf of the",
# "edited by", "and others"
_NAME_WORDS = frozenset((
    "and", "und", "et", "al", "of", "the", "for", "on", "behalf", "with", "by", "in", "others", "ed", "eds",
    "edited", "de", "da", "di", "du", "des", "del", "della", "dos", "das", "do", "la", "le", "les", "van",
    "von", "der", "den", "ten", "ter", "zu", "y", "e", "el", "bin", "ibn", "jr",
    "avec", "mit", "con", "com", "met", "och",  # "with"
    "dir", "coord", "hrsg", "hg", "trad", "trans", "transl", "comp", "éd", "éds", "red"))  # roles


def prose_ends_names(tokens, labels: list[str]) -> list[str]:
    """The author labels ran on into the title's first words, and the title's labels begin
    after a quote, a slash or a bracket inside it ("Rome J. Autosomal dominant "Opitz" GBBB
    syndrome ...", "L. Niu, A generalized (G /G)-expansion method ..."): a lower-case word
    that no list of names holds is prose, so the title begins at the capitalised word that
    starts it, right after a name's initials or a comma."""
    if "author" not in labels or "title" not in labels:
        return labels
    n = len(labels)
    a = labels.index("author")
    b = _run_end(labels, a)
    t = b + 1
    while t < n and t - b <= 3 and labels[t] == "O" and not tokens[t][0][:1].isalnum():
        t += 1
    if t >= n or labels[t] != "title":
        return labels
    words = [w for w, _, _ in tokens]
    i = next((i for i in range(a + 2, b + 1) if len(words[i]) > 1 and words[i].isalpha() and words[i].islower()
              and words[i] not in _NAME_WORDS), None)
    if i is None or "," in words[i:b]:  # the names go on after it ("Bâ el H, Richardson K, ...")
        return labels
    s = i - 1
    before = words[s - 1]
    # (an initial before a lower-case word is the article: "L. Niu, A generalized ...")
    if not (words[s].isalpha() and words[s][:1].isupper()
            and (before in ",;" or (_INITIALS_TOKEN.fullmatch(before) and before.endswith(".")))):
        return labels
    out = list(labels)
    out[s:t] = ["title"] * (t - s)
    return out


_COLLAB = frozenset(("collaboration", "collaborations", "consortium"))
# (no \b before: the text layer glues the name to it, "( LHCbCollaboration )")
_COLLAB_TEXT = re.compile(r"(?i)(?:collaborations?|consortium)\b")
_GLUED_COLLAB = re.compile(r"[A-Za-z0-9-]*[A-Z0-9][A-Za-z0-9-]*(?:Collaborations?|Consortium)")
_DOTTED_INITIALS = re.compile(r"(?:[A-ZÀ-Þ]\.)+")
_ACRONYM = re.compile(r"[A-Z][A-Z&]{2,}")
_GLUED_AND = re.compile(r"(?:and|und|&)[A-ZÀ-Þ]")  # "andR .H .Wechsler": the text layer lost a space


def _is_collab(word: str) -> bool:
    """A token that names a collaboration: "Collaboration", or glued to its name ("MOLLERCollaboration")."""
    return word.lower() in _COLLAB or (("ollaboration" in word or "onsortium" in word)
                                       and _GLUED_COLLAB.fullmatch(word) is not None)


# "Eli Ben-Sasson, Alessandro Chiesa, Eran Tromer & Madars Virza: SNARKs for C ...", eptcs.bst's
# head: the labeller, which saw few names ended by a colon, ends the author run early and reads the
# rest of the names, the "&" and the colon as the title's head. On since round 28
# (benchmarks/results/round28_reftitles_rule.md); use_names_head_title(False) for the fields before it.
NAMES_HEAD_TITLE = True
_NAME_SEPS = frozenset((",", "&", "and"))


def use_names_head_title(on: bool) -> None:
    """Give the names before a colon at a title's head back to the authors (``names_head_title``)
    in this process, or not."""
    global NAMES_HEAD_TITLE
    NAMES_HEAD_TITLE = on


def _name_shaped(words: list[str]) -> bool:
    """2-4 words that read as one name printed given name first: capitalised words, initials or
    particles, ending in a capitalised word that is no initial ("Madars Virza", "Juan A. Garay")."""
    if not 2 <= len(words) <= 4 or not words[0][:1].isupper():
        return False
    return all(w[:1].isupper() or w.lower() in PARTICLES for w in words[1:]) and words[-1][:1].isupper() \
        and not _DOTTED_INITIALS.fullmatch(words[-1]) and all(w[:1].isalpha() for w in words)


def names_head_title(tokens, labels: list[str]) -> list[str]:
    """A title run that starts at the entry's head, or right after the author run with only a
    separator between, and whose words before its first colon are a list of names printed
    given name first ("Eran Tromer & Madars Virza: Scalable ..."): those names are authors, the
    title starts after the colon. Name-shaped words are not enough ("A. Smith, Machine Learning:
    A Survey"): the list closes with "&", or one of its names starts with initials or a given
    name of the gazetteer. Not a one-word maker ("Scipr-lab: Libsnark")."""
    if "title" not in labels:
        return labels
    s = labels.index("title")
    words = [t for t, _, _ in tokens]
    gap = s
    while gap > 0 and labels[gap - 1] == "O" and words[gap - 1] in _NAME_SEPS:
        gap -= 1
    if gap > 0 and labels[gap - 1] != "author":
        return labels
    if gap == 0 and s > 0:  # only separators before the title: no entry starts so
        return labels
    e = s
    while e < len(labels) and labels[e] == "title" and words[e] != ":":
        e += 1
    if e >= len(labels) - 1 or labels[e] != "title" or labels[e + 1] != "title" or e - s < 2:
        return labels
    given = gazetteers().given
    piece: list[str] = []
    strong = "&" in words[s:e]
    for w in words[s:e] + [","]:
        if w in _NAME_SEPS:
            if not _name_shaped(piece):
                return labels
            strong = strong or bool(_DOTTED_INITIALS.fullmatch(piece[0])) or lexkey(piece[0]) in given
            piece = []
        else:
            piece.append(w)
    if not strong:
        return labels
    return _relabelled(labels, gap, e, "author")


def title_after_names(tokens, labels: list[str]) -> list[str]:
    """An entry with no title whose author run ends, after a comma, in a part that is no
    name, in a list where every name begins with its initials ("S. Coleman, Q-balls, Nucl.
    Phys. B262", "D. Bigi and P. Gambino, Revisiting B → Dν, Phys. Rev. D94"): that part is
    the title, or the venue where it reads as one ("M. Ackermann et al. (Fermi-LAT), JCAP")."""
    if "title" in labels or "author" not in labels:
        return labels
    n = len(labels)
    words = [t for t, _, _ in tokens]
    a = labels.index("author")
    b = a  # the names run on over brackets the model left out: "M. Ackermann et al. (Fermi-LAT), JCAP"
    while b + 1 < n and (labels[b + 1] == "author" or (labels[b + 1] == "O" and words[b + 1] in "()[]"
                                                        and "author" in labels[b + 2 : b + 4])):
        b += 1
    while labels[b] != "author":
        b -= 1
    depth, c = 0, None  # the last comma outside brackets: "(DES, Fermi-LAT)" is one part
    for i in range(a, b + 1):
        depth += words[i] in "([" and 1 or words[i] in ")]" and -1 or 0
        if words[i] == "," and depth == 0:
            c = i
    if c is None or c == b:
        return labels
    seg = words[c + 1 : b + 1]
    starts = [a] + [i + 1 for i in range(a, c) if words[i] in (",", "and", "&")]
    starts = [i for i in starts if i < c and words[i] not in (",", "and", "&")]
    if not all(_DOTTED_INITIALS.fullmatch(words[i]) for i in starts):
        return labels
    if (_INITIALS_TOKEN.fullmatch(seg[0]) or seg[0].lower() in ("et", "and", "jr", "jr.") or _GLUED_AND.match(seg[0])
            or not any(w[:1].isalpha() and len(w) > 1 for w in seg) or any(map(_is_collab, seg))):
        return labels
    nxt = next((labels[j] for j in range(b + 1, n) if labels[j] != "O"), None)
    if nxt not in ("container", "publisher", "volume", "date", "pages"):
        return labels
    text = " ".join(seg)
    # a venue: a known name, an acronym ("JCAP"), abbreviations ("Gen. Relat. Gravit."), or
    # the head of the venue that follows it ("Compt. | Rend. Hebd. Seances")
    dots = [w.endswith(".") or (k + 1 < len(seg) and seg[k + 1] == ".") or (k + 1 == len(seg) and b + 1 < n
            and words[b + 1] == ".") for k, w in enumerate(seg)]
    alpha = [k for k, w in enumerate(seg) if w[:1].isalpha()]
    abbreviated = all(seg[k][:1].isupper() for k in alpha) and 2 * sum(dots[k] for k in alpha) >= len(alpha)
    heads = b + 2 < n and words[b + 1] == "." and labels[b + 2] == "container"
    # (and with no venue anywhere, the part a volume follows, pages after it, is the journal:
    # "J. D. Wilson and B. L. Sawford, Boundary-Layer Meteorology, 78, 191-210 (1996)")
    field = "container" if heads or ("container" not in labels and (
        is_venue_name(text) or abbreviated or (len(seg) == 1 and _ACRONYM.fullmatch(seg[0]))
        or (nxt == "volume" and "pages" in labels[b + 1 :]))) else "title"
    out = list(labels)
    out[c] = "O"
    out[c + 1 : b + 1] = [field] * (b - c)
    return out


def collaboration_title(tokens, labels: list[str]) -> list[str]:
    """A title that begins with the name of a collaboration ("[LIGO Scientific and Virgo
    Collaborations]", "CMB-S4 Collaboration, et al.: CMB-S4 Science Book") names authors up
    to that word (and an "et al." after it)."""
    if "title" not in labels:
        return labels
    words = [t for t, _, _ in tokens]
    i = labels.index("title")
    j = _run_end(labels, i)
    k = next((x for x in range(i, min(j, i + 6) + 1) if _is_collab(words[x])), None)
    if k is None or not all(w[:1].isupper() or not w[:1].isalpha() or w in ("and", "&") for w in words[i : k + 1]):
        return labels
    end = k + 3 if words[k + 1 : k + 4] == [",", "et", "al."] else k
    out = list(labels)
    if end >= j:
        out[i : j + 1] = ["author"] * (j + 1 - i)
    elif words[end + 1] in (":", ".", "]", ")"):
        out[i : end + 1] = ["author"] * (end + 1 - i)
        out[end + 1] = "O"
    else:
        return labels
    return out


def collaboration_is_author(tokens, labels: list[str]) -> list[str]:
    """No journal is called "... Collaboration": a venue run that names a collaboration
    ("Virgo, LIGO Scientific collaboration, B.P. Abbott et al., ...") is the author list."""
    if "container" not in labels:
        return labels
    out = list(labels)
    i = 0
    while i < len(out):
        if out[i] != "container":
            i += 1
            continue
        j = i
        while j + 1 < len(out) and out[j + 1] == "container":
            j += 1
        if any(_is_collab(tokens[k][0]) for k in range(i, j + 1)):
            out[i : j + 1] = ["author"] * (j + 1 - i)
        i = j + 1
    return out


def title_runs_into_container(tokens, labels: list[str]) -> list[str]:
    """A journal's name holds no sentence end either. Where the container's tokens run over a
    "." token into a capitalised word, right after the title, and what comes before that
    full stop reads as prose (lower-case words), that prose is the rest of the title ("A
    single low-energy, | iron-poor supernova as the source of metals. | Nature 506")."""
    if labels.count("container") < 3:
        return labels
    a = labels.index("container")
    b = _run_end(labels, a)
    cut = next((i for i in range(b - 1, a, -1) if tokens[i][0] == "." and tokens[i + 1][0][:1].isupper()), None)
    if cut is None:
        return labels
    k = a - 1
    # (over punctuation, and a few numbers the model read as pages or a volume inside the
    # prose: "... in relation to cyclin E, | p27 and p21 | expression and ... phosphorylation.
    # Oncogene")
    while k >= 0 and (labels[k] == "O" or (labels[k] in _JOURNAL_PARTS and a - k <= 6)):
        k -= 1
    lower = sum(1 for j in range(a, cut) if tokens[j][0][:1].islower() and len(tokens[j][0]) > 2)
    if k < 0 or labels[k] != "title" or lower < 2:
        return labels
    if any(labels[j] != "O" for j in range(k + 1, a)) and any(tokens[j][0] == "." for j in range(k + 1, a)):
        return labels  # numbers past a sentence end are no part of the title: "Tide and time. Pages 1-12 in"
    labels = list(labels)
    for j in range(k + 1, cut):
        labels[j] = "title"
    labels[cut] = "O"
    return labels


_YEAR_TOKEN = re.compile(r"(?:1[5-9]|20)\d\d[a-z]?$")


def journal_ends_title(tokens, labels: list[str]) -> list[str]:
    """No venue, and a title in sentence case that ends in the name of a known journal right
    before the date, volume or pages: that name is the venue the text printed without a full
    stop between ("... for treatment of the common cold Pharmacotherapy (2000) 20:690",
    "... in chronic pain patients Pain (1992) 49(1):71-75")."""
    if "container" in labels or "title" not in labels:
        return labels
    a = labels.index("title")
    b = _run_end(labels, a)
    n = len(labels)
    j = next((j for j in range(b + 1, n) if labels[j] != "O"), n)
    # (no comma between: "... Activity across Europe, 2012" ends with a place, not a journal)
    if j == n or labels[j] not in ("date", "volume", "pages") or b - a < 3 or any(
            tokens[x][0] == "," for x in range(b + 1, j)):
        return labels
    words = [t for t, _, _ in tokens[a : b + 1]]
    marks = journal_marks(words)
    for k in range(1, len(words)):
        if marks[k] not in ("jB", "j1") or not all(m == "jI" for m in marks[k + 1 :]):
            continue
        prev = words[k - 1]
        # the word before the name is prose ("cold", "infection"): the name is no word of a
        # title in Title Case, and the title keeps two words at least
        if k >= 2 and prev[:1].islower() and prev.isalpha() and len(prev) > 3:
            out = list(labels)
            out[a + k : b + 1] = ["container"] * (b + 1 - a - k)
            return out
        break
    return labels


def year_after_url(text: str, tokens, labels: list[str]) -> list[str]:
    """An entry the model gave no date, whose last year-shaped word (after a space) it put in
    a URL, a note or nowhere, was dated by that year: "..., https://www. anthropic.com/x,
    2026." (the text layer broke the URL with a space and the labels ran on), "arXiv preprint
    arXiv:2602.17753, 2026." (the year read as part of the note)."""
    if "date" in labels:
        return labels
    n = len(tokens)
    for i in range(n - 1, 0, -1):
        # after a space, a comma or a bracket ("Bristol ,2002 )"); glued to a word it is part of it
        if not _YEAR_TOKEN.match(tokens[i][0]) or (tokens[i][1] == tokens[i - 1][2] and tokens[i - 1][0] not in ",;(["):
            continue
        lab = labels[i]
        # a year that ends the names ("Bender C M 2005 Contemp. Phys."): the year of a
        # "Names Year Title" style the model ran the names on through
        ends_names = lab == "author" and i >= 2 and (i + 1 == n or labels[i + 1] != "author")
        if lab not in ("url", "note", "O", "publisher", "location") and not ends_names:
            return labels
        out = list(labels)
        out[i] = "date"
        if tokens[i - 1][0] == "," and labels[i - 1] in ("url", "note", "publisher", "location"):
            out[i - 1] = "O"
        return out
    return labels


def names_run_on(tokens, labels: list[str]) -> list[str]:
    """A "title" that follows an initial with nothing between, holds no prose (no lower-case
    word but "and") and ends at a comma before the venue is the rest of a name the text layer
    broke ("V. A. Kosteleck`Kosteleck`y and S. Samuel, Phys. Rev. D 39")."""
    if "title" not in labels or "container" not in labels:
        return labels
    i = labels.index("title")
    j = _run_end(labels, i)
    if (i == 0 or labels[i - 1] != "author" or not _DOTTED_INITIALS.fullmatch(tokens[i - 1][0])
            or j + 2 >= len(labels) or tokens[j + 1][0] != "," or labels[j + 2] != "container" or j - i > 8):
        return labels
    if any(t[:1].islower() and t not in ("and", "y", "de", "van", "von") for t, _, _ in tokens[i : j + 1]):
        return labels
    out = list(labels)
    out[i : j + 1] = ["author"] * (j + 1 - i)
    return out


def etal_is_no_title(tokens, labels: list[str]) -> list[str]:
    """A title does not begin with "et al.": the model ran the names into it ("Abbott, B.P.
    [LIGO Scientific and Virgo Collaborations], et al.: Observation of ...")."""
    if "title" not in labels:
        return labels
    i = h = labels.index("title")
    while i < len(labels) and labels[i] == "title" and tokens[i][0] in ",;:":
        i += 1
    if i + 2 >= len(labels) or tokens[i][0].lower() != "et" or tokens[i + 1][0].lower() not in ("al.", "al"):
        return labels
    out = list(labels)
    out[h:i] = ["O"] * (i - h)
    out[i] = out[i + 1] = "author"
    if tokens[i + 2][0] in ":,.":
        out[i + 2] = "O"
    return out


def venue_in_numbers(tokens, labels: list[str]) -> list[str]:
    """No venue, and the words that begin a run of pages or volume are abbreviated names
    ("Kip D 2010 Nat. Phys. 6192195"): no page number is a word, so they are the venue."""
    if "container" in labels:
        return labels
    n = len(labels)
    for i in range(n):
        if labels[i] not in ("pages", "volume") or (i and labels[i - 1] == labels[i]):
            continue
        j = i
        while (j < n and labels[j] == labels[i] and tokens[j][0][:1].isupper() and tokens[j][0].endswith(".")
               and any(c.islower() for c in tokens[j][0]) and lexkey(tokens[j][0]) not in MARKERS):
            j += 1
        if j > i and j < n and labels[j] == labels[i]:  # the numbers stay
            out = list(labels)
            out[i:j] = ["container"] * (j - i)
            return out
    return labels


def venue_before_volume(tokens, labels: list[str]) -> list[str]:
    """No venue, and right before the volume (past a comma and a date) a word or three,
    capitalised, that the model gave to the publisher or to nothing: the venue, as astronomy
    and physics print it ("Barnard, J. J., et al. 2007, NIMPA, 577, 275", "HEP & NP, 2007,
    31(5)"). Publishers' words and markers ("Springer", "Vol.") are no venue."""
    if "container" in labels or "volume" not in labels:
        return labels
    k = labels.index("volume") - 1
    while k >= 0 and ((labels[k] == "O" and tokens[k][0] in ",;:") or labels[k] == "date"):
        k -= 1
    end = k
    while k >= 0 and labels[k] in ("publisher", "O") and (tokens[k][0][:1].isupper() or tokens[k][0] == "&"):
        k -= 1
    start = k + 1
    if start > end or end - start > 2 or (k >= 0 and labels[k] not in ("O", "date", "author")):
        return labels
    words = [tokens[j][0] for j in range(start, end + 1)]
    if any(lexkey(w) in PUBLISHER or lexkey(w) in MARKERS for w in words) or not any(len(w) > 1 for w in words):
        return labels
    out = list(labels)
    out[start : end + 1] = ["container"] * (end + 1 - start)
    return out


def title_in_venue(tokens, labels: list[str]) -> list[str]:
    """No title, and a venue run whose last part, after a comma, is a venue by itself
    (abbreviations or a known name) while the part before it is prose: that part is the
    title ("L.D. Faddeev, ..., Quantum inverse problem. I, Theor. Math. Phys. 40")."""
    if "title" in labels or "container" not in labels:
        return labels
    a = labels.index("container")
    b = _run_end(labels, a)
    words = [t for t, _, _ in tokens]
    c = next((i for i in range(b - 1, a, -1) if words[i] == ","), None)
    if c is None:
        return labels
    head, tail = words[a:c], words[c + 1 : b + 1]
    if sum(1 for w in head if w[:1].islower() and len(w) > 2) < 2:
        return labels
    alpha = [k for k, w in enumerate(tail) if w[:1].isalpha()]
    dots = sum(1 for k in alpha if tail[k].endswith(".") or (k + 1 < len(tail) and tail[k + 1] == "."))
    if not alpha or not (is_venue_name(" ".join(tail)) or (all(tail[k][:1].isupper() for k in alpha)
                                                           and 2 * dots >= len(alpha) >= 2)):
        return labels
    return _relabelled(labels, a, c, "title")


# "Author name disambiguation. Annual review of ...", "... Dose Fractioning Automation. Biomedicines":
# with no title, the labeller often takes the title and what follows its stop for one container,
# in styles none of its training sets print. On since round 29 (docs/outputs.md: 3 unseen and 3
# corpus titles found, none lost; AnyStyle gold +10 titles); use_title_before_stop(False) for
# the fields before it.
TITLE_BEFORE_STOP = True


def use_title_before_stop(on: bool) -> None:
    """Take a title from before a sentence stop inside a title-less container run
    (``title_before_stop``) in this process, or not."""
    global TITLE_BEFORE_STOP
    TITLE_BEFORE_STOP = on


def title_before_stop(tokens, labels: list[str]) -> list[str]:
    """No title, and a container run that crosses a full stop after a whole word into a
    capitalised word: the words before that stop are the title, the rest the venue
    (title_runs_into_container's case with no title before the run; title_in_venue's at a stop).
    Only the run's first stop, after two words or more and no abbreviation ("Ann. Rev. ...",
    "IEEE Trans. Pattern Anal. ...": the tokens keep an abbreviation's stop), and not where those
    words name a venue themselves."""
    if "title" in labels or "container" not in labels:
        return labels
    a = labels.index("container")
    b = a  # the run's last container token, over tokens labelled "O" (a field's run in _runs)
    for i in range(a + 1, len(labels)):
        if labels[i] == "container":
            b = i
        elif labels[i] != "O":
            break
    cut = next((i for i in range(a + 1, b) if tokens[i][0] == "."), None)
    if cut is None or not tokens[cut + 1][0][:1].isupper():
        return labels
    words = [t for t, _, _ in tokens[a:cut] if t[:1].isalnum()]
    last = tokens[cut - 1][0]
    if (len(words) < 2 or len(last) < 4 or not last.isalpha() or lexkey(last) in JOURNAL
            or lexkey(last) in ABBREVIATIONS):
        return labels
    head = " ".join(words)
    if (_ABBR_ANY.search(" ".join(t for t, _, _ in tokens[a:cut])) or _JOURNAL_WORD.search(head + ".")
            or _PROCEEDINGS.search(head.lower()) or known_journal(head) or is_venue_name(head)):
        return labels
    return _relabelled(labels, a, cut, "title")


def journal_ends_venue(tokens, labels: list[str]) -> list[str]:
    """No title, and a venue run of prose that ends in the name of a known journal with no
    punctuation between ("Gaberdiel M R and Kausch H G 1996 Indecomposable fusion products
    Nucl. Phys. B 477 293-318"): the prose before the name is the title (journal_ends_title's
    case, labelled the other way)."""
    if "title" in labels or "container" not in labels:
        return labels
    a = labels.index("container")
    b = _run_end(labels, a)
    # (a comma, colon or full stop after a word that is no abbreviation: two parts, title_in_venue's)
    if b - a < 3 or any(tokens[x][0] in (",", ".", ":", ";") and not tokens[x - 1][0][:1].isupper()
                        for x in range(a + 1, b + 1)):
        return labels
    words = [t for t, _, _ in tokens[a : b + 1]]
    if not any(_prose_word(w) for w in words[1:-1]):  # (the gazetteer match only where it can matter)
        return labels
    marks = journal_marks(words)
    for k in range(2, len(words)):
        if marks[k] not in ("jB", "j1") or not all(m == "jI" for m in marks[k + 1 :]):
            continue
        if _prose_word(words[k - 1]):  # prose before the name
            out = list(labels)
            out[a : a + k] = ["title"] * k
            return out
        break
    return labels


def _prose_word(w: str) -> bool:
    return w[:1].islower() and w.isalpha() and len(w) > 3


def volume_before_pages(tokens, labels: list[str]) -> list[str]:
    """No volume and two page numbers, the first a bare number right after the venue: that one
    is the volume ("Nuovo Cimento B, 20 (1974) 105")."""
    if "volume" in labels or "container" not in labels or labels.count("pages") < 2:
        return labels
    n = len(labels)
    runs = [i for i in range(n) if labels[i] == "pages" and (i == 0 or labels[i - 1] != "pages")]
    i = runs[0]
    if len(runs) < 2 or not tokens[i][0].isdigit() or (i + 1 < n and labels[i + 1] == "pages"):
        return labels
    k = i - 1
    while k >= 0 and labels[k] == "O" and tokens[k][0] in ",:":
        k -= 1
    if k < 0 or labels[k] != "container":
        return labels
    out = list(labels)
    out[i] = "volume"
    return out


def year_ends_title(tokens, labels: list[str]) -> list[str]:
    """No date, and a year inside the title after two words or more, a capitalised word after
    it: the style prints "Names Title Year Venue" with no punctuation ("Wu, Y., Takatsuka, M.
    Spherical self-organizing map ... structure 2006 Neural Networks 900--910"), so the year
    ends the title and the words after it begin the venue."""
    if "date" in labels or "title" not in labels:
        return labels
    i = labels.index("title")
    j = _run_end(labels, i)
    k = next((k for k in range(i + 2, j) if _YEAR_TOKEN.match(tokens[k][0]) and tokens[k + 1][0][:1].isupper()), None)
    # (not where more follows the year than precedes it: "Banks T 2003 A Critique of pure string
    # theory ...", "Fukuda & Yata 1991 A new species of ...": names, the year, then the title)
    if k is None or j - k > k - i:
        return labels
    out = list(labels)
    out[k] = "date"
    out[k + 1 : j + 1] = ["O" if "container" in labels else "container"] * (j - k)
    return out


# an edition's own words ("3rd ed.", "2. Auflage", "3. ausgabe ed.", "2e éd.", "2nd edn")
_EDITION_WORD = re.compile(r"(?i)^(?:ed|eds|edn|edition|éd|édition|auflage|aufl|ausgabe|edición|edizione)\.?$")


def edition_head_title(tokens, labels: list[str]) -> list[str]:
    """No title, and an edition run that opens with words and a full stop before the edition
    itself (a one-word book title the model reads with its edition: "Nahbereichsphotogrammetrie.
    3. ausgabe ed."): the words before that stop are the title. Only where no digit and no
    edition word stands before the stop and one of them follows it."""
    if "title" in labels or "edition" not in labels:
        return labels
    a = labels.index("edition")
    b = _run_end(labels, a)
    cut = next((i for i in range(a + 1, b) if tokens[i][0] == "."), None)
    if cut is None:
        return labels
    head, rest = [t for t, _, _ in tokens[a:cut]], [t for t, _, _ in tokens[cut + 1:b + 1]]
    if not head[0][:1].isupper() or any(not t.isalpha() or _EDITION_WORD.match(t) for t in head) \
            or sum(len(t) for t in head) < 4 or not any(_EDITION_WORD.match(t) for t in rest) \
            or not any(t[:1].isdigit() for t in rest):
        return labels
    return _relabelled(labels, a, cut, "title")


def one_year(tokens, labels: list[str]) -> list[str]:
    """Two dates, one of them a bare number after the venue or its volume and the other in
    brackets: the bracketed one is the year, the bare number the volume or the first page
    ("JCAP 1509, 008 (2015)", "Phys. Rev. Lett. 69, 1608 (1992)": volumes and pages that look
    like years)."""
    if labels.count("date") < 2:
        return labels
    n = len(tokens)
    bracketed = [i for i in range(1, n - 1) if labels[i] == "date" and _YEAR_TOKEN.match(tokens[i][0])
                 and tokens[i - 1][0] in "([" and tokens[i + 1][0] in ")]"]
    if not bracketed:
        return labels
    out = labels
    years = {tokens[i][0] for i in bracketed}
    for i in range(1, n):
        # (not the bracketed year again: "... Applications 2014 ( 2014 )" names the meeting)
        if (i in bracketed or labels[i] != "date" or not tokens[i][0].isdigit() or tokens[i][0] in years
                or labels[i - 1] == "date" or (i + 1 < n and labels[i + 1] == "date")):
            continue  # only a date of one bare number
        k = i - 1
        while k >= 0 and labels[k] == "O" and tokens[k][0] in ",:":
            k -= 1
        if k < 0 or labels[k] not in ("container", "volume"):
            continue
        new = "volume" if labels[k] == "container" and "volume" not in labels else \
              "pages" if labels[k] == "volume" and "pages" not in labels else None
        if new:
            out = list(out) if out is labels else out
            out[i] = new
    return out


def _spaced_dot(tokens, k: int) -> bool:
    """Token k is a full stop with a space before it and none after: "Rom .Rep"."""
    return (tokens[k][0] == "." and k >= 1 and k + 1 < len(tokens) and tokens[k][1] > tokens[k - 1][2]
            and tokens[k][2] == tokens[k + 1][1])


def venue_head(tokens, labels: list[str]) -> list[str]:
    """A venue's name is one field. Where the words right before a container run are venue
    abbreviations ("Rom .", "Contemp.", "Proc .": capitalised, a full stop after them, words
    the training labels print in venue names nearly always) and the model gave them to the
    title, the authors or nothing, they are the venue's first words ("... a new approach Rom
    .Rep .Phys .65" -> "Rom .Rep .Phys", "Bender C M 2005 Contemp. Phys. 46")."""
    if "container" not in labels:
        return labels
    abbrev = gazetteers().venue_abbrev
    if not abbrev:
        return labels
    out = labels
    # the first token of each container run (the labels changed below all lie before it)
    for i in [i for i, (lab, before) in enumerate(zip(labels, [None, *labels], strict=False))
              if lab == "container" and before != "container"]:
        k = i - 1  # walk back over "Word ." pairs
        start = i
        while k >= 0:
            t = tokens[k][0]
            if t == "." and k >= 1 and out[k] in ("O", "title", "author", "container"):
                k -= 1
                continue
            if (t[:1].isupper() and len(t.rstrip(".")) >= 3 and out[k] in ("O", "title", "author")
                    and lexkey(t) in abbrev and (t.endswith(".") or tokens[k + 1][0] == ".")):
                start = k
                k -= 1
                continue
            if (t[:1].isupper() and t.isalpha() and len(t) <= 4 and (len(t) == 1 or t[1:].islower())
                    and out[k] in ("O", "title") and _spaced_dot(tokens, k + 1)):
                # "isotopesBraz .J .Phys", "R .Soc .Lond": a short capitalised word with its full
                # stop printed after a space and glued to the next word, as one text layer
                # prints abbreviations (and sentence ends: "Diracsemimetals .Phys .Rev", so
                # only short words), here the venue's first words
                start = k
                k -= 1
                continue
            break
        if start < i:
            if out is labels:
                out = list(labels)
            for j in range(start, i):
                out[j] = "container"
    return out


def is_venue_name(name: str) -> bool:
    """Whether ``name`` is, word for word, a venue name of the training labels or a known
    journal of the gazetteer ("Nuovo Cimento B", "Phys. Rev. D")."""
    words = [lexkey(t) for t, _, _ in tokenize(name) if t[:1].isalnum()]
    if not words:
        return False
    key = " ".join(words)
    g = gazetteers()
    return key in g.venue_name or (len(words) >= 2 and key in g.journal)


def _year_in_range(text: str, m: re.Match) -> bool:
    # "1581-1591": a year-shaped number with a dash and a digit on either side
    a, b = m.start(1), m.end()
    return (text[b : b + 1] in ("-", "–") and text[b + 1 : b + 2].isdigit()) or (
        a >= 2 and text[a - 1] in ("-", "–") and text[a - 2].isdigit())


def _year_in_issue(text: str, m: re.Match) -> bool:
    # "277(1701):3809": a year-shaped number in brackets right after a volume's digits, pages or a comma after it;
    # "277:1701, 2010": a number right after a volume and its colon (an article number or first page)
    a, b = m.start(1), m.end()
    return (a >= 2 and text[a - 1] == "(" and text[a - 2].isdigit() and text[b : b + 1] == ")"
            and text[b + 1 : b + 2] in (":", ",", "", " ")) or (
        a >= 2 and text[a - 1] == ":" and text[a - 2].isdigit() and text[b : b + 1] in (",", ";"))


def _year_alone(text: str, m: re.Match) -> bool:
    # a year between spaces or punctuation, no part of a range, an issue, a DOI or a URL ("rspb.2010.1186")
    a, b = m.start(1), m.end()
    before, after = text[a - 1 : a] if a else "", text[b : b + 2]
    return (before in ("", " ", ",", "(", ";") and (after[:1] in ("", " ", ",", ")", ";") or after in (".", ". "))
            and not _year_in_range(text, m) and not _year_in_issue(text, m))


def known_journal(name: str) -> bool:
    """Whether ``name`` begins with the name of a journal or proceedings in the gazetteer."""
    marks = journal_marks([t for t, _, _ in tokenize(name)])
    return bool(marks) and marks[0] in ("jB", "j1")


# where a title runs on past a comma into what the work was (a talk, a lecture) or where it
# was printed ("in Proceedings of ...", "in: R.K. Gupta (Ed.), ..."): the comma ends the title
_TITLE_TAIL = re.compile(
    r",\s*(?:(?:in|In|IN)\s*:?\s*(?=[A-Z0-9])"
    r"|(?:(?:plenary|invited|contributed|keynote)\s+)?(?:talk|presentation|lecture|seminar|poster)"
    r"\s+(?:at|given|presented|delivered)\b|presented\s+at\b)")


# round 27 (issue 22's title work): see the comment on the book rule in assemble (off: the
# rule as before it, for a peer measured in the same process)
BOOKS_WITH_VOLUMES = True


def title_tail(title: str) -> tuple[str, str | None]:
    """``title`` cut where it runs on past a comma into "talk at this conference", "plenary
    talk given at ...", "in Nuclear, subnuclear and astroparticle physics ..." (a title of two
    words or more before it); and what follows the comma (the entry's note), or None."""
    m = _TITLE_TAIL.search(title) if "," in title else None
    if not m or len(title[: m.start()].split()) < 2:
        return title, None
    return title[: m.start()].rstrip(), title[m.start() + 1 :].strip() or None


# APA's software and data entries: "mylib (Version 1.0.0) [Computer software]" -- the version and the kind of work
# follow the title in brackets, no part of it
_VERSION_END = re.compile(r"\s*\((?:Version|Ver\.|v\.?)\s*(\d[\w.\-]*)\)\s*(?:\[[A-Z][a-z]+(?: [a-z]+)?\])?\.?$")
_KIND_END = re.compile(r"\s*\[(?:Computer software|Software|Computer program|Data set|Dataset|Source code)\]\.?$")
# a last sentence that names an institution: "Curved domain ... with hexahedra. Hochschule Bonn-Rhein-Sieg" (a report
# printed "Title. Publisher. URL"): words that name a publisher or a university and little else (not PUBLISHER's
# "co", "society", "school" or "oxford", words of subtitles too: "States of Knowledge. The Co-production of ...")
_INSTITUTION = frozenset(
    "press university univ universität universitat università universidad universidade université universiteit "
    "uniwersytet hochschule institute institut laboratory laboratories polytechnic politecnico technische college "
    "inc inc. ltd ltd. llc gmbh corp corp. publishers publishing verlag springer wiley elsevier prentice mcgraw-hill "
    "routledge kluwer birkhäuser addison-wesley crc foundation".split())
_LAST_SENTENCE = re.compile(r"(?<=[a-z\d)])\.\s+((?:[A-Z][\w'’\-]*\.?|of|for|de|der|für|and|&)(?:\s+(?:[A-Z][\w'’\-]*\.?"
                            r"|of|for|de|der|für|and|&)){0,6})$")


def title_publisher(title: str) -> tuple[str, str | None, str | None]:
    """``title`` without a version, a kind of work or an institution printed after it (APA's software, data and
    report entries), and the edition and publisher they were, or None."""
    edition = publisher = None
    m = _VERSION_END.search(title)
    if m and m.start() > 0:
        title, edition = title[: m.start()].rstrip(" ,.;:"), f"Version {m.group(1)}"
    else:
        k = _KIND_END.search(title)
        if k and k.start() > 0:
            title = title[: k.start()].rstrip(" ,.;:")
    m = _LAST_SENTENCE.search(title) if ". " in title else None
    if (m and len(title[: m.start()].split()) >= 2
            and any(w.lower().strip(".") in _INSTITUTION for w in re.split(r"[\s\-]+", m.group(1)))):
        title, publisher = title[: m.start()], m.group(1)
    return title, edition, publisher


_CLOSE_AFTER = re.compile(r"[\s.]*[)\]]")


def open_bracket(value: str, after: str) -> str:
    """A field does not end inside a bracket it opened. Where the closing bracket follows the
    field's labels past spaces or a full stop ("(of physics at the terascale" + " )", "(Hym" +
    ".)"), the field takes it; where more comes first, the bracket held something else, a
    publisher or a series ("La Propagation des Ondes (Gauthier-Villars" + ", Paris, 1965)",
    "Stochastic Processes in Physics and Chemistry (Lect" + ". Notes Math., Vol. 888)"), and
    the field ends before it, where two words or more come before it. ``after``: the text
    that follows the field."""
    if "(" not in value and "[" not in value:  # (most fields: no character-by-character walk)
        return value
    opens: list[int] = []
    for i, ch in enumerate(value):
        if ch in "([":
            opens.append(i)
        elif ch in ")]" and opens:
            opens.pop()
    if not opens:
        return value
    while opens:
        m = _CLOSE_AFTER.match(after)
        if not m:
            break
        value += after[: m.end()]
        after = after[m.end() :]
        opens.pop()
    if not opens:
        return value
    head = value[: opens[0]].rstrip(" ,;:")
    return head if len(head.split()) >= 2 else value


def _after(text: str, span: tuple[int, int], value: str) -> str:
    """The text after a field's ``value``, where the value is its labels' slice of the text
    and what was appended to it ("" where it was cut)."""
    s, e = span
    return text[s + len(value) :] if value.startswith(text[s:e]) else ""


def whole_journal(name: str) -> bool:
    """Whether ``name`` is one known journal or proceedings name, word for word (one word too:
    "Vacuum", where is_venue_name needs two)."""
    toks = [t for t, _, _ in tokenize(name)]
    marks = journal_marks(toks)
    if not marks or marks[0] not in ("jB", "j1"):
        return False
    words = [m for t, m in zip(toks, marks, strict=True) if t[:1].isalnum()]
    return all(m == "jI" for m in words[1:]) if marks[0] == "jB" else len(words) == 1


def assemble(text: str, tokens, labels: list[str]) -> dict:
    """The fields of one reference from its labelled tokens."""
    # one search of the string, not of each token twice; and only where the words are in its
    # lower case (the search's \b and case folding make it twice as slow as lower() and two
    # substring tests); "ſ", "ı" and "İ" match "s" and "i" in the search, not in lower()
    low = text.lower()
    collab = ("collaboration" in low or "consortium" in low or (not text.isascii() and (
        "ſ" in text or "ı" in text or "İ" in text))) and _COLLAB_TEXT.search(text) is not None
    if collab:
        labels = collaboration_title(tokens, labels)
    if NAMES_HEAD_TITLE:
        labels = names_head_title(tokens, labels)
    labels = title_after_names(tokens, year_after_url(text, tokens, venue_head(tokens, labels)))
    if collab:
        labels = collaboration_is_author(tokens, labels)
    labels = one_year(tokens, year_ends_title(tokens, prose_ends_names(tokens, authors_end_at_initials(tokens, labels))))
    labels = title_in_venue(tokens, venue_before_volume(tokens, volume_before_pages(tokens, venue_in_numbers(tokens, labels))))
    labels = names_run_on(tokens, etal_is_no_title(tokens, labels))
    labels = title_runs_into_container(tokens, one_sentence_title(text, tokens, labels))
    labels = edition_head_title(tokens, journal_ends_venue(tokens, journal_ends_title(tokens, labels)))
    if TITLE_BEFORE_STOP:
        labels = title_before_stop(tokens, labels)
    runs = _runs(tokens, labels)
    first: dict[str, tuple[int, int]] = {}
    for lab, s, e in runs:
        first.setdefault(lab, (s, e))

    def get(lab: str, pick=first) -> str | None:
        span = pick.get(lab)
        return text[span[0] : span[1]] if span else None

    out: dict = {}
    author_text = " , ".join(text[s:e] for lab, s, e in runs if lab == "author")
    people, etal = split_people(author_text) if author_text else ([], False)
    people = [p for p in people if is_name(p)]  # text-layer debris ("S.Boissì ere") is no person
    out["people"] = people
    out["et_al"] = etal
    out["authors"] = [display_name(p) for p in people] + (["et al."] if etal and people else [])
    # "Chip Huyen. Agents.": a full stop after a word that is no initial or abbreviation ends
    # the names; a model that labels on through it has probably taken the title for a name
    out["authors_run_on"] = bool(_SENTENCE_END.search(author_text)) and not re.search(
        r"\b(?:al|Jr|Sr|Inc|Ltd|Co|Corp)\.\s", author_text)
    editor_text = get("editor")
    out["editors"] = split_people(editor_text)[0] if editor_text else []
    t = get("title", first)
    if t and text[: first["title"][0]].rstrip()[-1:] in ("\"", "“", "„", "«"):
        # a title opened by a quote ends at the closing one, whatever the labels ran on to
        t = _CLOSING_QUOTE.split(t, maxsplit=1)[0]
    if t and text[first["title"][1] : first["title"][1] + 1] in ("?", "!"):
        t += text[first["title"][1]]  # "Why do multi-agent llm systems fail?" keeps its question mark
    if t:
        # the closing bracket of "... Rontgenstrahlen (in German)" is punctuation at the end of
        # the field, labelled outside it in training: the title takes it back (open_bracket)
        t = open_bracket(t, _after(text, first["title"], t))
    out["title"] = _title(t) if t else None
    tail = edition = publisher = None
    if out["title"]:
        out["title"], tail = title_tail(out["title"])
        out["title"], edition, publisher = title_publisher(out["title"])
    c = get("container")
    if c and first["container"][1] < len(text) and text[first["container"][1]] == "." and _ABBR_SPACE.search(c):
        c += "."  # "Trans. Netw" + "." -- the last abbreviation of an abbreviated journal name
    if c:
        c = open_bracket(c, _after(text, first["container"], c))
    out["container"] = _container(c) if c else None
    trailing = _TRAILING_NUMBER.search(out["container"] or "")
    if (trailing and not _YEAR_TOKEN.fullmatch(trailing.group(1)) and trailing.start() >= 3
            and out["container"].count("(") == out["container"].count(")")
            and not _NUMBERED.search(out["container"][: trailing.start()])):
        # "Lisp and Symbolic Computation 8", "bioRxiv 312470": a number that ends the venue's
        # labels is its volume (or an article number), not part of its name
        out["container"] = out["container"][: trailing.start()].rstrip(" ,")
        volume_from_container = trailing.group(1)
    else:
        volume_from_container = None
    col = get("collection")
    out["collection"] = _clean(col) if col else None
    vol = get("volume")
    # a volume printed with its word ("Vol. 1", "vol .5", "Bd. 2"), as books print theirs; a
    # journal's is most often a bare number ("Physics of the Dark Universe, 15, 53")
    volume_word = bool(vol) and (_VOLUME_WORD.match(vol) is not None
                                 or _VOLUME_BEFORE.search(text, 0, first["volume"][0]) is not None)
    volume, issue = _volume_issue(vol) if vol else (None, None)
    iss = get("issue")
    out["volume"] = volume or volume_from_container
    out["issue"] = _number(iss) if iss else issue
    p = get("pages")
    out["pages"] = _pages(p) if p else None
    # the first year of the date fields, passing over one inside a range of numbers where a
    # later one stands alone ("288 (14-15):1581-1591,2015": the labels ran over the pages)
    years = [(m, text, s) for lab, s, e in runs if lab == "date" for m in _YEAR.finditer(text, s, e)]
    pick = next((m for m, t, s in years if not _year_in_range(t, m)), years[0][0] if years else None)
    if pick is not None and _year_in_issue(text, pick):
        # "Proc. R. Soc. B, 277(1701):3809–3817, 2010": the labels took the issue for the date; a year standing
        # alone elsewhere in the entry is its year
        alone = [m for m in _YEAR.finditer(text) if m.start() != pick.start() and _year_alone(text, m)]
        if alone:
            pick = alone[-1]
    out["year"] = pick.group(1) + (pick.group(2) or "") if pick else None
    d = get("date")
    out["date"] = _clean(d).strip("()[]") if d else None
    for lab in ("publisher", "location", "edition", "note"):
        v = get(lab)
        out[lab] = _clean(v).strip("()[]").strip(" ,;:") or None if v else None
    if tail and out["note"] is None:
        out["note"] = tail
    if edition and out["edition"] is None:
        out["edition"] = edition
    if publisher and out["publisher"] is None:
        out["publisher"] = publisher
    out.update(identifiers(text))
    # A field with no letters or digits left ("(", "-") is no field
    for k in ("title", "container", "collection", "publisher", "location", "edition", "note"):
        if out[k] is not None and not _ALNUM.search(out[k]):
            out[k] = None
    # Every work has a title. No title but a "container" of several plain words (or any, with
    # a publisher and no pages) and nothing a journal has (no volume, no issue, no
    # abbreviations): a book, report or web page whose title the model took for the venue
    # ("Handbook of Applied Cryptography. CRC Press", "Robot Vision, MIT Press").
    # A known journal's name stays the venue ("Reviews of Modern Physics", "Nuovo Cimento B").
    # With a publisher or place and no pages (BOOKS_WITH_VOLUMES), a volume ("Introduction to
    # Plasma Physics and Controlled Fusion, Vol. 1 (Plenum Press, New York, 1983)") and a name
    # that begins as a journal's does ("Pattern Recognition and Machine Learning (Springer,
    # 2006)") are a book's too, where the name is not a journal's whole name.
    c = out["container"]
    # (the name printed first: a book's title precedes its volume, publisher and place;
    # "..., Nauka, Moscow (1965); English transl., Dover" names a translation after them)
    book = (BOOKS_WITH_VOLUMES and bool(out["publisher"] or out["location"]) and not out["pages"] and c is not None
            and all(first["container"][0] < first[k][0] for k in ("volume", "publisher", "location") if k in first))
    if (out["title"] is None and c and (not out["volume"] or (book and volume_word)) and not out["issue"]
            and (len(c.split()) >= 3 or (out["publisher"] and not out["pages"]))
            and not _ABBR_ANY.search(c) and not _PROC.match(c)
            and (not known_journal(c) or (book and not whole_journal(c)))
            and not is_venue_name(c)):
        out["title"], out["container"] = _title(c), None
    # And the other way: a "title" of capitalised abbreviations before a volume or pages, with
    # no venue, is the journal ("Thomson, W. Proc. R. Soc. London 1856, 8, 546-550"), as is a
    # venue or known journal's name, word for word ("Pahor S. and Strnad J., Nuovo Cimento B,
    # 20", "Vacuum, 91:47")
    t = out["title"]
    if t and out["container"] is None and (out["volume"] or out["pages"]):
        words = t.split()
        if ((all(w[:1].isupper() for w in words)
                and 2 * sum(1 for w in words if w.endswith(".")) >= len(words) >= 2)
                or (not out["publisher"] and (is_venue_name(t) or whole_journal(t)))):
            out["title"], out["container"] = None, _container(t)
    # A journal's name in Title Case, with no venue and a volume or pages after it, is the venue:
    # a word only journals have in their names ("Living Reviews in Relativity, 17, 4", "The
    # Journal of China Universities of Posts and Telecommunications August 2010, 17(4): 94-99",
    # "Il Nuovo Cimento 36 A (1976) 317"), no "A"/"An" before it ("A Review of ..." is a title),
    # not quoted, not a proceedings volume cited whole ("Proceedings of the 9th ...", a book)
    t = out["title"]
    if (t and out["container"] is None and (out["volume"] or out["pages"]) and not out["publisher"]
            and _JOURNAL_WORD.search(t) and not _ARTICLE_FIRST.match(t) and not _PROC.match(t)
            and all(w[:1].isupper() or not w[:1].isalpha() or w in _FUNCTION_WORDS for w in t.split())
            and text[: text.find(t)].rstrip()[-1:] not in _OPENING_QUOTES):
        out["title"], out["container"] = None, _container(t)
    # "Personal communication", "in preparation", "submitted": the status of a work, no title
    if out["title"] and STATUS.fullmatch(out["title"]):
        out["note"] = out["note"] or out["title"]
        out["title"] = None
    out["type"] = entry_type(out)
    return out


_JOURNAL_WORD = re.compile(r"(?:\b|(?<=[a-z]))(?:Journal|Jour\.|Review|Reviews|Rev\.|Letters|Lett\.|Reports|Rep\."
                           r"|Proceedings|Proc\.|Annals|Ann\.|Bulletin|Bull\.|Transactions|Trans\.|Acta|Zeitschrift"
                           r"|Physica|Nuovo Cimento)(?:\b|(?=[a-z]))")  # (glued: "Journalof Geophysical Research")
_ARTICLE_FIRST = re.compile(r"(?:A|An)\s")
_FUNCTION_WORDS = frozenset("of and in the for on de di der des la le et du von & für".split())
_OPENING_QUOTES = ("\"", "“", "„", "«", "'", "‘")


def entry_type(f: dict) -> str:
    """The kind of work, as BibTeX names it (CSL-JSON maps it further)."""
    note = (f.get("note") or "").lower()
    cont = (f.get("container") or "").lower()
    if _THESIS.search(note + " " + cont):
        return "phdthesis" if not _MASTER.search(note) else "mastersthesis"
    if _REPORT.search(note + " " + cont):
        return "techreport"
    if f.get("container"):
        if _PROCEEDINGS.search(cont) and not (f.get("volume") and f.get("issue")):  # PACMPL, PVLDB: journals
            return "inproceedings"
        if f.get("editors") or (f.get("publisher") and not f.get("volume")):
            return "incollection"
        return "article"
    if f.get("publisher"):
        return "book"
    return "misc"
