"""The ``--json`` event stream: one JSON object a line, the transcript's events as they happen.

Every event has ``type`` and ``t`` (Unix seconds). The types (all but ``text`` are also the
lines of the session's JSONL transcript):

=============  ================================================================================
session        ``id``, ``goal``, ``root``, ``mode``: the session starts
message        ``role`` (user/assistant), ``content``, ``turn``, ``tool_calls`` (OpenAI's shape)
text           ``turn``, ``text``: the assistant's text of a turn (not stored: it is in message)
tool_call      ``id``, ``name``, ``args``, ``turn``: written before the tool runs
permission     ``id``, ``decision`` (allow/deny), ``reason``, ``floor`` (true: no rule lifts it), ``rule``
checkpoint     ``call``, ``turn``, ``path``, ``before``/``after`` (sha256 or null for no file);
               ``stage: "before"`` marks the prior bytes kept before the edit ran
tool_result    ``id``, ``ok``, ``content`` (what the model sees), ``diff`` for edits, ``resumed``
usage          ``turn``, ``prompt_tokens``, ``completion_tokens``, ``seconds``, ``estimated``
compact        ``keep_from_turn``, ``summary``, ``tokens_before``: older turns summarised
rewind         ``to_turn``: the conversation from that turn on was undone
done           ``reason`` (answered/max_turns/token_budget/context_full/interrupted/error), ``turns``,
               ``answer``, ``usage``, ``changed`` (paths)
=============  ================================================================================
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

TYPES = ("session", "message", "text", "tool_call", "permission", "checkpoint", "tool_result", "usage",
         "compact", "rewind", "done")


def json_lines(out: TextIO = sys.stdout):
    def emit(event: dict[str, Any]) -> None:
        out.write(json.dumps(event, ensure_ascii=False) + "\n")
        out.flush()
    return emit


def terminal(out: TextIO = sys.stderr):
    """Human output: tool calls, decisions, diffs (the text itself is streamed by on_text)."""
    def emit(event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "tool_call":
            args = json.dumps(event.get("args"), ensure_ascii=False)
            out.write(f"\n→ {event['name']}({args[:200]})\n")
        elif kind == "permission" and event.get("decision") == "deny":
            out.write(f"  denied: {event.get('reason')}\n")
        elif kind == "tool_result":
            if event.get("diff"):
                out.write(event["diff"] if event["diff"].endswith("\n") else event["diff"] + "\n")
            else:
                first = (event.get("content") or "").splitlines()[:3]
                out.write("".join(f"  {line[:160]}\n" for line in first))
        elif kind == "done":
            out.write(f"\n[{event['reason']} after {event['turns']} turns; "
                      f"{event['usage'].get('prompt_tokens', 0)}+{event['usage'].get('completion_tokens', 0)} tokens; "
                      f"changed: {', '.join(event.get('changed') or []) or 'nothing'}]\n")
        out.flush()
    return emit
