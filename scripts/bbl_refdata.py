"""Labelled reference strings from real papers' printed bibliographies (issue 22, round 31).

    .venv/bin/python scripts/bbl_refdata.py --mirror /work/.mirror -o /tmp/bbl-data

For each source of benchmarks/data/refparse_bbl_sources.json (a public repository, its commit
and licence, checked by ``fetch`` into MIRROR/<owner>+<name>/repo): each paper's bibliography as
its readers see it, the ``.bbl`` BibTeX wrote in the paper's own style (committed in the
repository, or, where only the ``.tex`` and ``.bib`` are, made by ``bibtex`` with the style the
``.tex`` names and the keys it cites), every ``\\bibitem`` turned into the text a reader sees
(to_text), and its tokens labelled by aligning the fields of the entry's own ``.bib`` record
(align). An entry is DROPPED, never guessed, where a word of three or more letters stays outside
every field (CONNECTIVES aside: "In", "pp", "vol.", "eds." ...), two fields claim one token, a
number field matches twice, or a macro is left unresolved (an AAS journal macro not in
AAS_JOURNALS); each drop is counted by reason.

Writes OUTPUT/bbl-<owner>+<name>.xml in AnyStyle's parser-data form (read by
``datasets.read_bbl``, so ``train_refparse.py --bbl-data OUTPUT`` trains on it) and
OUTPUT/stats.json. Sources are refused when they are in the held-out or test manifests
(benchmarks/data/unseen_papers.json, deck_dev.json, the corpus README) or carry no licence that
allows training a model we ship. Deterministic: the same mirror commits give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path
from xml.sax.saxutils import escape

from ctxmill.compile.refparse.tokens import tokenize

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from unseen_truth import group  # noqa: E402 -- one reader of a TeX brace group for the LaTeX tools

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "benchmarks" / "data" / "refparse_bbl_sources.json"
EXCLUDED_LISTS = (ROOT / "benchmarks" / "data" / "unseen_papers.json", ROOT / "benchmarks" / "data" / "deck_dev.json",
                  Path("/work/shared/corpus/papers/README.md"))
LICENCES = ("MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "CC-BY-4.0", "CC0-1.0", "Unlicense")

# What aastex / mnras / aa define the AAS journal macros to print (aastex631.cls's \newcommand
# list): the printed abbreviation is the container both in the entry and in its record.
AAS_JOURNALS = {
    "aj": "AJ", "actaa": "AcA", "araa": "ARA&A", "apj": "ApJ", "apjl": "ApJL", "apjs": "ApJS",
    "ao": "ApOpt", "apss": "Ap&SS", "aap": "A&A", "aapr": "A&A Rv", "aaps": "A&AS", "azh": "AZh",
    "baas": "BAAS", "bac": "BAICz", "caa": "ChA&A", "cjaa": "ChJA&A", "icarus": "Icarus",
    "jcap": "JCAP", "jrasc": "JRASC", "memras": "MmRAS", "mnras": "MNRAS", "na": "NewA",
    "nar": "NewAR", "pra": "PhRvA", "prb": "PhRvB", "prc": "PhRvC", "prd": "PhRvD", "pre": "PhRvE",
    "prl": "PhRvL", "pasa": "PASA", "pasp": "PASP", "pasj": "PASJ", "qjras": "QJRAS",
    "rmxaa": "RMxAA", "skytel": "S&T", "solphys": "SoPh", "sovast": "Soviet Ast.", "ssr": "SSRv",
    "zap": "ZA", "nat": "Nature", "iaucirc": "IAUC", "aplett": "Astrophys. Lett.",
    "apspr": "Astrophys. Space Phys. Res.", "bain": "BAN", "fcp": "FCPh", "gca": "GeoCoA",
    "grl": "Geophys. Res. Lett.", "jcp": "JChPh", "jgr": "J. Geophys. Res.",
    "jqsrt": "JQSRT", "memsai": "MmSAI", "nphysa": "NuPhA", "physrep": "PhR", "physscr": "PhyS",
    "planss": "Planet. Space Sci.", "procspie": "Proc. SPIE", "psj": "PSJ", "apjlett": "ApJL",
}

# Words a style prints between fields: left outside every field without dropping the entry.
CONNECTIVES = {
    "in", "pp", "p", "vol", "vols", "volume", "no", "nr", "num", "number", "issue", "pages", "page",
    "ed", "eds", "edn", "editor", "editors", "edited", "by", "and", "of", "the", "url", "doi", "available",
    "at", "online", "accessed", "retrieved", "from", "preprint", "e", "print", "prints", "eprint",
    "chapter", "chap", "ch", "art", "article", "id", "sec", "section", "urldate", "visited", "on",
    "et", "al", "arxiv", "abs", "https", "http", "org", "dx", "www", "submitted", "press", "isbn",
    "issn", "pmid", "pmcid", "note", "n", "s", "a", "an", "to", "appear", "proc", "proceedings",
    "phd", "thesis", "master", "masters", "dissertation", "technical", "report", "tech", "rep", "ms", "msc",
}
MONTHS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                          "nov", "dec"))}
ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "c": "\u0327",
           "v": "\u030c", "H": "\u030b", "=": "\u0304", ".": "\u0307", "u": "\u0306", "k": "\u0328",
           "r": "\u030a"}
LETTERS = {"ss": "ß", "o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ",
           "aa": "å", "AA": "Å", "i": "ı", "j": "ȷ"}


class Unresolved(Exception):
    """A string that cannot be labelled without guessing; its message is the drop reason."""


# ---------------------------------------------------------------- LaTeX

def _replace_command(s: str, name: str, nargs: int, make) -> str:
    """Each ``\\name{a}{b}...`` (nargs groups, spaces between allowed) -> make(args)."""
    pat = re.compile(r"\\" + name + r"(?![a-zA-Z@])\s*")
    out, at = [], 0
    for m in pat.finditer(s):
        if m.start() < at:
            continue
        j, args = m.end(), []
        for _ in range(nargs):
            while j < len(s) and s[j] in " \n\t":
                j += 1
            if j < len(s) and s[j] == "{":
                a, j = group(s, j)
            elif j < len(s):
                a, j = s[j], j + 1
            else:
                a = ""
            args.append(a)
        out.append(s[at:m.start()])
        out.append(make(args))
        at = j
    out.append(s[at:])
    return "".join(out)


def to_text(s: str, unknown: set[str] | None = None) -> str:
    """A \\bibitem's (or a .bib field's) LaTeX -> the text a reader sees. Command names left
    that print something we cannot know are added to ``unknown``."""
    s = re.sub(r"(?<!\\)%[^\n]*\n?", "", s)
    s = s.replace("\\penalty0", " ").replace("\\newblock", " ").replace("\\BibitemShut{NoStop}", "")
    s = re.sub(r"\\BibitemShut\s*\{[^}]*\}", ".", s)
    s = s.replace("\\BibitemOpen", "").replace("\\bibAnnoteFile", "")
    for name in ("bibinfo", "bibfield", "Eprint", "href", "bibitemStop"):
        s = _replace_command(s, name, 2, lambda a: a[1])
    s = _replace_command(s, "doibase", 0, lambda a: "")
    # mnras.bst: \mn@doi [\mnras] {10.1/x} prints the journal as the DOI's link; alone, "doi:10.1/x"
    s = re.sub(r"\\mn@doi\s*\[([^\]]*)\]\s*\{[^}]*\}", r"\1", s)
    s = _replace_command(s, "mn@doi", 1, lambda a: "doi:" + a[0])
    s = _replace_command(s, "JournalTitle", 1, lambda a: a[0])
    s = _replace_command(s, "doarXiv", 1, lambda a: "arXiv:" + a[0])
    s = _replace_command(s, "natexlab", 1, lambda a: a[0])
    s = _replace_command(s, "url", 1, lambda a: a[0])
    s = _replace_command(s, "path", 1, lambda a: a[0])
    s = _replace_command(s, "urlprefix", 0, lambda a: "URL ")
    for name in ("doi", "dodoi", "DOI"):
        s = _replace_command(s, name, 1, lambda a: "doi: " + a[0])
    s = _replace_command(s, "eprint", 1, lambda a: a[0])
    s = _replace_command(s, "arxiv", 1, lambda a: "arXiv:" + a[0])
    s = _replace_command(s, "mn@eprint", 2, lambda a: f"{a[0]}:{a[1]}")
    s = _replace_command(s, "textsuperscript", 1, lambda a: a[0])
    for name, comb in ACCENTS.items():
        def acc(a, c=comb):
            base = a[0].strip()
            base = LETTERS.get(base[1:], base[1:]) if base.startswith("\\") else base
            return unicodedata.normalize("NFC", base[:1] + c + base[1:]) if base else ""
        if name.isalpha():
            s = _replace_command(s, name, 1, acc)
        else:
            s = re.sub(r"\\" + re.escape(name) + r"\s*(\{\\?[a-zA-Z]+\}|\\?[a-zA-Z])",
                       lambda m, c=comb: acc([m.group(1).strip("{}")], c), s)
    s = re.sub(r"\\text(?:quote)?(?:right|single)(?![a-zA-Z])\s*(\{\})?", "\u2019", s)
    s = re.sub(r"\\textquoteleft(?![a-zA-Z])\s*(\{\})?", "\u2018", s)
    for name, letter in LETTERS.items():
        s = re.sub(r"\{?\\" + name + r"(?![a-zA-Z])\s*\}?", letter, s)
    for name, printed in AAS_JOURNALS.items():
        s = re.sub(r"\\" + name + r"(?![a-zA-Z@])\s*", printed, s)
    s = s.replace("\\&", "&").replace("\\%", "%").replace("\\_", "_").replace("\\#", "#").replace("\\$", "$")
    s = re.sub(r"\\[,;:!/ ]", " ", s).replace("\\-", "")
    s = s.replace("---", "\u2014").replace("--", "\u2013").replace("``", "\u201c").replace("''", "\u201d")
    s = re.sub(r"(?<!\\)~", " ", s)
    s = re.sub(r"\\(?:textendash)\b", "\u2013", s)
    s = re.sub(r"\$\^\{?([^${}]*)\}?\$", r"\1", s)
    s = re.sub(r"\\(?:mathrm|rm|it|em|bf|sc|sl|tt|sf|textrm|textit|emph|textbf|textsc|textsl|texttt|textsf|mbox|"
               r"textnormal|MakeUppercase|uppercase|bibnamefont|bibfnamefont|citenamefont|enquote|hbox|relax|"
               r"noopsort|protect|ignorespaces|unskip|xspace|bibsc|textsuperscript|ensuremath|mathit|mathbf|"
               r"mathcal|boldsymbol|bm|nolinkurl|url|selectlanguage|foreignlanguage|upshape|itshape|bfseries|"
               r"scshape|normalfont|textup|small|footnotesize|Large|large|huge|Huge|lowercase|sffamily|makeatother|makeatletter)(?![a-zA-Z@])\*?\s*",
               "", s)
    left = re.findall(r"\\([a-zA-Z@]+)", s)
    if unknown is not None:
        unknown.update(left)
    s = re.sub(r"\\[a-zA-Z@]+\*?\s*", " ", s)
    s = s.replace("{", "").replace("}", "").replace("$", "")
    return " ".join(s.split())


# ---------------------------------------------------------------- .bib

def bib_records(text: str) -> dict[str, dict]:
    """Key -> {field: raw LaTeX value} of a .bib file (@string macros expanded, ``#`` joined)."""
    strings = {m: m for m in MONTHS}
    out: dict[str, dict] = {}
    for m in re.finditer(r"@(\w+)\s*([{(])", text):
        typ = m.group(1).lower()
        if typ in ("comment", "preamble"):
            continue
        body, _ = group(text, m.end() - 1) if m.group(2) == "{" else (text[m.end():text.find(")", m.end())], 0)
        if typ == "string":
            f = re.match(r"\s*(\w[\w:-]*)\s*=\s*", body)
            if f:
                strings[f.group(1).lower()] = _value(body[f.end():], strings)[0]
            continue
        k = re.match(r"\s*([^,\s]+)\s*,", body)
        if not k:
            continue
        fields, i = {"ENTRYTYPE": typ}, k.end()
        while True:
            f = re.compile(r"\s*([\w:.-]+)\s*=\s*").match(body, i)
            if not f:
                break
            val, i = _value(body[f.end():], strings)
            i += f.end()
            fields.setdefault(f.group(1).lower(), val)
            c = re.compile(r"\s*,").match(body, i)
            if not c:
                break
            i = c.end()
        out.setdefault(k.group(1), fields)
    return out


def _value(rest: str, strings: dict) -> tuple[str, int]:
    parts, i = [], 0
    while True:
        while i < len(rest) and rest[i] in " \t\n":
            i += 1
        if i < len(rest) and rest[i] == "{":
            v, i = group(rest, i)
        elif i < len(rest) and rest[i] == '"':
            j, depth = i + 1, 0
            while j < len(rest) and not (rest[j] == '"' and depth == 0 and rest[j - 1] != "\\"):
                depth += (rest[j] == "{") - (rest[j] == "}")
                j += 1
            v, i = rest[i + 1:j], j + 1
        else:
            mm = re.match(r"[^,#}\s]*", rest[i:])
            word = mm.group(0)
            v, i = strings.get(word.lower(), word), i + len(word)
        parts.append(v)
        j = i
        while j < len(rest) and rest[j] in " \t\n":
            j += 1
        if j < len(rest) and rest[j] == "#":
            i = j + 1
            continue
        return "".join(parts), i


def people(value: str) -> list[tuple[list[str], list[str]]]:
    """A BibTeX name list -> [(family words, given words)] in text form ("others" -> ([], []))."""
    out = []
    for name in re.split(r"\s+and\s+", value.strip(), flags=re.I):
        name = name.strip()
        if not name:
            continue
        if name.lower() == "others":
            out.append(([], []))
            continue
        parts = [p.strip() for p in _split_top(name, ",")]
        if len(parts) >= 2:
            family, given = parts[0], parts[-1]
        else:
            words = _split_top(name, " ")
            words = [w for w in words if w]
            if len(words) == 1 or name.startswith("{"):
                family, given = name, ""
            else:
                # "First von Last": the family name is from the first lowercase word on, else the last word
                k = next((i for i, w in enumerate(words[:-1]) if w[:1].islower()), len(words) - 1)
                family, given = " ".join(words[k:]), " ".join(words[:k])
        out.append((_words(to_text(family)), _words(to_text(given))))
    return out


def _split_top(s: str, sep: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for c in s:
        depth += (c == "{") - (c == "}")
        if c == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    out.append(cur)
    return out


# ---------------------------------------------------------------- alignment

def norm(word: str) -> str:
    w = unicodedata.normalize("NFKD", word)
    return "".join(c for c in w if c.isalnum() and not unicodedata.combining(c)).lower()


def _words(text: str) -> list[str]:
    return [n for n in (norm(w) for w in re.split(r"[\s\-\u2010-\u2015/.,:;()\[\]'\"\u2019\u201c\u201d]+", text)) if n]


def pieces(text: str) -> list[str]:
    """The word pieces of a text, cut as the labeller's tokens are ("A33" is "A" and "33")."""
    return [w for t, _, _ in tokenize(text) for w in _words(t)]


def _find(seq: list[str], pat: list[str], taken: list, prefix: bool = False) -> list[tuple[int, int]]:
    """Where ``pat`` occurs in ``seq`` on untaken positions (``prefix``: a word of seq may be an
    abbreviation, a prefix of two or more letters, of pat's word: "Phys." for "Physical")."""
    hits = []
    n = len(pat)
    for i in range(len(seq) - n + 1):
        ok = True
        for k in range(n):
            a, b = seq[i + k], pat[k]
            if taken[i + k] is not None or not (a == b or (prefix and len(a) >= 2 and b.startswith(a))):
                ok = False
                break
        if ok:
            hits.append((i, i + n))
    return hits


FIELD_LABEL = {
    "title": "title", "journal": "container", "booktitle": "container", "series": "collection",
    "volume": "volume", "number": "issue", "pages": "pages", "publisher": "publisher",
    "school": "publisher", "institution": "publisher", "organization": "publisher", "address": "location",
    "edition": "edition", "doi": "doi", "url": "url", "eprint": "arxiv", "isbn": "isbn", "issn": "note",
    "howpublished": "note", "note": "note", "type": "note",
}


def align(text: str, rec: dict) -> list[tuple[int, int, str]]:
    """Character spans [(start, end, label)] of ``text`` from the fields of its record ``rec``;
    raises Unresolved where the labelling would be a guess."""
    toks = tokenize(text)
    # word units: (normalized piece, token index); a token "end-to-end" gives three pieces
    units: list[str] = []
    unit_tok: list[int] = []
    for ti, (t, _, _) in enumerate(toks):
        for w in _words(t):
            units.append(w)
            unit_tok.append(ti)
    taken: list = [None] * len(units)

    def claim(a: int, b: int, label: str) -> None:
        for i in range(a, b):
            if taken[i] is not None and taken[i] != label:
                raise Unresolved("overlap")
            taken[i] = label

    def text_field(name: str, prefix: bool = False) -> None:
        raw = rec.get(name)
        if not raw:
            return
        unknown: set[str] = set()
        pat = pieces(to_text(raw, unknown))
        if unknown - {"relax"}:
            raise Unresolved("macro in record")
        if not pat:
            return
        hits = _find(units, pat, taken) or (_find(units, pat, taken, prefix=True) if prefix else [])
        if not hits:
            return  # the style did not print it (or printed it otherwise): its words stay unaligned, checked below
        if len(hits) > 1 and len(pat) < 3:
            raise Unresolved(f"{name} twice")
        claim(*hits[0], FIELD_LABEL[name])

    # exact identifiers first: they hold digits and dots that other fields would take
    for name in ("doi", "url", "eprint", "isbn", "issn"):
        raw = rec.get(name)
        if not raw:
            continue
        val = to_text(raw)
        if name == "doi":
            val = re.sub(r"^https?://(dx\.)?doi\.org/", "", val)
        low = text.lower()
        at = low.find(val.lower())
        if at < 0 or not val:
            continue
        span = _units_in(toks, unit_tok, at, at + len(val))
        if span is not None and all(taken[i] is not None for i in range(*span)):
            continue  # inside the DOI or URL already labelled (an arXiv id in its URL)
        if span is None:
            raise Unresolved(f"{name} cut")
        first_tok = toks[unit_tok[span[0]]][0]
        low_tok = first_tok.lower()
        claim(*span, "url" if low_tok.startswith("http") else "doi" if low_tok.startswith(("doi", "10."))
              else FIELD_LABEL[name])
    # people
    for role in ("author", "editor"):
        if rec.get(role):
            _people(units, taken, people(rec[role]), role, claim)
    if rec.get("author") and "author" not in taken:
        raise Unresolved("authors not printed")  # "---." for the entry above's authors
    for name in ("title", "booktitle", "journal", "series", "publisher", "school", "institution", "organization",
                 "address", "howpublished", "note", "type", "edition"):
        text_field(name, prefix=name in ("journal", "booktitle", "series", "publisher", "organization", "institution"))
    for name in ("volume", "number", "pages"):
        raw = rec.get(name)
        if not raw:
            continue
        pat = pieces(to_text(raw))
        if not pat:
            continue
        hits = _find(units, pat, taken)
        if not hits and name == "pages" and len(pat) == 2:
            hits = _find(units, pat[:1], taken)  # the first page only (AAS, APS)
        if len(hits) > 1:
            raise Unresolved(f"{name} twice")
        if hits:
            claim(*hits[0], FIELD_LABEL[name])
    # date: year (with natbib's letter: "2013a"), and the month beside it
    year = re.sub(r"\D", "", to_text(rec.get("year", "")))[:4]
    if year:
        ys = [i for i, u in enumerate(units) if taken[i] is None and re.fullmatch(year + r"[a-z]?", u)]
        if len(ys) > 1:
            raise Unresolved("year twice")
        if ys:
            a = b = ys[0]
            month = norm(to_text(rec.get("month", "")))[:3]

            def is_month(u: str) -> bool:
                return u[:3] == month or (month.isdigit() and u.isdigit() and int(u) == int(month))
            if month and a > 0 and taken[a - 1] is None and is_month(units[a - 1]):
                a -= 1
            elif month and a > 1 and taken[a - 2] is None and is_month(units[a - 2]) and units[a - 1].isdigit():
                a -= 2
            claim(a, b + 1, "date")
    # what stays: connective words, punctuation, one- and two-letter pieces may; other words may not
    for i, u in enumerate(units):
        if taken[i] is None and len(u) >= 3 and u not in CONNECTIVES and u[:3] not in MONTHS and not u.isdigit():
            raise Unresolved("unaligned word")
        if taken[i] is None and u.isdigit() and len(u) >= 2:
            raise Unresolved("unaligned number")
    # token labels: a token is labelled when all its pieces share one label
    labels: list = [None] * len(toks)
    for ti in range(len(toks)):
        ls = {taken[i] for i, t in enumerate(unit_tok) if t == ti}
        if len(ls) == 1:
            labels[ti] = ls.pop()
        elif len(ls) > 1 and None not in ls:
            raise Unresolved("token split")
    spans: list[tuple[int, int, str]] = []
    ti = 0
    while ti < len(toks):
        lab = labels[ti]
        if lab is None:
            ti += 1
            continue
        tj = ti
        # a run of one label, with the punctuation inside it ("Doe, J., and Roe, P.")
        while tj + 1 < len(toks) and (labels[tj + 1] == lab or (labels[tj + 1] is None and not _words(toks[tj + 1][0])
                                                                  and _next_label(labels, toks, tj + 1) == lab)):
            tj += 1
        spans.append((toks[ti][1], toks[tj][2], lab))
        ti = tj + 1
    return spans


def _next_label(labels: list, toks: list, i: int):
    while i < len(toks) and labels[i] is None and not _words(toks[i][0]):
        i += 1
    return labels[i] if i < len(toks) else None


ID_PREFIX = re.compile(r"(doi:?\s*|arxiv:\s*|https?://(dx\.)?doi\.org/|)", re.I)


def _units_in(toks: list, unit_tok: list, a: int, b: int) -> tuple[int, int] | None:
    """The word units of the tokens over characters a..b: the tokens may hold an identifier's
    prefix ("doi: 10.1/x" is one token) and a closing stop, nothing else."""
    tis = [ti for ti, (_, s, e) in enumerate(toks) if s < b and e > a]
    if not tis:
        return None
    t0, t1 = toks[tis[0]], toks[tis[-1]]
    if not ID_PREFIX.fullmatch(t0[0][:max(0, a - t0[1])]) or t1[0][max(0, b - t1[1]):] not in ("", "."):
        return None
    us = [i for i, t in enumerate(unit_tok) if t in tis]
    return (us[0], us[-1] + 1) if us else None


def _given_piece(u: str, fulls: set[str], initials: set[str]) -> bool:
    """A given name, an initial, or initials run together ("JP"; "CAL" for Coryn A. L., as ARA
    prints them); never the "et" of "et al."."""
    return u in fulls or (len(u) <= 4 and u not in ("et", "al", "and") and all(c in initials for c in u))


def _people(units: list[str], taken: list, persons: list, role: str, claim) -> None:
    """The name list: each person's family name, found in order, with its given names or initials
    beside it; "et al." where the list is cut. One span from the first to the last name."""
    first = last = None
    at = 0
    for family, given in persons:
        if not family:  # "and others"
            break
        hit = None
        for i in range(at, len(units) - len(family) + 1):
            if units[i:i + len(family)] == family and all(t is None for t in taken[i:i + len(family)]):
                hit = i
                break
        if hit is None or (first is not None and hit - last > 2 + 2 * len(given) + 2):
            break
        a, b = hit, hit + len(family)
        initials = {g[0] for g in given}
        fulls = set(given)

        while a > 0 and taken[a - 1] is None and _given_piece(units[a - 1], fulls, initials):
            a -= 1
        while b < len(units) and taken[b] is None and _given_piece(units[b], fulls, initials):
            b += 1
        if first is None:
            first = a
        last = b
        at = b
    if first is None:
        return
    if last + 1 < len(units) and units[last] == "et" and units[last + 1] == "al":
        last += 2
    claim(first, last, role)


# ---------------------------------------------------------------- .bbl

def bibitems(bbl: str) -> list[tuple[str, str]]:
    """(key, LaTeX) of each \\bibitem of a .bbl (the optional label dropped)."""
    body = bbl.split("\\end{thebibliography}")[0]
    out = []
    parts = re.split(r"\\bibitem\s*", body)[1:]
    for p in parts:
        i = 0
        if p.startswith("["):
            depth = 0
            for j, c in enumerate(p):
                depth += c in "[{"
                depth -= c in "]}"
                if depth == 0:
                    i = j + 1
                    break
        while i < len(p) and p[i] in " \n":
            i += 1
        if i >= len(p) or p[i] != "{":
            continue
        key, j = group(p, i)
        out.append((key.strip(), p[j:]))
    return out


def run_bibtex(tex: str, bibs: dict[str, str], bsts: dict[str, str], style: str) -> str:
    """The .bbl BibTeX writes for a paper: the keys its .tex cites, in its style (the one its
    \\bibliographystyle names, or its class sets: aastex's aasjournal, mnras, revtex's apsrev4-2)."""
    keys = []
    for m in re.finditer(r"\\(?:no)?cite[a-zA-Z]*\*?\s*(?:\[[^\]]*\]\s*){0,2}\{([^}]*)\}", tex):
        keys += [k.strip() for k in m.group(1).split(",") if k.strip()]
    with tempfile.TemporaryDirectory() as d:
        for name, text in {**bibs, **bsts}.items():
            Path(d, name).write_text(text, encoding="utf-8")
        aux = "".join(f"\\citation{{{k}}}\n" for k in dict.fromkeys(keys))
        aux += f"\\bibstyle{{{style}}}\n\\bibdata{{{','.join(Path(b).stem for b in bibs)}}}\n"
        Path(d, "p.aux").write_text(aux, encoding="utf-8")
        subprocess.run(["bibtex", "-terse", "p"], cwd=d, capture_output=True, timeout=60)
        out = Path(d, "p.bbl")
        return out.read_text(encoding="utf-8", errors="replace") if out.exists() else ""


# ---------------------------------------------------------------- sources

class Repo:
    def __init__(self, repo: str, mirror: Path, commit: str):
        base = mirror / repo.replace("/", "+") / "repo"
        self.dir = base / ".git" if (base / ".git").is_dir() else base
        self.commit = commit

    def read(self, path: str) -> str:
        return subprocess.run(["git", "--git-dir", str(self.dir), "show", f"{self.commit}:{path}"],
                              capture_output=True, check=True).stdout.decode("utf-8", "replace")


def excluded_repos() -> set[str]:
    text = "".join(p.read_text(encoding="utf-8") for p in EXCLUDED_LISTS if p.exists())
    found = set(re.findall(r"github\.com/([\w.-]+/[\w.-]+)", text)) | set(re.findall(r'"repo":\s*"([^"]+)"', text))
    return {r.lower().removesuffix(".git") for r in found}


def strings_of(src: dict, mirror: Path, stats: dict) -> list[str]:
    """One source's labelled strings as AnyStyle <sequence> elements."""
    git = Repo(src["repo"], mirror, src["commit"])
    out = []
    for paper in src["papers"]:
        try:
            bibs = {Path(p).name: git.read(p) for p in paper["bib"]}
            bbl = git.read(paper["bbl"]) if paper.get("bbl") else None
            tex = None if bbl is not None else git.read(paper["tex"])
            bsts = {Path(p).name: git.read(p) for p in paper.get("bst", [])}
        except subprocess.CalledProcessError:
            # the snapshot lists the file but lacks its bytes (fetch leaves the largest out)
            stats["papers_absent"] = stats.get("papers_absent", 0) + 1
            continue
        recs: dict[str, dict] = {}
        for text in bibs.values():
            for k, v in bib_records(text).items():
                recs.setdefault(k, v)
        if bbl is None:
            bbl = run_bibtex(re.sub(r"(?<!\\)%[^\n]*", "", tex), bibs, bsts, paper["style"])
        for key, latex in bibitems(bbl):
            stats["entries"] += 1
            rec = recs.get(key)
            if rec is None:
                stats["dropped"]["no record"] = stats["dropped"].get("no record", 0) + 1
                continue
            unknown: set[str] = set()
            text = to_text(latex, unknown)
            try:
                if unknown:
                    raise Unresolved("macro in entry")
                if len(text) < 20:
                    raise Unresolved("short")
                spans = align(text, rec)
                if not any(lab in ("title", "container") for _, _, lab in spans):
                    raise Unresolved("no title nor container")
            except Unresolved as e:
                r = str(e)
                if DEBUG:
                    print(f"DROP {r}: {text}", file=sys.stderr)
                stats["dropped"][r] = stats["dropped"].get(r, 0) + 1
                continue
            out.append(sequence(text, spans))
            stats["kept"] += 1
    return out


ANYSTYLE_TAG = {"author": "author", "editor": "editor", "title": "title", "container": "container-title",
                "collection": "collection-title", "volume": "volume", "issue": "issue", "pages": "pages",
                "date": "date", "publisher": "publisher", "location": "location", "edition": "edition",
                "doi": "doi", "url": "url", "arxiv": "note", "isbn": "isbn", "note": "note"}


def sequence(text: str, spans: list) -> str:
    """A <sequence> in AnyStyle's tags whose children, joined as they are, give ``text`` exactly:
    the text between fields (its spaces too) in <ignore> (no label), arXiv ids in <arxiv>.
    Read by ``datasets.read_bbl``, which adds nothing between children (read_anystyle puts a
    space between them, which would print "Doe , Title ( 2016 )")."""
    parts, at = [], 0
    for s, e, lab in spans:
        if text[at:s]:
            parts.append(f"<ignore>{escape(text[at:s])}</ignore>")
        tag = "arxiv" if lab == "arxiv" else ANYSTYLE_TAG[lab]
        parts.append(f"<{tag}>{escape(text[s:e])}</{tag}>")
        at = e
    if text[at:]:
        parts.append(f"<ignore>{escape(text[at:])}</ignore>")
    return "<sequence>" + "".join(parts) + "</sequence>"


DEBUG = False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    ap.add_argument("-o", "--output", type=Path, required=True)
    ap.add_argument("--only", help="one repository (owner/name)")
    ap.add_argument("--debug", action="store_true", help="print each dropped string and why")
    args = ap.parse_args(argv)
    global DEBUG
    DEBUG = args.debug
    if shutil.which("bibtex") is None:
        print("bibtex not found (TeX Live's bibtex makes the .bbl of sources without one)", file=sys.stderr)
    sources = json.loads(args.manifest.read_text(encoding="utf-8"))["sources"]
    banned = excluded_repos()
    args.output.mkdir(parents=True, exist_ok=True)
    report = {"sources": [], "kept": 0, "entries": 0, "dropped": {}}
    for src in sources:
        if args.only and src["repo"] != args.only:
            continue
        if src["repo"].lower() in banned:
            raise SystemExit(f"{src['repo']} is in a held-out or test manifest")
        if src["licence"] not in LICENCES:
            raise SystemExit(f"{src['repo']}: licence {src['licence']} is not one we may train a shipped model on")
        stats = {"repo": src["repo"], "entries": 0, "kept": 0, "dropped": {}}
        seqs = strings_of(src, args.mirror, stats)
        name = "bbl-" + src["repo"].replace("/", "+") + ".xml"
        (args.output / name).write_text('<?xml version="1.0" encoding="UTF-8"?>\n<dataset>\n' +
                                        "\n".join(seqs) + ("\n" if seqs else "") + "</dataset>\n", encoding="utf-8")
        report["sources"].append(stats)
        report["kept"] += stats["kept"]
        report["entries"] += stats["entries"]
        for r, n in stats["dropped"].items():
            report["dropped"][r] = report["dropped"].get(r, 0) + n
    (args.output / "stats.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({k: report[k] for k in ("kept", "entries", "dropped")}, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
