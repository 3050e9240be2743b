"""The held-out OCR set (round 31): real OCR / document-AI engine outputs the OCR reader was not
tuned on, listed in benchmarks/data/ocr_heldout.json, truth in benchmarks/data/ocr_heldout_truth/.

    .venv/bin/python benchmarks/ocr_heldout.py --build   # git show each item from /work/.mirror
    .venv/bin/python benchmarks/ocr_heldout.py           # score: ocr_text.py's fields + lost words
    .venv/bin/python benchmarks/ocr_heldout.py --set 2 --build   # the second held-out set (round 32)
    .venv/bin/python benchmarks/ocr_heldout.py --set 2           # ...scored the same way
    .venv/bin/python benchmarks/ocr_heldout.py --set 3 --build   # the third held-out set (round 33)

--build copies every item byte for byte (``git show <commit>:<path>`` in the bare snapshot
/work/.mirror/<owner>+<name>/repo that the fetch tool brings) to
benchmarks/.cache/ocr_heldout/<slug>/source.<ext>, with the manifest row as SOURCE.json.

Scoring compiles each with ``ctxmill compile`` and scores it as benchmarks/ocr_text.py does
(leftover markup, headings, title, authors, reference count), and adds per document the words
of the input that reach neither document.md nor removed.json (``lost``: nothing may be lost in
silence). Words in are the engine text less its own markup (grounding tags and boxes, HTML tags
and comments, image links, link targets, DocTags' tags and locations; for a JSON output, its
``text`` fields (Unstructured's elements too), MinerU's table/caption fields, Marker's leaf blocks' ``html``,
PaddleOCR-VL's ``block_content``), counted with
benchmarks/conservation.py's word definition against one pool of document.md + removed.json.

``--set 2`` is the second held-out set (round 32: benchmarks/data/ocr_heldout2.json, truth
benchmarks/data/ocr_heldout2_truth/, cache benchmarks/.cache/ocr_heldout2/), collected before
any round-32 fix; DocTags tags left in document.md (``<loc_12>``, ``<section_header_level_1>``,
which ocr_text.py's HTML pattern does not see) count as leftover ``doctags`` in either set.

``--set 3`` is the third (round 33: benchmarks/data/ocr_heldout3.json, truth
benchmarks/data/ocr_heldout3_truth/, cache benchmarks/.cache/ocr_heldout3/), collected before any
round-33 fix: GOT-OCR plain text, Gemini 2.0 Flash, GPT-4o, Mistral OCR, Unstructured's element and
chunked JSON, PaddleOCR-VL's JSON. Sets 1 and 2 are scored exactly as before.

``--set 4`` is the fourth (round 34: benchmarks/data/ocr_heldout4.json, truth
benchmarks/data/ocr_heldout4_truth/, cache benchmarks/.cache/ocr_heldout4/), collected and scored
before any round-34 fix and held out (scores only): Qwen2-VL-7B and GPT-4.5 page readings and
docling's DoclingDocument JSON (its words in: ``texts[].text`` and ``tables[].data.table_cells[].text``).
Sets 1-3 are scored exactly as before (none holds a DoclingDocument).

``--set 5`` is the fifth (round 35: benchmarks/data/ocr_heldout5.json, truth
benchmarks/data/ocr_heldout5_truth/, cache benchmarks/.cache/ocr_heldout5/), collected and scored
at the round's start before any round-35 fix and held out (scores only): Amazon Textract's
DetectDocumentText JSON (its words in: the ``Text`` of its LINE blocks) and Unstructured's Markdown.
Sets 1-4 are scored exactly as before (none holds a Textract response).

``--set 6`` is the sixth (round 36: benchmarks/data/ocr_heldout6.json, truth
benchmarks/data/ocr_heldout6_truth/, cache benchmarks/.cache/ocr_heldout6/), collected and scored
at the round's start before any round-36 fix and held out (scores only): Google Document AI's
Document JSON (its words in: the OCR processor's top-level ``text``; the Layout Parser's
``documentLayout`` blocks' ``text``, its chunkedDocument repeating them is not read), GROBID's TEI XML
(its words in: the element text, less GROBID's own ``encodingDesc`` and the input file's MD5 ``idno``)
and PyMuPDF's OCR text. Sets 1-5 are scored exactly as before (none holds any of these).

``--set 7`` is the seventh (round 37: benchmarks/data/ocr_heldout7.json, truth
benchmarks/data/ocr_heldout7_truth/, cache benchmarks/.cache/ocr_heldout7/), collected and scored
at the round's start before any round-37 fix and held out (scores only): PyMuPDF4LLM's Markdown,
the S2ORC JSON of allenai's doc2json (its words in: the title, the ``text`` of every abstract, body and
back-matter paragraph with its section heading where the heading changes, the figure and table
captions, each bibliography entry's ``raw_text``) and the plain text of four PDF text extractors
(pdftotext, Apache Tika, pdfminer.six, pdfplumber). Sets 1-6 are scored exactly as before (none holds
an S2ORC JSON).

``--set 8`` is the eighth (round 38: benchmarks/data/ocr_heldout8.json, truth
benchmarks/data/ocr_heldout8_truth/, cache benchmarks/.cache/ocr_heldout8/), collected and scored
at the round's start before any round-38 fix and held out (scores only): Adobe PDF Extract's
structuredData.json (its words in: each element's ``Text``, or its ``Kids``' texts run together, a
``HyphenSpan`` as a line-end hyphen), opendataloader-pdf's Markdown (plain and hybrid), markitdown's text,
pypdf's text, a Calamari PAGE XML (its words in: each text line's ``TextEquiv``, a region's own only where it
has no lines, since a region repeats its lines) and an ABBYY FineReader ALTO (its words in: the ``CONTENT``
of each ``String`` and ``HYP``, a line a line). Sets 1-7 are scored exactly as before (none holds any of these).

``--set 9`` is the ninth (round 39: benchmarks/data/ocr_heldout9.json, truth
benchmarks/data/ocr_heldout9_truth/, cache benchmarks/.cache/ocr_heldout9/), collected and scored
at the round's start before any round-39 fix and held out (scores only): pdfalto's ALTO (read as set 8's ALTO:
each ``String``'s CONTENT, a line a line), Unstructured's HTML output (its tags taken out as any HTML's), the
text of pypdfium2 and borb, CERMINE's JATS XML (its words in: the element text, as the XML spaces it; its
hyphenated tag names are no words) and papermage's Document JSON (its words in: ``symbols``, the text its entities
point into). Sets 1-8 are scored exactly as before (none holds a JATS article or a papermage Document).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import ocr_text  # noqa: E402
from conservation import words  # noqa: E402

MANIFEST = REPO / "benchmarks" / "data" / "ocr_heldout.json"
TRUTH = REPO / "benchmarks" / "data" / "ocr_heldout_truth"
CACHE = REPO / "benchmarks" / ".cache" / "ocr_heldout"
# the second held-out set (round 32): same scoring, its own manifest, truth and cache
SETS = {
    "1": (MANIFEST, TRUTH, CACHE),
    "2": (REPO / "benchmarks" / "data" / "ocr_heldout2.json", REPO / "benchmarks" / "data" / "ocr_heldout2_truth",
          REPO / "benchmarks" / ".cache" / "ocr_heldout2"),
    # the third (round 33): GOT-OCR, Gemini, GPT-4o, Unstructured JSON, PaddleOCR-VL JSON, Mistral OCR
    "3": (REPO / "benchmarks" / "data" / "ocr_heldout3.json", REPO / "benchmarks" / "data" / "ocr_heldout3_truth",
          REPO / "benchmarks" / ".cache" / "ocr_heldout3"),
    # the fourth (round 34, held out: scores only): Qwen2-VL-7B, GPT-4.5, docling's DoclingDocument JSON
    "4": (REPO / "benchmarks" / "data" / "ocr_heldout4.json", REPO / "benchmarks" / "data" / "ocr_heldout4_truth",
          REPO / "benchmarks" / ".cache" / "ocr_heldout4"),
    # the fifth (round 35, held out: scores only): Textract JSON, Unstructured's Markdown
    "5": (REPO / "benchmarks" / "data" / "ocr_heldout5.json", REPO / "benchmarks" / "data" / "ocr_heldout5_truth",
          REPO / "benchmarks" / ".cache" / "ocr_heldout5"),
    # the sixth (round 36, held out: scores only): Document AI JSON, GROBID TEI, PyMuPDF OCR text
    "6": (REPO / "benchmarks" / "data" / "ocr_heldout6.json", REPO / "benchmarks" / "data" / "ocr_heldout6_truth",
          REPO / "benchmarks" / ".cache" / "ocr_heldout6"),
    # the seventh (round 37, held out: scores only): PyMuPDF4LLM Markdown, doc2json's S2ORC JSON, PDF text extractors
    "7": (REPO / "benchmarks" / "data" / "ocr_heldout7.json", REPO / "benchmarks" / "data" / "ocr_heldout7_truth",
          REPO / "benchmarks" / ".cache" / "ocr_heldout7"),
    # the eighth (round 38, held out: scores only): Adobe PDF Extract JSON, opendataloader-pdf, markitdown, pypdf,
    # Calamari PAGE XML, ABBYY ALTO
    "8": (REPO / "benchmarks" / "data" / "ocr_heldout8.json", REPO / "benchmarks" / "data" / "ocr_heldout8_truth",
          REPO / "benchmarks" / ".cache" / "ocr_heldout8"),
    # the ninth (round 39, held out: scores only): pdfalto ALTO, Unstructured's HTML, pypdfium2 and borb text,
    # CERMINE's JATS XML, papermage's Document JSON
    "9": (REPO / "benchmarks" / "data" / "ocr_heldout9.json", REPO / "benchmarks" / "data" / "ocr_heldout9_truth",
          REPO / "benchmarks" / ".cache" / "ocr_heldout9"),
}
MIRROR = Path("/work/.mirror")

_MARKUP = [
    re.compile(r"<\?.*?\?>|<!DOCTYPE[^>]*>", re.S | re.I),  # an XML declaration, a DOCTYPE (hOCR): markup
    # GROBID's TEI: its self-description (application, version) and the input file's hash are the engine's, not text
    re.compile(r"<encodingDesc\b.*?</encodingDesc>|<idno type=\"MD5\">[^<]*</idno>", re.S),
    re.compile(r"<\|(det|ref)\|>.*?<\|/\1\|>", re.S),
    re.compile(r"<\|[a-z_/]+\|>"),
    re.compile(r"<!--.*?-->", re.S),
    re.compile(r"!\[[^\]]*\]\([^)]*\)"),
    re.compile(r"(?<=\])\([^)\s]*\)"),
    ocr_text.LEFTOVER["html_tag"],  # an HTML or XML tag (a namespaced one too: <pc:TextLine>)
    re.compile(r"&(?:[a-z]{2,8}|#\d{2,5});", re.I),
    re.compile(r"</?[a-z]+(?:_[a-z0-9]+)+>|<loc_\d+>"),  # DocTags: <section_header_level_1>, <loc_12>
]
# DocTags' own tags in document.md: ocr_text.LEFTOVER's html_tag pattern has no underscore
_DOCTAGS = re.compile(r"</?(?:doctag|loc_\d+|[a-z]+(?:_[a-z0-9]+)+)>")


_SUPS = re.compile("([\u2070\u00b9\u00b2\u00b3\u2074-\u2079\u02d2\u1d43-\u1d5b\u02b0-\u02b8\u1da0-\u1dbf\u2071\u207f])")


def content(src: Path) -> str:
    """The engine output's own words: its markup taken out (not its text)."""
    text = src.read_text(encoding="utf-8")
    if src.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError:  # dots.ocr may stop before closing its list
            data = json.loads(text.rstrip().rstrip(",") + "]")
        text = "\n\n".join(_json_texts(data))
    elif src.suffix == ".xml" and (kind := _xml_kind(text)):  # ALTO, PAGE: the text is in attributes or repeated
        if kind == "jats":  # a JATS / NLM article (CERMINE): its element text, spaced as the XML spaces it
            import xml.etree.ElementTree as ET

            return "".join(ET.fromstring(text.encode("utf-8")).itertext())
        return "\n\n".join(_alto_texts(text) if kind == "alto" else _page_texts(text))
    for rx in _MARKUP:
        text = rx.sub(" ", text)
    return text


_MINERU_FIELDS = ("text", "table_body", "table_caption", "table_footnote", "image_caption", "image_footnote",
                  "list_items", "code_body", "code_caption")


def _json_texts(data) -> list[str]:
    """The text of a JSON engine output: a list of blocks (dots.ocr's ``text``; MinerU's
    content_list fields), or Marker's block tree (each block's ``html`` where it is not made of
    ``<content-ref>`` to its children, which are then read instead)."""
    if isinstance(data, list):
        out = []
        for b in data:
            if not isinstance(b, dict):
                continue
            if "type" in b and "page_idx" in b:  # MinerU content_list
                for k in _MINERU_FIELDS:
                    v = b.get(k)
                    out.extend([v] if isinstance(v, str) else [x for x in v or [] if isinstance(x, str)])
            else:
                out.append(b.get("text", ""))
        return out
    out = []
    if isinstance(data.get("elements"), list) and "extended_metadata" in data:  # Adobe PDF Extract's structuredData
        return _adobe_texts(data["elements"])
    if isinstance(data.get("Blocks"), list):  # Amazon Textract: each LINE block's Text (its WORDs repeat them)
        return [b.get("Text") or "" for b in data["Blocks"] if isinstance(b, dict) and b.get("BlockType") == "LINE"]
    if data.get("schema_name") == "DoclingDocument":  # docling's lossless JSON: its text items and table cells
        out = [t.get("text") or "" for t in data.get("texts") or [] if isinstance(t, dict)]
        for table in data.get("tables") or []:
            cells = ((table or {}).get("data") or {}).get("table_cells") or []
            out.extend(c.get("text") or "" for c in cells if isinstance(c, dict))
        return out
    if isinstance(data.get("parsing_res_list"), list):  # PaddleOCR-VL's result: one block_content a block
        return [b.get("block_content") or "" for b in data["parsing_res_list"] if isinstance(b, dict)]
    if isinstance(data.get("pdf_parse"), dict):  # doc2json's S2ORC JSON: the paper's text in its paragraphs
        return _s2orc_texts(data)
    if isinstance(data.get("documentLayout"), dict):  # Document AI's Layout Parser: nested blocks' text
        return _docai_layout_texts(data["documentLayout"].get("blocks") or [])
    if isinstance(data.get("text"), str) and isinstance(data.get("pages"), list):  # a Document AI Document
        return [data["text"]]  # (its pages and entities point into this text by offsets)
    if isinstance(data.get("symbols"), str) and isinstance(data.get("entities"), dict):  # a papermage Document
        return [data["symbols"]]  # (its tokens, rows and pages are spans into this text)
    html = data.get("html") or ""
    if html and "<content-ref" not in html:
        return [html]
    for child in data.get("children") or []:
        out.extend(_json_texts(child))
    return out


def _s2orc_texts(data: dict) -> list[str]:
    """The text of an S2ORC JSON paper (allenai doc2json): the title, each paragraph of the abstract, body and
    back matter with its section heading where the heading changes (every paragraph repeats it), the figure and
    table captions, and each bibliography entry as printed (``raw_text``); spans and ids point into these."""
    parse = data["pdf_parse"]
    out = [data.get("title") or ""]
    last = None
    for key in ("abstract", "body_text", "back_matter"):
        for para in parse.get(key) or []:
            if not isinstance(para, dict):
                continue
            head = (para.get("sec_num") or "", para.get("section") or "")
            if head != last:
                out.append(" ".join(h for h in head if h))
                last = head
            out.append(para.get("text") or "")
    out.extend((r or {}).get("text") or "" for r in (parse.get("ref_entries") or {}).values())
    out.extend((b or {}).get("raw_text") or "" for b in (parse.get("bib_entries") or {}).values())
    return out


def _adobe_texts(elements: list) -> list[str]:
    """The text of Adobe PDF Extract's elements (a flat list in reading order; a table's cells are elements too): an
    element's ``Text``, or its ``Kids``' texts run together as Adobe cut them (at a style change: ``CO`` + ``2``),
    a ``HyphenSpan`` kid being the hyphen at a line end (``so`` + ``-`` + ``cieties``)."""
    out = []
    for e in elements:
        if not isinstance(e, dict):
            continue
        if isinstance(e.get("Text"), str):
            out.append(e["Text"])
            continue
        parts = []
        for kid in e.get("Kids") or []:
            text = (kid or {}).get("Text") or ""
            parts.append("-\n" if "HyphenSpan" in ((kid or {}).get("Path") or "") and text.strip() == "-" else text)
        out.append("".join(parts))
    return out


_XML_ROOT = re.compile(r"<(?:[\w.-]+:)?(alto|PcGts|article)\b")


def _xml_kind(text: str) -> str | None:
    """"alto", "page" or "jats" for an ALTO, a PAGE XML or a JATS article file (the root element, namespaced or
    not), else None."""
    m = _XML_ROOT.search(text[:4000])
    return {"alto": "alto", "PcGts": "page", "article": "jats"}.get(m.group(1)) if m else None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _alto_texts(text: str) -> list[str]:
    """The words of an ALTO file: each ``TextLine``'s ``String`` and ``HYP`` CONTENT in order, a line a line (a
    word hyphenated at a line end then reads ``über-`` / ``sichtlich``, as the lost-words count joins it)."""
    import xml.etree.ElementTree as ET

    out = []
    for line in ET.fromstring(text.encode("utf-8")).iter():
        if _local(line.tag) != "TextLine":
            continue
        words = []
        for el in line:
            name = _local(el.tag)
            if name == "String":
                words.append(el.get("CONTENT") or "")
            elif name == "HYP" and words:
                words[-1] += "-"  # the hyphen itself (ABBYY writes a soft hyphen), as a line-end hyphen reads
        out.append(" ".join(words))
    return out


def _page_texts(text: str) -> list[str]:
    """The words of a PAGE XML file: each ``TextLine``'s own ``TextEquiv`` (its first, the best reading), a
    ``TextRegion``'s own only where it has no lines (a region's TextEquiv repeats its lines; words would count
    twice)."""
    import xml.etree.ElementTree as ET

    def equiv(el) -> str:
        for child in el:
            if _local(child.tag) == "TextEquiv":
                return "".join(u.text or "" for u in child if _local(u.tag) == "Unicode")
        return ""

    out = []
    for region in ET.fromstring(text.encode("utf-8")).iter():
        if _local(region.tag) != "TextRegion":
            continue
        lines = [el for el in region if _local(el.tag) == "TextLine"]
        if lines:
            out.extend(equiv(line) for line in lines)
        else:
            out.append(equiv(region))
    return out


def _docai_layout_texts(blocks: list) -> list[str]:
    """The text of Document AI Layout Parser blocks in order: a textBlock's text, then its child blocks; a
    table's and a list's cells and entries are blocks too."""
    out: list[str] = []
    for b in blocks:
        if not isinstance(b, dict):
            continue
        text = b.get("textBlock") or {}
        out.append(text.get("text") or "")
        kids = list(text.get("blocks") or [])
        table = b.get("tableBlock") or {}
        for row in (table.get("headerRows") or []) + (table.get("bodyRows") or []):
            for cell in row.get("cells") or []:
                kids += cell.get("blocks") or []
        for entry in (b.get("listBlock") or {}).get("listEntries") or []:
            kids += entry.get("blocks") or []
        out.extend(_docai_layout_texts(kids))
    return out


# a number glued to the end of a word ("network1": a footnote mark after its word) -> two words,
# on both sides (round 32, amendment 1)
_GLUED_NUMBER = re.compile(r"(?<=[^\W\d_])(\d+)\b")


_HYPHENATED = re.compile(r"([^\W\d_]+)-[ \t]*\n[ \t]*([^\W\d_]+)")
# double-spaced text (Apache Tika's: a blank line after every line) has a blank line between a broken word's
# halves; counted as joined only where the output holds the joined word more often than the input holds it
# whole (an output that keeps the lines as paragraphs keeps the halves, and the joined word it holds is the
# input's own, not a hyphenation's: round38_tOCR_rule.md)
_HYPHENATED_SPACED = re.compile(r"([^\W\d_]+)-[ \t]*\n[ \t]*\n[ \t]*([^\W\d_]+)")


def _words(text: str) -> list[str]:
    return words(_GLUED_NUMBER.sub(r" \1", text))


def lost_words(src: Path, out: Path) -> dict:
    # a superscript mark as document.md writes it ("Patel¹") is a word of its own, not part of the name
    md = _SUPS.sub(r" \1", (out / "document.md").read_text(encoding="utf-8"))
    rem_path = out / "removed.json"
    rem = json.loads(rem_path.read_text(encoding="utf-8")) if rem_path.exists() else {}
    pool = Counter(_words(md))
    # the compile writes every caption's label "Figure N:" (DESIGN.md): an input "Fig." is that word
    pool["fig"] += pool.get("figure", 0)
    removed = Counter(w for r in rem.get("removed", []) for w in _words(r.get("text", "")))
    text = content(src)
    ws = _words(text)
    # a word hyphenated at a line end ("organi-" / "sations") is the joined word of the output, as
    # conservation.py joins the PDF side (round 33, amendment A1): its two halves are matched there
    halves: Counter = Counter()
    whole = Counter(ws)
    pairs = [(a, b, False) for a, b in _HYPHENATED.findall(text)]
    pairs += [(a, b, True) for a, b in _HYPHENATED_SPACED.findall(text)]
    for a, b, spaced in pairs:
        joined = "".join(_words(a + b))
        if spaced and pool[joined] + removed[joined] <= whole[joined]:
            continue  # (no surplus of the joined word: the halves are the output's words)
        for bag in (pool, removed):
            if bag[joined] > 0:
                bag[joined] -= 1
                halves.update(_words(a) + _words(b))
                break
    lost: list[str] = []
    accounted = 0
    for w in ws:
        if pool[w] > 0:
            pool[w] -= 1
        elif removed[w] > 0:
            removed[w] -= 1
            accounted += 1
        elif halves[w] > 0:
            halves[w] -= 1
        else:
            lost.append(w)
    return {"words_in": len(ws), "in_removed": accounted, "lost": len(lost),
            "lost_share": round(len(lost) / len(ws), 4) if ws else 0.0,
            "lost_sample": [w for w, _ in Counter(lost).most_common(12)]}


def build(which: str = "1") -> dict:
    manifest, _, cache = SETS[which]
    docs = json.loads(manifest.read_text())["documents"]
    done = []
    for d in docs:
        git = MIRROR / d["repo"].replace("/", "+") / "repo"
        if not git.exists():
            print(f"missing snapshot {git} (bring it with the fetch tool: github:{d['repo']})", file=sys.stderr)
            continue
        blob = subprocess.run(["git", "--git-dir", str(git), "show", f"{d['commit']}:{d['path']}"],
                              capture_output=True, check=True, timeout=60).stdout
        folder = cache / d["slug"]
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        (folder / f"source.{d['ext']}").write_bytes(blob)
        (folder / "SOURCE.json").write_text(json.dumps(d, indent=1, ensure_ascii=False) + "\n")
        done.append({"slug": d["slug"], "bytes": len(blob)})
    return {"built": len(done), "of": len(docs), "documents": done}


def score(only: str | None, keep: Path | None, which: str = "1") -> dict:
    manifest, truth_dir, cache = SETS[which]
    docs = ocr_text.documents(only, cache, truth_dir)
    if not docs:
        return {"skipped": f"no held-out documents under {cache} (run --build)"}
    engines = {d["slug"]: d["engine"] for d in json.loads(manifest.read_text())["documents"]}
    out_root = keep or Path(tempfile.mkdtemp(prefix="ctxmill-ocr-heldout-"))
    rows = []
    try:
        for slug, src, truth in docs:
            row = ocr_text.run_one(slug, src, truth, out_root)
            row["engine_true"] = engines.get(slug)
            if row["status"] == "done":
                row["lost_words"] = lost_words(src, out_root / slug)
                md = (out_root / slug / "document.md").read_text(encoding="utf-8")
                n = len(_DOCTAGS.findall(ocr_text._MATH.sub(" ", ocr_text._CODE.sub(" ", md))))
                if n:
                    row["leftover"] += n
                    row["leftover_kinds"]["doctags"] = n
            rows.append(row)
    finally:
        if not keep:
            shutil.rmtree(out_root, ignore_errors=True)
    summary = ocr_text.summarise(rows)
    done = [r for r in rows if r["status"] == "done"]
    summary["refused_or_failed"] = {r["slug"]: r.get("reason") for r in rows if r["status"] != "done"}
    summary["words_in"] = sum(r["lost_words"]["words_in"] for r in done)
    summary["words_lost"] = sum(r["lost_words"]["lost"] for r in done)
    summary["lost_share_mean"] = ocr_text.mean(r["lost_words"]["lost_share"] for r in done)
    return {"summary": summary, "documents": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", action="store_true", help="bring the items from /work/.mirror into the cache")
    ap.add_argument("--only", help="only documents whose slug contains this")
    ap.add_argument("--keep", type=Path, help="keep output folders here")
    ap.add_argument("--set", choices=sorted(SETS), default="1", help="which held-out set (2: round 32's, 3: round 33's, 4: round 34's, 5: round 35's, 6: round 36's, 7: round 37's, 8: round 38's, 9: round 39's, held out)")
    args = ap.parse_args()
    result = build(args.set) if args.build else score(args.only, args.keep, args.set)
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
