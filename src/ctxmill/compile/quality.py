"""QA report: what a careful reader would want to know about a compiled document.

Each check has an ``id``, a ``severity`` (error | warning | info), a message and, where it
applies, a location ``{page?, pages?, section_id?, block_id?, char_span?}``.

Score (0-100), documented in docs/outputs.md::

    score = max(0, 100 - sum over check ids of min(cap[severity], weight[severity] * count))
    weight: error 20, warning 4, info 0      cap: error 40, warning 12, info 0

so one kind of problem, however often it occurs, cannot sink the score on its own, while
several different problems add up. Info checks are reported but never cost points.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from ctxmill.compile.options import CompileOptions
from ctxmill.model import BlockKind, Document, QACheck, QAReport

WEIGHT = {"error": 20, "warning": 4, "info": 0}
CAP = {"error": 40, "warning": 12, "info": 0}
MAX_PER_CHECK = 25  # list at most this many occurrences of one check, then a summary line

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
_MOJIBAKE = re.compile(r"Ã[\x80-\xbf¡-ÿ]|â€[™œ\x9d“”˜]|Â[\s ·°]|\ufffd")
_BROKEN_HYPHEN = re.compile(r"\b([a-z]{2,})- ([a-z]{2,})\b")
_SUSPENDED = {"and", "or", "to", "vs", "versus", "nor"}


def _code_spans(md: str) -> list[tuple[int, int]]:
    spans = [(m.start(), m.end()) for m in re.finditer(r"```.*?```", md, re.DOTALL)]
    spans += [(m.start(), m.end()) for m in re.finditer(r"`[^`\n]+`", md)]
    return sorted(spans)


def _in_spans(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def _page_of(doc: Document, pos: int, starts: list[tuple[int, int]]) -> int | None:
    # starts: (markdown offset, page) of each block, sorted
    import bisect

    i = bisect.bisect_right(starts, (pos, 10**9)) - 1
    return starts[i][1] if i >= 0 else None


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
    for p in stream.pages:
        if not p.has_text_layer and not p.ocr:
            add(QACheck("image_only_page", "warning", f"page {p.number} has no text layer (image only)",
                        {"page": p.number}))
        elif not any(ln.text.strip() for ln in p.lines):
            add(QACheck("empty_page", "warning", f"page {p.number} has no text", {"page": p.number}))
    for w in stream.warnings:
        add(QACheck("source_warning", "info", w))
    _ocr_checks(doc, add)  # OCR pages and their confidence (issue 9, below)

    # ---- references and citations (only when that part of the compile ran)
    cit_unresolved = [u for u in doc.unresolved if u.kind == "citation"]
    if options.citations:
        if not doc.references and (doc.mentions or cit_unresolved):
            msg = f"no reference list found, but {len(doc.mentions) + len(cit_unresolved)} citation callouts exist"
            if declared and declared > doc.pages:
                msg += f" (it is probably on the missing pages {doc.pages + 1}-{declared})"
            add(QACheck("no_reference_list", "error", msg))
        for u in cit_unresolved:
            add(QACheck("unresolved_citation", "warning", f"citation {u.text!r} resolves to nothing: {u.reason}",
                        {"page": u.page, "section_id": u.section_id}))
        cited = {rid for m in doc.mentions for rid in m.reference_ids}
        uncited = [r for r in doc.references if r.id not in cited]
        if uncited and doc.mentions:
            add(QACheck("uncited_references", "info",
                        f"{len(uncited)} of {len(doc.references)} references are never cited: "
                        + ", ".join(r.id for r in uncited[:20]) + (" ..." if len(uncited) > 20 else ""),
                        {"reference_ids": [r.id for r in uncited]}))
        for u in doc.unresolved:
            if u.kind != "crossref":
                continue
            kind = "missing_target"
            if re.search(r"no (figure|table)", u.reason):
                kind = "missing_figure_or_table"
            add(QACheck(kind, "warning", f"{u.text!r} points at nothing: {u.reason}",
                        {"page": u.page, "section_id": u.section_id}))
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

    # ---- artefacts in document.md
    md = doc.markdown
    code = _code_spans(md)
    starts = sorted((doc.block_spans[b.id][0], b.page) for b in doc.blocks if b.id in doc.block_spans)
    for cid, rx, what in _ARTEFACTS:
        for m in rx.finditer(md):
            if _in_spans(m.start(), code):
                continue
            add(QACheck(cid, "warning", f"{what}: {m.group(0)!r}",
                        {"char_span": [m.start(), m.end()], "page": _page_of(doc, m.start(), starts)}))
    for m in _MOJIBAKE.finditer(md):
        add(QACheck("mojibake", "warning", f"mis-decoded characters {md[max(0, m.start() - 10):m.end() + 10]!r}",
                    {"char_span": [m.start(), m.end()], "page": _page_of(doc, m.start(), starts)}))
    for m in _BROKEN_HYPHEN.finditer(md):
        if m.group(2) in _SUSPENDED or _in_spans(m.start(), code):
            continue
        add(QACheck("broken_hyphenation", "warning", f"word broken at a line end: {m.group(0)!r}",
                    {"char_span": [m.start(), m.end()], "page": _page_of(doc, m.start(), starts)}))

    # ---- secrets (ctxmill.redact, issue 8): listed here; redacted before any text leaves for an
    # embedder, an LLM or an MCP client. The location is a line, not a span: nothing to "repair".
    from ctxmill.redact import redact

    line_starts = [0] + [m.end() for m in re.finditer("\n", md)]
    for f in redact(md).findings:
        pos = line_starts[f.line - 1] if f.line - 1 < len(line_starts) else 0
        add(QACheck("secret", "warning", f"possible secret ({f.rule}) at document.md line {f.line}; "
                    f"redacted before text reaches an embedder, an LLM or an MCP client",
                    {"line": f.line, "page": _page_of(doc, pos, starts)}))

    # ---- suspiciously short sections (a leaf section with almost no text)
    body: dict[str | None, int] = defaultdict(int)
    for b in doc.blocks:
        if b.kind not in (BlockKind.HEADING, BlockKind.FURNITURE):
            body[b.section_id] += len(b.text)
    parents = {s.parent_id for s in doc.sections if s.parent_id}
    for s in doc.sections:
        if s.id in parents or s.level <= 1:
            continue
        if body.get(s.id, 0) < 120:
            add(QACheck("short_section", "info",
                        f"section {(s.number + ' ') if s.number else ''}{s.title!r} has only {body.get(s.id, 0)} "
                        f"characters of text", {"section_id": s.id, "page": s.page_start}))
    if not md.strip():
        add(QACheck("empty_document", "error", "document.md is empty"))

    return QAReport(score=score(checks), checks=_limit(checks))


def score(checks: list[QACheck]) -> int:
    """The documented 0-100 score (see the module docstring)."""
    by_id: Counter[tuple[str, str]] = Counter((c.id, c.severity) for c in checks)
    penalty = sum(min(CAP[sev], WEIGHT[sev] * n) for (_, sev), n in by_id.items())
    return max(0, 100 - penalty)


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


# ---- OCR pages (added by the OCR work, issue 9; docs/ocr.md): which pages were read by OCR,
# how sure the engine was, and which pages fall below the confidence threshold
def _ocr_checks(doc: Document, add) -> None:
    read = [p for p in doc.stream.pages if p.ocr and p.ocr_confidence is not None]  # engine OCR, not pasted text
    if not read:
        return
    # Imported only when a page was OCR'd (the OCR source has then loaded it already): importing
    # it cold pulls in numpy, which was 85% of the QA stage's time on a text-layer PDF.
    from ctxmill.sources.ocr import LOW_CONFIDENCE

    mean = sum(p.ocr_confidence for p in read) / len(read)
    add(QACheck("ocr_pages", "info",
                f"{len(read)} page(s) read by OCR ({_page_list([p.number for p in read])}), "
                f"mean confidence {mean:.2f}", {"pages": [read[0].number, read[-1].number]}))  # first, last
    for p in read:
        if p.ocr_confidence < LOW_CONFIDENCE:
            add(QACheck("ocr_low_confidence", "warning",
                        f"page {p.number} was read by OCR with confidence {p.ocr_confidence:.2f} "
                        f"(below {LOW_CONFIDENCE:.2f}): check its text against the page", {"page": p.number}))


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
