"""S2ORC JSON (allenai's doc2json, the S2ORC and CORD-19 releases) -> labelled blocks in reading order.

doc2json turns GROBID's TEI into one JSON object a paper: ``title``, ``authors`` (``first``, ``middle``
(a list), ``last``, ``suffix``, ``affiliation`` {``laboratory``, ``institution``, ``location``},
``email``), ``abstract`` and ``pdf_parse`` {``abstract``, ``body_text``, ``back_matter``: lists of
paragraphs ``{text, cite_spans, ref_spans, eq_spans, section, sec_num}``; ``bib_entries`` {``BIBREFn``:
{``title``, ``authors``, ``year``, ``venue``, ``raw_text``}}; ``ref_entries`` {``FIGREFn`` / ``TABREFn``:
{``text``, ``type_str``, ``content`` (a table's HTML)}}}. CORD-19 and the S2ORC release hold the same
lists at the top level, the title and authors under ``metadata``.

There is no heading in the text: every paragraph names its section (``section``, ``sec_num``), and a
heading is written where that pair changes. In a paper that numbers its sections, a section without a
number, or whose number goes back (GROBID takes a list's ``5.`` for a head), is a heading only when it is
a standard one (Acknowledgements, ...) or in the back matter (as the TEI reader does); a back-matter
section named by one lowercase word is the writer's name for the division (``annex``), no printed head.
A figure's or table's caption is written after the paragraph that first points to it. The title and
authors come from their own fields, never from a bibliography entry; the reference list from each
entry's ``raw_text`` (else its fields).
"""

from __future__ import annotations

import re

from ctxmill.sources.tei_xml import _SECTION_NUMBER, _standard


def paper(data) -> dict | None:
    """The paper's paragraph lists (``pdf_parse``, or the object itself in CORD-19's layout) of a
    parsed JSON value, or None when it is not S2ORC JSON."""
    if not isinstance(data, dict):
        return None
    parse = data.get("pdf_parse") if isinstance(data.get("pdf_parse"), dict) else data
    if isinstance(parse.get("body_text"), list) and isinstance(parse.get("bib_entries", {}), dict) and \
            all(isinstance(p, dict) and isinstance(p.get("text"), str) for p in parse["body_text"][:50]) and \
            (parse["body_text"] or _maker(data)):
        return parse
    return None


def _maker(data: dict) -> str:
    head = data.get("header")
    made = head.get("generated_with") if isinstance(head, dict) else None
    return made if isinstance(made, str) else ""


def _str(v) -> str:
    return " ".join(v.split()) if isinstance(v, str) else ""


def _person(a) -> str:
    if not isinstance(a, dict):
        return ""
    middle = a.get("middle") if isinstance(a.get("middle"), list) else [a.get("middle")]
    parts = [_str(a.get("first")), *(_str(m) for m in middle), _str(a.get("last")), _str(a.get("suffix"))]
    return " ".join(p for p in parts if p)


def _affiliation(a) -> str:
    aff = a.get("affiliation") if isinstance(a, dict) else None
    if not isinstance(aff, dict):
        return ""
    parts = [_str(aff.get("laboratory")), _str(aff.get("institution"))]
    loc = aff.get("location")
    if isinstance(loc, dict):
        parts += [_str(v) for v in loc.values()]
    return ", ".join(p for p in parts if p)


def _number(sec_num) -> tuple[int, ...] | None:
    """``"2.1"`` -> (2, 1); None for no number or one that is no section number."""
    s = _str(sec_num) if not isinstance(sec_num, int) else str(sec_num)
    if not s or not _SECTION_NUMBER.fullmatch(s):
        return None
    return tuple(int(x) if x.isdigit() else ord(x) - 64 + 1000 for x in s.rstrip(".").split("."))


def _entry(b: dict) -> str:
    raw = _str(b.get("raw_text"))
    if raw:
        return raw
    authors = ", ".join(p for p in map(_person, b.get("authors") or []) if p)
    parts = [authors + "." if authors else "", _str(b.get("title")).rstrip(".") + "." if _str(b.get("title")) else "",
             _str(b.get("venue")), str(b["year"]) if isinstance(b.get("year"), (int, str)) and b.get("year") else ""]
    return " ".join(p for p in parts if p)


def blocks(data) -> list[tuple[str, str]]:
    """The blocks of an S2ORC paper (already parsed JSON)."""
    parse = paper(data)
    if parse is None:
        return []
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else data
    out: list[tuple[str, str]] = []

    def emit(category: str, text: str) -> None:
        if text and text.strip():
            out.append((category, text.strip()))

    emit("title", _str(meta.get("title")))
    people = [a for a in meta.get("authors") or [] if isinstance(a, dict)]
    emit("text", ", ".join(p for p in map(_person, people) if p))
    affs: list[str] = []
    for a in people:
        if (t := _affiliation(a)) and t not in affs:
            affs.append(t)
    for t in affs:
        emit("text", t)
    emit("text", ", ".join(m for a in people if (m := _str(a.get("email")))))
    abstract = [p for p in parse.get("abstract") or [] if isinstance(p, dict)] \
        if isinstance(parse.get("abstract"), list) else []
    paras = [_str(p.get("text")) for p in abstract] or [_str(meta.get("abstract"))]
    for k, p in enumerate(q for q in paras if q):
        # (a run-in label, no heading: the metadata stage reads an "Abstract" lead as the abstract's start)
        emit("text", ("Abstract: " if k == 0 else "") + p)

    body = [p for p in parse.get("body_text") or [] if isinstance(p, dict)]
    back = [p for p in parse.get("back_matter") or [] if isinstance(p, dict)] \
        if isinstance(parse.get("back_matter"), list) else []
    numbers = {_number(p.get("sec_num")) for p in body} - {None}
    numbered = len(numbers) >= 3
    refs = parse.get("ref_entries") if isinstance(parse.get("ref_entries"), dict) else {}
    placed: set[str] = set()
    last_head: tuple | None = None
    last_num: tuple[int, ...] | None = None
    for k, p in enumerate(body + back):
        in_back = k >= len(body)
        head = (_str(p.get("section")), p.get("sec_num"))
        if head != last_head:
            last_head = head
            section, num = head[0], _number(head[1])
            if num is not None and (last_num is None or num > last_num) and section:
                emit("section_header", f"{_str(head[1]).rstrip('.')} {section}")
                last_num = num
            elif section and num is None and (not numbered or _standard(section) or
                                              (in_back and not re.fullmatch(r"[a-z]+", section))):
                emit("section_header", section)
            elif section:  # (a number that goes back: a list item GROBID took for a head; a run-in lead)
                emit("discarded", " ".join(x for x in (_str(head[1]), section) if x))  # in removed.json
        emit("text", _str(p.get("text")))
        for span in p.get("ref_spans") or []:  # a figure or table: its caption after the paragraph naming it first
            rid = span.get("ref_id") if isinstance(span, dict) else None
            if isinstance(rid, str) and rid in refs and rid not in placed:
                placed.add(rid)
                _ref_entry(refs[rid], emit)
    for rid, r in refs.items():  # the ones no paragraph points to: after the text
        if rid not in placed:
            _ref_entry(r, emit)

    bib = parse.get("bib_entries") if isinstance(parse.get("bib_entries"), dict) else {}
    entries = [e for e in (_entry(b) for b in bib.values() if isinstance(b, dict)) if e]
    if entries:
        emit("section_header", "References")
        for e in entries:
            emit("list_item", "- " + e)
    return out


def _ref_entry(r, emit) -> None:
    if not isinstance(r, dict):
        return
    kind = "Table" if _str(r.get("type_str")).lower() == "table" else "Figure"
    text, num = _str(r.get("text")), _str(str(r["num"])) if r.get("num") is not None else ""
    if text:
        emit("caption", f"{kind} {num}: {text}" if num else text)
    content = r.get("content")
    if isinstance(content, str) and "<tr" in content:
        emit("table", content)
