"""removed.json: the text that is not in document.md on purpose, and the per-page word counts.

Read from the model only (compile/conservation.py fills ``doc.attrs``)::

    {"share": 0.99, "words_in": N, "words_out": N, "words_removed": N, "words_lost": N,
     "pages": [{page, source, chars_in, words_in, words_out, words_removed, words_lost, share,
                removed: {reason: words}, ocr_confidence?}],
     "removed": [{page, reason, text}]}
"""

from __future__ import annotations

from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document
from ctxmill.render import jsonfmt


def removed_dict(doc: Document) -> dict:
    summary = dict(doc.attrs.get("conservation") or {})
    pages = summary.pop("pages", [])
    return {**summary, "pages": pages, "removed": list(doc.attrs.get("removed") or [])}


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    path = Path(folder) / "removed.json"
    path.write_text(jsonfmt.dumps(removed_dict(doc), indent=1) + "\n", encoding="utf-8")
    return ["removed.json"]
