"""Round 38: OCR set 7's shapes (benchmarks/results/round37_ocr_heldout7.md). allenai doc2json's S2ORC JSON
read by its documented schema (title and authors from their own fields, a heading where a paragraph's section
changes, the bibliography's raw strings as the reference list, JSON escapes decoded); JSON that no reader takes is
flagged by QA whatever kind it was read as. Every input is written here; nothing is copied from a benchmark
document."""

from __future__ import annotations

import itertools
import json

from ctxmill.sources.engines import sniff_engine
from test_ocr_engines_round34 import compile_text, headings


def para(text: str, section: str, num: str | None, refs: list[str] = ()) -> dict:
    return {"text": text, "cite_spans": [], "ref_spans": [{"start": 0, "end": 3, "text": "Fig", "ref_id": r}
                                                          for r in refs],
            "eq_spans": [], "section": section, "sec_num": num}


def s2orc_paper() -> dict:
    cited = [{"first": "Quentin", "middle": [], "last": "Cited", "suffix": ""},
             {"first": "Rhoda", "middle": [], "last": "Elsewhere", "suffix": ""}]
    bib = {f"BIBREF{k}": {"ref_id": f"b{k}", "title": f"Tide tables of harbour {k}", "authors": cited, "year": 2001 + k,
                          "venue": "Harbour Notes", "raw_text": f"Quentin Cited and Rhoda Elsewhere. {2001 + k}. "
                                                                f"Tide tables of harbour {k}. Harbour Notes."}
           for k in range(6)}
    body = [para("Ledgers of the old port were counted by hand.", "Introduction", "1"),
            para("We read them again with a camera.", "Introduction", "1", ["FIGREF0"]),
            para("Each page was photographed twice.", "Method", "2"),
            para("The sampling frame covers every year.", "Sampling", "2.1"),
            para("A lead-in that the converter took for a head.", "Run-in Lead", None),
            para("Counts agree within two per cent.", "Results", "3"),
            para("1. The first listed item of an appendix.", "Listed Item", "2."),
            para("A footnote with no section.", "", None)]
    back = [para("We thank the harbour master.", "Acknowledgements", None),
            para("A Extra tables for the curious.", "annex", None)]
    return {"paper_id": "p1", "header": {"generated_with": "S2ORC 1.0.0", "date_generated": "2021-01-01T00:00:00Z"},
            "title": "Counting Ledgers in the Old Port",
            "authors": [{"first": "Zo\u00eb", "middle": ["J"], "last": "Harb\u00f8ur", "suffix": "",
                         "affiliation": {"laboratory": "", "institution": "Portsea College", "location": {}},
                         "email": "zoe@portsea.example"},
                        {"first": "Marek", "middle": [], "last": "Quay", "suffix": "", "affiliation": {}, "email": ""}],
            "year": "", "abstract": "We count ledgers.",
            "pdf_parse": {"paper_id": "p1", "_pdf_hash": "", "abstract": [para("We count ledgers again.", "Abstract", None)],
                          "body_text": body, "back_matter": back, "bib_entries": bib,
                          "ref_entries": {"FIGREF0": {"text": "A ledger page under the camera.", "type_str": "figure",
                                                      "num": None, "uris": None}}}}


def test_s2orc_json_is_read_by_its_schema():
    text = json.dumps(s2orc_paper(), indent=4)  # (non-ASCII letters written as \\u escapes, as doc2json does)
    assert "\\u00eb" in text
    assert sniff_engine(text, "paper.json") == "s2orc-json"
    doc = compile_text(text, "paper.json")
    assert doc.metadata.source.get("engine") == "s2orc-json"
    assert doc.metadata.title == "Counting Ledgers in the Old Port"
    names = [a.name for a in doc.metadata.authors]
    assert any("Harbøur" in n for n in names) and any("Quay" in n for n in names)
    assert not any("Cited" in n or "Elsewhere" in n for n in names)  # (a cited paper's authors are no byline)
    assert headings(doc.markdown) == [(1, "Counting Ledgers in the Old Port"), (2, "1 Introduction"), (2, "2 Method"),
                                      (3, "2.1 Sampling"), (2, "3 Results"), (2, "Acknowledgements"), (2, "References")]
    assert "Zoë" in doc.markdown and "\\u00" not in doc.markdown
    assert len(doc.references) == 6
    md = doc.markdown
    assert md.index("We read them again") < md.index("A ledger page under the camera") < md.index("Each page")
    removed = {r["text"] for r in doc.attrs["removed"]}
    assert {"Run-in Lead", "2. Listed Item"} <= removed  # (no heading, their words kept)
    assert not any(c.id == "input_syntax" for c in doc.qa.checks)


def test_json_that_no_reader_takes_is_flagged_whatever_kind_it_was_read_as():
    # (an HTML table inside a string makes the text sniff as raw OCR text, not Markdown)
    data = {"record": "r1", "rows": ["<table><tr><td>1</td></tr></table>"] * 3,
            "notes": ["A note about the harbour ledgers and their pages."] * 20}
    doc = compile_text(json.dumps(data, indent=2), "record.json")
    assert any(c.id == "input_syntax" and c.severity == "error" for c in doc.qa.checks)
    wrapped = {"items": [{"text": "The harbour ledgers were counted by hand over many years, page after page "
                                  "and line after line, by clerks who wrote in a small and careful script."}] * 12}
    doc = compile_text(json.dumps(wrapped, indent=4), "items.json")
    assert any(c.id == "input_syntax" for c in doc.qa.checks)


# ---------------------------------------------------------------- PyMuPDF4LLM's Markdown

def pymupdf4llm_paper() -> str:
    people = [("Niki Harbour", "∗", "Portsea Research", "niki@portsea.example"),
              ("Ada Quay", "∗†", "Portsea College", "ada@portsea.example"),
              ("Marek Stone", "∗", "University of Portsea", "marek@portsea.example")]
    out = ["A notice about copying the tables of this paper.", "", "## **Counting Ledgers in the Old Port**", "", ""]
    for name, mark, aff, mail in people:
        out += [f"**{name}** _[{mark}]_", aff, "```", f"   {mail}", "", "```", "", ""]
    out += ["**Abstract**", "", "We count the ledgers of the old port by hand and by camera.", ""]
    for num, head in (("1", "Introduction"), ("2", "Method"), ("2.1", "Sampling Frame"), ("2.2", "Cameras"),
                      ("3", "Results")):
        out += [f"**{num}** **{head}**", "", f"The {head.lower()} of the study is told here at some length.", ""]
    out += ["**Residual Counts** The counts left over are listed in the table, page by page and year by",
            "year, with the clerk who wrote each one.", "",
            "**Acknowledgements** We thank the harbour master for the keys.", "",
            "**References**", ""]
    out += [f"[{k}] A. Author. Tide tables of harbour {k}. Harbour Notes, {2000 + k}." for k in range(1, 7)]
    out += ["", "**Ledger Photographs**", "", "The photographs of every ledger page are shown here.", ""]
    return "\n".join(out)


def test_pymupdf4llm_bold_line_headings_title_and_byline():
    text = pymupdf4llm_paper()
    assert sniff_engine(text, "paper.md") == "pymupdf4llm"
    doc = compile_text(text, "paper.md")
    assert doc.metadata.source.get("engine") == "pymupdf4llm"
    assert doc.metadata.title == "Counting Ledgers in the Old Port"  # (no "**" kept)
    assert headings(doc.markdown) == [
        (1, "Counting Ledgers in the Old Port"), (2, "Abstract"), (2, "1 Introduction"), (2, "2 Method"),
        (3, "2.1 Sampling Frame"), (3, "2.2 Cameras"), (2, "3 Results"), (2, "Acknowledgements"), (2, "References"),
        (2, "Ledger Photographs")]
    assert "**Residual Counts** The counts" in doc.markdown  # (a bold paragraph lead stays run-in)
    assert [a.name for a in doc.metadata.authors] == ["Niki Harbour", "Ada Quay", "Marek Stone"]
    assert "```" not in doc.markdown and "ada@portsea.example" in doc.markdown
    assert len(doc.references) == 6


def test_bold_lines_without_the_number_mark_are_not_taken_for_pymupdf4llm():
    text = "\n".join(["# Notes", "", "**Important** read this.", "", "**1** item", "", "Some text here."] * 2)
    assert sniff_engine(text, "notes.md") != "pymupdf4llm"


# ---------------------------------------------------------------- double-spaced extractor text (Apache Tika)

def double_spaced_paper() -> str:
    serial = itertools.count()
    body = ("the ledgers of the old port were counted by hand over many years and the clerks wrote "
            "their totals in the margin of every page in a small and careful script so that each "
            "count could be checked again by the next clerk who came to the office in the morning").split()
    def para(n_lines: int, seed: int) -> list[str]:
        out, k = [], seed
        for _ in range(n_lines):
            words = [body[(k + j) % len(body)] for j in range(8)] + [f"entry{next(serial)}"]  # (no line twice)
            out.append(" ".join(words).capitalize() if not out else " ".join(words))
            k += 9
        out[-1] += "."
        return out
    lines = ["Draft version March 4, 2021", "Counting Ledgers in the Old Port", "Ada Quay and Marek Stone", "ABSTRACT"]
    lines += para(5, 0)
    heads = ["1. INTRODUCTION", "2. METHOD", "2.1. Sampling Frame", "2.2. Cameras", "3. RESULTS"]
    for n, head in enumerate(heads):
        lines.append(head)
        lines += para(60, n * 7)
        if n == 1:
            lines[-1] = lines[-1][:-1] + " as the ledger of the harbour shows for the whole of the dif-"
            lines.append("Ledger Counts in the Old Port 3")
            lines.append("Figure 1. A ledger page under the camera.")
            lines.append("fering counts of the two clerks.")
        if n in (0, 2, 4):
            lines.append(f"Ledger Counts in the Old Port {n + 2}")
    return "\n\n".join(lines) + "\n"


def test_double_spaced_text_is_read_line_by_line_with_its_numbered_heads():
    text = double_spaced_paper()
    assert sniff_engine(text, "paper.txt") == "text"
    doc = compile_text(text, "paper.txt")
    heads = [h for h in headings(doc.markdown) if h[0] > 1]
    assert heads == [(2, "ABSTRACT"), (2, "1 INTRODUCTION"), (2, "2 METHOD"), (3, "2.1 Sampling Frame"),
                     (3, "2.2 Cameras"), (2, "3 RESULTS")]
    assert "Draft version" not in " ".join(t for lv, t in headings(doc.markdown) if lv == 1)  # (a dated stamp)
    removed = [r for r in doc.attrs["removed"] if r["reason"] == "running-head"]
    assert len(removed) == 4 and "Ledger Counts" not in doc.markdown
    assert "difFigure" not in doc.markdown and "Figure 1" in doc.markdown


def test_one_paragraph_a_line_markdown_is_not_double_spaced_text():
    para = ("The ledgers of the old port were counted by hand over many years, and the clerks wrote their totals "
            "in the margin of every page in a small and careful script. ")
    text = "\n\n".join(para * 2 for _ in range(50))
    assert sniff_engine(text, "notes.md") != "text"
