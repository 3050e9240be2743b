"""Agent mode: a goal in, a loop of search / read / edit / run / check over any OpenAI-compatible model.

    >>> from ctxmill.agent import run_agent, rewind, sessions
    >>> out = run_agent("make the failing test pass", root="repo", llm=client, mode="accept-edits")
    >>> rewind("repo", out.session, to_turn=1)          # files and conversation as at turn 1

The room: :mod:`.loop` (the loop), :mod:`.tools` (each tool a call into the core),
:mod:`.permissions` (deny first, the floor), :mod:`.checkpoints` (prior bytes, rewind),
:mod:`.sessions` (append-only JSONL), :mod:`.context` (the budget), :mod:`.hooks`,
:mod:`.settings`, :mod:`.events` (the ``--json`` schema). docs/agent.md shows a session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxmill.errors import InputRefused

__all__ = ["run_agent", "rewind", "sessions"]


def run_agent(goal: str | None, root: str | Path = ".", llm=None, *, resume: str | None = None,
              continue_last: bool = False, **kwargs: Any):
    """Run (or, with ``resume``/``continue_last``, go on with) a session; returns an Outcome."""
    from ctxmill.agent.loop import Agent
    from ctxmill.agent.sessions import find, replay

    root = Path(root).resolve()
    session = None
    if resume or continue_last:
        session = find(root, resume)
        kwargs.setdefault("mode", replay(session.events()).meta.get("mode", "default"))
    elif not goal:
        raise InputRefused("give a GOAL (or --continue / --resume ID)")
    return Agent(root, llm, session=session, **kwargs).run(goal)


def sessions(root: str | Path = ".") -> list[dict]:
    from ctxmill.agent.sessions import list_sessions

    return list_sessions(Path(root))


def rewind(root: str | Path = ".", session: str | None = None, *, to_turn: int = 1, dry_run: bool = False,
           force: bool = False, files: bool = True, conversation: bool = True) -> dict:
    """Put back the files the session changed at ``to_turn`` or later, and its conversation as it
    was before that turn. Files changed outside the agent since are conflicts: listed, kept."""
    from ctxmill.agent.checkpoints import ObjectStore, apply_rewind, plan_rewind
    from ctxmill.agent.sessions import find, replay

    root = Path(root).resolve()
    s = find(root, session)
    st = replay(s.events())
    if to_turn < 1:
        raise InputRefused(f"--to must be a turn from 1 to {max(1, st.turn)}, not {to_turn}")
    plan = plan_rewind(root, st.checkpoints, to_turn, force=force)
    dropped = sum(1 for m in st.messages if m.get("turn", 0) >= to_turn)
    report = {"session": s.id, "to_turn": to_turn, "dry_run": dry_run,
              "files": [f.to_dict() for f in plan.files] if files else [],
              "conflicts": [f.path for f in plan.conflicts] if files else [],
              "messages_dropped": dropped if conversation else 0}
    if dry_run:
        return report
    if files:
        report["restored"] = apply_rewind(root, ObjectStore(s.objects), plan)
    if conversation:
        s.append({"type": "rewind", "to_turn": to_turn, "files": files,
                  "kept": report["conflicts"] if files else sorted({c["path"] for c in st.checkpoints})})
        s.close()
    return report
