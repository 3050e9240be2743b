"""references.bib: the bibliography as BibTeX, one entry per reference, in bibliography order.

Read from the fields the reference labeller filled in (compile/refparse). Keys are the first
author's family name, the year and the first title word ("vaswani2017attention"), made
unique with a letter. Values are brace-delimited with TeX's special characters escaped, so
the file loads in BibTeX, biber and bibtexparser; non-ASCII text stays UTF-8 (biber and
bibtex8 read it; classic bibtex passes it through).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document, Reference
from ctxmill.render import textfile
from ctxmill.render.bare import is_bare

_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$",
            "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_STOP = frozenset("a an the on of in for and to with from towards toward".split())


_SPECIAL_RE = re.compile("[" + re.escape("".join(_SPECIAL)) + "]")


def _special(m: re.Match) -> str:
    return _SPECIAL[m.group()]


def escape(text: str) -> str:
    return _SPECIAL_RE.sub(_special, text)


_NOT_KEY = re.compile(r"[^a-z0-9]")
_WORD = re.compile(r"[^\W_]+")


def _ascii(word: str) -> str:
    w = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()
    return _NOT_KEY.sub("", w.lower())


def cite_key(ref: Reference) -> str:
    fam = ""
    if ref.people:
        p = ref.people[0]
        fam = p.get("family") or p.get("literal") or ""
        fam = fam.split()[-1] if fam.split() else ""
    # (patterns compiled once; a list of 16,000 entries asks for 16,000 keys)
    words = [w for w in _WORD.findall(ref.title) if w.lower() not in _STOP] if ref.title else ()
    key = (_ascii(fam) if fam else "") + (ref.year[:4] if ref.year else "") + (_ascii(words[0]) if words else "")
    return key or ref.id.replace("-", "")


def _names(people: list[dict]) -> str:
    out = []
    for p in people:
        if "literal" in p:
            out.append("{" + escape(p["literal"]) + "}")  # braces: one name, not "Collaboration, ATLAS"
        elif p.get("given"):
            out.append(f"{escape(p['family'])}, {escape(p['given'])}")
        else:
            out.append(escape(p.get("family", "")))
    return " and ".join(out)


def entry(ref: Reference, key: str) -> str:
    kind = ref.type or "misc"
    f: list[tuple[str, str]] = []
    if ref.people:
        names = _names(ref.people)
        if ref.authors and ref.authors[-1] == "et al.":
            names += " and others"  # BibTeX's own "et al."
        f.append(("author", names))
    if ref.editors:
        f.append(("editor", _names(ref.editors)))
    if ref.title:
        f.append(("title", escape(ref.title)))
    if ref.container:
        f.append(("journal" if kind == "article" else "booktitle" if kind in ("inproceedings", "incollection")
                  else "howpublished", escape(ref.container)))
    if ref.collection:
        f.append(("series", escape(ref.collection)))
    for name, value in (("volume", ref.volume), ("number", ref.issue), ("edition", ref.edition)):
        if value:
            f.append((name, escape(value)))
    if ref.pages:
        f.append(("pages", escape(ref.pages.replace("-", "--"))))
    if ref.year:
        f.append(("year", ref.year[:4]))
    if ref.publisher:
        f.append(("school" if kind.endswith("thesis") else "institution" if kind == "techreport" else "publisher",
                  escape(ref.publisher)))
    if ref.location:
        f.append(("address", escape(ref.location)))
    if ref.doi:
        f.append(("doi", escape(ref.doi)))
    if ref.arxiv_id:
        f.extend([("eprint", escape(ref.arxiv_id)), ("archiveprefix", "arXiv")])
    if ref.url:
        f.append(("url", escape(ref.url)))
    if ref.isbn:
        f.append(("isbn", escape(ref.isbn)))
    if ref.note:
        f.append(("note", escape(ref.note)))
    if not ref.title and not ref.container:
        f.append(("note", escape(ref.raw)) if not ref.note else ("howpublished", escape(ref.raw)))
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in f)
    return f"@{kind}{{{key},\n{body}\n}}\n"


def bibtex(doc: Document) -> str:
    return textfile.text(_segments(doc))


def _segments(doc: Document) -> list[textfile.Segment]:
    """:func:`bibtex` as segments: its entries, not joined."""
    seen: dict[str, int] = {}
    out = []
    for ref in doc.references:
        bare = is_bare(ref)  # (render.bare: key from the id, the raw text as the note, a misc)
        key = ref.id.replace("-", "") if bare else cite_key(ref)
        n = seen.get(key, 0)
        seen[key] = n + 1
        if n:
            key = f"{key}{chr(ord('a') + n - 1) if n <= 26 else n}"
        out.append(f"@misc{{{key},\n  note = {{{escape(ref.raw)}}}\n}}\n" if bare else entry(ref, key))
    return [(out, "\n")]


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    textfile.write(Path(folder) / "references.bib", _segments(doc))
    return ["references.bib"]
