"""Append-only JSONL sessions beside the index's state, and the state rebuilt from them.

One file per session, ``<state>/sessions/<id>.jsonl``: each line one event, written and
fsync'd before the step it records goes on (a tool call is on disk before it runs, its result
right after), so a session killed at any point is resumed from its last complete line. Nothing
is ever rewritten: a rewind or a compaction is itself an event, and :func:`replay` applies it.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxmill.errors import InputRefused


def state_dir(root: str | Path) -> Path:
    """``<index dir>/<name>-<digest>.agent``: next to where ``ctxmill index`` keeps ROOT's index."""
    from ctxmill.locations import default_db_path

    return default_db_path(root).with_suffix(".agent")


def new_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


class Session:
    def __init__(self, root: Path, sid: str | None = None) -> None:
        self.root = Path(root).resolve()
        self.dir = state_dir(self.root)
        self.id = sid or new_id()
        self.path = self.dir / "sessions" / f"{self.id}.jsonl"
        self._fh = None

    @property
    def objects(self) -> Path:
        return self.dir / "objects"

    def exists(self) -> bool:
        return self.path.is_file()

    def append(self, event: dict[str, Any], sync: bool = True) -> dict[str, Any]:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _repair_tail(self.path)
            self._fh = open(self.path, "a", encoding="utf-8")
        event = {"t": round(time.time(), 3), **event}
        self._fh.write(json.dumps(event, ensure_ascii=False) + "\n")
        self._fh.flush()
        if sync:
            os.fsync(self._fh.fileno())
        return event

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def events(self) -> list[dict[str, Any]]:
        return read_events(self.path)


def _repair_tail(path: Path) -> None:
    """A kill mid-write can leave half a line: cut it, so the next event starts a line of its own."""
    if not path.is_file():
        return
    with open(path, "rb+") as fh:
        data = fh.read()
        if data and not data.endswith(b"\n"):
            fh.truncate(data.rfind(b"\n") + 1)


def read_events(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            break  # only the last line can be torn (appends), and it never counted
    return out


@dataclass
class State:
    """What a session's events add up to after compactions and rewinds."""

    meta: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)  # each with a "turn" key
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    prechecks: list[dict[str, Any]] = field(default_factory=list)  # prior bytes kept, edit not yet done
    pending: list[dict[str, Any]] = field(default_factory=list)  # tool calls started, no result
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    turn: int = 0
    done: dict[str, Any] | None = None


def replay(events: list[dict[str, Any]]) -> State:
    st = State()
    calls: dict[str, dict[str, Any]] = {}
    for e in events:
        kind = e.get("type")
        if kind == "session":
            st.meta = e
        elif kind == "message":
            msg = {k: e[k] for k in ("role", "content", "tool_calls", "turn") if k in e}
            st.messages.append(msg)
            st.turn = max(st.turn, e.get("turn", 0))
            st.done = None
        elif kind == "tool_call":
            calls[e["id"]] = e
        elif kind == "tool_result":
            st.results[e["id"]] = e
            call = calls.get(e["id"], {})
            st.messages.append({"role": "tool", "tool_call_id": e["id"], "content": e["content"],
                                "turn": call.get("turn", st.turn)})
        elif kind == "checkpoint":
            (st.prechecks if e.get("stage") == "before" else st.checkpoints).append(e)
        elif kind == "compact":
            keep = [m for m in st.messages if m.get("turn", 0) >= e["keep_from_turn"] or m.get("role") == "system"]
            head = [m for m in st.messages if m.get("turn", 0) == 0 and m.get("role") == "user"][:1]
            summary = {"role": "user", "turn": 0, "summary": True,
                       "content": "Summary of the earlier work in this session:\n" + e["summary"]}
            st.messages = head + [summary] + [m for m in keep if m not in head]
        elif kind == "rewind":
            t = e["to_turn"]
            st.messages = [m for m in st.messages if m.get("turn", 0) < t]
            # files kept as conflicts keep their checkpoints: a later --force can still restore them
            kept = set(e.get("kept") or ())
            st.checkpoints = [c for c in st.checkpoints if c["turn"] < t or c["path"] in kept]
            st.prechecks = [c for c in st.prechecks if c["turn"] < t]
            calls = {k: v for k, v in calls.items() if v.get("turn", 0) < t}
            st.turn = t - 1
            st.done = None
        elif kind == "done":
            st.done = e
    st.pending = [c for cid, c in calls.items() if cid not in st.results]
    # a tool call whose assistant message was rewound away is not pending
    live = {tc.get("id") for m in st.messages for tc in (m.get("tool_calls") or [])}
    st.pending = [c for c in st.pending if c["id"] in live]
    return st


def list_sessions(root: Path) -> list[dict[str, Any]]:
    folder = state_dir(Path(root).resolve()) / "sessions"
    out = []
    for p in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        if "-task-" in p.stem:
            continue  # a sub-agent's transcript: part of its parent, never --continue'd
        events = read_events(p)
        st = replay(events)
        out.append({"id": p.stem, "goal": st.meta.get("goal", ""), "mode": st.meta.get("mode"),
                    "turns": st.turn, "edits": len(st.checkpoints),
                    "stopped": (st.done or {}).get("reason", "unfinished"),
                    "started": st.meta.get("t"), "path": str(p)})
    return out


def find(root: Path, sid: str | None) -> Session:
    """The session ``sid`` (a unique prefix is enough), or the latest when None."""
    sessions = list_sessions(root)
    if not sessions:
        raise InputRefused(f"no agent sessions for {root}")
    if sid is None:
        return Session(root, sessions[-1]["id"])
    hits = [s for s in sessions if s["id"].startswith(sid)]
    if len(hits) != 1:
        raise InputRefused(f"{sid!r} names {'no' if not hits else len(hits)} sessions of {root}; "
                           "`ctxmill agent sessions` lists them")
    return Session(root, hits[0]["id"])
