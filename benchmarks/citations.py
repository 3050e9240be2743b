"""Accuracy of references, citation callouts and cross-references on the dive paper; prints JSON.

    .venv/bin/python benchmarks/citations.py [--shared ../shared]

Ground truth: ../shared/corpus/dive-into-claude-code/truth.json (109 bibliography entries,
182 callouts with the reference key their hyperref link points at) and the PDF's own link
annotations for cross-references (their named destinations, e.g. ``subsection.2.4`` or
``table.caption.16``, read from the PDF's compressed object streams, and the page each
destination is on). A section cross-reference is right when its target section has the number
the destination names; a figure/table/footnote one when its target is on the destination page. Our compile runs with ``ignore_pdf_links=True``: text only.
Title/year labels for the 109 entries: tests/data/dive_reference_labels.json (hand-checked).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import re
import sys
import time
import unicodedata
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ctxmill.compile.options import CompileOptions  # noqa: E402
from ctxmill.compile.pipeline import compile_document  # noqa: E402


def nk(text: str) -> str:
    """A matching key: letters and digits, accents folded away, however each side encodes them
    (the truth's text layer has `V˜u` where the compiled text composes `Vũ`)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def fold(text: str | None) -> str | None:
    """Typographic quotes folded (the normalise stage turns ’ into ')."""
    if text is None:
        return None
    return text.translate(str.maketrans("’‘“”", "''\"\""))


def eval_references(doc, truth, labels) -> dict:
    by_prefix = {nk(r["text"])[:40]: r["key"] for r in truth["references"]}
    key_of, title_year_ok, fields = {}, 0, {"title": 0, "year": 0}
    for ref in doc.references:
        key = by_prefix.get(nk(ref.raw)[:40])
        if key is None:
            continue
        key_of[ref.id] = key
        want = labels[key]
        title_ok = fold(ref.title) == fold(want["title"])
        fields["title"] += title_ok
        fields["year"] += ref.year == want["year"]
        title_year_ok += title_ok and ref.year == want["year"]
    n = len(truth["references"])
    return key_of, {
        "truth": n, "found": len(doc.references), "matched_to_truth": len(key_of),
        "title_and_year_correct": title_year_ok, "title_and_year_rate": round(title_year_ok / n, 4),
        "title_correct": fields["title"], "year_correct": fields["year"],
    }


def eval_callouts(doc, truth, key_of) -> dict:
    callouts = [dict(c, used=False) for c in truth["callouts"]]
    matched = correct = 0
    extra = []
    for m in doc.mentions:
        keys = {key_of.get(i, i) for i in m.reference_ids}
        near = [c for c in callouts if not c["used"] and abs(c["page"] - m.page) <= 1]
        best = next((c for c in near if set(c["keys"]) == keys), None)
        if best is None:  # the same callout text linked elsewhere counts against precision
            y = re.search(r"\d{4}[a-z]?", m.text)
            w = nk(m.text.split()[0]) if m.text.split() else ""
            best = next((c for c in near if y and y.group(0) in c["text"] and w and w in nk(c["text"])), None)
        if best is None:
            extra.append({"page": m.page, "text": m.text})
            continue
        best["used"] = True
        matched += 1
        correct += set(best["keys"]) == keys
    missed = [{"page": c["page"], "text": c["text"]} for c in callouts if not c["used"]]
    return {
        "truth": len(callouts), "mentions": len(doc.mentions), "matched": matched,
        "recall": round(sum(c["used"] for c in callouts) / len(callouts), 4),
        "linking_precision": round(correct / max(1, matched), 4),
        "mentions_not_in_truth": extra, "missed": missed,
        "unresolved_citations": [u.text for u in doc.unresolved if u.kind == "citation"],
    }


def pdf_internal_links(pdf_path: Path) -> list[dict]:
    """Every GoTo link: page, anchor text, named destination and destination page."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as c

    raw = pdf_path.read_bytes()
    names: dict[tuple, str] = {}
    for m in re.finditer(rb"stream\r?\n", raw):
        try:
            dec = zlib.decompressobj().decompress(raw[m.end() : m.end() + 4_000_000])
        except zlib.error:
            continue
        for a in re.finditer(rb"<<\s*/A\s*<<\s*/D\s*\(([^)]*)\)\s*/S\s*/GoTo\s*>>.*?/Rect\s*\[([^\]]+)\]", dec):
            rect = tuple(round(float(x), 1) for x in a.group(2).split())
            names[rect] = a.group(1).decode("latin-1")
    pdf = pdfium.PdfDocument(str(pdf_path))
    out = []
    textpages: dict[int, object] = {}
    for pi, box, dest in link_annotations(pdf):
        name = names.get(tuple(round(v, 1) for v in box))
        if not name:
            continue
        dpage = c.FPDFDest_GetDestPageIndex(pdf.raw, dest) + 1 if dest else None
        if pi not in textpages:
            textpages[pi] = pdf[pi].get_textpage()
        text = textpages[pi].get_text_bounded(*box).strip()
        out.append({"page": pi + 1, "name": name, "text": text, "dest_page": dpage})
    return out


def link_annotations(pdf):
    """Every link annotation of a pypdfium2 document, page by page: (page index, its box (left,
    bottom, right, top) as pdfium reads it, its destination: the link's own, else its GoTo action's,
    else None). Each annotation is closed when the loop moves on."""
    import pypdfium2.raw as c

    r = c.FS_RECTF()
    for pi in range(len(pdf)):
        page = pdf[pi]
        for i in range(c.FPDFPage_GetAnnotCount(page.raw)):
            annot = c.FPDFPage_GetAnnot(page.raw, i)
            try:
                if c.FPDFAnnot_GetSubtype(annot) != c.FPDF_ANNOT_LINK or not c.FPDFAnnot_GetRect(annot, ctypes.byref(r)):
                    continue
                link = c.FPDFAnnot_GetLink(annot)
                dest = c.FPDFLink_GetDest(pdf.raw, link)
                if not dest:
                    action = c.FPDFLink_GetAction(link)
                    dest = c.FPDFAction_GetDest(pdf.raw, action) if action else None
                yield pi, (r.left, r.bottom, r.right, r.top), dest or None
            finally:
                c.FPDFPage_CloseAnnot(annot)


_FAMILY = {"section": "section", "subsection": "section", "subsubsection": "section", "appendix": "section",
           "table": "table", "figure": "figure", "Hfootnote": "footnote"}


def _number(text: str) -> str | None:
    m = re.findall(r"[A-Z]?\d+(?:\.\d+)*|\b[A-Z]\b", text)
    return m[-1] if m else None


def eval_crossrefs(doc, links) -> dict:
    target_page = {s.id: s.page_start for s in doc.sections}
    section_number = {s.id: s.number for s in doc.sections}
    target_page.update({b.id: b.page for b in doc.blocks})
    kinds = {}
    for lk in links:
        fam = _FAMILY.get(lk["name"].split(".")[0])
        if fam:
            kinds[lk["name"].split(".")[0]] = kinds.get(lk["name"].split(".")[0], 0) + 1
    mine = [dict(text=x.text, kind=x.kind, page=x.page, target=x.target_id, used=False) for x in doc.crossrefs]
    found = right = total = 0
    misses = []
    for lk in links:
        fam = _FAMILY.get(lk["name"].split(".")[0])
        if not fam:
            continue
        total += 1
        num = _number(lk["text"])
        best = None
        for x in mine:
            if x["used"] or abs(x["page"] - lk["page"]) > 1:
                continue
            xf = "section" if x["kind"] in ("section", "appendix") else x["kind"]
            if xf == fam and _number(x["text"]) == num:
                best = x
                if x["page"] == lk["page"]:
                    break
        if best is None:
            misses.append({"page": lk["page"], "text": lk["text"], "dest": lk["name"]})
            continue
        best["used"] = True
        found += 1
        # Sections: the destination name carries the number ("subsection.8.3", "appendix.B").
        # Figures/tables/footnotes: their names carry counters, so compare the page instead.
        dest_num = lk["name"].split(".", 1)[1] if "." in lk["name"] else None
        if fam == "section":
            ok = section_number.get(best["target"]) == dest_num
        else:
            ok = target_page.get(best["target"]) == lk["dest_page"]
        right += ok
        if not ok:
            misses.append({"page": lk["page"], "text": lk["text"], "dest": lk["name"], "wrong_target": best["target"]})
    return {
        "truth_links": total, "truth_by_kind": kinds, "crossrefs_found_by_us": len(doc.crossrefs),
        "found": found, "found_and_right_target": right, "rate": round(right / max(1, total), 4),
        "rate_of_235_in_truth_json": round(right / 235, 4),
        "unmatched_crossrefs_of_ours": sum(1 for x in mine if not x["used"]),
        "misses": misses[:40],
        "ours_unmatched": [{"page": x["page"], "text": x["text"], "target": x["target"]} for x in mine if not x["used"]],
    }


def eval_ocr(corpus: Path, truth) -> dict:
    doc = compile_document(corpus / "ocr-pages-1-16.txt", CompileOptions(ignore_pdf_links=True))
    ids = {c.id for c in doc.qa.checks}
    unresolved = [u for u in doc.unresolved if u.kind == "citation"]
    truth_pages = [c for c in truth["callouts"] if c["page"] <= 16]
    found = 0
    pool = [nk(u.text) for u in unresolved]
    for c in truth_pages:
        t = nk(c["text"])
        hit = next((i for i, p in enumerate(pool) if p and (p in t or t in p)), None)
        if hit is not None:
            pool[hit] = ""
            found += 1
    return {
        "pages": doc.pages, "declared_pages": doc.stream.declared_pages,
        "qa_flags_pages_missing": "pages_missing" in ids, "qa_flags_no_reference_list": "no_reference_list" in ids,
        "qa_score": doc.qa.score, "references": len(doc.references),
        "callouts_unresolved": len(unresolved),
        "unresolved_reasons": sorted({u.reason for u in unresolved}),
        "truth_callouts_on_pages_1_16": len(truth_pages), "of_them_listed_unresolved": found,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(REPO.parent / "shared"))
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    corpus = Path(args.shared) / "corpus" / "dive-into-claude-code"
    truth = json.loads((corpus / "truth.json").read_text())
    labels = json.loads((REPO / "tests" / "data" / "dive_reference_labels.json").read_text())
    t0 = time.perf_counter()
    doc = compile_document(corpus / "paper.pdf", CompileOptions(ignore_pdf_links=True))
    seconds = time.perf_counter() - t0
    key_of, refs = eval_references(doc, truth, labels)
    calls = eval_callouts(doc, truth, key_of)
    xrefs = eval_crossrefs(doc, pdf_internal_links(corpus / "paper.pdf"))
    out = {
        "input": str(corpus / "paper.pdf"), "ignore_pdf_links": True, "compile_seconds": round(seconds, 3),
        "stage_seconds": {k: round(v, 4) for k, v in doc.metrics.stages.items()
                          if k in ("references", "chunks", "citations", "quality")},
        "references": refs, "callouts": calls, "crossrefs": xrefs, "ocr": eval_ocr(corpus, truth),
    }
    if not args.verbose:
        for key in ("mentions_not_in_truth", "missed", "unresolved_citations"):
            out["callouts"][key] = out["callouts"][key][:10]
        out["crossrefs"]["misses"] = out["crossrefs"]["misses"][:10]
        out["crossrefs"]["ours_unmatched"] = out["crossrefs"]["ours_unmatched"][:10]
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
