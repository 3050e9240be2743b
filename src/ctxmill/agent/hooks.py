"""Hooks: commands from the settings run around tool calls and at the stop.

Each hook is a shell command run in ROOT with one JSON object on stdin:

* ``pre_tool`` gets ``{"event": "pre_tool", "tool", "args"}``. Exit 2 blocks the call: its
  stderr is the reason the model sees. Exit 0 with a JSON object ``{"args": {...}}`` on stdout
  rewrites the call's arguments (the permission check runs again on the new ones). Other exits
  are reported and the call goes on.
* ``post_tool`` gets ``{"event": "post_tool", "tool", "args", "result", "ok"}``; its stdout, if
  any, is added to the result the model sees (a linter's verdict after an edit, say).
* ``stop`` gets ``{"event": "stop", "answer"}`` when the model answers without a tool call.
  Exit 2 sends the model back to work with the hook's stderr ("the tests still fail").
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

HOOK_TIMEOUT = 60


@dataclass
class HookOutcome:
    block: str | None = None  # the reason, when a hook blocked (or sent the model back)
    args: dict | None = None  # rewritten arguments
    note: str = ""  # text to add to the result


class Hooks:
    def __init__(self, root: Path, pre_tool=(), post_tool=(), stop=()) -> None:
        self.root = root
        self.pre_tool, self.post_tool, self.stop = list(pre_tool), list(post_tool), list(stop)

    def _run(self, command: str, payload: dict) -> subprocess.CompletedProcess:
        try:
            return subprocess.run(command, shell=True, cwd=self.root, input=json.dumps(payload),
                                  capture_output=True, text=True, timeout=HOOK_TIMEOUT)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(command, 1, "", f"hook timed out after {HOOK_TIMEOUT} s")

    def before(self, tool: str, args: dict) -> HookOutcome:
        out = HookOutcome()
        for cmd in self.pre_tool:
            p = self._run(cmd, {"event": "pre_tool", "tool": tool, "args": args})
            if p.returncode == 2:
                return HookOutcome(block=(p.stderr.strip() or f"blocked by hook {cmd}")[:2000])
            if p.returncode == 0 and p.stdout.strip():
                try:
                    data = json.loads(p.stdout)
                except ValueError:
                    continue
                if isinstance(data, dict) and isinstance(data.get("args"), dict):
                    args = out.args = data["args"]
        return out

    def after(self, tool: str, args: dict, result: str, ok: bool) -> HookOutcome:
        notes = []
        for cmd in self.post_tool:
            p = self._run(cmd, {"event": "post_tool", "tool": tool, "args": args, "result": result, "ok": ok})
            if p.stdout.strip():
                notes.append(p.stdout.strip()[:4000])
        return HookOutcome(note="\n".join(notes))

    def at_stop(self, answer: str) -> HookOutcome:
        for cmd in self.stop:
            p = self._run(cmd, {"event": "stop", "answer": answer})
            if p.returncode == 2:
                return HookOutcome(block=(p.stderr.strip() or p.stdout.strip() or f"stop hook {cmd} sent you back")[:4000])
        return HookOutcome()
