"""Citation callouts and cross-references, found in the text and linked to their targets.

Runs after the markdown and chunks stages, so every mention gets its exact ``char_span`` in
document.md and the id of the chunk that holds it. Works from the text alone (OCR text has
no PDF link annotations); see ``--ignore-pdf-links``.

Callouts recognised:
- author-year, parenthetical: "(Anthropic, 2025a)", "(Yang et al., 2024; Wang et al., 2024b)",
  "(LangChain, Inc., 2024)", "(e.g., Gauthier, 2024)", "(Smith 2020, 2021)";
- author-year, narrative: "Gauthier (2024)", "Shen and Tamkin (2026)’s", "Hu et al. (2025)";
- an author label alone for an entry printed without a year: "Kwa et al.’s";
- numeric (only when the bibliography is numbered, or when there is none): "[12]",
  "[3, 7–9]", superscripts "<sup>3,5</sup>" / "¹²";
- alphabetic labels of alpha styles, when the entries print them: "[Lee06]", "[Ert+19; CC77]".
Each author-year callout becomes one mention per cited work; a numeric bracket one mention
for all the numbers in it. Linking is exact on (label, year) where a reference's labels are
what natbib/APA print for it ("Yang et al.", "Shen and Tamkin", "LangChain, Inc."), then a
unique surname/prefix match for the same year. Anything else goes to ``doc.unresolved`` with
the reason: ambiguous (which candidates), unmatched, or no reference list at all.

Cross-references: "Section 5", "Sections 3 to 9", "§2.1", "Figure 3", "Fig. 3a", "Table 1",
"Appendix B", "Section B" (an appendix), "Equation (2)", and footnote markers "[^n]" --
linked to the section, figure, table, equation or footnote they name.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from operator import itemgetter

from ctxmill.compile.blocks import LONE_LETTER_END
from ctxmill.compile.headings import roman_value
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.references import ALPHA_KEY
from ctxmill.model import CrossRef, Document, Kind, Mention, Reference, Unresolved

# ---------------------------------------------------------------------------- patterns

_YEAR = r"(?:(?:19|20)\d\d[a-z]?|n\.d\.)"
# where in the cited work: ", Section 4.3", ", p. 159", ", pp.49-51", ", Ch.2", ", Theorem 6" (after a narrative
# callout's years or a numeric bracket's numbers)
_LOCATOR = (r"(?i:\s*,\s*(?:pp?|secs?|sections?|ch|chap|chapters?|figs?|figures?|tab|tables?|eqs?|equations?|app"
            r"|appendix|thm|theorem|lemma|prop|proposition|def|definition|cor|corollary|remark|example)\.?\s*~?\d[\w.\-–]*)")
# "2020a, b" cites 2020a and 2020b; "(2020, Section 4.3)" cites 2020
_YEARS_ONLY = re.compile(rf"^\s*({_YEAR}(?:\s*[,;]\s*(?:{_YEAR}|[a-z]\b))*){_LOCATOR}?\s*$")
_PAREN = re.compile(r"\(([^()\n]{1,400})\)")
# "(2025b, hereafter Paper I)": years, then a name the paper cites that work by from there on (astronomy's
# custom); "hereafter referred to as X" and "hereafter called X" too
_HEREAFTER = re.compile(
    rf"^\s*({_YEAR}(?:\s*[,;]\s*(?:{_YEAR}|[a-z]\b))*)\s*[,;]?\s+hereafter,?\s+(?:referred\s+to\s+as\s+|called\s+)?"
    r"[“\"‘']?(?P<alias>[A-Z][\w\-]*(?:\s+[A-Z0-9][\w\-]*){0,3})[”\"’']?\s*$")
# where a document defines one (the pre-scan that decides whether blocks without a callout mark are read)
_HEREAFTER_ANY = re.compile(rf"\(\s*{_YEAR}[^()\n]{{0,40}}\bhereafter\b")
_ITEM = re.compile(
    rf"^\s*(?:(?:e\.g\.|i\.e\.|see also|see|cf\.|also|and)\s*,?\s+)?"
    rf"(?P<auth>[^\d;()\[\]]{{1,120}}?)\s*,?\s+(?P<years>{_YEAR}(?:\s*,\s*(?:{_YEAR}|[a-z]\b))*)"
    rf"(?:\s*,\s*(?:p|pp|sec|ch|chapter)\.?\s*[\w\-–]+)?\s*$",
    re.IGNORECASE,
)
_YEAR_IN = re.compile(_YEAR)
# an item citing a span of years: "(The HDF Group, 1997-2015)", a work published over years; linked by its first
_RANGE_ITEM = re.compile(
    r"^\s*(?P<auth>[^\d;()\[\]]{1,120}?)\s*,?\s+(?P<year>(?:19|20)\d\d)\s*[–\-]\s*(?:(?:19|20)?\d\d|present)\s*$")
# a parenthesis holding one capitalised word: "(Timmermann)", the label of an entry printed without a year
_ONE_WORD = re.compile(r"^\s*([^\W\d_][\w\-']{2,40})\s*$")
# an item whose years are followed by a few lowercase words: "Ranwez et al. 2011, 2018 for earlier approaches."
_TRAILING_WORDS = re.compile(rf"^(.*{_YEAR})\s+[a-z][a-z\-]*(?:\s+[a-z][a-z\-]*){{0,5}}\s*\.?\s*$", re.DOTALL)
# up to 7 digits, as the entry labels of compile/references.py: "[10001]" cites entry [10001] of a
# list of more than 9,999 entries
# a locator may follow the numbers: "[17, Ch.2]", "[10, pp.49-51]"
# a year slot printed as "????" (JSS's style where the entry has no year), with its letter ("????a")
_UNPRINTED_YEAR = re.compile(r"(?<!\?)\?{4}([a-z]?)(?![?\w])")
_NUM_BRACKET = re.compile(
    rf"\[(\d{{1,7}}(?:\s*[–\-]\s*\d{{1,7}})?(?:\s*[,;]\s*\d{{1,7}}(?:\s*[–\-]\s*\d{{1,7}})?)*){_LOCATOR}?\](?!\()")
# alphabetic keys of alpha styles: "[Lee06]", "[Ert+19; Lee06]", "[CC77, Cou21]", "[Grä11]" (any letter), "[STA ^+10]"
# (the reader's superscript mark after a space: compared with the space dropped): the entries' own pattern, ALPHA_KEY
# after the keys a locator may follow: "[DR99, Section 5.2]", "[MvOV96, 14.2.5]", "[Cou+12, Theorem 6]"; the
# bracket is no citation when a Markdown link's target follows it ("[Lee06](x.html)": no space inside), and one
# when a parenthesis of words does ("[MAB^+12](a federation of repositories)")
_ALPHA_BRACKET = re.compile(
    rf"\[({ALPHA_KEY}(?:\s*[,;]\s*{ALPHA_KEY})*)(?:\s*,\s*(?:[A-Za-z]+\.?\s*~?)?\d[\w.\-–]*)?\](?!\([^\s()]*\))")
_SUP_TAG = re.compile(r"<sup>\s*(\d{1,4}(?:\s*[,–\-]\s*\d{1,4})*)\s*</sup>|\^(\d{1,4}(?:[,–\-]\d{1,4})*)\^")
# (after a letter or a sign, or after a year: "Thall et al, 2003⁶" in a table cell; after another number it is a power)
_SUP_UNI = re.compile(r"(?:(?<=[A-Za-z.,)\]])|(?<=(?<![\d.,])(?:19|20)\d\d))([¹²³⁰⁴⁵⁶⁷⁸⁹]+(?:[,⁻–][¹²³⁰⁴⁵⁶⁷⁸⁹]+)*)")
_SUP_MAP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
# A superscript that is an exponent, not a callout, by what stands before it: a power of ten ("7.5 × 10<sup>34</sup>";
# not a year's "2010" nor a decimal's "2.10"), or a unit symbol of two or more letters after a number or a "/"
# ("64.8 mm<sup>2</sup>", "150µm²", "50 MHz/cm<sup>2</sup>"). (A lone letter, "m" or "x", is blocks.LONE_LETTER_END;
# one-letter units are left to it: "the 1990s<sup>4</sup>" is a decade and a callout.)
_UNIT = (r"(?:(?:[YZEPTGMkdcmµμnpf](?:m|g|s|Hz|eV|Pa|W|V|A|J|N|L|mol|T|K|C|F|Ω|Wb|b|B|bit|pc|yr))"
         r"|Hz|eV|Pa|mol|Wb|Bq|Gy|Sv|lm|lx|bar|atm|Torr|Å|ft|yr|pc|sr|rad)")
_EXPONENT_BEFORE = re.compile(rf"(?:(?<![\w.,])10|(?:\d\s?|/){_UNIT})$")
# A bracket after a relation or an operation of sets is an interval or a set: "t ∈ [1, 2]", "S = [3]", "[4,5] ∪ [8,9]"
_MATH_BEFORE = re.compile(r"[∈∉=≤≥⊂⊆∪∩×]\s*$")
_FOOTNOTE_MARK = re.compile(r"\[\^([\w\-]{1,12})\](?!:)")
_MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec spring summer fall autumn winter".split()
)
_NOT_AUTHORS = frozenset(
    "section sections figure figures fig table tables appendix equation eq page pages chapter "
    "version v released since until before after in on at from to circa about around year "
    "update updated accessed".split()
)
# (the particles of _PARTICLES too, but "y" and "el", words of titles: "van den Oord et al. (2017)")
_NAME_LINKS = frozenset({"et", "al.", "al", "and", "&", "de", "del", "der", "van", "von", "da", "di", "du", "la", "le",
                         "den", "della", "dos", "das", "ter", "ten", "zu", "bin"})
_SENTENCE_STARTERS = frozenset(
    "the a an in as while see our this that these those for and but with by following unlike like "
    "recent prior earlier both following similarly however also".split()
)

_NUM = r"(?:[A-Z](?:\.\d+)*|\d+(?:\.\d+)*[a-z]?)"
# a cross-reference's number: _NUM, or a roman numeral of two letters or more (IEEE's "Table II",
# "Fig. IV"; one letter, "Table I", is _NUM's capital). _find_crossrefs keeps a roman one only
# where the document has a float printed with that number.
_XNUM = r"(?:[IVX]{2,7}(?![\w])|[A-Z](?:\.\d+)*|\d+(?:\.\d+)*[a-z]?)"
# (each keyword's first letter, then the word boundary before it as a look behind, then the
# rest, each letter's keywords in their order: the pattern then starts with a letter from a
# set, which the regex engine scans for, where a boundary first was tried at every position)
_XREF = re.compile(
    r"(?P<kw>S(?<!\w.)(?:ections?|ects?\.|ecs?\.|ubsections?)|C(?<!\w.)hapters?|F(?<!\w.)(?:igures?|igs?\.|ootnotes?)"
    r"|T(?<!\w.)(?:ables?|abs?\.)|A(?<!\w.)(?:ppendix|ppendices|pp\.|lgorithms?)|E(?<!\w.)(?:quations?|qs?\.)"
    r"|L(?<!\w.)istings?|§§?)"
    rf"\s?~?\s?(?P<list>\(?{_XNUM}\)?(?:\s*(?:,|and|or|to|through|–|—|-|&)\s*(?:and\s+)?\(?{_XNUM}\)?(?![\w]))*)"
    rf"(?![\w])"
)
# the first character of every _XREF keyword: a block holding none of them is not scanned
_XREF_MARK = re.compile("[SCFTAEL§]")
_XREF_NUM = re.compile(rf"\(?({_XNUM})\)?")
# What some pattern of a block's scan needs (a superset): "(" for author-year callouts, "[" for
# numbered ones and footnote marks, "^" "<" or a character outside ASCII for superscripts, the
# start of an _XREF keyword. A block without any of them has nothing to find.
_ANY_MARK = re.compile(r"[(\[^<§]|[^\x00-\x7f]|Sec|Sub|Chapter|Fig|Tab|App|Eq|Footnote|Algorithm|Listing")
_KIND_OF = {
    "section": "section", "sections": "section", "sect.": "section", "sects.": "section",
    "sec.": "section", "secs.": "section", "subsection": "section", "subsections": "section",
    "chapter": "section", "chapters": "section", "§": "section", "§§": "section",
    "figure": "figure", "figures": "figure", "fig.": "figure", "figs.": "figure",
    "table": "table", "tables": "table", "tab.": "table", "tabs.": "table",
    "appendix": "appendix", "appendices": "appendix", "app.": "appendix",
    "equation": "equation", "equations": "equation", "eq.": "equation", "eqs.": "equation",
    "footnote": "footnote", "footnotes": "footnote",
    "algorithm": "algorithm", "algorithms": "algorithm", "listing": "algorithm", "listings": "algorithm",
}
_SKIP_KINDS = {Kind.REFERENCE, Kind.FURNITURE, Kind.CODE}


# ---------------------------------------------------------------------------- names


_NORM_PUNCT = re.compile(r"[^\w\s&]")
_NORM_SPACE = re.compile(r"\s+")


def norm(text: str) -> str:
    """Lower-case, accents and punctuation folded: "Dell’Acqua et al." -> "dellacqua et al"."""
    t = unicodedata.normalize("NFKD", text)
    if not t.isascii():  # (no ASCII character is a combining mark)
        t = "".join(c for c in t if not unicodedata.combining(c))
    t = t.replace("’", "").replace("'", "").replace("`", "")
    # (compiled once: re.sub's cache lookup was a third of a call, 22,000 calls for a list of 16,000)
    t = _NORM_PUNCT.sub(" ", t.lower())
    t = t.replace("&", " and ").replace("_", " ")
    return _NORM_SPACE.sub(" ", t).strip()


_ASCII_WORD = re.compile(r"[A-Za-z0-9'`]*[A-Za-z0-9][A-Za-z0-9'`]*|&")


def _first_word(text: str) -> str | None:
    """``norm(text).split()[0]`` (None for no word), read up to the first space after which it
    is known: norm works character by character and keeps a space a space, so the words of
    ``a + " " + b`` are those of ``a``, then of ``b`` (an entry past MAX_PARSED_REFERENCES has
    no authors: its whole text was normalised for one word)."""
    if text.isascii():
        # (ASCII: norm's first word is the first run of letters, digits, ' and ` holding a
        # letter or digit, without its ' and `, in lower case; or "and" for an "&" before it)
        m = _ASCII_WORD.search(text)
        if m is None:
            return None
        w = m.group()
        return "and" if w == "&" else w.replace("'", "").replace("`", "").lower()
    i = 0
    while True:
        j = text.find(" ", i + 1)
        words = norm(text[i:] if j < 0 else text[i:j]).split()
        if words or j < 0:
            return words[0] if words else None
        i = j


# lowercase particles printed before a family name in an author-year callout ("van Oosterom et al.")
_INITIAL = re.compile(r"[A-Z]\.(?:-?[A-Z]\.)*")
_PARTICLES = frozenset("de del della der den van von da di du la le al bin el dos das ter ten zu y".split())


def _surnames(name: str) -> set[str]:
    """The family name of "P. van Oosterom" as a callout may print it: "Oosterom" and "van Oosterom"."""
    family, comma, given = name.partition(",")
    if comma and family.strip() and given.strip() and not _INITIAL.search(family):
        # printed family first ("Briceño, C.", "van Oosterom, P."): the family is all before the comma (its last
        # word was "C.", so two entries of one first author and year did not share the label a callout prints)
        return _surnames(family) | {" ".join(family.split())}
    words = name.replace(",", " ").split()
    if not words:
        return {name}
    k = len(words) - 1
    while k > 0 and words[k - 1] in _PARTICLES:  # (lowercase only: "De" or "Van" opens a given name too)
        k -= 1
    out = {words[-1], " ".join(words[k:])}
    # given names first, as initials: two or more capitalised words after the last initial are one family name
    # as a callout may print it ("A. G. Cobián Güemes" -> "Cobián Güemes", refparse's family being "Güemes")
    last = max((i for i, w in enumerate(words) if _INITIAL.fullmatch(w)), default=None)
    if last is not None and len(words) - last > 2 and all(w[:1].isupper() for w in words[last + 1:]):
        out.add(" ".join(words[last + 1:]))
    return out


def _family(name: str, people: list[dict[str, str]]) -> set[str]:
    """The family name refparse split off this author ("N. De Maio" -> "De Maio", "H. J. Tromp-van
    Meerveld" -> "Tromp-van Meerveld"), where it holds more than the last word ``_surnames`` takes."""
    for p in people:
        family = p.get("family")
        if family and name.endswith(family):
            return {family}
    return set()


def reference_labels(ref: Reference) -> set[str]:
    """What an author-year callout may print for this reference (normalised)."""
    if not ref.authors:  # (every entry past MAX_PARSED_REFERENCES)
        first = _first_word(ref.title or ref.raw)
        return {first} if first else set()
    authors = [a for a in ref.authors if a != "et al."]
    etal = len(ref.authors) != len(authors)
    labels: set[str] = set()
    if not authors:
        # No parsable authors (a court case, an anonymous web page): its first words stand in.
        first = _first_word(ref.title or ref.raw)
        if first:
            labels.add(first)
        return labels
    a1 = _surnames(authors[0]) | {authors[0]} | _family(authors[0], ref.people)
    if len(authors) == 1 and not etal:
        labels |= {norm(x) for x in a1}
    elif len(authors) == 2 and not etal:
        for x in a1:
            for y in _surnames(authors[1]) | {authors[1]} | _family(authors[1], ref.people):
                labels.add(norm(f"{x} and {y}"))
    else:
        labels |= {norm(f"{x} et al") for x in a1}
        if len(authors) == 3 and not etal:
            # natbib's long form names all three ("Gneiting, Balabdaoui, and Raftery"): a label as the two-name one
            a2, a3 = (_surnames(a) | _family(a, ref.people) for a in authors[1:])
            labels |= {norm(f"{x}, {y}, and {z}") for x in a1 for y in a2 for z in a3}
    labels.discard("")
    return labels


_NO_LABELS: frozenset[str] = frozenset()


class Linker:
    """Index of references by (label, year) and by number."""

    def __init__(self, refs: list[Reference], blocks_by_id: dict):
        self.refs = refs
        self.exact: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.no_year: dict[str, list[str]] = defaultdict(list)
        self.by_number: dict[str, str] = {}
        # one numbering per bibliography: a thesis restarts "[1]" in each chapter's list
        self.by_part: dict[int, dict[str, str]] = {}
        self.labels: dict[str, set[str]] = {}
        self.undated: set[str] = set()  # entries whose year the list prints as "????" (their r.year is no callout's)
        # (lookups hoisted: a list of 16,666 entries runs this loop 16,666 times)
        labels_of, by_number, by_part, no_year, undated = self.labels, self.by_number, self.by_part, self.no_year, self.undated
        get_block = blocks_by_id.get
        for r in refs:
            rid = r.id
            # An entry with neither a year nor authors has one label, a word (reference_labels):
            # no (label, year) to link and no blank to be cited alone by (label_index), so it is
            # not worked out (every entry past MAX_PARSED_REFERENCES: 64,666 in a 4 MB list)
            labels = reference_labels(r) if r.year or r.authors else _NO_LABELS
            year = r.year
            if "????" in r.raw and (unprinted := _UNPRINTED_YEAR.search(r.raw)):
                # the list prints no year ("Gneiting T, ... (????)", JSS's style for a missing year), so no callout
                # prints one: the year a parser read from the DOI is none to link by, the entry is cited by its
                # names alone, and "(????a)" is cited as "Funk et al. a"
                year = None
                undated.add(rid)
                if unprinted.group(1):
                    labels = labels | {f"{lab} {unprinted.group(1)}" for lab in labels}
            labels_of[rid] = labels
            block = get_block(r.block_id)
            if block is not None and block.number:
                number = str(block.number)
                by_number.setdefault(number, rid)
                part = block.attrs.get("bib_part", 0)
                numbers = by_part.get(part)
                if numbers is None:
                    numbers = by_part[part] = {}
                numbers[number] = rid
            if year:
                for lab in labels:
                    self.exact[(lab, year)].append(rid)
            else:
                for lab in labels:
                    no_year[lab].append(rid)
        self.numbered = len(self.by_number) >= max(1, len(refs) // 2) if refs else False
        # alpha styles label entries "[Lee06]": linked like numbers, by the printed label
        self.alpha = self.numbered and sum(not k.isdigit() for k in self.by_number) > len(self.by_number) / 2
        self.last_candidates: list[Reference] = []
        # link()'s pools and the labels cited alone, indexed at the first ask (_pools, label_index)
        self._pool_index: tuple[dict[str, list[Reference]], ...] | None = None
        self._label_index: tuple[list[tuple[str, list[str]]], dict[str, list[int]], list[int]] | None = None
        self._no_year_idx: tuple[dict[str, Reference], dict[str, list[str]]] | None = None
        self._dated: frozenset[str] | None = None  # the labels of entries with a year (one_word)

    def _pools(self) -> tuple[dict[str, list[Reference]], dict[str, list[Reference]], dict[str, list[Reference]]]:
        """The entries with a year (in the list's order) by each of their labels, by
        each label's first word, and by each label's first three characters (the candidates of
        link()'s three pools). Made at the first ask."""
        pools = self._pool_index
        if pools is None:
            by_label: dict[str, list[Reference]] = defaultdict(list)
            by_first: dict[str, list[Reference]] = defaultdict(list)
            by_head: dict[str, list[Reference]] = defaultdict(list)
            for r in self.refs:
                if not r.year or r.id in self.undated:
                    continue
                labels = self.labels[r.id]
                for lab in labels:
                    by_label[lab].append(r)
                for w in {lab.split()[0] for lab in labels if lab.split()}:
                    by_first[w].append(r)
                for h in {lab[:3] for lab in labels}:
                    by_head[h].append(r)
            pools = self._pool_index = (dict(by_label), dict(by_first), dict(by_head))
        return pools

    def label_index(self) -> tuple[list[tuple[str, list[str]]], dict[str, list[int]], list[int]]:
        """The labels cited alone (one entry each, a blank in the label: ``no_year``'s, in its
        order), the positions of those whose first word is a word (``\\w+``) by that word, and
        the positions of the others. Made at the first ask (after the index is built)."""
        index = self._label_index
        if index is None:
            # (not a label an entry with a year has too: "(Funk et al. a)" names one of two, which the text
            # cannot tell when the other's year was lost)
            dated = {label for label, _ in self.exact}
            eligible = [(label, ids) for label, ids in self.no_year.items()
                        if len(ids) == 1 and " " in label and label not in dated]
            by_first: dict[str, list[int]] = defaultdict(list)
            others: list[int] = []
            for k, (label, _) in enumerate(eligible):
                words = label.split()
                if words and _WORD_RUN.fullmatch(words[0]):
                    by_first[words[0]].append(k)
                else:
                    others.append(k)
            index = self._label_index = (eligible, dict(by_first), others)
        return index

    def link(self, auth: str, year: str) -> tuple[list[str], str | None]:
        """Reference ids for (author text, year), or ([], reason)."""
        if not self.refs:
            return [], "no reference list found"
        a = norm(auth)
        a = re.sub(r"^(?:e g|i e|see also|see|cf|also)\s+", "", a)
        hits = self.exact.get((a, year))
        if hits and len(hits) == 1:
            return hits, None
        if hits:
            hit = set(hits)  # (a list's `in` for every entry: entries x hits a callout)
            self.last_candidates = [r for r in self.refs if r.id in hit]
            return [], f"ambiguous: {', '.join(hits)} match {auth!r} {year}"
        y4 = year[:4]
        suffix = year[-1:].isalpha()

        def of_year(refs: list[Reference]) -> list[Reference]:
            # (the entries of y4, in their order, and of the whole year where it has a letter)
            return [r for r in refs if r.year and r.year[:4] == y4 and (not suffix or r.year == year)]

        words = a.split()
        first = words[0] if words else ""
        # A year without its suffix letter can still be unique; so can a surname match. (Each
        # pool read from an index of the entries by label, by a label's first word and by its
        # first three letters: a scan of the year's entries for every callout was callouts x
        # entries, 1,000 "(Jones, 2020)" beside 1,000 entries of 2020 by others)
        by_label, by_first, by_head = self._pools()
        pool = of_year(by_label.get(a, ()))
        if not pool and first:
            pool = of_year(by_first.get(first, ()))
        if not pool and first and len(first) >= 3:
            pool = [r for r in of_year(by_head.get(first[:3], ()))
                    if any(lab.startswith(first) for lab in self.labels[r.id])]
        if len(pool) == 1:
            return [pool[0].id], None
        if len(pool) > 1:
            self.last_candidates = pool
            return [], f"ambiguous: {', '.join(r.id for r in pool)} match {auth!r} {year}"
        # An entry whose year the parser did not find ("..., 2023. arXiv:2305.13245.") is still the one its
        # author text and the year in its own text name, when it alone is
        ids = self.no_year.get(a) or (self._no_year_index()[1].get(first, []) if first else [])
        if ids:
            said = re.compile(rf"(?<![\w/.:]){re.escape(year)}(?!\w)")
            by_id = self._no_year_index()[0]
            # (not an entry whose list prints "????": the year its text holds is a DOI's or a page's)
            named = list(dict.fromkeys(i for i in ids if i not in self.undated and said.search(by_id[i].raw)))
            if len(named) == 1:
                return named, None
        return [], f"no reference matches {auth!r} {year}"

    def one_word(self, word: str) -> list[str]:
        """The entry a lone word names when it is the whole label of one entry printed without a year and of no
        entry with one ("(Timmermann)" where the list prints "Timmermann A (????)"), else []."""
        label = norm(word)
        ids = self.no_year.get(label)
        if not ids or len(ids) != 1 or " " in label:
            return []
        if self._dated is None:
            self._dated = frozenset(lab for lab, _ in self.exact)
        return [] if label in self._dated else list(ids)

    def _no_year_index(self) -> tuple[dict[str, Reference], dict[str, list[str]]]:
        """The entries by id, and the ids of the entries without a year by their labels' first word. Made
        at the first ask (a callout that found no entry with a year)."""
        index = self._no_year_idx
        if index is None:
            by_first: dict[str, list[str]] = defaultdict(list)
            for lab, ids in self.no_year.items():
                if lab.split():
                    by_first[lab.split()[0]].extend(ids)
            index = self._no_year_idx = ({r.id: r for r in self.refs}, dict(by_first))
        return index


# ---------------------------------------------------------------------------- finding


# "1995, Weibel 1997": a comma after a year and before a word that is no year or suffix letter ends an item
_COMMA_AFTER_YEAR = re.compile(rf"{_YEAR}\s*,(?!\s*(?:{_YEAR}|[a-z]\b))\s*")


def _items(inner: str, start: int) -> list[tuple[int, str]]:
    """A parenthesis' items with their offsets: split on ";", and an item that is none whole split after
    each year and comma ("(Müller et al. 1995, Weibel 1997)", Taylor & Francis' Interact style; "Li et al.
    2017a, 2018" stays one item)."""
    out, pos = [], start
    for item in inner.split(";"):
        if _ITEM.match(item) or not _COMMA_AFTER_YEAR.search(item):
            out.append((pos, item))
        else:
            cut = 0
            for c in _COMMA_AFTER_YEAR.finditer(item):
                out.append((pos + cut, item[cut : c.end()].rstrip().rstrip(",")))
                cut = c.end()
            out.append((pos + cut, item[cut:]))
        pos += len(item) + 1
    return out


def _years(spec: str) -> list[str]:
    """ "2020a, b; 2021" -> ["2020a", "2020b", "2021"]."""
    out: list[str] = []
    for part in re.split(r"\s*[,;]\s*", spec.strip()):
        if re.fullmatch(r"[a-z]", part) and out and out[-1][-1:].isalpha():
            out.append(out[-1][:4] + part)
        elif _YEAR_IN.fullmatch(part):
            out.append(part)
    return out


def _name_phrase_before(text: str, end: int) -> tuple[int, str] | None:
    """The author phrase that ends at ``end`` ("Shen and Tamkin", "Hu et al."), if any."""
    window_start = max(0, end - 120)
    window = text[window_start:end]
    tokens = list(re.finditer(r"\S+", window))
    if not tokens:
        return None
    start_idx = None
    for i in range(len(tokens) - 1, -1, -1):
        tok = tokens[i].group(0)
        core = tok.lstrip("(\"“[")
        if core.endswith((",", ";", ":", ")", "]")) and core not in ("Inc.,",):
            break  # punctuation ends the name phrase
        if core.lower() in _NAME_LINKS or core in ("al.", "Inc.") or core[:1].isupper():
            start_idx = i
            if core != tok:  # "(Hong" -- the phrase began at the parenthesis
                break
            continue
        break
    if start_idx is None:
        return None
    s = window_start + tokens[start_idx].start()
    s += len(tokens[start_idx].group(0)) - len(tokens[start_idx].group(0).lstrip("(\"“["))
    phrase = re.sub(r"(?:’s|'s|’|')$", "", text[s:end].rstrip())
    words = phrase.split()
    while words and norm(words[0]) in ("et", "al", "and"):
        s += len(words[0]) + 1
        words = words[1:]
    if not words:
        return None
    return s, " ".join(words)


def _shorter_phrases(phrase: str) -> list[tuple[int, str]]:
    """Suffixes of a narrative phrase, longest first: 'The agent of Hu et al.' -> ... 'Hu et al.'."""
    out = []
    offs = [m.start() for m in re.finditer(r"\S+", phrase)]
    for o in offs:
        sub = phrase[o:]
        w0 = sub.split()[0]
        if norm(w0) in ("et", "al", "and"):
            continue
        out.append((o, sub))
    return out


def _is_name_shape(auth: str) -> bool:
    words = auth.replace(",", " ").split()
    if not words or len(words) > 9:
        return False
    if words[0].lower().strip(".") in _NOT_AUTHORS or words[0].lower() in _MONTHS:
        return False
    for w in words:
        lw = w.lower()
        if lw in _NAME_LINKS or lw in ("inc.", "inc", "al") or w[:1].isupper():
            continue
        return False
    return True


def _expand_numbers(spec: str) -> list[str]:
    out: list[str] = []
    for part in re.split(r"\s*[,;]\s*", spec.strip()):
        m = re.fullmatch(r"(\d+)\s*[–\-]\s*(\d+)", part)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            if 0 < b - a < 200:
                out.extend(str(n) for n in range(a, b + 1))
                continue
        if part.isdigit():
            out.append(part)
    return out


_TARGET_KIND = {Kind.FIGURE: "figure", Kind.TABLE: "table", Kind.EQUATION: "equation", Kind.FOOTNOTE: "footnote"}


class _Ctx:
    def __init__(self, doc: Document, options: CompileOptions):
        self.doc = doc
        self.linker = Linker(doc.references, {b.id: b for b in doc.blocks})
        # where each bibliography starts: a callout cites the next list after it (its chapter's)
        self.part_starts: list[tuple[int, int]] = []
        self.block_pos = {b.id: i for i, b in enumerate(doc.blocks)}
        parts_seen: set = set()
        for i, b in enumerate(doc.blocks):
            if b.kind is not Kind.REFERENCE:
                continue
            part = b.attrs.get("bib_part")
            if part is not None and part not in parts_seen:  # (a set: one test per entry block)
                parts_seen.add(part)
                self.part_starts.append((i, part))
        self.chunk_starts = [c.char_span[0] for c in doc.chunks]
        self.appendix_by_letter: dict[str, object] = {}  # (_appendix_by_letter's answers)
        self.sections_by_number = {}
        for s in doc.sections:
            number = s.number
            if not number:
                # Markdown headings keep the number in the title: "## 2 Method".
                m = re.match(r"^(?:Appendix\s+)?(\d+(?:\.\d+)*|[A-Z](?:\.\d+)*)[.:]?\s+\S", s.title)
                number = m.group(1) if m else None
            if number:
                self.sections_by_number.setdefault(number.rstrip("."), s)
        self.targets: dict[str, dict[str, str]] = {"figure": {}, "table": {}, "equation": {}, "footnote": {}}
        for b in [b for b in doc.blocks if b.number]:  # (a block without a number is no target)
            kind = _TARGET_KIND.get(b.kind)
            if kind is None and b.kind is Kind.CODE and b.number or kind == "figure" and b.attrs.get("float"):
                kind = "algorithm"  # (numbered code, an "Algorithm 1:" / "Listing 2:" float)
                self.targets.setdefault("algorithm", {})
            if kind and b.number:
                if b.attrs.get("float") == "listing":  # "Listing 1" and "Algorithm 1" are two floats
                    self.targets.setdefault("listing", {}).setdefault(str(b.number).strip("()."), b.id)
                    continue
                self.targets[kind].setdefault(str(b.number).strip("()."), b.id)
        for num, bid in self.targets.get("listing", {}).items():  # "Algorithm 1" may name a listing
            self.targets["algorithm"].setdefault(num, bid)
        # PDF link annotations may settle an ambiguous callout: the link's destination page is
        # the page of the entry it cites. The text-only linker never depends on them.
        self.link_dests: dict[int, set[int]] = {}
        if not options.ignore_pdf_links:
            for p in doc.stream.pages:
                dests = {lk.dest_page for lk in p.links if lk.uri is None and lk.dest_page}
                if dests:
                    self.link_dests[p.number] = dests
        # pages the source declares but does not hold (OCR of the first 16 of 46 pages)
        self.missing_pages = bool(doc.stream.declared_pages and doc.stream.declared_pages > doc.pages)
        self._front: tuple[int, set[str]] | None = None
        # names defined by "(2025b, hereafter Paper I)": the name's pattern -> the entries (in reading order)
        self.aliases: dict[str, tuple[re.Pattern, list[str]]] = {}

    def front(self) -> tuple[int, set[str]]:
        """Where the first section starts, and the marks that label a line of the front matter
        before it ("[^a]Department of ..."): affiliations' keys. A name's callout with such a mark
        points at the affiliation, not at a missing footnote."""
        if self._front is None:
            blocks = self.doc.blocks
            end = next((i for i, b in enumerate(blocks) if b.kind is Kind.HEADING and not b.attrs.get("title")),
                       len(blocks))
            keys = {m.group(1) for b in blocks[:end] if b.kind is not Kind.FOOTNOTE and "[^" in b.text
                    for m in _FOOTNOTE_MARK.finditer(b.text) if _mark_is_key(b.text, m)}
            self._front = (end, keys)
        return self._front

    def numbers(self, block) -> dict[str, str]:
        """Label -> reference id for a callout in ``block``: its chapter's list where there are several."""
        if len(self.linker.by_part) < 2:
            return self.linker.by_number
        pos = self.block_pos.get(block.id, 0)
        part = next((q for start, q in self.part_starts if start > pos), self.part_starts[-1][1])
        return self.linker.by_part.get(part, self.linker.by_number)

    def chunk_of(self, pos: int | None) -> str | None:
        if pos is None or not self.chunk_starts:
            return None
        i = bisect.bisect_right(self.chunk_starts, pos) - 1
        if i >= 0:
            c = self.doc.chunks[i]
            if c.char_span[0] <= pos < c.char_span[1]:
                return c.id
        return None


def run(doc: Document, options: CompileOptions) -> None:
    """Fill ``doc.mentions``, ``doc.crossrefs`` and ``doc.unresolved``."""
    ctx = _Ctx(doc, options)
    doc.mentions, doc.crossrefs, doc.unresolved = [], [], []
    # entries without a year are cited by their label, found anywhere: then every block is read
    by_label = any(len(ids) == 1 and " " in label for label, ids in ctx.linker.no_year.items())
    # a name defined by "hereafter" may stand in a block with no other mark: then every block is read too
    by_label = by_label or (bool(doc.references) and "hereafter" in doc.markdown
                            and _HEREAFTER_ANY.search(doc.markdown) is not None)
    spans, md = doc.block_spans, doc.markdown
    blocks = doc.blocks
    if not by_label:
        # Only blocks that hold a mark can hold a callout: one scan of document.md finds the
        # marks (_ANY_MARK reads no context and no match holds a line break, so a block's text
        # holds one exactly when a match of the whole starts inside its span), and the blocks
        # holding one, tables, and blocks with no span are read, in order. Raw OCR text has a
        # block per line and few marks: the other blocks cost nothing here.
        # (block index -> whether the loop below still asks whether it is read: a block the scan
        # found in holds a mark and is of no skipped kind, which it asked already)
        read = {i: True for i, b in enumerate(blocks) if b.kind is Kind.TABLE or b.id not in spans}
        # (only blocks the loop below reads: the marks of a bibliography, a "[" or "(" an entry,
        # were found one by one and thrown away there)
        order = [i for i, b in enumerate(blocks) if b.id in spans and not _skipped(b)]
        firsts = [spans[blocks[i].id][0] for i in order]
        if firsts != sorted(firsts):  # (spans out of reading order, e.g. two blocks of one id: all)
            read.update(dict.fromkeys(order, True))
        else:
            # the first mark of a block is enough: the search goes on from the end of the block
            # it found one in (240,000 marks in 80,000 blocks of cross-references; a block of
            # HTML soup holds dozens of "<" and "("), and a mark in no block read goes on from the
            # start of the next one
            search = _ANY_MARK.search
            m = search(md)
            while m is not None:
                p = m.start()
                k = bisect.bisect_right(firsts, p) - 1
                if k >= 0 and p < (hi := spans[blocks[order[k]].id][1]):
                    read.setdefault(order[k], False)
                    if k + 1 < len(firsts):
                        hi = min(hi, firsts[k + 1])
                    m = search(md, hi)
                elif k + 1 < len(firsts):
                    m = search(md, firsts[k + 1])
                else:
                    break
        todo = [(blocks[i], read[i]) for i in sorted(read)]
    else:
        todo = [(b, True) for b in blocks]
    alone = bool(ctx.linker.label_index()[0])  # entries cited by their label alone, no mark needed
    for block, ask in todo:
        if ask and _skipped(block):
            continue
        base, text = _text_in(block, spans, md)
        if ask and not by_label and block.kind is not Kind.TABLE and _ANY_MARK.search(text) is None:
            continue  # no character or keyword that any callout or cross-reference starts with
        # Author lines carry affiliation marks ("Liu¹"), not citations; the abstract may cite.
        # (A callout needs a label cited alone, a parenthesis, a bracket, a superscript's "^"
        # or "<", or a character outside ASCII: a block of cross-references has none of them,
        # and 80,000 such blocks each paid _find_callouts' calls for nothing)
        # A heading may cite ("2.3 PT-M2 (Gong et al., 2022)"); the title does not.
        if not block.attrs.get("title") and block.attrs.get("front") in (None, "abstract") and (
                alone or ctx.aliases or "(" in text or "[" in text or "^" in text or "<" in text
                or not text.isascii()):
            _find_callouts(ctx, block, text, base)
        _find_crossrefs(ctx, block, text, base)
    if not doc.mentions and ctx.linker.numbered and not ctx.linker.alpha and _dotted_labels(doc.references):
        _find_parenthesised_numbers(ctx, todo, spans, md)
    if ctx.linker.numbered and not ctx.linker.alpha:
        _find_in_notes(ctx, blocks, spans, md)
    # Each chunk lists the references cited inside it, in order of first mention.
    by_chunk = {c.id: c for c in doc.chunks}
    for c in doc.chunks:
        c.citations = []
    for m in doc.mentions:
        c = by_chunk.get(m.chunk_id)
        if c is not None:
            for rid in m.reference_ids:
                if rid not in c.citations:
                    c.citations.append(rid)


# PNAS's and Science's callouts: "(1)", "(2, 3)", "(4–6)" beside a list labelled "1.", "2."
_PAREN_NUMBERS = re.compile(r"(?:(?<=[^\W\d_][.,;:]\s)|(?<=[^\W\d_]\s))\((\d{1,3}(?:\s?[,–\-]\s?\d{1,3})*)\)(?=[.,;:]|\s(?:and|or)\s\()")
# what a parenthesised number also follows: an equation's, a step's, a figure's number ("Eqs. 1 and (2)")
_NOT_CITED_NUMBER = re.compile(r"(?i:\b(?:eqs?|eqn|equations?|steps?|figs?|figures?|tables?|sections?|conditions?|"
                               r"constraints?|lines?|rules?|items?|cases?|stages?|phases?|panels?)\b)")
_DOTTED_LABEL = re.compile(r"^\s*\d{1,3}\.\s")


def _dotted_labels(refs: list[Reference]) -> bool:
    return bool(refs) and sum(1 for r in refs if _DOTTED_LABEL.match(r.raw)) > len(refs) / 2


def _find_parenthesised_numbers(ctx: _Ctx, todo, spans, md) -> None:
    """Callouts printed as numbers in parentheses, read only where the list is labelled "1.", "2." and the text
    holds no other callout (no bracket, no superscript): "(1)" is as often an equation's or an enumeration's
    number, so a parenthesis counts only after a word (not an equation's, a figure's or a step's name in the 30
    characters before it), before a stop or comma (not "(1) fit the model": an enumeration's item follows its
    number), every number an entry's, and the first such parenthesis holds 1 (these lists number their entries
    in the order the text cites them)."""
    found = []
    for block, _ in todo:
        if _skipped(block) or block.kind not in (Kind.PARAGRAPH, Kind.LIST_ITEM) or block.attrs.get("title") \
                or block.attrs.get("front") not in (None, "abstract"):
            continue
        base, text = _text_in(block, spans, md)
        if "(" not in text:
            continue
        numbers = ctx.numbers(block)
        for m in _PAREN_NUMBERS.finditer(text):
            if _NOT_CITED_NUMBER.search(text, max(0, m.start() - 30), m.start()):
                continue
            nums = _expand_numbers(m.group(1))
            if nums and all(n in numbers for n in nums):
                found.append((block, text, base, m.start(), m.end(), nums))
    if not found or "1" not in found[0][5]:
        return
    for block, text, base, s, e, nums in found:
        _numeric_mention(ctx, block, text, base, s, e, nums)


# a numbered bracket in an entry's prose: after a word and a space, before a stop or a lowercase word ("As our recent
# studies [9, 15] have indicated"), never before a capital (an entry run into the one before: "... Springer [5] B. Li")
_NOTE_BRACKET = re.compile(r"(?<=[^\W\d_]\s)\[(\d{1,4}(?:\s?[,–\-]\s?\d{1,4})*)\](?=[.,;:)]|\s[a-z])")


def _find_in_notes(ctx: _Ctx, blocks, spans, md) -> None:
    """REVTeX prints the paper's notes in its numbered list ("[25] We note that ... As our recent studies [9, 15]
    have indicated, ..."): a bracket of other entries' numbers in an entry's prose cites them."""
    by_part, by_number = ctx.linker.by_part, ctx.linker.by_number
    for block in blocks:
        if block.kind is not Kind.REFERENCE or "[" not in block.text[1:]:
            continue
        base, text = _text_in(block, spans, md)
        numbers = by_part.get(block.attrs.get("bib_part", 0), by_number)
        own = str(block.number or "").strip("[]().")
        for m in _NOTE_BRACKET.finditer(text):
            nums = _expand_numbers(m.group(1))
            if nums and own not in nums and all(n in numbers for n in nums):
                _add_mention(ctx, block, text, base, m.start(), m.end(), [numbers[n] for n in nums], None)


def _text_in(block, spans: dict, md: str) -> tuple[int | None, str]:
    """Where ``block`` starts in document.md and its text there (the text as rendered, so mention
    offsets are offsets into document.md), or (None, its own text) where it is not rendered."""
    span = spans.get(block.id)
    return (span[0], md[span[0] : span[1]]) if span else (None, block.text)


def _raised_exponent(text: str, at: int) -> bool:
    """A raised number at ``at`` that is an exponent, not a callout: after a lone letter (blocks.LONE_LETTER_END,
    "m²"), a power of ten or a unit (_EXPONENT_BEFORE, "10³", "m/s²"), or a bracket ("[x - y]²")."""
    return text[at - 1 : at] == "]" or LONE_LETTER_END.search(text, 0, at) is not None \
        or _EXPONENT_BEFORE.search(text, max(0, at - 12), at) is not None


def _raised_zero(ctx: _Ctx, block, nums: list[str]) -> bool:
    """A raised 0 is a prime or a degree ("(•)⁰"): no entry is numbered 0 (unless one is)."""
    return "0" in nums and "0" not in ctx.numbers(block)


def _skipped(block) -> bool:
    """A block that holds no callout and no cross-reference: an entry, furniture, code."""
    return block.kind in _SKIP_KINDS or bool(block.attrs.get("bibliography"))


_FIRST = itemgetter(0)


def _page_at(block, text: str, offset: int) -> int:
    # A block that runs over a page break: the page whose text holds the position, where structure
    # recorded where each page's text starts (the offsets of the block's text, scaled to ``text``, its
    # document.md span: the same words, escapes aside); else estimated from the position in the block.
    if block.page_end and block.page_end > block.page and text:
        breaks = block.attrs.get("page_breaks")
        if breaks and block.text:  # (a bisection: raw OCR text may run one paragraph over every page)
            k = bisect.bisect_right(breaks, offset * len(block.text) / len(text), key=_FIRST)
            return breaks[k - 1][1] if k else block.page
        frac = offset / max(1, len(text))
        return block.page + min(block.page_end - block.page, int(frac * (block.page_end - block.page + 1)))
    return block.page


def _add_mention(ctx: _Ctx, block, text, base, s, e, ids, reason, shown=None):
    page = _page_at(block, text, s)
    if not ids and reason and reason.startswith("ambiguous") and ctx.link_dests:
        dests = ctx.link_dests.get(page, set()) | ctx.link_dests.get(block.page, set())
        chosen = [r for r in ctx.linker.last_candidates if r.page in dests]
        if len(chosen) == 1:
            ids, reason = [chosen[0].id], None
    if not ids and block.kind is Kind.HEADING:
        return  # a heading is read for callouts that link: "Personal Computers (1980s)" is a heading's date
    shown = shown if shown is not None else text[s:e]
    if ids:
        span = (base + s, base + e) if base is not None else None
        ctx.doc.mentions.append(
            Mention(text=shown, reference_ids=ids, section_id=block.section_id, page=page,
                    chunk_id=ctx.chunk_of(span[0] if span else None), block_id=block.id, char_span=span)
        )
    else:
        reason = reason or "unmatched"
        if ctx.missing_pages and reason.startswith("no reference list"):
            reason += f" (pages {ctx.doc.pages + 1}-{ctx.doc.stream.declared_pages} are missing)"
        ctx.doc.unresolved.append(
            Unresolved(text=shown, kind="citation", reason=reason, page=page,
                       section_id=block.section_id)
        )


def _find_callouts(ctx: _Ctx, block, text: str, base: int | None) -> None:
    linker = ctx.linker
    taken: list[tuple[int, int]] = []
    for m in _PAREN.finditer(text) if "(" in text else ():  # (the tests below each need their mark)
        inner = m.group(1)
        ys = _YEARS_ONLY.match(inner) or (_HEREAFTER.match(inner) if "hereafter" in inner else None)
        if ys:
            # Narrative: the author phrase stands before the parenthesis.
            found = _name_phrase_before(text, m.start())
            if not found:
                continue
            p_start, phrase = found
            years = _years(ys.group(1))
            linked = None
            for off, sub in _shorter_phrases(phrase):
                res = [linker.link(sub, y) for y in years]
                if all(ids for ids, _ in res):
                    linked = (p_start + off, sub, res)
                    break
            if linked is None:
                # Report the tail that reads as a name ("... Claude Code (2026)" -> "Claude Code").
                cand = [(off, sub) for off, sub in _shorter_phrases(phrase) if len(sub.split()) <= 4]
                if not cand:
                    continue
                off, sub = cand[0]
                if not _is_name_shape(sub):
                    continue
                res = [linker.link(sub, y) for y in years]
                linked = (p_start + off, sub, res)
            s0, sub, res = linked
            for y, (ids, reason) in zip(years, res, strict=False):
                _add_mention(ctx, block, text, base, s0, m.end(), ids, reason, shown=f"{sub} ({y})"
                             if len(years) > 1 else text[s0 : m.end()])
            taken.append((s0, m.end()))
            alias = ys.groupdict().get("alias")
            if alias and len(res) == 1 and res[0][0] and alias not in ctx.aliases:
                ctx.aliases[alias] = (re.compile(rf"(?<![\w\-]){re.escape(alias)}(?![\w\-])"), res[0][0])
            continue
        if not _YEAR_IN.search(inner):
            if (one := _ONE_WORD.match(inner)) and one.group(1)[0].isupper() and (ids := linker.one_word(one.group(1))):
                _add_mention(ctx, block, text, base, m.start(1) + one.start(1), m.start(1) + one.end(1), ids, None)
                taken.append((m.start(), m.end()))
            continue
        # Parenthetical: items separated by ";" (or by "," after a year: _items).
        for item_start, item in _items(inner, m.start(1)):
            im = _ITEM.match(item)
            if not im and (tm := _TRAILING_WORDS.match(item)):  # "2011, 2018 for earlier approaches."
                item = tm.group(1)
                im = _ITEM.match(item)
            if not im:
                if (rm := _RANGE_ITEM.match(item)) and _is_name_shape(auth := rm.group("auth").strip().rstrip(",")):
                    ids, _ = linker.link(auth, rm.group("year"))
                    if ids:  # (only what links: "(Second World War, 1939-1945)" is a period, not a callout)
                        s = item_start + rm.start("auth")
                        _add_mention(ctx, block, text, base, s, item_start + len(item.rstrip()), ids, None)
                        taken.append((s, item_start + len(item.rstrip())))
                continue
            auth = im.group("auth").strip().rstrip(",")
            years = _years(im.group("years"))
            res = [linker.link(auth, y) for y in years]
            lead = len(item) - len(item.lstrip())
            if not all(ids for ids, _ in res):
                # words before the name ("for example Frankel et al.", "WISE, Wright et al."): the longest
                # tail from a capitalised word whose every year links is the callout, where the word before it
                # is no name's ("Smith and Jones", "Smith, Jones" are one callout, never "Jones" alone): a
                # lowercase word other than a name's links, or an acronym and a comma
                a0 = im.start("auth") + len(im.group("auth")) - len(im.group("auth").lstrip())
                for w in re.finditer(r"(?<=\s)[^\W\d_]", auth):
                    if not w.group().isupper():
                        continue
                    before = auth[: w.start()].split()[-1]
                    core = before.rstrip(",;:")
                    if not (core[:1].islower() and core.lower() not in _NAME_LINKS
                            or before.endswith(",") and len(core) > 1 and core.isupper()):
                        continue
                    tail = [linker.link(auth[w.start():], y) for y in years]
                    if all(ids for ids, _ in tail):
                        auth, res, lead = auth[w.start():], tail, a0 + w.start()
                        break
            if not all(ids for ids, _ in res) and not _is_name_shape(auth):
                continue  # "(released April 2025)" is no citation
            s, e = item_start + lead, item_start + len(item.rstrip())
            for y, (ids, reason) in zip(years, res, strict=False):
                _add_mention(ctx, block, text, base, s, e, ids, reason,
                             shown=f"{auth}, {y}" if len(years) > 1 else text[s:e])
            taken.append((s, e))
    for pattern, ids in ctx.aliases.values():  # "Paper I", defined before by "hereafter"
        for am in pattern.finditer(text):
            if not any(a <= am.start() < b for a, b in taken):
                _add_mention(ctx, block, text, base, am.start(), am.end(), ids, None)
    # Entries printed without a year are cited by their label alone ("Kwa et al.’s").
    eligible, by_first, others = linker.label_index()
    if not eligible:
        _find_numeric(ctx, block, text, base)
        return
    lowered = text.lower()
    if text.isascii():
        # A label's pattern matches where its first word, followed by a non-word character, starts
        # a word of the folded text, which is ``lowered`` for ASCII: only labels whose first word
        # is a word of the block can match (each block asked every label: blocks x entries, 2,000
        # paragraphs beside 2,000 entries without a year spent 4 s here)
        tried = set(others)
        for word in by_first.keys() & set(_WORD_RUN.findall(lowered)):
            tried.update(by_first[word])
        order: Iterable[int] = sorted(tried)
    else:
        order = range(len(eligible))
    folded = None
    for k in order:
        label, ids = eligible[k]
        if label.split()[0] not in lowered:
            continue  # cheap test first: the accent-folding pass below is slow
        if folded is None:
            folded = norm_keep_len(text)
        for lm in re.finditer(r"\b" + re.escape(label).replace(r"\ ", r"\W+") + r"\b\.?", folded):
            if any(a <= lm.start() < b for a, b in taken):
                continue
            end = lm.end()
            if text.count("(", lm.start(), end) > text.count(")", lm.start(), end) and text[end : end + 1] == ")":
                end += 1  # "Funk et al. (b)": the letter's parenthesis closes in the mention
            _add_mention(ctx, block, text, base, lm.start(), end, ids, None)
    _find_numeric(ctx, block, text, base)


_WORD_RUN = re.compile(r"\w+")


def norm_keep_len(text: str) -> str:
    """Lower-case with accents folded, same length as ``text`` (so offsets still hold)."""
    out = []
    for c in text:
        d = unicodedata.normalize("NFKD", c)
        base = "".join(x for x in d if not unicodedata.combining(x)) or c
        out.append(base[0].lower() if len(base) >= 1 else c)
    return "".join(out)


def _find_numeric(ctx: _Ctx, block, text: str, base: int | None) -> None:
    linker = ctx.linker
    if linker.refs and not linker.numbered:
        return  # an author-year paper: "[12]" is something else
    if linker.alpha:
        # entries labelled "[Lee06]": a bracket of numbers ("[0,1]") is an interval, not a citation
        for m in _ALPHA_BRACKET.finditer(text):
            keys = [k.strip().replace(" ", "") for k in re.split(r"[,;]", m.group(1))]
            # only brackets whose every key is a printed label: "[Online]" or "[A]" is not a citation
            numbers = ctx.numbers(block)
            if all(k in numbers for k in keys):
                _add_mention(ctx, block, text, base, m.start(), m.end(), [numbers[k] for k in keys], None)
        return
    for m in _NUM_BRACKET.finditer(text) if "[" in text else ():
        nums = _expand_numbers(m.group(1))
        if any(int(n) == 0 for n in nums) and "0" not in ctx.numbers(block):
            continue  # "[0, 1]" is an interval: no entry is numbered 0 (unless one is)
        if _MATH_BEFORE.search(text, max(0, m.start() - 4), m.start()):
            continue
        _numeric_mention(ctx, block, text, base, m.start(), m.end(), nums)
    if linker.numbered and block.kind is not Kind.HEADING:  # (a heading's superscript is a footnote's mark)
        for m in _SUP_TAG.finditer(text) if "^" in text or "<" in text else ():
            if _raised_exponent(text, m.start()):
                continue
            nums = _expand_numbers(m.group(1) or m.group(2))
            if _raised_zero(ctx, block, nums):
                continue
            _numeric_mention(ctx, block, text, base, m.start(), m.end(), nums)
        for m in _SUP_UNI.finditer(text) if not text.isascii() else ():  # (superscript digits)
            if _EXPONENT_BEFORE.search(text, max(0, m.start() - 12), m.start()):
                continue
            nums = _expand_numbers(m.group(1).translate(_SUP_MAP))
            if _raised_zero(ctx, block, nums):
                continue
            _numeric_mention(ctx, block, text, base, m.start(), m.end(), nums)


def _numeric_mention(ctx, block, text, base, s, e, nums):
    if not nums:
        return
    linker = ctx.linker
    if not linker.refs:
        _add_mention(ctx, block, text, base, s, e, [], "no reference list found")
        return
    numbers = ctx.numbers(block)
    ids = [numbers.get(n) for n in nums]
    missing = [n for n, i in zip(nums, ids, strict=False) if i is None]
    if missing:
        _add_mention(ctx, block, text, base, s, e, [], f"no reference numbered {', '.join(missing)}")
        ids = [i for i in ids if i]
        if not ids:
            return
    _add_mention(ctx, block, text, base, s, e, [i for i in ids if i], None)


# ---------------------------------------------------------------------------- cross-references


def _find_crossrefs(ctx: _Ctx, block, text: str, base: int | None) -> None:
    label = _CAPTION_LABEL.match(text) if block.kind in _CAPTIONED else None
    for m in _XREF.finditer(text) if _XREF_MARK.search(text) else ():
        if label and m.start() < label.end():
            continue  # "**Table 1:** ..." names the table itself; it refers to nothing
        whole, kw, listed = m.group(0, "kw", "list")
        kind = _KIND_OF.get(kw.lower(), "section")
        if listed.isdecimal():
            # one number, the usual case: what the pattern finds in it is itself, and its
            # first character a digit; shown as the match (the loop below, for one number)
            if ")" in whole and whole.count(")") > whole.count("("):
                whole = whole.rstrip(")")
            _add_crossref(ctx, block, text, m.start(), kind, listed, whole)
            continue
        nums = [n.group(1) for n in _XREF_NUM.finditer(listed)]
        if kind not in ("figure", "table", "algorithm") and any(len(n) > 1 and roman_value(n) for n in nums):
            continue  # "Section II-B", "Sections IV and V": a roman section number is not read here
        for num in nums:
            if not num[0].isdigit() and roman_value(num) and (len(num) > 1 or kind in ("figure", "table")):
                if num not in ctx.targets.get(kind, {}):  # (the algorithm targets hold the listings' numbers too)
                    continue  # "in Figure I show", "Table IV" of no float: only a float printed "Table IV" is one
            elif kind in ("figure", "table", "equation") and not num[0].isdigit():
                continue  # "Table A" is rare; a capital after "Figure" is usually a word
            shown = f"{kw} {num}" if len(nums) > 1 else whole
            if ")" in shown and shown.count(")") > shown.count("("):
                shown = shown.rstrip(")")  # "(Section 2)" -- the parenthesis is not ours
            _add_crossref(ctx, block, text, m.start(), kind, num, shown)
    if block.kind is Kind.TABLE:
        _table_section_columns(ctx, block, text)
    if block.kind is Kind.FOOTNOTE:
        return
    for m in _FOOTNOTE_MARK.finditer(text) if "[^" in text else ():
        num = m.group(1)
        linker = ctx.linker
        if num not in ctx.targets["footnote"] and linker.numbered and num in linker.by_number \
                and not _raised_exponent(text, m.start()):
            # A superscript number with no footnote of its own, in a paper with a numbered
            # bibliography, is a citation ("... as shown¹²" in Nature style), unless it is an
            # exponent: as the <sup> callouts above ("12 m/s²"), or over a bracket ("[x - y]²")
            _add_mention(ctx, block, text, base, m.start(), m.end(), [linker.by_number[num]], None)
            continue
        if num not in ctx.targets["footnote"]:
            end, keys = ctx.front()
            if ctx.block_pos.get(block.id, end) < end and (_mark_is_key(text, m) or num in keys):
                continue  # before the first section: an affiliation's key, or a name's callout of one
        _add_crossref(ctx, block, text, m.start(), "footnote", num, m.group(0))


def _mark_is_key(text: str, m: re.Match) -> bool:
    """A mark that opens a line or follows a space and is glued to the word after it
    ("[^a]Department of Physics, ...") labels the text it stands before: an affiliation's key
    under a byline (the name's own mark is its callout), a note set in the running text. A
    callout is glued to the word before it ("Krishnan[^a]", "shown[^2] ...")."""
    s, e = m.start(), m.end()
    return (s == 0 or text[s - 1].isspace()) and e < len(text) and text[e].isalpha()


_CAPTIONED = {Kind.TABLE, Kind.FIGURE, Kind.CAPTION, Kind.CODE, Kind.EQUATION}
_CAPTION_LABEL = re.compile(r"^\W{0,4}(?:Table|Figure|Fig\.|Algorithm|Listing)\s+(?:[A-Z]?\d+[a-z]?|[IVX]+\b)\W{0,4}")
_SECTION_COLUMN = re.compile(r"^\W*(?:sections?|secs?\.?|§+|chapters?)\W*$", re.IGNORECASE)


def _table_section_columns(ctx: _Ctx, block, text: str) -> None:
    """A table column headed "Section(s)" holds cross-references as bare numbers ("5, 8, 9")."""
    rows = block.attrs.get("rows")
    if not rows or len(rows) < 2:
        return
    cols = [i for i, h in enumerate(rows[0]) if _SECTION_COLUMN.match(str(h or ""))]
    for row in rows[1:]:
        for i in cols:
            if i >= len(row) or not row[i]:
                continue
            cell = str(row[i])
            if not re.fullmatch(rf"\s*{_NUM}(?:\s*(?:,|and|to|–|-)\s*{_NUM})*\s*", cell):
                continue
            for n in _XREF_NUM.finditer(cell):
                _add_crossref(ctx, block, text, 0, "section", n.group(1), f"Section {n.group(1)}")


def _add_crossref(ctx: _Ctx, block, text: str, offset: int, kind: str, num: str, shown: str) -> None:
    num = num.rstrip(".")
    target = None
    reason = None
    if kind in ("section", "appendix"):
        sec = ctx.sections_by_number.get(num)
        if sec is None and (kind == "appendix" or num[:1].isalpha()):
            sec = _appendix_by_letter(ctx, num)
        if sec is not None:
            target = sec.id
            if num[:1].isalpha():
                kind = "appendix"
        else:
            reason = f"no section numbered {num}"
    else:
        found = ctx.targets.get(kind, {})
        if kind == "algorithm" and shown[:7].lower() == "listing" and num in ctx.targets.get("listing", {}):
            found = ctx.targets["listing"]
        # "Figure 3a" is a panel of Figure 3
        target = found.get(num) or (found.get(num[:-1]) if num[-1:].isalpha() and num[:-1] else None)
        if target is None:
            reason = f"no {kind} numbered {num}"
    # (_page_at's test, here: a call less for each of 240,000 cross-references in 4 MB)
    page = _page_at(block, text, offset) if block.page_end and block.page_end > block.page else block.page
    if target is None:
        if ctx.missing_pages:
            reason += f" (pages {ctx.doc.pages + 1}-{ctx.doc.stream.declared_pages} are missing)"
        # (fields by position: Unresolved(text, kind, reason, page, section_id))
        ctx.doc.unresolved.append(Unresolved(shown, "crossref", reason, page, block.section_id))
        return
    ctx.doc.crossrefs.append(CrossRef(text=shown, kind=kind, target_id=target, section_id=block.section_id,
                                      page=page, block_id=block.id))


def _appendix_by_letter(ctx: _Ctx, num: str):
    """The section an appendix's letter names, worked out once per letter (the sections do not
    change while cross-references are read: each "Appendix Q" scanned all of them, and built
    their index, again: cross-references x sections)."""
    found = ctx.appendix_by_letter
    if num not in found:
        found[num] = _appendix_of(ctx, num)
    return found[num]


def _appendix_of(ctx: _Ctx, num: str):
    # "Appendix B" when the appendix heading is printed "B Details" or "Appendix B: Details".
    # Only its subsections carry the number ("B.1"): their parent is the appendix.
    by_id = {s.id: s for s in ctx.doc.sections}
    for s in ctx.doc.sections:
        if (s.number or "").startswith(num + ".") and s.parent_id in by_id:
            return by_id[s.parent_id]
    # An unnumbered heading printed "Appendix B: ..." or "B Evidence ...".
    for s in ctx.doc.sections:
        if not s.number and re.match(rf"^(?:Appendix\s+)?{re.escape(num)}\b", s.title):
            return s
    return None
