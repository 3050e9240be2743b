"""Cell-level precision / recall / F1 of the tables in document.md against known cells (JSON).

    .venv/bin/python benchmarks/tables.py [--peer-python /tmp/peer-tables/bin/python] [--only NAME]

Truth, two sets scored apart:

- ``generated``: tests/_tablepdf.py (ruled grids, booktabs with spanning headers and units
  rows, borderless 10-K statements with multi-line headers, paper data tables with group and
  total rows; every cell known);
- ``corpus``: the ``tabular`` sources of the corpus papers (benchmarks/data/corpus_tables.json,
  written by benchmarks/tables_truth.py from the repositories their SOURCE.md names); each
  paper's pages that print its tables are cut into one PDF, and every system reads that PDF.
  LaTeX truth is noisy (macros, citations the source does not spell out): all systems lose
  those cells alike. Skipped when ../shared is absent.

Score (ICDAR 2013 style, what a reader of the table relies on): every pair of neighbouring
non-empty cells, left-right within a row and top-bottom within a column, is one relation
``(text, text, direction)``; a spanning cell is a neighbour of everything under and beside it.
Precision and recall are over those relations, so a table flattened into text scores 0, a
shifted column loses its relations, and a cell split in two loses them too. ``content`` is the
same over the bag of cell texts alone. Text is compared without case, spaces and ``**``.

Peers in the same run (a separate venv, never ctxmill's: pymupdf is AGPL): pymupdf4llm
(Markdown, parsed by the same table reader as ours), pdfplumber ``extract_tables`` (lines,
then text strategy), camelot (lattice, stream) and img2table, each where it imports.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

# ------------------------------------------------------------------------ reading tables


def _norm(text: str) -> str:
    text = re.sub(r"<br\s*/?>", " ", text or "")
    text = text.replace("**", "").replace("\\|", "|")
    return re.sub(r"\s+", "", text).lower()


class _HTMLTables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables: list[list[list[tuple[str, int, int]]]] = []
        self._cell: list[str] | None = None
        self._span = (1, 1)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables and self.tables[-1]:
            self._cell = []
            self._span = (int(a.get("colspan") or 1), int(a.get("rowspan") or 1))
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(("".join(self._cell).strip(), *self._span))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _expand(rows: list[list[tuple[str, int, int]]], start_id: int) -> list[list[tuple[int, str]]]:
    """HTML rows with colspan/rowspan -> a grid of (cell id, text)."""
    grid: dict[tuple[int, int], tuple[int, str]] = {}
    k = start_id
    for r, row in enumerate(rows):
        c = 0
        for text, cs, rs in row:
            while (r, c) in grid:
                c += 1
            for dr in range(rs):
                for dc in range(cs):
                    grid[(r + dr, c + dc)] = (k, text)
            k += 1
            c += cs
    if not grid:
        return []
    nr = max(r for r, _ in grid) + 1
    nc = max(c for _, c in grid) + 1
    return [[grid.get((r, c), (-1, "")) for c in range(nc)] for r in range(nr)]


def markdown_tables(md: str) -> list[list[list[tuple[int, str]]]]:
    """Every GFM pipe table and HTML table in a Markdown text, as grids of (cell id, text)."""
    out = []
    k = 0
    lines = md.splitlines()
    i = 0
    sep = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
    while i < len(lines):
        if lines[i].lstrip().startswith("|") and i + 1 < len(lines) and sep.match(lines[i + 1]):
            rows = [lines[i]]
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                rows.append(lines[j])
                j += 1
            grid = []
            for r in rows:
                s = r.strip()
                s = s[1:] if s.startswith("|") else s
                s = s[:-1] if s.endswith("|") and not s.endswith("\\|") else s
                cells = [x.strip() for x in re.split(r"(?<!\\)\|", s)]
                grid.append([(k + n, t) for n, t in enumerate(cells)])
                k += len(cells)
            out.append(grid)
            i = j
            continue
        i += 1
    for html in re.findall(r"<table\b.*?</table>", md, re.S | re.I):
        p = _HTMLTables()
        p.feed(html)
        for t in p.tables:
            g = _expand(t, k)
            k += sum(len(r) for r in t)
            out.append(g)
    return out


def list_grid(rows: list[list], start_id: int) -> list[list[tuple[int, str]]]:
    """A list-of-lists table (pdfplumber, camelot, img2table): every cell its own id."""
    return [[(start_id + r * 1000 + c, "" if v is None else str(v)) for c, v in enumerate(row)]
            for r, row in enumerate(rows)]


# ------------------------------------------------------------------------ scoring


def relations(grids) -> Counter:
    rel: Counter = Counter()
    for g in grids:
        seen = set()
        for row in g:
            cells = [(i, t) for i, t in row if i >= 0 and _norm(t)]
            for (a, ta), (b, tb) in zip(cells, cells[1:], strict=False):
                if a != b and (a, b) not in seen:
                    seen.add((a, b))
                    rel[(_norm(ta), _norm(tb), "h")] += 1
        ncols = max((len(row) for row in g), default=0)
        for c in range(ncols):
            col = [row[c] for row in g if c < len(row) and row[c][0] >= 0 and _norm(row[c][1])]
            for (a, ta), (b, tb) in zip(col, col[1:], strict=False):
                if a != b and (a, b) not in seen:
                    seen.add((a, b))
                    rel[(_norm(ta), _norm(tb), "v")] += 1
    return rel


def contents(grids) -> Counter:
    out: Counter = Counter()
    for g in grids:
        ids = {}
        for row in g:
            for i, t in row:
                if i >= 0 and _norm(t):
                    ids[i] = _norm(t)
        out.update(ids.values())
    return out


def prf(pred: Counter, truth: Counter) -> dict:
    hit = sum((pred & truth).values())
    p = hit / sum(pred.values()) if pred else 0.0
    r = hit / sum(truth.values()) if truth else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 3), "recall": round(r, 3), "f1": round(f, 3)}


# ------------------------------------------------------------------------ systems


def run_ctxmill(pdfs: list[Path]) -> dict:
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document

    out = {}
    for pdf in pdfs:
        t0 = time.perf_counter()
        doc = compile_document(pdf, CompileOptions(chunks=False, citations=False))
        out[pdf.stem] = {"grids": markdown_tables(doc.markdown), "seconds": time.perf_counter() - t0}
    return out


PEER_SCRIPT = r'''
import json, sys, time, warnings, os, contextlib, io
warnings.filterwarnings("ignore")
system, pdfs = sys.argv[1], sys.argv[2:]


def run(system, pdf, res):
    with contextlib.redirect_stdout(io.StringIO()):
        if system == "pymupdf4llm":
            import pymupdf4llm
            res["markdown"] = pymupdf4llm.to_markdown(pdf)
        elif system.startswith("pdfplumber"):
            import pdfplumber
            settings = {} if system == "pdfplumber-lines" else {"vertical_strategy": "text", "horizontal_strategy": "text"}
            with pdfplumber.open(pdf) as p:
                res["tables"] = [t for page in p.pages for t in page.extract_tables(settings)]
        elif system.startswith("camelot"):
            import camelot
            flavor = system.split("-")[1]
            res["tables"] = [t.df.values.tolist() for t in camelot.read_pdf(pdf, pages="all", flavor=flavor)]
        elif system == "img2table":
            from img2table.document import PDF
            doc = PDF(pdf)
            tabs = doc.extract_tables(borderless_tables=True, implicit_rows=True)
            res["tables"] = [t.df.values.tolist() for page in tabs.values() for t in page]


out = {}
for pdf in pdfs:
    t0 = time.perf_counter()
    res = {}
    try:
        run(system, pdf, res)
    except Exception as e:  # one document a peer cannot read scores as no tables, not as no run
        res = {"error": f"{type(e).__name__}: {e}"[:200]}
    res["seconds"] = time.perf_counter() - t0
    out[os.path.basename(pdf)[:-4]] = res
print(json.dumps(out, default=str))
'''

PEERS = ["pymupdf4llm", "pdfplumber-lines", "pdfplumber-text", "camelot-lattice", "camelot-stream", "img2table"]


def run_peer(python: str, system: str, pdfs: list[Path]) -> dict | str:
    try:
        p = subprocess.run([python, "-c", PEER_SCRIPT, system, *map(str, pdfs)], capture_output=True, text=True,
                           timeout=900, cwd=tempfile.gettempdir())
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"did not run: {e}"
    if p.returncode != 0:
        return "failed: " + (p.stderr.strip().splitlines() or ["?"])[-1][:200]
    raw = json.loads(p.stdout.strip().splitlines()[-1])
    out = {}
    for name, res in raw.items():
        if "markdown" in res:
            grids = markdown_tables(res["markdown"])
        else:
            grids = [list_grid(t, n * 10**6) for n, t in enumerate(res.get("tables", []))]
        out[name] = {"grids": grids, "seconds": res["seconds"], "error": res.get("error")}
    return out


def corpus_set(folder: Path) -> tuple[list[Path], dict]:
    """One PDF per corpus paper holding the pages its tables are printed on, and the truth."""
    import pypdfium2 as pdfium

    import _tablepdf

    data = json.loads((REPO / "benchmarks" / "data" / "corpus_tables.json").read_text())
    papers = REPO.parent / "shared" / "corpus" / "papers"
    pdfs, truth = [], {}
    for slug, entry in data.items():
        src = papers / slug / "paper.pdf"
        if not src.is_file():
            continue
        pages = sorted({p for t in entry["tables"] for p in t["pages"]})
        doc, out = pdfium.PdfDocument(str(src)), pdfium.PdfDocument.new()
        out.import_pages(doc, [p - 1 for p in pages])
        out.save(str(folder / f"{slug}.pdf"))
        out.close()
        doc.close()
        pdfs.append(folder / f"{slug}.pdf")
        grids = [_tablepdf.grid(_tablepdf.TableSpec(slug, "latex", [[tuple(c) if isinstance(c, list) else c for c in r]
                                                                     for r in t["rows"]])) for t in entry["tables"]]
        truth[slug] = grids
    return pdfs, truth


def score_set(results: dict, truth: dict, kinds: dict | None = None) -> dict:
    """Relation and content P/R/F1 over every document of a set (truth: grids per document);
    with ``kinds`` (document -> kind of table) the F1 per kind too, so a finder that wins on
    one kind (ruled grids) shows it."""
    by_kind: dict = {}
    rel_p: Counter = Counter()
    rel_t: Counter = Counter()
    con_p: Counter = Counter()
    con_t: Counter = Counter()
    per = {}
    for name, grids in truth.items():
        got = results.get(name, {"grids": [], "seconds": 0.0})
        rp, rt = relations(got["grids"]), relations(grids)
        per[name] = prf(rp, rt)["f1"]
        if kinds:
            k = by_kind.setdefault(kinds[name], [Counter(), Counter()])
            k[0].update(rp)
            k[1].update(rt)
        rel_p += rp
        rel_t += rt
        con_p += contents(got["grids"])
        con_t += contents(grids)
    failed = sorted(k for k, r in results.items() if r.get("error"))
    extra = {"failed_documents": {k: results[k]["error"] for k in failed}} if failed else {}
    if kinds:
        extra["per_kind_f1"] = {k: prf(p, t)["f1"] for k, (p, t) in sorted(by_kind.items())}
    return {**prf(rel_p, rel_t), "content": prf(con_p, con_t), **extra, "per_paper_f1": per,
            "seconds_median": round(statistics.median(r["seconds"] for r in results.values()), 3) if results else None}


def _kind(spec) -> str:
    """The kind a generated table is scored under: ruled, booktabs, borderless, financial,
    landscape (a /Rotate page)."""
    return "landscape" if spec.rotate else spec.kind


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer-python", default="/tmp/peer-tables/bin/python")
    ap.add_argument("--only", help="one generated table by name")
    ap.add_argument("--peers", default=",".join(PEERS), help="comma-separated; empty for none")
    ap.add_argument("--keep", help="write the PDFs here instead of a temporary folder")
    ap.add_argument("--set", choices=["generated", "corpus", "both"], default="both")
    ap.add_argument("--brief", action="store_true", help="scores only, no per-table rows")
    args = ap.parse_args()
    import _tablepdf

    folder = Path(args.keep or tempfile.mkdtemp(prefix="ctxmill-tables-"))
    folder.mkdir(parents=True, exist_ok=True)
    sets = {}
    if args.set in ("generated", "both"):
        specs = [s for s in _tablepdf.specs() if not args.only or s.name == args.only]
        sets["generated"] = ([_tablepdf.write_table_pdf(s, folder / f"{s.name}.pdf") for s in specs],
                             {s.name: [_tablepdf.grid(s)] for s in specs},
                             {"tables": len(specs), "kinds": dict(Counter(_kind(s) for s in specs))})
        kinds = {s.name: _kind(s) for s in specs}
    else:
        kinds = {}
    if args.set in ("corpus", "both") and (REPO.parent / "shared" / "corpus" / "papers").is_dir():
        cfolder = folder / "corpus"
        cfolder.mkdir(exist_ok=True)
        pdfs, truth = corpus_set(cfolder)
        if args.only:
            pdfs = [p for p in pdfs if p.stem == args.only]
            truth = {k: v for k, v in truth.items() if k == args.only}
        sets["corpus"] = (pdfs, truth, {"tables": sum(len(v) for v in truth.values()), "papers": len(truth)})
    peers = [p for p in args.peers.split(",") if p]
    report: dict = {}
    for name, (pdfs, truth, about) in sets.items():
        if not pdfs:
            continue
        kk = kinds if name == "generated" else None
        part = {**about, "systems": {"ctxmill": score_set(run_ctxmill(pdfs), truth, kk)}}
        if peers and Path(args.peer_python).exists():
            for system in peers:
                res = run_peer(args.peer_python, system, pdfs)
                part["systems"][system] = res if isinstance(res, str) else score_set(res, truth, kk)
        elif peers:
            part["peers"] = f"not run: {args.peer_python} is missing (a venv with pymupdf4llm, pdfplumber, camelot-py, img2table)"
        if args.brief:
            for v in part["systems"].values():
                if isinstance(v, dict):
                    v.pop("per_paper_f1", None)
        report[name] = part
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
