"""Bounded context: what one request holds, never more than ``--max-context`` tokens.

Tokens are estimated as characters / 3 over the JSON of the request (messages and tool
schemas): no tokenizer to download, and a little above what common tokenizers count for code
and English, so a request under the estimate is under the model's count too. When a request
would go over, tool outputs of earlier turns are shrunk first (their head kept, with how to
get the rest); when that is not enough, the loop has the model summarise the older turns
(:func:`summary_prompt`) and the summary replaces them in the transcript (a ``compact`` event).
"""

from __future__ import annotations

import json
from typing import Any

CHARS_PER_TOKEN = 3
SHRUNK_LINES = 12


class ContextFull(Exception):
    """Even with every tool output shrunk and old turns summarised the request is over budget."""


def tokens(obj: Any) -> int:
    return len(json.dumps(obj, ensure_ascii=False)) // CHARS_PER_TOKEN + 1


def wire(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as the endpoint takes them (our bookkeeping keys dropped)."""
    out = []
    for m in messages:
        w = {k: m[k] for k in ("role", "content", "tool_calls", "tool_call_id") if k in m}
        if w.get("content") is None and w["role"] == "assistant":
            w["content"] = ""
        out.append(w)
    return out


def shrink(content: str, lines: int = SHRUNK_LINES) -> str:
    rows = content.splitlines()
    if len(rows) <= lines:
        return content
    return "\n".join(rows[:lines]) + f"\n… {len(rows) - lines} more lines shrunk from this old result; call the tool again to see them"


def fit(messages: list[dict[str, Any]], tools: list[dict[str, Any]], budget: int,
        current_turn: int) -> tuple[list[dict[str, Any]], int] | None:
    """The request's messages within ``budget`` tokens and their estimate, shrinking tool
    outputs of turns before ``current_turn`` oldest first; None when that is not enough."""
    msgs = wire(messages)
    fixed = tokens(tools) if tools else 0
    total = fixed + tokens(msgs)
    if total <= budget:
        return msgs, total
    for lines in (SHRUNK_LINES, 1):
        for i, m in enumerate(messages):
            if m.get("role") == "tool" and m.get("turn", 0) < current_turn:
                before = tokens(msgs[i])
                msgs[i] = {**msgs[i], "content": shrink(msgs[i]["content"], lines)}
                total += tokens(msgs[i]) - before
                if total <= budget:
                    return msgs, total
    return None


def summary_prompt(messages: list[dict[str, Any]], budget_chars: int) -> list[dict[str, Any]]:
    """A request asking the model to summarise ``messages`` (old turns) in a few lines."""
    text = []
    for m in wire(messages):
        line = f"[{m['role']}] {m.get('content') or ''}"
        for tc in m.get("tool_calls") or []:
            line += f"\n  -> {tc['function']['name']}({tc['function']['arguments'][:300]})"
        text.append(line[:2000])
    body = "\n".join(text)[-budget_chars:]
    return [{"role": "system", "content": "You summarise an agent's work so far for the agent itself."},
            {"role": "user", "content": "Summarise this work in at most 15 lines: what was found (files, lines), "
             "what was changed, what is left. Keep paths and names exact.\n\n" + body}]
