"""Conservation of text: does every word on every page reach document.md (or removed.json)?

    .venv/bin/python benchmarks/conservation.py            # corpus papers, the sample, generated pages
    .venv/bin/python benchmarks/conservation.py --only gen # only the generated one-page documents
    .venv/bin/python benchmarks/conservation.py --keep DIR # keep the output folders

For every page of every PDF in ../shared/corpus (papers/*/paper.pdf and the sample) and of a
generated set (tests/_pagegen.py: a small scan with an invisible OCR layer, notes and a poster
whose text sits over drawings and pictures, scanned letters, a typed letter, an invoice, a
statement, a stamped page, A6 and 200-inch text pages, an A0 scan, and a page run through
OCRmyPDF when the ``ocrmypdf`` command is installed), each PDF is compiled with the ``ctxmill
compile`` command and scored here, independently of the compiler's own accounting:

- words in: the page's text as pdfium extracts it (visible and invisible text alike); for a
  page without a text layer, the words OCR read (from the compile's page stream, bundle
  source.txt), since there is no other text to hold it to;
- a word is kept when it is in document.md (one pool for the document, used up page by page),
  or accounted for when it is in removed.json for that page;
- ``share`` = (kept + accounted) / in, per page; ``order`` = share of the page's within-line word
  pairs that stay neighbours in document.md or removed.json (reading order inside lines).

Prints one JSON object: means, the minimum page, pages under 0.90, empty pages (>= 50 characters
in, nothing out), per document rows, and the compiler's self-reported share beside ours.
Goal (issue 21): mean >= 0.98, no page < 0.90, no page empty.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
import zipfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
CORPUS = REPO.parent / "shared" / "corpus"
CTXMILL = Path(sys.executable).with_name("ctxmill")
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", text).lower())


def page_texts(pdf_path: Path) -> list[str]:
    """Each page's text as pdfium extracts it, line ends joined where a word was hyphenated."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(pdf_path))
    out = []
    try:
        for page in pdf:
            tp = page.get_textpage()
            out.append(tp.get_text_range())
            tp.close()
            page.close()
    finally:
        pdf.close()
    return out


def page_tokens(text: str) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
    """(words, hyphen pairs broken at a line end, within-line neighbour pairs)."""
    ws: list[str] = []
    pairs: list[tuple[str, str]] = []
    bigrams: list[tuple[str, str]] = []
    carry = None
    # pdfium writes a hyphen that breaks a word at a line end as U+FFFE (or 0x02), often with
    # no line break after it (a review copy's line number follows): it ends the line
    text = re.sub("[\ufffe\x02]", "-\n", text)
    for line in re.split(r"\r\n|\n|\r", text):
        lw = words(line)
        bigrams += list(zip(lw, lw[1:], strict=False))
        if carry is not None and lw:
            pairs.append((carry, lw[0]))
            lw = lw[1:]
        carry = None
        if lw and re.search(r"\w[-\u2010\u00ad\ufffe\x02]\s*$", line):
            carry = lw.pop()
        ws += lw
    if carry is not None:
        ws.append(carry)
    return ws, pairs, bigrams


ALIASES = {"fig": "figure", "figs": "figures", "tab": "table", "eq": "equation", "sec": "section"}


def score_doc(pages_in: list[str], md: str, removed: list[dict], chunks: list[dict] | None = None) -> list[dict]:
    """Per page: words in, kept (in document.md), accounted (in removed.json), order.

    A word is looked up first in the document.md text of the chunks that cover the page (or
    a neighbour; chunks.jsonl gives pages and character spans), then anywhere in document.md
    that is still unused, so a word lost on one page is not charged to a later page that
    shares it. Labels the renderer spells out ("Fig." -> "Figure") count as kept."""
    pool = Counter(words(md))
    local: dict[int, Counter] = {}
    for c in chunks or []:
        cw = Counter(words(md[c["char_span"][0]:c["char_span"][1]]))
        for p in range(c["pages"][0] - 1, c["pages"][1] + 2):
            local.setdefault(p, Counter()).update(cw)
    md_w = words(md)
    adj = set(zip(md_w, md_w[1:], strict=False))
    rem_by_page: dict[int, Counter] = {}
    for r in removed:
        rw = words(r["text"])
        rem_by_page.setdefault(r["page"], Counter()).update(rw)
        adj |= set(zip(rw, rw[1:], strict=False))
    rows = []
    for i, text in enumerate(pages_in, 1):
        ws, pairs, bigrams = page_tokens(text)
        rem = rem_by_page.get(i, Counter()) + rem_by_page.get(i - 1, Counter()) + rem_by_page.get(i + 1, Counter())
        kept = accounted = 0

        def take(w: str, rem=rem, mine=local.get(i, Counter())) -> str | None:
            w = ALIASES.get(w, w)
            if mine[w] > 0:
                mine[w] -= 1
                pool[w] -= 1
                return "kept"
            if pool[w] > 0:
                pool[w] -= 1
                return "kept"
            if rem[w] > 0:
                rem[w] -= 1
                return "removed"
            return None

        for w in ws:
            r = take(w)
            kept += r == "kept"
            accounted += r == "removed"
        for a, b in pairs:
            r = take(a + b)
            if r is None:
                ra, rb = take(a), take(b)
                r = ra if ra and rb else None
            kept += 2 * (r == "kept")
            accounted += 2 * (r == "removed")
        n = len(ws) + 2 * len(pairs)
        rows.append({
            "page": i, "chars_in": len(re.sub(r"\s", "", text)), "words_in": n, "kept": kept, "accounted": accounted,
            "share": round((kept + accounted) / n, 4) if n else 1.0,
            "order": round(sum(1 for bg in bigrams if bg in adj) / len(bigrams), 4) if bigrams else 1.0,
        })
    return rows


def compile_pdf(pdf: Path, out: Path) -> tuple[int, float]:
    t0 = time.perf_counter()
    proc = subprocess.run([str(CTXMILL), "compile", str(pdf), "-o", str(out), "--include-source-text"],
                          capture_output=True, text=True, timeout=900)
    return proc.returncode, time.perf_counter() - t0


def ocr_page_texts(out: Path) -> dict[int, str]:
    """Pages read by OCR: their text as the compile's page stream holds it (bundle source.txt)."""
    removed = json.loads((out / "removed.json").read_text()) if (out / "removed.json").exists() else {}
    ocr_pages = {r["page"] for r in removed.get("pages", []) if r.get("source") == "ocr"}
    if not ocr_pages:
        return {}
    with zipfile.ZipFile(out / "bundle.zip") as z:
        src = z.read("source.txt").decode("utf-8")
    chunks = re.split(r"(?m)^── page (\d+) ──\n?", src)
    return {int(chunks[k]): chunks[k + 1] for k in range(1, len(chunks) - 1, 2) if int(chunks[k]) in ocr_pages}


def generated(folder: Path) -> list[tuple[str, Path]]:
    import _pagegen as g

    makers = {
        "gen-scanned-book-a6-invisible": g.scanned_book_page, "gen-notes-drawings": g.notes_page,
        "gen-poster": g.poster_page, "gen-letter-speckled-scan": g.scanned_letter,
        "gen-letter-blurred-scan": g.blurred_letter, "gen-letter-typed": g.letter_page,
        "gen-invoice": g.invoice_page, "gen-statement": g.statement_page,
        "gen-stamped-page": lambda p: g.stamped_page(p), "gen-a6-text": lambda p: g.sized_text_page(p, 180, 300),
        "gen-huge-text-14400pt": lambda p: g.sized_text_page(p, 14400, 14400), "gen-a0-scan": g.large_scan,
    }
    out = []
    for name, make in makers.items():
        path = folder / f"{name}.pdf"
        make(path)
        out.append((name, path))
    if shutil.which("ocrmypdf"):
        # a real OCRmyPDF file: a scan of the typed letter with OCRmyPDF's invisible text layer
        scan = folder / "letter-scan.pdf"
        _image_only(folder / "gen-letter-typed.pdf", scan)
        path = folder / "gen-ocrmypdf-letter.pdf"
        proc = subprocess.run(["ocrmypdf", "-q", "--output-type", "pdf", str(scan), str(path)], capture_output=True,
                              text=True, timeout=600)
        if proc.returncode == 0:
            out.append(("gen-ocrmypdf-letter", path))
    return out


def _image_only(src: Path, dst: Path, dpi: int = 200) -> None:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(src))
    img = pdf[0].render(scale=dpi / 72.0, grayscale=True).to_pil()
    pdf.close()
    img.save(str(dst), "PDF", resolution=float(dpi))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="run only documents whose name contains this")
    ap.add_argument("--keep", default="", help="keep the output folders here")
    args = ap.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ctxmill-conservation-"))
    work.mkdir(parents=True, exist_ok=True)
    docs: list[tuple[str, Path]] = []
    if CORPUS.is_dir():
        docs += [(p.parent.name, p) for p in sorted((CORPUS / "papers").glob("*/paper.pdf"))]
        if (CORPUS / "dive-into-claude-code" / "paper.pdf").is_file():
            docs.append(("dive-into-claude-code", CORPUS / "dive-into-claude-code" / "paper.pdf"))
    gen_dir = work / "_generated"
    gen_dir.mkdir(exist_ok=True)
    docs += generated(gen_dir)
    docs = [(n, p) for n, p in docs if args.only in n]
    results = []
    all_rows = []
    for name, pdf in docs:
        out = work / name
        rc, secs = compile_pdf(pdf, out)
        if rc != 0:
            results.append({"name": name, "exit": rc})
            continue
        texts = page_texts(pdf)
        for n, t in ocr_page_texts(out).items():
            if not texts[n - 1].strip():
                texts[n - 1] = t
        md = (out / "document.md").read_text(encoding="utf-8")
        rem = json.loads((out / "removed.json").read_text(encoding="utf-8"))
        chunks = []
        if (out / "chunks.jsonl").exists():
            chunks = [json.loads(x) for x in (out / "chunks.jsonl").read_text(encoding="utf-8").splitlines() if x]
        rows = score_doc(texts, md, rem.get("removed", []), chunks)
        for r in rows:
            r["doc"] = name
        all_rows += rows
        n_in = sum(r["words_in"] for r in rows)
        results.append({
            "name": name, "pages": len(rows), "seconds": round(secs, 2),
            "share": round(sum(r["kept"] + r["accounted"] for r in rows) / n_in, 4) if n_in else 1.0,
            "kept": round(sum(r["kept"] for r in rows) / n_in, 4) if n_in else 1.0,
            "order": round(statistics.mean(r["order"] for r in rows), 4) if rows else 1.0,
            "min_page_share": min((r["share"] for r in rows), default=1.0),
            "self_reported_share": rem.get("share"),
            "removed_by_reason": dict(Counter(x["reason"] for x in rem.get("removed", []))),
        })
    scored = [r for r in all_rows if r["words_in"]]
    low = sorted((r for r in scored if r["share"] < 0.9), key=lambda r: r["share"])
    empty = [r for r in all_rows if r["chars_in"] >= 50 and r["kept"] == 0]
    summary = {
        "documents": len(results), "pages": len(all_rows), "failed": [r["name"] for r in results if "exit" in r],
        "page_share_mean": round(statistics.mean(r["share"] for r in scored), 4) if scored else None,
        "page_share_min": min((r["share"] for r in scored), default=None),
        "page_order_mean": round(statistics.mean(r["order"] for r in scored), 4) if scored else None,
        "pages_under_0.90": len(low), "empty_pages": len(empty),
        "goal": "mean >= 0.98, no page < 0.90, no page empty",
    }
    print(json.dumps({"summary": summary, "documents": results,
                      "pages_under_0.90": [{k: r[k] for k in ("doc", "page", "words_in", "share", "order")}
                                           for r in low[:40]],
                      "empty_pages": [{k: r[k] for k in ("doc", "page", "chars_in")} for r in empty]}, indent=1))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
