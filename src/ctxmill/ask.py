"""``ctxmill ask``: retrieve from the index, then answer with citations to the chunks used.

With an LLM endpoint the model answers from numbered sources and cites them as ``[n]``; only
citations to sources it was actually given are kept. Without an LLM — or when the endpoint
fails — the answer is extractive: the best passages of the best chunks, each cited, with a
message saying why. Asking never fails just because the LLM is missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxmill.llm import LLMClient, LLMConfig, LLMError
from ctxmill.redact import Finding, redact

SYSTEM = (
    "You answer questions about a codebase and its documents using only the numbered sources "
    "given. Cite every claim with the source numbers in square brackets, like [1] or [2][3]. "
    "If the sources do not contain the answer, say so briefly. Be concise."
)
MAX_SOURCE_CHARS = 3000  # per source in the prompt
MAX_PROMPT_CHARS = 24000  # all sources together (~6k tokens)
EXTRACT_SOURCES = 3  # passages in an extractive answer
EXTRACT_LINES = 8  # lines per passage

_STOP = set("a an and are as at be by can do does for from how i in is it its of on or the this to "
            "was what when where which who why will with".split())


@dataclass
class Source:
    n: int
    path: str
    start_line: int
    end_line: int
    kind: str
    score: float
    text: str
    symbol: str | None = None

    @property
    def cite(self) -> str:
        if self.kind == "document":  # a compiled document's chunk: the range is pages
            pages = f"p. {self.start_line}" if self.start_line == self.end_line else \
                f"pp. {self.start_line}-{self.end_line}"
            where = f"{self.path}, {pages}"
        else:
            where = f"{self.path}:{self.start_line}-{self.end_line}"
        return f"{where} ({self.symbol})" if self.symbol else where

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "cite": self.cite, "path": self.path, "start_line": self.start_line,
                "end_line": self.end_line, "kind": self.kind, "symbol": self.symbol,
                "score": round(float(self.score), 6), "text": self.text}


@dataclass
class Answer:
    question: str
    answer: str
    mode: str  # "llm" | "extractive"
    sources: list[Source]
    cited: list[int] = field(default_factory=list)  # source numbers the answer cites
    message: str | None = None  # why the answer is extractive, or a caveat
    llm: dict[str, Any] | None = None  # usage: calls, tokens, seconds, tokens_per_second
    redactions: list[Finding] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "mode": self.mode,
            "cited": self.cited,
            "sources": [s.to_dict() for s in self.sources],
            "message": self.message,
            "llm": self.llm,
            "redactions": len(self.redactions),
        }


def terms(text: str) -> list[str]:
    """Lower-case words of a query, identifiers split (getUserName -> get user name)."""
    out: list[str] = []
    for word in re.findall(r"[A-Za-z0-9]+", text):
        parts = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+", word) or [word]
        for p in [word, *parts] if len(parts) > 1 else parts:
            p = p.lower()
            if len(p) > 1 and p not in _STOP:
                out.append(p)
    return out


def _sources(hits: list[Any]) -> tuple[list[Source], list[Finding]]:
    sources: list[Source] = []
    findings: list[Finding] = []
    for i, hit in enumerate(hits, 1):
        d = hit.to_dict() if hasattr(hit, "to_dict") else dict(hit)
        r = redact(d.get("text") or "", path=d.get("path"))
        # finding lines are relative to the chunk; make them file lines
        findings.extend(Finding(line=f.line + int(d.get("start_line") or 1) - 1, rule=f.rule, path=f.path)
                        for f in r.findings)
        sources.append(Source(n=i, path=d["path"], start_line=int(d.get("start_line") or 1),
                              end_line=int(d.get("end_line") or d.get("start_line") or 1),
                              kind=str(d.get("kind") or ""), score=float(d.get("score") or 0.0),
                              text=r.text, symbol=d.get("symbol")))
    return sources, findings


def best_passage(source: Source, query_terms: list[str], lines: int = EXTRACT_LINES) -> Source:
    """The window of ``lines`` lines of a source that holds the most query terms."""
    text_lines = source.text.splitlines() or [""]
    if len(text_lines) <= lines:
        return source
    # Terms already named by the citation (path, symbol) say little about which lines answer;
    # the other query terms decide.
    named = set(terms(f"{source.path} {source.symbol or ''}"))
    weight = {t: (0.25 if t in named else 1.0) for t in query_terms}
    scores = [sum(weight[t] for t in set(terms(line)) if t in weight) for line in text_lines]
    best_start, best = 0, -1
    window = sum(scores[:lines])
    for start in range(0, len(text_lines) - lines + 1):
        if start:
            window += scores[start + lines - 1] - scores[start - 1]
        if window > best:
            best_start, best = start, window
    first = source.start_line + best_start
    return Source(n=source.n, path=source.path, start_line=first, end_line=first + lines - 1,
                  kind=source.kind, score=source.score, symbol=source.symbol,
                  text="\n".join(text_lines[best_start:best_start + lines]))


def extractive(question: str, sources: list[Source]) -> tuple[str, list[int]]:
    q = terms(question)
    parts = []
    cited = []
    for s in sources[:EXTRACT_SOURCES]:
        p = best_passage(s, q)
        cited.append(s.n)
        parts.append(f"[{s.n}] {p.cite}\n```\n{p.text.rstrip()}\n```")
    return "\n\n".join(parts), cited


def build_prompt(question: str, sources: list[Source]) -> str:
    blocks = []
    budget = MAX_PROMPT_CHARS
    for s in sources:
        text = s.text[:MAX_SOURCE_CHARS]
        if budget - len(text) < 0:
            break
        budget -= len(text)
        blocks.append(f"[{s.n}] {s.cite}\n{text}")
    return "Sources:\n\n" + "\n\n".join(blocks) + f"\n\nQuestion: {question}"


def cited_numbers(text: str, sources: list[Source]) -> list[int]:
    valid = {s.n for s in sources}
    seen: list[int] = []
    for group in re.findall(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]", text):
        for n in re.split(r"\s*[,;]\s*", group):
            if int(n) in valid and int(n) not in seen:
                seen.append(int(n))
    return seen


def retrieve(question: str, root: Path, k: int, path_prefix: str | None, sync: bool) -> list[Any]:
    from ctxmill import index

    if sync:
        index.sync_index(root)
    return index.search(question, root, path_prefix=path_prefix, k=k)


def ask(
    question: str,
    root: str | Path = ".",
    *,
    k: int = 8,
    path_prefix: str | None = None,
    llm: LLMClient | LLMConfig | None = None,
    sync: bool = True,
    hits: list[Any] | None = None,
) -> Answer:
    """Answer ``question`` from the index of ``root`` (synced first unless ``sync=False``).

    ``llm`` may be a client, a config, or None for the extractive answer. ``hits`` lets a
    caller that already searched pass the hits in.
    """
    question = question.strip()
    if hits is None:
        hits = retrieve(question, Path(root), k, path_prefix, sync)
    sources, findings = _sources(hits[:k])
    if not sources:
        return Answer(question, "Nothing in the index matches this question.", "extractive", [],
                      message="no matching chunks", redactions=findings)

    client = LLMClient(llm) if isinstance(llm, LLMConfig) else llm
    if client is None:
        text, cited = extractive(question, sources)
        return Answer(question, text, "extractive", sources, cited, redactions=findings,
                      message="no LLM configured (use --llm URL or CTXMILL_LLM_URL); "
                              "showing the best passages instead")
    try:
        completion = client.chat([{"role": "system", "content": SYSTEM},
                                  {"role": "user", "content": build_prompt(question, sources)}])
    except LLMError as exc:
        text, cited = extractive(question, sources)
        return Answer(question, text, "extractive", sources, cited, redactions=findings,
                      llm=client.usage.to_dict(),
                      message=f"the LLM failed ({exc}); showing the best passages instead")
    finally:
        if isinstance(llm, LLMConfig):
            client.close()
    findings.extend(client.redactions)
    cited = cited_numbers(completion.text, sources)
    message = None if cited else "the model's answer cites none of the sources; check it against them"
    return Answer(question, completion.text.strip(), "llm", sources, cited, message=message,
                  llm=client.usage.to_dict(), redactions=findings)


def format_text(answer: Answer) -> str:
    """Human-readable answer for the terminal: the answer, then the sources it cited."""
    lines = []
    if answer.message:
        lines.append(f"({answer.message})\n")
    lines.append(answer.answer)
    if answer.mode == "llm" and answer.sources:
        lines.append("\nSources:")
        for s in answer.sources:
            if s.n in answer.cited:
                lines.append(f"  [{s.n}] {s.cite}")
    return "\n".join(lines)
