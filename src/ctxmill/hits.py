"""How search hits and sync reports are printed by the command line (shared by ``cli`` and the
server, which prints them for the thin client in ``ctxmill.entry``)."""

from __future__ import annotations

import json


def hits_json(hits: list[dict]) -> str:
    return json.dumps(hits, indent=2, ensure_ascii=False)


def hits_text(hits: list[dict], *, bold: bool = False) -> str:
    """Path:lines, kind, symbol and score, then the first lines of each hit."""
    if not hits:
        return "no hits"
    out = []
    for h in hits:
        label = f"  {h['kind']} {h['symbol']}" if h.get("symbol") else f"  {h['kind']}"
        where = f"{h['path']}:{h['start_line']}-{h['end_line']}"
        out.append((f"\x1b[1m{where}\x1b[0m" if bold else where) + f"{label}  ({h['score']:.3f})")
        lines = h["text"].splitlines()
        out.extend(f"    {ln[:120]}" for ln in lines[:4])
        if len(lines) > 4:
            out.append(f"    ... {len(lines) - 4} more lines")
    return "\n".join(out)


def sync_json(report: dict) -> str:
    """``ctxmill index --json``: the sync counts."""
    return json.dumps(report, indent=2, ensure_ascii=False)


def sync_counts(report: dict) -> str:
    """The counts line of ``ctxmill index``'s summary (a team store's sync prints only this)."""
    d = report
    return (f"{d['files_scanned']} files scanned, {d['files_changed']} changed, {d['files_deleted']} deleted; "
            f"{d['chunks_total']} chunks, {d['chunks_embedded']} embedded in {d['seconds']:.2f}s")


def sync_text(report: dict, db_file) -> str:
    """``ctxmill index``'s summary of one sync."""
    return f"{sync_counts(report)}\nindex: {db_file}"
