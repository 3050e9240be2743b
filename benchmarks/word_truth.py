"""Build the word-processor PDF set: PDFs exported by Word / LibreOffice, committed next to their .docx / .odt source.

benchmarks/data/wordpdf.json names each document (repository, commit, source, PDF, producer, licence, hand fixes).
This script reads them from bare git snapshots (the `fetch` tool's /work/.mirror/<owner>+<name>/repo, or --mirror
DIR) and writes, per document, under benchmarks/.cache/wordpdf/<slug>/ (git-ignored): paper.pdf (byte-for-byte as
committed), truth.json in the corpus's schema (the unseen sets' shape, so benchmarks/corpus.py --papers scores it
unchanged) and SOURCE.md.

    .venv/bin/python benchmarks/word_truth.py
    .venv/bin/python benchmarks/corpus.py --papers benchmarks/.cache/wordpdf

Truth comes from the source alone, read with the standard library (zipfile + xml.etree):
- docx: word/document.xml with word/styles.xml (a paragraph's style chain: w:basedOn) and docProps/core.xml;
  odt: content.xml with styles.xml (style:parent-style-name) and meta.xml.
- sections: paragraphs in a heading style, level = outline level + 1 (docx: the built-in 'heading N' style names,
  or w:outlineLvl on the paragraph or its style chain; odt: text:h's text:outline-level, or a paragraph style's
  style:default-outline-level). The table of contents (its entries and its own head) and empty headings are no
  section; the bibliography's own head is one (printed as a heading, as the LaTeX truths take it since round 38).
- title: the paragraph(s) in the Title style (docx 'Title', odt 'Title'), else the document property (dc:title)
  when page 1 prints it; `fixes` in the manifest give it where a title page is laid out by hand.
- authors: the document property's creator where page 1 prints it; else a hand fix, else none (not scored).
- abstract: the paragraphs after a head labelled Abstract (or its language's word) up to the next head, 400 chars.
- references: the paragraphs of the bibliography section (a head named References / Bibliography / Literatura /
  Список литературы / Referências / Irodalomjegyzék ..., or Word's BIBLIOGRAPHY field's result) up to the next head
  of the same or a higher level: their count; no titles (a word processor's list gives no field to read one from).
`fixes` replace a derived field where the source does not say what the page prints, each written into `notes`;
`sanity` checks the truth against the PDF's text layer (pypdfium2): title on page 1, section titles found.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
import unicodedata
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

sys.path.insert(0, str(Path(__file__).resolve().parent))
from unseen_truth import pdf_text  # noqa: E402  (the PDF's text layer read the way every truth builder reads it)

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "benchmarks" / "data" / "wordpdf.json"
OUT = REPO / "benchmarks" / ".cache" / "wordpdf"
MIRROR = Path("/work/.mirror")

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
DC = "{http://purl.org/dc/elements/1.1/}"

# a bibliography's own head, in the languages of the set (lower case, numbering stripped)
BIB_HEADS = ("references", "reference", "bibliography", "literature", "works cited", "sources", "literatura",
             "список литературы", "список использованных источников", "список использованной литературы",
             "литература", "библиографический список", "referências", "referências bibliográficas",
             "referencias", "bibliografia", "bibliografía", "irodalomjegyzék", "felhasznált irodalom", "hivatkozások",
             "použitá literatúra", "zoznam použitej literatúry", "literatúra", "literatur", "literaturverzeichnis",
             "references and notes", "citations")
# a table of contents' own head, and a list of figures' or tables' (generated lists, as LaTeX's \\listoffigures: no
# section in the LaTeX truths either)
TOC_HEADS = ("contents", "table of contents", "содержание", "оглавление", "sumário", "sumario", "índice",
             "tartalomjegyzék", "obsah", "inhaltsverzeichnis", "sadržaj", "садржај", "list of figures",
             "list of tables", "список рисунков", "список таблиц", "списак слика", "списак табела", "lista de figuras",
             "lista de tabelas", "ábrák jegyzéke", "táblázatok jegyzéke", "zoznam obrázkov", "zoznam tabuliek")
ABSTRACT_HEADS = ("abstract", "summary", "аннотация", "реферат", "resumo", "abstrakt", "kivonat", "összefoglaló",
                  "apstrakt", "апстракт", "zusammenfassung", "resumen")


def head_key(text: str) -> str:
    """A head's words for the lists above: lower case, leading numbering and trailing punctuation dropped."""
    s = unicodedata.normalize("NFKC", text).strip().lower()
    s = re.sub(r"^(chapter\s+|глава\s+)?([0-9]+|[ivxlc]+|[a-z])([.)][0-9.]*)?\s+", "", s)
    return re.sub(r"[\s.:]+$", "", re.sub(r"\s+", " ", s))


# ---- docx ---------------------------------------------------------------------------------------------------


def _docx_styles(z: zipfile.ZipFile) -> dict[str, dict]:
    """styleId -> {name, based, outline (0-based or None)} for paragraph styles."""
    out: dict[str, dict] = {}
    if "word/styles.xml" not in z.namelist():
        return out
    root = ET.fromstring(z.read("word/styles.xml"))
    for st in root.iter(W + "style"):
        if st.get(W + "type") != "paragraph":
            continue
        name = st.find(W + "name")
        based = st.find(W + "basedOn")
        ol = st.find(f"{W}pPr/{W}outlineLvl")
        out[st.get(W + "styleId")] = {
            "name": name.get(W + "val") if name is not None else st.get(W + "styleId"),
            "based": based.get(W + "val") if based is not None else None,
            "outline": int(ol.get(W + "val")) if ol is not None else None,
        }
    return out


def _style_outline(styles: dict[str, dict], sid: str | None) -> tuple[int | None, str]:
    """(outline level 0-based or None, the style's own name) along the basedOn chain; a built-in 'heading N'
    name counts as its level (Word writes no outlineLvl for its own heading styles)."""
    name = styles.get(sid or "", {}).get("name", sid or "")
    seen = set()
    while sid and sid in styles and sid not in seen:
        seen.add(sid)
        st = styles[sid]
        m = re.fullmatch(r"heading ([1-9])", st["name"].strip().lower())
        if st["outline"] is not None:
            return st["outline"], name
        if m:
            return int(m.group(1)) - 1, name
        sid = st["based"]
    return None, name


def _docx_text(p: ET.Element) -> str:
    """The text a paragraph prints: runs, tabs and breaks; deleted and hidden runs, field instructions, the
    fallback copy of a drawing and nested paragraphs (text boxes: their own paragraphs) left out."""
    parts: list[str] = []

    def walk(el: ET.Element) -> None:
        for ch in el:
            tag = ch.tag
            if tag in (W + "p", W + "del", W + "instrText", W + "delText", MC + "Fallback", W + "pPr"):
                continue
            if tag == W + "r":
                rpr = ch.find(W + "rPr")
                if rpr is not None and rpr.find(W + "vanish") is not None:
                    continue
            if tag == W + "t":
                parts.append(ch.text or "")
            elif tag in (W + "tab", W + "ptab"):
                parts.append("\t")
            elif tag in (W + "br", W + "cr"):
                parts.append(" ")
            elif tag == W + "noBreakHyphen":
                parts.append("-")
            elif tag == W + "sym":
                parts.append("")
            walk(ch)

    walk(p)
    return "".join(parts)


def docx_paragraphs(data: bytes) -> tuple[list[dict], dict]:
    """Every paragraph of the body in reading order: {text, style, level (1-based or None), numbered, in_toc,
    field}; and the document properties (title, creator)."""
    z = zipfile.ZipFile(io.BytesIO(data))
    styles = _docx_styles(z)
    root = ET.fromstring(z.read("word/document.xml"))
    body = root.find(W + "body")
    out: list[dict] = []
    field_stack: list[str] = []  # open complex fields' instructions (TOC, BIBLIOGRAPHY), across paragraphs

    def para(p: ET.Element, row: int | None) -> None:
        ppr = p.find(W + "pPr")
        sid = None
        own_ol = None
        numbered = False
        if ppr is not None:
            ps = ppr.find(W + "pStyle")
            sid = ps.get(W + "val") if ps is not None else None
            ol = ppr.find(W + "outlineLvl")
            own_ol = int(ol.get(W + "val")) if ol is not None else None
            numbered = ppr.find(W + "numPr") is not None
        lvl, name = _style_outline(styles, sid)
        if own_ol is not None:
            lvl = own_ol
        fields_here = []
        for el in p.iter():
            if el.tag == W + "fldChar":
                kind = el.get(W + "fldCharType")
                if kind == "begin":
                    field_stack.append("")
                elif kind == "end" and field_stack:
                    field_stack.pop()
            elif el.tag == W + "instrText" and field_stack:
                field_stack[-1] += el.text or ""
                fields_here.append(field_stack[-1])
            elif el.tag == W + "fldSimple":
                fields_here.append(el.get(W + "instr") or "")
        open_fields = " ".join(field_stack + fields_here).upper()
        out.append({"text": _docx_text(p).strip(), "style": name, "level": lvl + 1 if lvl is not None and lvl < 9 else None,
                    "numbered": numbered, "in_toc": bool(re.search(r"\bTOC\b", open_fields)) or name.lower().startswith("toc"),
                    "bibliography_field": "BIBLIOGRAPHY" in open_fields, "row": row})

    rows = iter(range(1, 1 << 30))

    def boxes(el: ET.Element):
        for ch in el:
            if ch.tag == MC + "Fallback":
                continue
            if ch.tag == W + "txbxContent":
                yield ch
            else:
                yield from boxes(ch)

    def walk(el: ET.Element, row: int | None = None) -> None:
        for ch in el:
            if ch.tag == W + "p":
                para(ch, row)
                # a text box's paragraphs inside this one come after it (its VML fallback copy left out)
                for sub in boxes(ch):
                    walk(sub, row)
            elif ch.tag == MC + "Fallback":
                continue
            elif ch.tag == W + "tr":
                walk(ch, next(rows))
            else:
                walk(ch, row)

    walk(body)
    props = {}
    if "docProps/core.xml" in z.namelist():
        core = ET.fromstring(z.read("docProps/core.xml"))
        props = {"title": (core.findtext(DC + "title") or "").strip(), "creator": (core.findtext(DC + "creator") or "").strip()}
    return out, props


# ---- odt ----------------------------------------------------------------------------------------------------


def _odt_styles(*roots: ET.Element) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for root in roots:
        for st in root.iter(STYLE + "style"):
            if st.get(STYLE + "family") != "paragraph":
                continue
            ol = st.get(STYLE + "default-outline-level")
            out[st.get(STYLE + "name")] = {"parent": st.get(STYLE + "parent-style-name"),
                                           "display": st.get(STYLE + "display-name") or st.get(STYLE + "name"),
                                           "outline": int(ol) if ol else None}
    return out


def _odt_style(styles: dict[str, dict], name: str | None) -> tuple[int | None, str]:
    """(outline level 1-based or None, the nearest named (non-automatic) style's display name)."""
    seen, shown, level = set(), None, None
    while name and name in styles and name not in seen:
        seen.add(name)
        st = styles[name]
        if level is None and st["outline"]:
            level = st["outline"]
        # a paragraph in the 'Heading N' style that LibreOffice keeps out of the outline (a text:p, not a text:h)
        # still prints as a head of that level
        m = re.fullmatch(r"heading[ _]?(?:_20_)?([1-9])", (st["display"] or "").strip().lower())
        if level is None and m:
            level = int(m.group(1))
        if shown is None and not re.fullmatch(r"P\d+", name):
            shown = st["display"]
        name = st["parent"]
    return level, shown or (name or "")


def _odt_text(el: ET.Element) -> str:
    """The text a paragraph prints: spans, links, fields' shown values, spaces and tabs; footnote bodies,
    comments, the list label (text:number) and a frame's own paragraphs left out."""
    parts: list[str] = [el.text or ""]

    def walk(e: ET.Element) -> None:
        for ch in e:
            tag = ch.tag
            if tag in (TEXT + "note", TEXT + "number", OFFICE + "annotation", TEXT + "tracked-changes",
                       TEXT + "p", TEXT + "h"):
                pass
            elif tag == TEXT + "s":
                parts.append(" " * int(ch.get(TEXT + "c", "1")))
            elif tag == TEXT + "tab":
                parts.append("\t")
            elif tag == TEXT + "line-break":
                parts.append(" ")
            elif not tag.startswith("{urn:oasis:names:tc:opendocument:xmlns:drawing"):
                parts.append(ch.text or "")
                walk(ch)
            parts.append(ch.tail or "")

    walk(el)
    return "".join(parts)


def odt_paragraphs(data: bytes) -> tuple[list[dict], dict]:
    z = zipfile.ZipFile(io.BytesIO(data))
    content = ET.fromstring(z.read("content.xml"))
    roots = [content] + ([ET.fromstring(z.read("styles.xml"))] if "styles.xml" in z.namelist() else [])
    styles = _odt_styles(*roots)
    out: list[dict] = []

    rows = iter(range(1, 1 << 30))
    row = None

    def walk(el: ET.Element, in_toc: bool, in_bib: bool) -> None:
        nonlocal row
        for ch in el:
            tag = ch.tag
            if tag == "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}table-row":
                outer, row = row, next(rows)
                walk(ch, in_toc, in_bib)
                row = outer
                continue
            if tag in (TEXT + "note", OFFICE + "annotation", TEXT + "tracked-changes"):
                continue
            toc = in_toc or tag in (TEXT + "table-of-content", TEXT + "illustration-index", TEXT + "table-index",
                                    TEXT + "alphabetical-index", TEXT + "user-index", TEXT + "object-index")
            bib = in_bib or tag == TEXT + "bibliography"
            if tag in (TEXT + "p", TEXT + "h"):
                lvl, name = _odt_style(styles, ch.get(TEXT + "style-name"))
                if tag == TEXT + "h":
                    lvl = int(ch.get(TEXT + "outline-level", lvl or 1))
                if lvl is not None and lvl > 9:  # LibreOffice's index entry styles carry level 10: body text
                    lvl = None
                out.append({"text": _odt_text(ch).strip(), "style": name, "level": lvl, "numbered": False,
                            "in_toc": toc, "bibliography_field": bib, "row": row})
                walk_frames(ch, toc, bib)  # a frame anchored in this paragraph holds paragraphs of its own
            else:
                walk(ch, toc, bib)

    def walk_frames(p: ET.Element, toc: bool, bib: bool) -> None:
        for ch in p:
            if ch.tag in (TEXT + "note", OFFICE + "annotation"):
                continue
            if ch.tag.endswith("}text-box"):
                walk(ch, toc, bib)
            else:
                walk_frames(ch, toc, bib)

    walk(content.find(f"{OFFICE}body/{OFFICE}text"), False, False)
    props = {}
    if "meta.xml" in z.namelist():
        meta = ET.fromstring(z.read("meta.xml"))
        props = {"title": (meta.findtext(f".//{DC}title") or "").strip(),
                 "creator": (meta.findtext(f".//{DC}creator") or "").strip()}
    return out, props


def paragraphs(data: bytes, path: str) -> tuple[list[dict], dict]:
    return odt_paragraphs(data) if path.lower().endswith(".odt") else docx_paragraphs(data)


# ---- truth --------------------------------------------------------------------------------------------------


def squash(s: str) -> str:
    s = unicodedata.normalize("NFKD", s or "")
    return re.sub(r"[\W_]+", "", s.lower())


def numbering_depth(text: str) -> int | None:
    """1 for '3 Title', 2 for '3.1 Title', 4 for '3.1.3.1 Title'; None for an unnumbered head."""
    m = re.match(r"(\d+(?:\.\d+)*)\.?\s", text.strip())
    return m.group(1).count(".") + 1 if m else None


def derive_truth(paras: list[dict], props: dict, first_page: str = "", levels_from_numbering: bool = False) -> dict:
    """The truth fields from a document's paragraphs (the builder's core; tests/test_word_truth.py calls it).
    ``levels_from_numbering``: a document whose heads all share one outline level and print their level in a typed
    number ('3.1.3.1 Title') takes the number's depth as its level (an unnumbered head: 1)."""
    title_parts = [p["text"] for p in paras if p["style"].strip().lower() == "title" and p["text"] and not p["in_toc"]]
    title = " ".join(title_parts)
    if not title and props.get("title") and squash(props["title"]) in squash(first_page):
        title = props["title"]
    # the creator property names the authors only where page 1 prints it ("A, B and C": one name a piece)
    authors = [a.strip() for a in re.split(r",|;|\band\b|&", props.get("creator") or "") if a.strip()]
    if not (first_page and authors and all(squash(a) in squash(first_page) for a in authors)):
        authors = []

    sections: list[dict] = []
    n_refs = 0
    abstract_parts: list[str] = []
    mode, mode_level = None, 0  # "bib" / "abstract" while inside such a section
    bib_rows: set[int] = set()  # a list laid out as a table (Word's BIBLIOGRAPHY field: number | entry): one a row
    for p in paras:
        text = p["text"]
        is_head = p["level"] is not None and not p["in_toc"] and bool(text) and p["style"].strip().lower() not in (
            "title", "subtitle", "toc heading")
        if is_head:
            key = head_key(text)
            if mode and p["level"] <= mode_level:
                mode = None
            if key in BIB_HEADS:
                # the bibliography's own head opens the list, and the PDF prints it as a heading: a section
                mode, mode_level = "bib", p["level"]
            elif key in TOC_HEADS:
                continue
            elif key in ABSTRACT_HEADS and not abstract_parts:
                mode, mode_level = "abstract", p["level"]
            level = p["level"]
            if levels_from_numbering:
                level = numbering_depth(text) or 1
            sections.append({"level": level, "title": re.sub(r"\s+", " ", text)})
            continue
        if not text:
            continue
        if head_key(text) in ABSTRACT_HEADS and not p["in_toc"]:
            # a label paragraph ('Abstract' in body style) opens the abstract; a second one (its translation) ends it
            mode, mode_level = ("abstract", 99) if not abstract_parts else (None, 0)
            continue
        if mode == "bib" or p["bibliography_field"]:  # a BIBLIOGRAPHY field's entries: under any head
            if p.get("row") is None:
                n_refs += 1
            elif p["row"] not in bib_rows:
                bib_rows.add(p["row"])
                n_refs += 1
        elif mode == "abstract" and not p["in_toc"]:
            abstract_parts.append(text)
    abstract = re.sub(r"\s+", " ", " ".join(abstract_parts))[:400]
    return {"title": re.sub(r"\s+", " ", title).strip(), "authors": authors, "sections": sections,
            "n_references": n_refs, "n_bibliography_entries_printed_estimate": n_refs, "reference_titles": [],
            "abstract": abstract}


def git_read(mirror: Path, repo: str, commit: str, path: str) -> bytes:
    base = mirror / repo.replace("/", "+") / "repo"
    gd = base / ".git" if (base / ".git").is_dir() else base
    if not gd.exists():
        raise SystemExit(f"no snapshot of {repo} at {base} (fetch it first)")
    return subprocess.run(["git", "--git-dir", str(gd), "show", f"{commit}:{path}"], capture_output=True, check=True).stdout


def derive(entry: dict, mirror: Path) -> tuple[dict, bytes]:
    src = git_read(mirror, entry["repo"], entry["commit"], entry["source_path"])
    pdf = git_read(mirror, entry["repo"], entry["commit"], entry["pdf_path"])
    pages, first, text = pdf_text(pdf)
    paras, props = paragraphs(src, entry["source_path"])
    truth = {"slug": entry["slug"],
             "source": {k: entry[k] for k in ("repo", "commit", "pdf_path", "source_path", "producer")}}
    truth.update(derive_truth(paras, props, first, entry.get("levels_from_numbering", False)))
    notes = []
    for field, value in entry.get("fixes", {}).items():
        if field == "drop_sections":
            truth["sections"] = [s for s in truth["sections"] if s["title"] not in value]
        elif field == "rename_sections":
            for sec in truth["sections"]:
                sec["title"] = value.get(sec["title"], sec["title"])
        elif field == "set_levels":  # the level a head's printed number shows, where its style says another
            for sec in truth["sections"]:
                sec["level"] = value.get(sec["title"], sec["level"])
        elif field == "append_sections":  # a head the page prints in a body style (bold caps, no outline level)
            truth["sections"] += value
        elif field == "n_references":
            truth["n_references"] = truth["n_bibliography_entries_printed_estimate"] = value
        else:
            truth[field] = value
        notes.append(f"hand fix: {field} = {json.dumps(value, ensure_ascii=False)[:200]}")
    notes += entry.get("notes", [])
    truth["n_sections"] = len(truth["sections"])
    truth["pages"] = pages
    truth["style"] = entry.get("producer")
    flat = squash(text)
    found = [s["title"] for s in truth["sections"] if squash(s["title"]) in flat]
    truth["sanity"] = {
        "title_found_on_page1": squash(truth["title"]) in squash(first) if truth["title"] else None,
        "sections_found": f"{len(found)}/{len(truth['sections'])}",
        "sections_missing": [s["title"] for s in truth["sections"] if s["title"] not in found][:10],
        "authors_found_on_pages1_2": f"{sum(squash(a) in flat[:20000] for a in truth['authors'])}/{len(truth['authors'])}",
        "abstract_found": squash(truth["abstract"][:120]) in flat if truth["abstract"] else None,
    }
    truth["notes"] = " ".join(n for n in notes if n)
    return truth, pdf


def source_md(entry: dict, truth: dict) -> str:
    return (f"# {entry['slug']}\n\n- Title: {truth['title']}\n- Repository: https://github.com/{entry['repo']}\n"
            f"- Commit: {entry['commit']}\n- PDF: `{entry['pdf_path']}` (copied byte-for-byte as `paper.pdf`), "
            f"producer: {entry['producer']}\n- Source: `{entry['source_path']}`\n- License: {entry['licence']}\n"
            f"- Layout: {entry.get('layout', '')}\n\n"
            "Ground truth in `truth.json` was derived from the word-processor source at that commit by "
            "benchmarks/word_truth.py (hand fixes listed in its `notes`).\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=MIRROR)
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--only")
    ap.add_argument("--dump", action="store_true", help="print each source's paragraphs (style, level) instead")
    args = ap.parse_args()
    summary = []
    for entry in json.loads(args.manifest.read_text())["papers"]:
        if args.only and args.only not in entry["slug"]:
            continue
        print(entry["slug"], file=sys.stderr)
        if args.dump:
            paras, props = paragraphs(git_read(args.mirror, entry["repo"], entry["commit"], entry["source_path"]),
                                      entry["source_path"])
            print(json.dumps(props, ensure_ascii=False))
            for p in paras:
                if p["text"]:
                    print(f"{p['level'] or '-'} {'T' if p['in_toc'] else ' '}{'B' if p['bibliography_field'] else ' '}"
                          f" [{p['style'][:18]}] {p['text'][:110]}")
            continue
        truth, pdf = derive(entry, args.mirror)
        d = args.out / entry["slug"]
        d.mkdir(parents=True, exist_ok=True)
        (d / "paper.pdf").write_bytes(pdf)
        (d / "truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False))
        (d / "SOURCE.md").write_text(source_md(entry, truth))
        summary.append({"slug": entry["slug"], "pages": truth["pages"], "sections": truth["n_sections"],
                        "authors": len(truth["authors"]), "refs": truth["n_references"], **truth["sanity"]})
    if not args.dump:
        json.dump(summary, sys.stdout, indent=1, ensure_ascii=False)
        print()


if __name__ == "__main__":
    main()
