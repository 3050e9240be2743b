"""references.csl.json: the bibliography as CSL-JSON (the input of citeproc, Pandoc, Zotero).

One item per reference, in bibliography order, ``id`` the reference id of references.json
("ref-12"), so a citation in citations.json finds its item. Types follow the CSL 1.0.2
vocabulary; names are ``{family, given}`` or ``{literal}`` for a collaboration.
"""

from __future__ import annotations

import re
from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document, Reference
from ctxmill.render import jsonfmt, textfile
from ctxmill.render.bare import is_bare

_TYPES = {"article": "article-journal", "inproceedings": "paper-conference", "incollection": "chapter",
          "book": "book", "phdthesis": "thesis", "mastersthesis": "thesis", "techreport": "report",
          "misc": "document"}


def _names(people: list[dict]) -> list[dict]:
    return [{k: v for k, v in p.items() if k in ("family", "given", "literal") and v} for p in people]


def item(ref: Reference) -> dict:
    kind = _TYPES.get(ref.type or "misc", "document")
    if kind == "document" and ref.arxiv_id:
        kind = "article"  # a preprint
    it: dict = {"id": ref.id, "type": kind}
    if ref.people:
        it["author"] = _names(ref.people)
    if ref.editors:
        it["editor"] = _names(ref.editors)
    it["title"] = ref.title or ref.raw
    pairs = (("container-title", ref.container), ("collection-title", ref.collection), ("volume", ref.volume),
             ("issue", ref.issue), ("page", ref.pages), ("publisher", ref.publisher),
             ("publisher-place", ref.location), ("edition", ref.edition), ("DOI", ref.doi), ("URL", ref.url),
             ("ISBN", ref.isbn), ("note", ref.note))
    it.update({k: v for k, v in pairs if v})
    if ref.year:
        it["issued"] = {"date-parts": [[int(ref.year[:4])]]}
        if len(ref.year) > 4:
            it["year-suffix"] = ref.year[4:]
    if ref.arxiv_id:
        it["number"] = f"arXiv:{ref.arxiv_id}"
        it.setdefault("URL", f"https://arxiv.org/abs/{ref.arxiv_id}")
    if it.get("page"):
        it["page"] = re.sub(r"-+", "-", it["page"])
    return it


def csl_items(doc: Document) -> list[dict]:
    return [item(r) for r in doc.references]


def _bare_template() -> tuple[str, str, str]:
    """The item of a bare reference (render.bare: ``{id, type: document, title: raw}``) as jsonfmt
    writes it inside the list, in three pieces around its id and raw text."""
    marks = ("\x00id", "\x00raw")
    text = jsonfmt._value(item(Reference(id=marks[0], raw=marks[1])), "  ", "  ")
    head, text = text.split(jsonfmt.encode_basestring(marks[0]), 1)
    mid, tail = text.split(jsonfmt.encode_basestring(marks[1]), 1)
    return head, mid, tail


_BARE: tuple[str, str, str] | None = None


def csl_text(doc: Document) -> str:
    """``jsonfmt.dumps(csl_items(doc), indent=2)``, a bare reference's item from a template."""
    return textfile.text(_csl_segments(doc))


def _csl_segments(doc: Document) -> list[textfile.Segment]:
    """:func:`csl_text` as segments: the items' texts, not joined."""
    global _BARE
    if not doc.references:
        return ["[]"]
    if _BARE is None:
        _BARE = _bare_template()
    a, b, c = _BARE
    enc = jsonfmt.encode_basestring
    out = [a + enc(r.id) + b + enc(r.raw) + c if is_bare(r) else jsonfmt._value(item(r), "  ", "  ")
           for r in doc.references]
    return ["[\n  ", (out, ",\n  "), "\n]"]


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    path = Path(folder) / "references.csl.json"
    try:
        segments = _csl_segments(doc)
    except jsonfmt._Other:  # a value jsonfmt leaves to the standard library: its text and errors
        segments = [jsonfmt.dumps(csl_items(doc), indent=2)]
    textfile.write(path, [*segments, "\n"])  # (from its pieces: no copy of a few MB)
    return ["references.csl.json"]
