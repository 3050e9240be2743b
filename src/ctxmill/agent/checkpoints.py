"""Checkpoints: the prior bytes of every file the agent touches, kept content-addressed.

Before an edit, write or delete the file's bytes (or its absence) go into ``objects/<sha256>``
and the session's transcript gets a ``checkpoint`` event ``{turn, path, before, after}`` (hashes,
None for "no file"). Rewinding to turn T puts back, for each path touched at T or later, the
``before`` of its first such change -- unless the file's bytes now differ from the ``after`` the
agent last left there: that is a change made outside the agent, listed as a conflict and kept
(``force`` overwrites). Nothing here needs git, so it works in any folder and beside
uncommitted changes. Effects of ``run`` are not recorded and cannot be undone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from ctxmill.atomic import write_bytes


class ObjectStore:
    """sha256 -> bytes on disk; writing the same bytes twice stores them once."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def put(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        target = self.folder / digest[:2] / digest
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            write_bytes(target, data)
        return digest

    def get(self, digest: str) -> bytes:
        data = (self.folder / digest[:2] / digest).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise OSError(f"checkpoint object {digest[:12]} is damaged")
        return data


def file_hash(p: Path) -> str | None:
    if not p.is_file():
        return None
    return hashlib.sha256(p.read_bytes()).hexdigest()


def write_file(p: Path, data: bytes | None) -> None:
    """Put ``data`` at ``p`` atomically (None removes the file); the file's mode is kept."""
    if data is None:
        if p.is_file() or p.is_symlink():
            p.unlink()
        return
    p.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(p, data)


@dataclass
class Restore:
    path: str
    action: str  # "restore" | "delete" | "conflict" | "same"
    to: str | None  # the hash put back (None: the file is removed)
    reason: str = ""

    def to_dict(self) -> dict:
        d = {"path": self.path, "action": self.action}
        if self.reason:
            d["reason"] = self.reason
        return d


@dataclass
class Plan:
    to_turn: int
    files: list[Restore] = field(default_factory=list)

    @property
    def conflicts(self) -> list[Restore]:
        return [f for f in self.files if f.action == "conflict"]


def plan_rewind(root: Path, checkpoints: list[dict], to_turn: int, force: bool = False) -> Plan:
    """What rewinding to ``to_turn`` would do with the files (nothing is written)."""
    first: dict[str, dict] = {}
    last: dict[str, dict] = {}
    for c in checkpoints:
        last[c["path"]] = c  # the agent's last word on the file, whatever the turn
        if c["turn"] >= to_turn and c["path"] not in first:
            first[c["path"]] = c
    plan = Plan(to_turn)
    for path, c in sorted(first.items()):
        now = file_hash(root / path)
        want = c["before"]
        if now == want:
            plan.files.append(Restore(path, "same", want))
        elif now != last[path]["after"] and not force:
            plan.files.append(Restore(path, "conflict", want,
                                      "changed outside the agent after its last edit; kept (--force overwrites)"))
        else:
            plan.files.append(Restore(path, "delete" if want is None else "restore", want))
    return plan


def apply_rewind(root: Path, store: ObjectStore, plan: Plan) -> list[str]:
    """Write the plan's files back; returns the paths changed. Objects are read first, so a
    damaged store changes nothing."""
    data = {r.path: (store.get(r.to) if r.to else None) for r in plan.files if r.action in ("restore", "delete")}
    for path, blob in data.items():
        write_file(root / path, blob)
    return list(data)
