"""qa.json, qa.md and metrics.json -- read from the model only."""

from __future__ import annotations

import json
from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.compile.quality import CAP, CEILING, WEIGHT
from ctxmill.counts import counts
from ctxmill.model import Document, to_jsonable
from ctxmill.render import jsonfmt


def qa_json(doc: Document) -> dict:
    return {"score": doc.qa.score, "checks": [to_jsonable(c) for c in doc.qa.checks]}


def qa_markdown(doc: Document, n: dict | None = None) -> str:
    """qa.md; ``n``: ``counts(doc)``, when the caller has it."""
    title = doc.metadata.title or doc.stream.path or "document"
    n = counts(doc) if n is None else n
    lines = [f"# QA report: {title}", "", f"**Score: {doc.qa.score}/100** "
             f"({n['qa_errors']} errors, {n['qa_warnings']} warnings, {n['qa_notes']} notes)", ""]
    kept = next((c for c in doc.qa.checks if c.id == "text_kept"), None)
    if kept is not None:
        lines += [f"Text kept: {kept.message}.", ""]
    for sev, head in (("error", "Errors"), ("warning", "Warnings"), ("info", "Notes")):
        items = [c for c in doc.qa.checks if c.severity == sev]
        if not items:
            continue
        lines += [f"## {head}", ""]
        for c in items:
            where = ""
            if c.location:
                bits = []
                if c.location.get("page") is not None:
                    bits.append(f"page {c.location['page']}")
                if c.location.get("pages"):
                    bits.append("pages {}-{}".format(*c.location["pages"]))
                if c.location.get("section_id"):
                    bits.append(f"section {c.location['section_id']}")
                if c.location.get("char_span"):
                    bits.append("chars {}-{}".format(*c.location["char_span"]))
                if c.location.get("count", 1) > 1:
                    bits.append(f"{c.location['count']} times")
                where = f" ({', '.join(bits)})" if bits else ""
            lines.append(f"- `{c.id}` {c.message}{where}")
        lines.append("")
    ceilings = ", ".join(f"{cid} {cap}" for cid, cap in sorted(CEILING.items(), key=lambda kv: kv[1]))
    lines += ["## How the score is computed", "",
              "100 minus, for each kind of check, min(cap, weight x occurrences): "
              f"errors weigh {WEIGHT['error']} (cap {CAP['error']}), warnings {WEIGHT['warning']} "
              f"(cap {CAP['warning']}), notes 0; then no higher than the ceiling of any structural error "
              f"present ({ceilings}), so a compile whose structure is missing never looks good.", ""]
    return "\n".join(lines)


def metrics_json(doc: Document, n: dict | None = None) -> dict:
    """metrics.json; ``n``: ``counts(doc)``, when the caller has it."""
    m = doc.metrics.to_dict()
    m["chunks"] = len(doc.chunks)
    m["counts"] = counts(doc) if n is None else n  # what the CLI summary and the web page print (ctxmill.counts)
    return m


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    folder = Path(folder)
    # (counted once for both files: each count reads every unresolved item, 240,000 in 4 MB of
    # cross-references)
    n = counts(doc)
    (folder / "qa.json").write_text(jsonfmt.dumps(qa_json(doc), indent=2) + "\n", encoding="utf-8")
    (folder / "qa.md").write_text(qa_markdown(doc, n), encoding="utf-8")
    (folder / "metrics.json").write_text(json.dumps(metrics_json(doc, n), indent=2) + "\n", encoding="utf-8")
    return ["qa.json", "qa.md", "metrics.json"]
