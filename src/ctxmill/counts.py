"""The counts a compile reports, computed once from the Document.

The CLI's summary line and --json, the web job's summary, metrics.json and qa.md all print
these numbers; each used to count for itself (the web summary's "citations" was the linked
mentions only, while QA listed every callout that resolved to nothing), so they disagreed.
"""

from __future__ import annotations

from typing import Any

from ctxmill.model import BlockKind, Document


def counts(doc: Document) -> dict[str, Any]:
    """{pages, sections, figures, algorithms, listings, tables, footnotes, references, citations,
    citations_linked, citations_unresolved, crossrefs, crossrefs_unresolved, chunks, qa_score,
    qa_errors, qa_warnings, qa_notes}.

    `figures` counts pictures; an "Algorithm 1:" or "Listing 2:" float (a figure block with
    attrs["float"]) is counted in `algorithms` or `listings` instead.

    `citations` is every citation callout found in the text, linked or not (what QA's
    "N citation callouts exist" counts); `citations_linked` those linked to a reference (one
    per cited work of an author-year callout, as in citations.json's mentions). The qa_*
    counts are the checks listed in qa.json by severity."""
    cit_unresolved = sum(1 for u in doc.unresolved if u.kind == "citation")
    ref_unresolved = sum(1 for u in doc.unresolved if u.kind == "crossref")
    sev = [c.severity for c in doc.qa.checks]
    # a figure block is a picture, or an "Algorithm 1:" / "Listing 2:" float (attrs["float"]):
    # counted apart, so "figures" is the pictures a reader finds
    floats = doc.blocks_of(BlockKind.FIGURE)
    return {
        "pages": doc.pages,
        "sections": len(doc.sections),
        "figures": sum(1 for b in floats if not b.attrs.get("float")),
        "algorithms": sum(1 for b in floats if b.attrs.get("float") == "algorithm"),
        "listings": sum(1 for b in floats if b.attrs.get("float") == "listing"),
        "tables": len(doc.blocks_of(BlockKind.TABLE)),
        "footnotes": len(doc.blocks_of(BlockKind.FOOTNOTE)),
        "references": len(doc.references),
        "citations": len(doc.mentions) + cit_unresolved,
        "citations_linked": len(doc.mentions),
        "citations_unresolved": cit_unresolved,
        "crossrefs": len(doc.crossrefs) + ref_unresolved,
        "crossrefs_unresolved": ref_unresolved,
        "chunks": len(doc.chunks),
        "qa_score": doc.qa.score,
        "qa_errors": sev.count("error"),
        "qa_warnings": sev.count("warning"),
        "qa_notes": sev.count("info"),
    }


def summary_line(doc: Document, seconds: float, name: str) -> str:
    """The CLI's one-line summary, from counts()."""
    c = counts(doc)
    cit = f"{c['citations']} citations" + (f" ({c['citations_unresolved']} unresolved)" if c["citations_unresolved"] else "")
    return (f"{doc.metadata.title or name}: {c['pages']} pages, {c['sections']} sections, "
            f"{c['references']} references, {cit}, {c['chunks']} chunks, QA {c['qa_score']}/100 "
            f"({c['qa_errors']} errors, {c['qa_warnings']} warnings) in {seconds:.2f}s")
