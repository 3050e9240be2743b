"""Optional LLM stage (runs only with ``--llm URL``): repair damaged paragraphs, add chunk context.

1. Repair: paragraphs and list items that a QA check (warning or error) points at — mojibake,
   broken hyphenation, OCR/LaTeX leftovers — are sent to the model with an instruction to fix
   only the damage. A repair is kept only if it passes validation (similar length, every number
   and citation callout of the original still present); the block is then marked
   ``attrs["llm"] = True`` with the deterministic text kept in ``attrs["original"]``, and the
   stages after ``markdown`` run again so that document.md, chunks, citations and the QA report
   describe the repaired text consistently.
2. Context: each retrieval chunk gets a one- or two-sentence header situating it in the
   document (``Chunk.context``, ``Chunk.context_llm = True``), written only where the
   deterministic compile left no context of its own (table continuations keep their header row).

Every call, token and second goes into ``metrics.llm``; a QA info check lists what the LLM
changed. If the endpoint fails, the deterministic outputs stand and a QA warning says why — a
compile never fails because of the LLM.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from ctxmill.compile.options import CompileOptions
from ctxmill.llm import LLMClient, LLMError, client_from_options
from ctxmill.model import Chunk, Document, Kind, QACheck, QAReport

REPAIRABLE = {Kind.PARAGRAPH, Kind.LIST_ITEM}
MAX_REPAIRS = 200  # per document: damage beyond this is a source problem, not a paragraph one
PARALLEL = 4  # requests in flight at once
NOT_DAMAGE = {"secret", "llm-failed", "llm-enhanced", "llm-repaired"}  # QA checks that say nothing about extraction damage

REPAIR_SYSTEM = (
    "You repair text extracted from a PDF or OCR. Fix only extraction damage: broken "
    "hyphenation, mojibake, stray OCR/LaTeX/HTML artefacts, wrong spacing. Do not rephrase, "
    "summarise, add or remove content. Keep every number, citation and Markdown/math markup. "
    "Reply with the repaired paragraph only."
)
CONTEXT_SYSTEM = (
    "You write retrieval context. Given a document's title, a section path and one passage, "
    "reply with one or two short sentences that situate the passage in the document (what it "
    "is about and where it sits). Reply with the sentences only."
)
_CALLOUT = re.compile(r"\[[^\]]{1,40}\]|\([^()]{0,80}\d{4}[a-z]?\)")


def damaged_blocks(doc: Document) -> list[str]:
    """Ids of repairable blocks that a QA warning or error points at, in document order.

    Checks locate damage by ``block_id(s)`` or by a ``char_span`` in document.md, which is
    mapped to the block whose span holds it.
    """
    import bisect

    spans = sorted((s, e, bid) for bid, (s, e) in doc.block_spans.items())
    starts = [s for s, _, _ in spans]
    flagged: set[str] = set()
    for check in doc.qa.checks:
        if check.severity not in ("error", "warning") or not check.location or check.id in NOT_DAMAGE:
            continue
        loc = check.location
        flagged.update(i for i in (loc.get("block_ids") or [loc.get("block_id")]) if i)
        span = loc.get("char_span")
        if span:
            i = bisect.bisect_right(starts, span[0]) - 1
            if i >= 0 and spans[i][0] <= span[0] < spans[i][1]:
                flagged.add(spans[i][2])
    return [b.id for b in doc.blocks if b.id in flagged and b.kind in REPAIRABLE and b.text.strip()]


def valid_repair(original: str, repaired: str) -> bool:
    """A repair may fix characters; it may not change what the paragraph says."""
    repaired = repaired.strip()
    if not repaired or not original.strip():
        return False
    ratio = len(repaired) / max(1, len(original))
    if not 0.7 <= ratio <= 1.3:
        return False
    if sorted(re.findall(r"\d+", original)) != sorted(re.findall(r"\d+", repaired)):
        return False
    return all(c in repaired for c in _CALLOUT.findall(original))


def _strip_fences(text: str) -> str:
    text = text.strip()
    m = re.fullmatch(r"```[a-z]*\n(.*)\n```", text, flags=re.S)
    return m.group(1).strip() if m else text


def repair(doc: Document, client: LLMClient, options: CompileOptions) -> tuple[list[str], int]:
    """Repair flagged blocks in place; return (repaired block ids, rejected count)."""
    by_id = {b.id: b for b in doc.blocks}
    ids = damaged_blocks(doc)[:MAX_REPAIRS]

    def one(block_id: str) -> tuple[str, str | LLMError]:
        try:
            return block_id, _strip_fences(client.complete(by_id[block_id].text, system=REPAIR_SYSTEM))
        except LLMError as exc:
            return block_id, exc

    with ThreadPoolExecutor(PARALLEL) as pool:
        results = list(pool.map(one, ids))  # all answers first: blocks change only together
    errors = [r for _, r in results if isinstance(r, LLMError)]
    if errors and len(errors) == len(results):
        raise errors[0]
    repaired, rejected = [], 0
    for block_id, text in results:
        if isinstance(text, LLMError):
            continue
        block = by_id[block_id]
        if not valid_repair(block.text, text) or text == block.text:
            rejected += text != block.text
            continue
        block.attrs["original"] = block.text
        block.attrs["llm"] = True
        block.text = text
        repaired.append(block_id)
    return repaired, rejected


def rerun_after_markdown(doc: Document, options: CompileOptions) -> None:
    """Run the deterministic stages from ``markdown`` to ``quality`` again over repaired blocks."""
    from ctxmill.compile.pipeline import STAGES, _resolve

    names = [name for name, _, _ in STAGES]
    start = names.index("markdown")
    for name, target, when in STAGES[start:]:
        if name == "llm":
            break
        if not when(options):
            continue
        # Reset what each stage owns so that a re-run replaces rather than appends.
        if name == "markdown":
            doc.markdown, doc.block_spans = "", {}
        elif name == "chunks":
            doc.chunks = []
        elif name == "citations":
            doc.mentions, doc.crossrefs, doc.unresolved = [], [], []
        elif name == "quality":
            doc.qa = QAReport()
        _resolve(target)(doc, options)


def add_context(doc: Document, client: LLMClient) -> int:
    """Write a short LLM context header for every chunk that has none; return how many."""
    title = doc.metadata.title or doc.stream.path or "untitled document"
    todo = [c for c in doc.chunks if not c.context]

    def one(chunk: Chunk) -> tuple[Chunk, str | LLMError]:
        prompt = (f"Document: {title}\nSection: {' > '.join(chunk.section_path) or '(front matter)'}\n"
                  f"Pages: {chunk.pages[0]}-{chunk.pages[1]}\n\nPassage:\n{chunk.text[:6000]}")
        try:
            return chunk, client.complete(prompt, system=CONTEXT_SYSTEM).strip()
        except LLMError as exc:
            return chunk, exc

    with ThreadPoolExecutor(PARALLEL) as pool:
        results = list(pool.map(one, todo))
    errors = [r for _, r in results if isinstance(r, LLMError)]
    if errors and len(errors) == len(results):
        raise errors[0]
    done = 0
    for chunk, text in results:
        if isinstance(text, LLMError):
            continue
        text = " ".join(_strip_fences(text).split())
        if text:
            chunk.context = text[:600]
            chunk.context_llm = True
            done += 1
    return done


def run(doc: Document, options: CompileOptions) -> None:
    """Stage ``llm``: repair then context; deterministic results stand if anything fails."""
    client = client_from_options(options)
    if client is None:
        return
    repaired: list[str] = []
    rejected = contexts = 0
    error: str | None = None
    try:
        with client:
            client.model()  # resolve once before requests go out in parallel
            repaired, rejected = repair(doc, client, options)
            if repaired:
                rerun_after_markdown(doc, options)
            if options.chunks:
                contexts = add_context(doc, client)
    except LLMError as exc:
        error = str(exc)
    usage = client.usage.to_dict()
    usage.update({"repaired_blocks": len(repaired), "rejected_repairs": rejected, "chunk_contexts": contexts})
    if client.redactions:
        usage["redactions"] = len(client.redactions)
    doc.metrics.llm = usage
    if repaired or contexts:
        doc.qa.checks.append(QACheck(
            id="llm-enhanced", severity="info",
            message=(f"LLM ({client.config.model or 'endpoint default'}) repaired {len(repaired)} damaged "
                     f"paragraph(s) (marked llm, original kept) and wrote {contexts} chunk context header(s); "
                     f"{rejected} repair(s) rejected by validation"),
            location={"block_ids": repaired} if repaired else None))
    by_id = {b.id: b for b in doc.blocks}
    for block_id in repaired:  # the deterministic text stays visible in the outputs
        b = by_id[block_id]
        original = b.attrs.get("original", "")
        doc.qa.checks.append(QACheck(
            id="llm-repaired", severity="info",
            message=f"paragraph text repaired by an LLM (marked <!-- ctxmill:llm --> in document.md); "
                    f"original: {original[:400]!r}{'…' if len(original) > 400 else ''}",
            location={"block_id": block_id, "page": b.page}))
    if error:
        doc.qa.checks.append(QACheck(
            id="llm-failed", severity="warning",
            message=f"LLM enhancement stopped: {error}; the deterministic outputs stand"))
