"""QA report: what a careful reader would want to know about a compiled document.

Each check has an ``id``, a ``severity`` (error | warning | info), a message and, where it
applies, a location ``{page?, pages?, section_id?, block_id?, char_span?}``.

Score (0-100), documented in docs/outputs.md::

    penalty = sum over check ids of min(cap[severity], weight[severity] * occurrences)
    weight: error 20, warning 4, info 0      cap: error 40, warning 12, info 0
    score   = min(100 - penalty, the lowest CEILING of the checks present), at least 0

so one kind of problem, however often it occurs, cannot sink the score on its own, while
several different problems add up; and a compile whose structure is missing cannot look good
whatever else is right: an empty document scores at most 10, a few words at most 40, no headings
in 4+ pages, a title that reads like a running head or a date, a gap in the section numbering,
lines set like headings left in the body, or a page whose text vanished, at most 65.
Findings with one root cause are reported once with a count (``location.count``); the score
counts every occurrence. Info checks are reported but never cost points.
"""

from __future__ import annotations

import bisect
import json
import re
from collections import Counter, defaultdict
from itertools import islice
from operator import attrgetter

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document, Kind, QACheck, QAReport, of_kind
from ctxmill.render.markdown import written_escapes
from ctxmill.sources import WARNING_NOTES

_SPANS = attrgetter("spans")

WEIGHT = {"error": 20, "warning": 4, "info": 0}
CAP = {"error": 40, "warning": 12, "info": 0}
# Checks that say the document's structure is missing: the score stays at or below these.
CEILING = {"empty_document": 10, "too_little_text": 40, "no_headings": 65, "title_suspect": 65,
           "heading_numbering_gap": 65, "heading_like_text": 65, "page_text_lost": 65}
MAX_PER_CHECK = 25  # list at most this many occurrences of one check, then a summary line
FOLD_AFTER = 3  # more artefacts of one kind than this are one finding with a count
FEW_WORDS = 20  # fewer words than this in document.md is an error; fewer than MANY_WORDS a warning
MANY_WORDS = 100
LOST_CHARS = 50  # a page with this many characters in and nothing out lost its text

_ARTEFACTS = [
    ("latex_math_delimiters", re.compile(r"\\\(|\\\)|\\\[|\\\]"), "OCR LaTeX math delimiter left in the text"),
    ("latex_command", re.compile(r"\\(?:begin|end|cite|citep|citet|ref|label|textbf|emph|mathrm|frac)\{"),
     "LaTeX command left in the text"),
    ("html_tag", re.compile(r"</?(?:table|tr|td|th|div|span|br|p|img)\b[^>]*>", re.IGNORECASE),
     "HTML tag left in the text"),
    ("page_marker", re.compile(r"──\s*PAGE\s+\d+|^-{2,}\s*page\s+\d+", re.IGNORECASE | re.MULTILINE),
     "page marker left in the text"),
    ("image_placeholder", re.compile(r"!\[\]\(images/[^)]*\)"), "bare OCR image placeholder left in the text"),
]
# a character every match of each artefact pattern holds
_ARTEFACT_MARK = {
    "latex_math_delimiters": lambda md: "\\" in md, "latex_command": lambda md: "\\" in md,
    "html_tag": lambda md: "<" in md, "page_marker": lambda md: "──" in md or "--" in md,
    "image_placeholder": lambda md: "![](" in md,
}
# ("Â" of a misread no-break space or degree sign follows the character before it; a real Â, a
# math hat over A composed by sources.pdf, stands as a word of its own: "Â = B̂ + ...")
_MOJIBAKE = re.compile(r"Ã[\x80-\xbf¡-ÿ]|â€[™œ\x9d“”˜]|(?<=[^\s(\[{=+\-−|/])Â[\s ·°]|\ufffd")
_BROKEN_HYPHEN = re.compile(r"\b([a-z]{2,})- ([a-z]{2,})\b")
_SUSPENDED = {"and", "or", "to", "vs", "versus", "nor"}


def _code_spans(md: str) -> list[tuple[int, int]]:
    if "`" not in md:
        return []
    spans = [(m.start(), m.end()) for m in re.finditer(r"```.*?```", md, re.DOTALL)]
    spans += [(m.start(), m.end()) for m in re.finditer(r"`[^`\n]+`", md)]
    return sorted(spans)


def _inside(spans: list[tuple[int, int]]):
    """``lambda pos: any(a <= pos < b for a, b in spans)``, the spans merged once and each position found by a
    bisection (a scan of every span for every artefact found was matches x spans: a page of
    HTML soup, thousands of each)."""
    merged: list[list[int]] = []
    for a, b in sorted(spans):
        if b <= a:
            continue  # (holds no position)
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    starts = [a for a, _ in merged]
    ends = [b for _, b in merged]

    def inside(pos: int) -> bool:
        i = bisect.bisect_right(starts, pos) - 1
        return i >= 0 and pos < ends[i]

    return inside


def _block_starts(doc: Document) -> list[tuple[int, int]]:
    return sorted((doc.block_spans[b.id][0], b.page) for b in doc.blocks if b.id in doc.block_spans)


def _page_of(doc: Document, pos: int, starts: list[tuple[int, int]]) -> int | None:
    # starts: (markdown offset, page) of each block, sorted; filled at the first call (an empty
    # list: a document with no artefact or secret to place, most of them, never sorts 47,000
    # blocks of raw OCR lines for it)
    import bisect

    if not starts:
        starts.extend(_block_starts(doc))
    i = bisect.bisect_right(starts, (pos, 10**9)) - 1
    return starts[i][1] if i >= 0 else None


def _repeats(text: str) -> bool:
    nums = re.findall(r"\d+", text)
    return len(nums) != len(set(nums))


def _not_notation(unresolved: list) -> list:
    """Bracketed number lists that name a number twice ('[1,1,2] = [1,2,1]', a mathematics
    report's unordered lists) are notation, not citation callouts (a callout never names one
    source twice); the other groups of that page and section are the same notation."""
    notation = [u for u in unresolved if _repeats(u.text)]
    if not notation:
        return unresolved
    places = {(u.page, u.section_id) for u in notation}
    return [u for u in unresolved if (u.page, u.section_id) not in places]


def _input_syntax(stream) -> str | None:
    """"JSON" / "XML" when a text input that no OCR engine reader took (read as Markdown) is as a
    whole a JSON object or array, or an XML document: its compile is the data's syntax, whatever
    else QA finds right in it."""
    if stream.info.get("input_syntax"):  # (sources: JSON that no reader took, whatever kind it was read as)
        return stream.info["input_syntax"]
    # (the generic text readers, "text", "plain", "markdown", are no format's reader: XML in lines
    # reads as wrapped text to them)
    if stream.kind != "markdown" or stream.info.get("engine") not in (None, "text", "plain", "markdown") \
            or not stream.pages:
        return None
    first = next((ln.text.lstrip()[:5] for p in stream.pages for ln in p.lines if ln.text.strip()), "")
    if first.startswith("<?xml"):
        return "XML"
    last = next((ln.text.rstrip()[-1:] for p in reversed(stream.pages) for ln in reversed(p.lines) if ln.text.strip()),
                "")
    if first[:1] == "<" and first[1:2].isalpha() and last == ">" and _xml_document(stream):
        return "XML"  # (XML without a declaration: a root element that closes at the end)
    if not first or (first[0], last) not in (("{", "}"), ("[", "]")):
        return None
    try:
        value = json.loads("\n".join(ln.text for p in stream.pages for ln in p.lines))
    except (ValueError, RecursionError):
        return None
    return "JSON" if value else None  # ("{}" or "[]": nothing read either way; too_little_text says so)


def _xml_document(stream) -> bool:
    """The text is one well-formed XML element (not HTML: a page of markup is read as markup)."""
    import xml.etree.ElementTree as ET

    text = "\n".join(ln.text for p in stream.pages for ln in p.lines)
    if re.search(r"<!DOCTYPE|<!ENTITY", text[:20000], re.I):  # (no entity is expanded for a QA check)
        return False
    try:
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError):
        return False
    return root.tag.rpartition("}")[2].lower() != "html"


def assess(doc: Document, options: CompileOptions | None = None) -> QAReport:
    options = options or CompileOptions()
    checks: list[QACheck] = []
    add = checks.append
    stream = doc.stream

    # ---- pages declared but missing; empty and image-only pages
    declared = stream.declared_pages or max((p.declared_total or 0 for p in stream.pages), default=0) or None
    if declared and declared > doc.pages:
        add(QACheck("pages_missing", "error",
                    f"the source declares {declared} pages but holds {doc.pages}: pages {doc.pages + 1}-{declared} "
                    f"are missing", {"pages": [doc.pages + 1, declared]}))
    empty: list[int] = []
    for p in stream.pages:
        if p.error:
            add(QACheck("damaged_page", "error", f"page {p.number} is damaged and could not be read ({p.error}); "
                        "the other pages were compiled", {"page": p.number}))
        elif not p.has_text_layer and not p.ocr:
            add(QACheck("image_only_page", "warning", f"page {p.number} has no text layer (image only)",
                        {"page": p.number}))
        elif not any(ln.text.strip() for ln in p.lines):
            empty.append(p.number)
    if len(empty) == 1:
        add(QACheck("empty_page", "warning", f"page {empty[0]} has no text", {"page": empty[0]}))
    elif empty:
        # one finding: a two-sided thesis leaves a page blank before every chapter; only when
        # most pages are empty is the text probably missing
        sev = "warning" if len(empty) * 2 > len(stream.pages) else "info"
        add(QACheck("empty_page", sev, f"{len(empty)} pages have no text (blank, or graphics only): pages "
                    f"{_page_list(empty)}", {"count": len(empty), "pages": [empty[0], empty[-1]]}))
    for w in stream.warnings:
        add(QACheck("source_warning", "warning" if w.startswith(WARNING_NOTES) else "info", w))
    syntax = _input_syntax(stream)
    if syntax:  # (else a JSON export read as text scores 100 with its braces as the document)
        add(QACheck("input_syntax", "error", f"document.md is the input's {syntax} syntax, not a document: the input "
                    f"was read as text because no reader knows its format (an OCR engine's {syntax} export?)"))
    _ocr_checks(doc, add)  # OCR pages and their confidence (issue 9, below)

    # ---- references and citations (only when that part of the compile ran)
    cit_unresolved = [u for u in doc.unresolved if u.kind == "citation"]
    if not doc.references and cit_unresolved:
        cit_unresolved = _not_notation(cit_unresolved)
    if options.citations:
        if not doc.references and (doc.mentions or cit_unresolved):
            msg = f"{len(doc.mentions) + len(cit_unresolved)} citation callouts unresolved: no reference list found"
            if declared and declared > doc.pages:
                msg += f" (it is probably on the missing pages {doc.pages + 1}-{declared})"
            add(QACheck("no_reference_list", "error", msg))
        if doc.references:  # without a list, no_reference_list above is the one root cause
            _grouped(add, "unresolved_citation", "warning", cit_unresolved, "citation callout",
                     "citation {text!r} resolves to nothing: {reason}", "resolve to nothing")
        cited = {rid for m in doc.mentions for rid in m.reference_ids}
        uncited = [r for r in doc.references if r.id not in cited]
        if uncited and doc.mentions:
            add(QACheck("uncited_references", "info",
                        f"{len(uncited)} of {len(doc.references)} references are never cited: "
                        + ", ".join(r.id for r in uncited[:20]) + (" ..." if len(uncited) > 20 else ""),
                        {"reference_ids": [r.id for r in uncited]}))
        _doubtful_references(doc, add)
        _unparsed_references(doc, add)
        xrefs = [u for u in doc.unresolved if u.kind == "crossref"]
        # (split by the reason, once: `u not in figtab` compared each against every one, 10
        # million dataclass comparisons for 6,000 unresolved cross-references; an equal entry
        # has the same reason, so it is the same split)
        is_figtab = [_FIGTAB_RE.search(u.reason) is not None for u in xrefs]
        figtab = [u for u, f in zip(xrefs, is_figtab, strict=True) if f]
        _grouped(add, "missing_figure_or_table", "warning", figtab, "cross-reference",
                 "{text!r} points at nothing: {reason}", "point at nothing")
        _grouped(add, "missing_target", "warning", [u for u, f in zip(xrefs, is_figtab, strict=True) if not f],
                 "cross-reference",
                 "{text!r} points at nothing: {reason}", "point at nothing")
        if not options.ignore_pdf_links:
            # The PDF's own link annotations confirm (or question) what the text gave: a
            # citation link points at the page that holds the cited entry.
            internal = sum(1 for p in stream.pages for lk in p.links if lk.uri is None)
            if internal:
                dests: dict[int, set[int]] = defaultdict(set)
                for p in stream.pages:
                    dests[p.number] |= {lk.dest_page for lk in p.links if lk.uri is None and lk.dest_page}
                ref_page = {r.id: r.page for r in doc.references}
                confirmed = sum(
                    1 for m in doc.mentions
                    if any(ref_page.get(rid) in (dests[m.page] | dests[m.page + 1] | dests[m.page - 1])
                           for rid in m.reference_ids)
                )
                add(QACheck("pdf_links", "info",
                            f"the PDF has {internal} internal link annotations; {confirmed} of {len(doc.mentions)} "
                            f"linked citations point at a page the PDF's links on that page also lead to; the text "
                            f"gave {len(doc.crossrefs)} cross-references"))

    # ---- artefacts in document.md (outside code, and outside tables written as HTML on purpose)
    md = doc.markdown
    tables = of_kind(doc.blocks, Kind.TABLE)
    # (and outside the escapes the renderer wrote: "1\\) Text" is a paragraph's "1) Text", not OCR's math)
    in_code = _inside(_code_spans(md) + sorted(doc.block_spans[b.id] for b in tables if b.id in doc.block_spans)
                      + written_escapes(md))
    starts: list[tuple[int, int]] = []  # (built by _page_of when asked)
    found: list[tuple[str, str, str, int, int]] = []  # (id, what, text, start, end)
    for cid, rx, what in _ARTEFACTS:
        if _ARTEFACT_MARK[cid](md):  # (a pass over the text only where it holds the pattern's mark)
            for m in rx.finditer(md):
                if not in_code(m.start()):
                    found.append((cid, what, m.group(0), m.start(), m.end()))
    for m in () if md.isascii() else _MOJIBAKE.finditer(md):
        found.append(("mojibake", "mis-decoded characters", md[max(0, m.start() - 10):m.end() + 10],
                      m.start(), m.end()))
    for m in _BROKEN_HYPHEN.finditer(md) if "- " in md else ():
        if m.group(2) in _SUSPENDED or in_code(m.start()):
            continue
        found.append(("broken_hyphenation", "word broken at a line end", m.group(0), m.start(), m.end()))
    _fold_artefacts(doc, add, found, starts)

    # ---- secrets (ctxmill.redact, issue 8): listed here; redacted before any text leaves for an
    # embedder, an LLM or an MCP client. The location is a line, not a span: nothing to "repair".
    from ctxmill.redact import redact

    line_starts = None
    for f in redact(md).findings:
        if line_starts is None:
            line_starts = [0] + [m.end() for m in re.finditer("\n", md)]
        pos = line_starts[f.line - 1] if f.line - 1 < len(line_starts) else 0
        add(QACheck("secret", "warning", f"possible secret ({f.rule}) at document.md line {f.line}; "
                    f"redacted before text reaches an embedder, an LLM or an MCP client",
                    {"line": f.line, "page": _page_of(doc, pos, starts)}))

    # ---- suspiciously short sections (a leaf section with almost no text)
    body: dict[str | None, int] = defaultdict(int)
    for b in doc.blocks:
        if b.kind not in (Kind.HEADING, Kind.FURNITURE):
            body[b.section_id] += len(b.text)
    parents = {s.parent_id for s in doc.sections if s.parent_id}
    for s in doc.sections:
        if s.id in parents or s.level <= 1:
            continue
        if body.get(s.id, 0) < 120:
            add(QACheck("short_section", "info",
                        f"section {(s.number + ' ') if s.number else ''}{s.title!r} has only {body.get(s.id, 0)} "
                        f"characters of text", {"section_id": s.id, "page": s.page_start}))
    _text_checks(doc, add)
    _structure_checks(doc, add)
    return QAReport(score=score(checks), checks=_limit(checks))


def score(checks: list[QACheck]) -> int:
    """The documented 0-100 score (see the module docstring)."""
    by_id: Counter[tuple[str, str]] = Counter()
    for c in checks:
        by_id[(c.id, c.severity)] += _count(c)
    penalty = sum(min(CAP[sev], WEIGHT[sev] * n) for (_, sev), n in by_id.items())
    ceiling = min((CEILING[c.id] for c in checks if c.id in CEILING and c.severity == "error"), default=100)
    return max(0, min(100 - penalty, ceiling))


def _fold_artefacts(doc: Document, add, found, starts) -> None:
    """Each artefact on its own while there are a few; past FOLD_AFTER of one kind, one finding
    with the count, the pages and the blocks (one cause: the source or a stage left them all)."""
    import bisect

    if not found:
        return  # (nothing to place: the blocks' spans are not sorted for it)
    spans = sorted((s, e, bid) for bid, (s, e) in doc.block_spans.items())
    heads = [s for s, _, _ in spans]

    def block_at(pos: int) -> str | None:
        i = bisect.bisect_right(heads, pos) - 1
        return spans[i][2] if i >= 0 and spans[i][0] <= pos < spans[i][1] else None

    by_id: dict[str, list] = defaultdict(list)
    for item in found:
        by_id[item[0]].append(item)
    for cid, items in by_id.items():
        if len(items) <= FOLD_AFTER:
            for _, what, text, s, e in items:
                add(QACheck(cid, "warning", f"{what}: {text!r}",
                            {"char_span": [s, e], "page": _page_of(doc, s, starts)}))
            continue
        pages = sorted({p for p in (_page_of(doc, s, starts) for _, _, _, s, _ in items) if p is not None})
        blocks = list(dict.fromkeys(b for b in (block_at(s) for _, _, _, s, _ in items) if b))
        examples = ", ".join(repr(t) for t in list(dict.fromkeys(t for _, _, t, _, _ in items))[:4])
        loc = {"count": len(items), "block_ids": blocks[:200]}
        if pages:
            loc["pages"] = [pages[0], pages[-1]]
        add(QACheck(cid, "warning", f"{len(items)} times {items[0][1]}: {examples}, ..."
                    + (f" (pages {_page_list(pages)})" if pages else ""), loc))


def _count(c: QACheck) -> int:
    return int((c.location or {}).get("count", 1))


def _grouped(add, cid: str, severity: str, items: list, noun: str, one: str, many: str) -> None:
    """One check per root cause (the ``reason`` of unresolved items), with a count: 27 callouts
    that fail for one reason are one finding, not 27."""
    by_reason: dict[str, list] = defaultdict(list)
    causes: dict[str, str] = {}  # reason -> cause, each reason worked out once (60,000 items, ~1,100 reasons)
    for u in items:
        cause = causes.get(u.reason)
        if cause is None:
            cause = causes[u.reason] = _cause(u.reason)
        by_reason[cause].append(u)
    for cause, us in by_reason.items():
        if len(us) == 1:
            u = us[0]
            add(QACheck(cid, severity, one.format(text=u.text, reason=u.reason),
                        {"page": u.page, "section_id": u.section_id}))
            continue
        pages = sorted(set(map(_PAGE, us)))
        texts: dict[str, None] = {}  # the first five distinct texts: four shown, and whether there are more
        for t in map(_TEXT, us):
            if t not in texts:
                texts[t] = None
                if len(texts) > 4:
                    break
        examples = ", ".join(repr(t) for t in list(texts)[:4]) + (", ..." if len(texts) > 4 else "")
        loc = {"count": len(us)}
        loc.update({"pages": [pages[0], pages[-1]]} if len(pages) > 1 else {"page": pages[0]})
        add(QACheck(cid, severity, f"{len(us)} {noun}s {many}: {cause} ({examples}; "
                    f"page{'s' if len(pages) > 1 else ''} {_page_list(pages)})", loc))


_PAGE, _TEXT = attrgetter("page"), attrgetter("text")


def _cause(reason: str) -> str:
    """The root cause of an unresolved item: its reason without the one label it names
    ("no section numbered 10 (pages 17-46 are missing)" -> "no section numbered … (pages 17-46
    are missing)"), so that one missing part of the document is one finding."""
    return _CAUSE_RE.sub(_label_out, reason)


def _label_out(m: re.Match) -> str:
    # (what the template r"\1 …" gives: Python 3.11 expands a template in Python, with a call
    # more per sub; once per distinct reason, 81,000 of them in 4 MB of cross-references)
    return m.group(1) + " …"


_CAUSE_RE = re.compile(r"\b(numbered|matches|labelled|named)\s+('[^']*'(?:\s+\d{4}[a-z]?)?|\S+)")
_FIGTAB_RE = re.compile(r"no (figure|table)")


def _limit(checks: list[QACheck]) -> list[QACheck]:
    """Keep the report readable: at most MAX_PER_CHECK of one id, then a count."""
    seen: Counter[str] = Counter(c.id for c in checks)
    out, kept = [], Counter()
    for c in checks:
        kept[c.id] += 1
        if kept[c.id] <= MAX_PER_CHECK:
            out.append(c)
        elif kept[c.id] == MAX_PER_CHECK + 1:
            out.append(QACheck(c.id, c.severity, f"... and {seen[c.id] - MAX_PER_CHECK} more like this"))
    order = {"error": 0, "warning": 1, "info": 2}
    return sorted(out, key=lambda c: order[c.severity])


# ---- text: how much there is, and how much of the pages' text reached document.md (issue 21)
_WORD_RE = re.compile(r"[^\W_]+")


def _text_checks(doc: Document, add) -> None:
    md = doc.markdown
    # counted up to MANY_WORDS: no check below reads more
    words = sum(1 for _ in islice(_WORD_RE.finditer(md), MANY_WORDS))
    if not md.strip():
        add(QACheck("empty_document", "error", "document.md is empty: no text came out of the input"))
    elif words < FEW_WORDS:
        add(QACheck("too_little_text", "error", f"document.md holds only {words} words (title included): too little "
                    f"text to be a document"))
    elif words < MANY_WORDS:
        add(QACheck("too_little_text", "warning", f"document.md holds only {words} words (title included)"))
    cons = getattr(doc, "attrs", {}).get("conservation") if hasattr(doc, "attrs") else None
    pages = cons.get("pages", []) if cons else _page_counts(doc)
    for p in pages:
        # a deck's overlay build whose text all stands on the page before it lost nothing (slides.py)
        repeat = p.get("removed", {}).get("overlay-repeat") and not p.get("words_lost")
        if p.get("chars_in", 0) >= LOST_CHARS and not p.get("words_out", 0) and not repeat:
            removed = p.get("words_removed", 0)
            why = f" ({removed} of its words were removed as {', '.join(p.get('removed', {})) or 'furniture'})" \
                if removed else ""
            add(QACheck("page_text_lost", "error", f"page {p['page']} had {p['chars_in']} characters of text but "
                        f"none of it reached document.md{why}", {"page": p["page"]}))
    if cons and cons.get("words_in"):
        share = cons.get("share", 0.0)
        lost = cons.get("words_lost", 0)
        msg = (f"document.md keeps {cons.get('words_out', 0)} of the {cons['words_in']} words on the pages "
               f"({100 * cons.get('words_out', 0) / cons['words_in']:.1f}%); {cons.get('words_removed', 0)} were "
               f"removed on purpose (removed.json), {lost} are unaccounted for")
        add(QACheck("text_kept", "warning" if share < 0.9 else "info", msg))
    elif pages:
        w_in = sum(p.get("words_in", 0) for p in pages)
        if w_in:
            kept = min(w_in, len(_WORD_RE.findall(md)))
            add(QACheck("text_kept", "warning" if kept < 0.9 * w_in else "info",
                        f"document.md holds {kept} words for the {w_in} words on the pages ({100 * kept / w_in:.1f}%)"))


def _page_counts(doc: Document) -> list[dict]:
    """Per page: characters and words in (the source's lines), words out (rendered blocks)."""
    out_words: dict[int, int] = defaultdict(int)
    for b in doc.blocks:
        if b.kind is Kind.FURNITURE or b.id not in doc.block_spans:
            continue
        out_words[b.page] += len(_WORD_RE.findall(b.text)) or len(b.attrs.get("rows") or [])
    rows = []
    for p in doc.stream.pages:
        text = " ".join(ln.text for ln in p.lines)
        rows.append({"page": p.number, "chars_in": len(text.replace(" ", "")), "words_in": len(_WORD_RE.findall(text)),
                     "words_out": out_words.get(p.number, 0)})
    return rows


# ---- structure: headings and title a reader can trust (issue 13)
_NUM_RE = re.compile(r"^(?:[A-Z]|\d+|[IVX]+)(?:\.\d+)*$")
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10, "XI": 11,
          "XII": 12, "XIII": 13, "XIV": 14, "XV": 15}


def _title_problem(title: str) -> str | None:
    """What a title reads like when it is no title, or None."""
    from ctxmill.compile import front

    if front.FURNITURE_RE.search(title) or front.DATE_RE.match(title) or front.GENRE_RE.match(title):
        return "a running head, a stamp, a venue line or a date"
    if not re.search(r"[^\W\d_]{2}", title):  # letters of any script: a title in kanji or Cyrillic has words
        return "no words"
    if front.INSTITUTION_START_RE.match(title) or "@" in title:
        return "an affiliation"
    if front.ABSTRACT_LINE_RE.match(title) or re.match(r"^\s*(?:\d+(?:\.\d+)*\.?\s+)?(?:introduction|contents|table of "
                                                       r"contents|references|bibliography)\s*$", title, re.I):
        return "a section heading"
    if not front.title_shaped(title, 40):
        return "running text"
    return None


def _structure_checks(doc: Document, add) -> None:
    title = (doc.metadata.title or "").strip()
    problem = _title_problem(title) if title else None
    if problem:
        add(QACheck("title_suspect", "error", f"the title {title!r} reads like {problem}, not a title"))
    elif not title and doc.pages >= 2 and not doc.attrs.get("_untitled_deck"):
        # (a deck that opens on a frame, no title page: slides.outline found that it prints no title)
        add(QACheck("no_title", "warning", "no title was found"))
    if doc.pages >= 4 and not doc.sections:
        add(QACheck("no_headings", "error", f"no section headings were found in {doc.pages} pages: the document "
                    f"has no structure (headings may have been read as body text)"))
    _numbering(doc, add)
    _heading_like(doc, add)


def _numbering(doc: Document, add) -> None:
    """Numbered headings skip no number: a 3.1 needs a 3, a 2.3 a 2.2, a 4 a 3."""
    nums = [s.number.rstrip(".") for s in doc.sections if s.number and _NUM_RE.match(s.number.rstrip("."))]
    if len(nums) < 2:
        return
    roman = any(n.split(".")[0] in ("II", "III", "IV") for n in nums)

    def key(n: str) -> tuple | None:
        out = []
        for i, part in enumerate(n.split(".")):
            if part.isdigit():
                out.append(int(part))
            elif i == 0 and roman and part in _ROMAN:
                out.append(_ROMAN[part])
            elif len(part) == 1 and part.isalpha():
                out.append(("A", ord(part) - 64))  # appendix letters count on their own
            else:
                return None
        return tuple(out)

    have = {k for k in (key(n) for n in nums) if k is not None}
    missing: list[str] = []
    for k in sorted(have, key=str):
        parent = k[:-1]
        if parent and parent not in have:
            missing.append(".".join(str(x if isinstance(x, int) else chr(64 + x[1])) for x in parent))
        last = k[-1]
        if isinstance(last, int) and last > 1 and k[:-1] + (last - 1,) not in have:
            missing.append(".".join(str(x if isinstance(x, int) else chr(64 + x[1])) for x in k[:-1] + (last - 1,)))
    missing = sorted(set(missing), key=lambda m: [int(p) if p.isdigit() else ord(p[0]) for p in m.split(".")])
    # An excerpt that starts at 2.2 (a page from the middle of a paper) lacks 2 and 2.1 by
    # design: only numbers after the first heading it holds can be missing.
    first = key(nums[0])
    if first is not None and all(isinstance(x, int) for x in first):
        missing = [m for m in missing if not (m.replace(".", "").isdigit()
                                              and tuple(int(p) for p in m.split(".")) < first)]
    if missing:
        # a tenth of the numbered outline gone (or three numbers) is an error; one gap in a long
        # outline a warning
        severe = len(missing) >= 3 or len(missing) >= 0.1 * (len(have) + len(missing))
        add(QACheck("heading_numbering_gap", "error" if severe else "warning",
                    f"{len(missing)} section number{'s' if len(missing) > 1 else ''} missing from the headings "
                    f"({', '.join(missing[:12])}{', ...' if len(missing) > 12 else ''}): those headings were probably "
                    f"read as body text", {"missing": missing}))


_HEADING_START = re.compile(r"(?:(?:\d+(?:\.\d+)*|[A-Z]|[IVX]+)\.?\s+)?[A-Z]")  # "3.2 Results", "A Appendix", "Results"
_FRONT_LABELS = re.compile(r"^(?:keywords?|key words|index terms|general terms|categories and subject descriptors|"
                           r"ccs concepts|acm reference format|additional key words and phrases)\b", re.I)


def _plain(title: str) -> str:
    """A heading's words without its number: '2.2. Table-based Optimizations' -> 'table based optimizations'."""
    t = re.sub(r"^(?:(?:\d+|[A-Z]|[IVX]+)(?:\.\d+)*\.?\s+)", "", title.strip())
    return " ".join(re.findall(r"[a-z0-9]+", t.lower()))


def _theorem_line(spans: list) -> bool:
    """A theorem-like statement on one line: a bold label with its number ("Rule 1", "Lemma 3.2."),
    the statement after it in italic (\\newtheorem's plain style), which no class uses for a head."""
    top = max(sp.size for sp in spans)
    spans = [sp for sp in spans if sp.size >= 0.8 * top]  # (not a line number in the margin)
    first, rest = spans[0], spans[1:]
    return bool(first.bold and re.fullmatch(r"[A-Z][a-z]+\.? \d+(?:\.\d+)*\.?", first.text.strip()) and rest
                and all(sp.italic and not sp.bold for sp in rest))


def _heading_like(doc: Document, add) -> None:
    """Lines set like headings that ended up as body paragraphs: the headings a reader sees and
    the outline lacks. Such a line is a block of its own, a few capitalised words without end
    punctuation, set off by bold or larger type or by space above and below it, and followed
    closely by a paragraph that starts at the same left edge (figure labels and table cells are not)."""
    sizes: Counter[float] = Counter()
    for p in doc.stream.pages:
        for ln in filter(_SPANS, p.lines):  # (in C: the lines of text input have no spans)
            for sp in ln.spans:
                if not sp.superscript and sp.size:
                    sizes[round(sp.size, 1)] += len(sp.text)
    if not sizes:
        return  # no type geometry (plain or pasted text)
    body = sizes.most_common(1)[0][0]
    by_page = {p.number: sorted((ln for ln in p.lines if ln.bbox and ln.spans), key=lambda ln: ln.bbox[1])
               for p in doc.stream.pages}
    first_heading = next((i for i, b in enumerate(doc.blocks) if b.kind is Kind.HEADING
                          and not b.attrs.get("title")), None)
    if first_heading is None:
        return  # no_headings speaks for this document
    found, repeats = [], []
    titles = {_plain(s.title) for s in doc.sections}
    blocks = doc.blocks
    for i in range(first_heading + 1, len(blocks) - 1):
        b, nxt = blocks[i], blocks[i + 1]
        if b.kind is not Kind.PARAGRAPH or b.bbox is None or b.attrs.get("toc") or b.attrs.get("bibliography"):
            continue
        text = b.text.strip()
        if not 1 <= len(text.split()) <= 10 or not _HEADING_START.match(text) or re.search(r"[.,;:!?)\]]$", text) \
                or not re.search(r"[A-Za-z]{3}", text) or _FRONT_LABELS.match(text) \
                or re.match(r"\d", text) and re.search(r"\s\d+$", text):  # "6 Conclusions 39": a contents line
            continue
        if nxt.kind is not Kind.PARAGRAPH or nxt.bbox is None or nxt.page != b.page \
                or len(nxt.text.split()) < 15 or abs(nxt.bbox[0] - b.bbox[0]) > 15:
            continue
        col = [ln for ln in by_page.get(b.page, []) if ln.bbox[0] < b.bbox[2] and ln.bbox[2] > b.bbox[0]]
        own = [ln for ln in col if ln.bbox[1] < b.bbox[3] - 1 and ln.bbox[3] > b.bbox[1] + 1]
        if len(own) != 1:
            continue
        line = own[0]
        h = line.bbox[3] - line.bbox[1]
        if not 0 <= nxt.bbox[1] - line.bbox[3] < 3 * h:
            continue
        spans = [sp for sp in line.spans if sp.text.strip() and not sp.superscript]
        if not spans or _theorem_line(spans):
            continue
        size = min(sp.size for sp in spans)
        set_off = (all(sp.bold for sp in spans) and size >= body * 0.95) or size >= body * 1.15
        if not set_off:
            above = [ln.bbox[3] for ln in col if ln.bbox[3] <= line.bbox[1] + 1 and ln is not line]
            below = [ln.bbox[1] for ln in col if ln.bbox[1] >= line.bbox[3] - 1 and ln is not line]
            gap_above = line.bbox[1] - max(above) if above else 0.0
            gap_below = min(below) - line.bbox[3] if below else 0.0
            set_off = gap_above >= 1.2 * h and gap_below >= 1.2 * h
        if set_off:
            (repeats if _plain(text) in titles else found).append(b)
    if repeats:
        pages = sorted({b.page for b in repeats})
        examples = ", ".join(f"{b.text.strip()!r} (p. {b.page})" for b in repeats[:5]) + (", ..." if len(repeats) > 5 else "")
        loc = {"count": len(repeats)}
        loc.update({"pages": [pages[0], pages[-1]]} if len(pages) > 1 else {"page": pages[0]})
        add(QACheck("running_head_in_body", "warning",
                    f"{len(repeats)} running head{'s' if len(repeats) > 1 else ''} (a section title repeated at the top "
                    f"of its pages) left in the body: {examples}", loc))
    if found:
        pages = sorted({b.page for b in found})
        examples = ", ".join(f"{b.text.strip()!r} (p. {b.page})" for b in found[:5]) + (", ..." if len(found) > 5 else "")
        add(QACheck("heading_like_text", "error" if len(found) >= 2 else "warning",
                    f"{len(found)} line{'s' if len(found) > 1 else ''} set like headings "
                    f"{'were' if len(found) > 1 else 'was'} read as body text: {examples}",
                    {"pages": [pages[0], pages[-1]]} if len(pages) > 1 else {"page": pages[0]}))


def _doubtful_references(doc: Document, add) -> None:
    """Entries whose fields the reference labeller could not parse with confidence (issue 22):
    a bibliography in a style it has not learnt shows up here instead of passing in silence.
    A few such entries are information; more than a quarter of the list is a warning."""
    bad = [r for r in doc.references if r.doubtful]
    if not bad:
        return
    many = len(bad) >= 3 and len(bad) > len(doc.references) / 4
    reasons = Counter(r.doubtful.split(" 0.")[0] for r in bad)
    add(QACheck("doubtful_reference_fields", "warning" if many else "info",
                f"{len(bad)} of {len(doc.references)} references have fields parsed with doubt ("
                + ", ".join(f"{why}: {n}" for why, n in reasons.most_common()) + "): "
                + ", ".join(r.id for r in bad[:20]) + (" ..." if len(bad) > 20 else ""),
                {"reference_ids": [r.id for r in bad]}))


def _unparsed_references(doc: Document, add) -> None:
    """Entries past MAX_PARSED_REFERENCES are kept as their text, without fields (issue 26):
    said here, so that a list that long never loses its fields in silence."""
    from ctxmill.limits import MAX_PARSED_REFERENCES

    rest = doc.references[MAX_PARSED_REFERENCES:]
    if rest:
        add(QACheck("references_not_parsed", "warning",
                    f"{len(rest):,} of {len(doc.references):,} references ({rest[0].id} to {rest[-1].id}) are kept "
                    f"as their text without fields: only the first {MAX_PARSED_REFERENCES:,} entries of a "
                    "bibliography are parsed (MAX_PARSED_REFERENCES)",
                    {"reference_ids": [rest[0].id, rest[-1].id]}))


# ---- OCR pages (added by the OCR work, issue 9; docs/ocr.md): which pages were read by OCR,
# how sure the engine was, and which pages fall below the confidence threshold
def _ocr_checks(doc: Document, add) -> None:
    read = [p for p in doc.stream.pages if p.ocr and p.ocr_confidence is not None]  # engine OCR, not pasted text
    if not read:
        return
    LOW_CONFIDENCE = _low_confidence()

    mean = sum(p.ocr_confidence for p in read) / len(read)
    add(QACheck("ocr_pages", "info",
                f"{len(read)} page(s) read by OCR ({_page_list([p.number for p in read])}), "
                f"mean confidence {mean:.2f}", {"pages": [read[0].number, read[-1].number]}))  # first, last
    for p in read:
        if p.ocr_confidence < LOW_CONFIDENCE:
            add(QACheck("ocr_low_confidence", "warning",
                        f"page {p.number} was read by OCR with confidence {p.ocr_confidence:.2f} "
                        f"(below {LOW_CONFIDENCE:.2f}): check its text against the page", {"page": p.number}))


def _low_confidence() -> float:
    """The OCR module's LOW_CONFIDENCE threshold. The PDF's OCR runs in the sandboxed child, so
    this process usually has not imported that module, and importing it here pulls in numpy
    (0.3-0.5 s, once most of the QA stage's time): read the constant from its source instead."""
    import sys

    mod = sys.modules.get("ctxmill.sources.ocr")
    if mod is not None:
        return mod.LOW_CONFIDENCE
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("ctxmill.sources.ocr")
    if spec is not None and spec.origin:
        m = re.search(r"^LOW_CONFIDENCE\s*=\s*([0-9.]+)", Path(spec.origin).read_text(encoding="utf-8"), re.M)
        if m:
            return float(m.group(1))
    from ctxmill.sources.ocr import LOW_CONFIDENCE

    return LOW_CONFIDENCE


def _page_list(nums: list[int]) -> str:
    out, start, prev = [], nums[0], nums[0]
    for n in nums[1:] + [None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(f"{start}-{prev}" if prev != start else str(start))
        if n is not None:
            start = prev = n
    return ", ".join(out)


def run(doc: Document, options: CompileOptions) -> None:
    """Stage: fill ``doc.qa``."""
    doc.qa = assess(doc, options)
