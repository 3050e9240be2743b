"""metadata.json and sections.json (contracts in DESIGN.md)."""

from __future__ import annotations

from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document
from ctxmill.render import jsonfmt


def metadata_dict(doc: Document) -> dict:
    md = doc.metadata
    authors = []
    for a in md.authors:
        d = {"name": a.name, "affiliations": list(a.affiliations)}
        if a.email:
            d["email"] = a.email
        authors.append(d)
    out = {
        "title": md.title,
        "authors": authors,
        "affiliations": list(md.affiliations),
        "abstract": md.abstract,
        "arxiv_id": md.arxiv_id,
        "categories": list(md.categories),
        "date": md.date,
        "doi": md.doi,
        "urls": list(md.urls),
        "emails": list(md.emails),
        "pages": md.pages,
        "source": dict(md.source),
    }
    return out


def sections_list(doc: Document) -> list[dict]:
    out = []
    for s in doc.sections:
        d = {"id": s.id, "level": s.level}
        if s.number:
            d["number"] = s.number
        d.update({"title": s.title, "page_start": s.page_start, "page_end": s.page_end})
        if s.parent_id:
            d["parent_id"] = s.parent_id
        out.append(d)
    return out


def _dump(obj, path: Path) -> None:
    path.write_text(jsonfmt.dumps(obj, indent=2) + "\n", encoding="utf-8")


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    folder = Path(folder)
    _dump(metadata_dict(doc), folder / "metadata.json")
    _dump(sections_list(doc), folder / "sections.json")
    return ["metadata.json", "sections.json"]
