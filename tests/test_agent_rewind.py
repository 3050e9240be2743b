"""Checkpoint fidelity: random edit sequences through the real loop, rewound to byte-identical trees."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _scripted_llm import ScriptedLLM  # noqa: E402
from ctxmill.agent import rewind, run_agent  # noqa: E402
from ctxmill.llm import LLMClient, LLMConfig  # noqa: E402

SETTINGS = {"permissions": {"allow": [], "deny": [], "ask": []}, "hooks": {}}


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXMILL_INDEX_DIR", str(tmp_path / "state"))


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _tree(rng: random.Random, root: Path) -> None:
    for i in range(rng.randint(2, 6)):
        kind = rng.choice(["lf", "crlf", "binary", "nested"])
        lines = [f"line {i}-{j} {rng.random():.6f}" for j in range(rng.randint(1, 8))]
        if kind == "binary":
            (root / f"blob{i}.bin").write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(1, 300))) + b"\x00")
        elif kind == "crlf":
            (root / f"win{i}.txt").write_bytes(("\r\n".join(lines) + "\r\n").encode())
        else:
            folder = root / ("pkg/sub" if kind == "nested" else "")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"f{i}.py").write_text("\n".join(lines) + rng.choice(["\n", ""]))


def _ops(rng: random.Random, root: Path, turn: int) -> list:
    ops = []
    files = sorted(snapshot(root))
    for k in range(rng.randint(1, 3)):
        op = rng.choice(["new", "overwrite", "edit", "delete"]) if files else "new"
        if op == "new":
            ops.append(("write", {"path": rng.choice(["", "new/", "pkg/"]) + f"n{turn}_{k}.txt",
                                  "content": f"new {turn} {k}\r\n" if rng.random() < 0.3 else f"new {turn} {k}\n"}))
            continue
        path = rng.choice(files)
        data = (root / path).read_bytes()
        if op == "edit" and b"\x00" not in data:
            text = data.decode()
            unique = [ln for ln in text.splitlines() if ln and text.count(ln) == 1]
            if unique:
                line = rng.choice(unique)
                ops.append(("edit", {"path": path, "old": line, "new": line + f" edited{turn}"}))
                continue
        if op == "delete":
            ops.append(("delete", {"path": path}))
            files.remove(path)
        else:
            ops.append(("write", {"path": path, "content": f"overwritten at turn {turn}\n"}))
    return ops


def test_100_random_edit_sequences_rewind_byte_identical(tmp_path):
    with ScriptedLLM() as model, LLMClient(LLMConfig(url=model.url)) as llm:
        for seed in range(100):
            rng = random.Random(seed)
            root = tmp_path / f"r{seed}"
            root.mkdir()
            _tree(rng, root)
            turns = rng.randint(2, 5)
            snaps: dict[int, dict[str, bytes]] = {}

            def step(messages, turn, rng=rng, root=root, turns=turns, snaps=snaps):
                snaps[turn] = snapshot(root)  # the tree as the model sees it at the start of the turn
                return {"call": _ops(rng, root, turn)} if turn <= turns else {"say": "done"}

            model.play([lambda m, t=t, step=step: step(m, t) for t in range(1, turns + 2)])
            out = run_agent("shuffle files", root, llm, mode="accept-edits", settings=SETTINGS)
            assert out.reason == "answered", (seed, out)
            to = rng.randint(1, turns)
            report = rewind(root, out.session, to_turn=to)
            assert report["conflicts"] == []
            assert snapshot(root) == snaps[to], f"seed {seed}: rewind to turn {to} differs"
            rewind(root, out.session, to_turn=1)
            assert snapshot(root) == snaps[1], f"seed {seed}: rewind to the start differs"


def test_outside_change_is_a_conflict_kept_unless_forced(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    (root / "b.txt").write_text("two\n")
    with ScriptedLLM([{"call": [("write", {"path": "a.txt", "content": "agent\n"}),
                                ("write", {"path": "b.txt", "content": "agent\n"})]}, {"say": "ok"}]) as model, \
            LLMClient(LLMConfig(url=model.url)) as llm:
        out = run_agent("edit", root, llm, mode="accept-edits", settings=SETTINGS)
    (root / "a.txt").write_text("the user's own change\n")  # made outside the agent, after it
    plan = rewind(root, out.session, dry_run=True)
    assert plan["conflicts"] == ["a.txt"]
    report = rewind(root, out.session)
    assert report["restored"] == ["b.txt"] and (root / "b.txt").read_text() == "two\n"
    assert (root / "a.txt").read_text() == "the user's own change\n"
    rewind(root, out.session, force=True)
    assert (root / "a.txt").read_text() == "one\n"


def test_files_only_and_conversation_only(tmp_path):
    from ctxmill.agent.sessions import Session, replay

    root = tmp_path / "r"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    steps = [{"call": [("write", {"path": "a.txt", "content": "two\n"})]},
             {"call": [("write", {"path": "a.txt", "content": "three\n"})]}, {"say": "ok"}]
    with ScriptedLLM(steps) as model, LLMClient(LLMConfig(url=model.url)) as llm:
        out = run_agent("edit", root, llm, mode="accept-edits", settings=SETTINGS)
    s = Session(root, out.session)
    n = len(replay(s.events()).messages)
    rewind(root, out.session, to_turn=2, files=False)  # conversation only: the file stays
    assert (root / "a.txt").read_text() == "three\n" and len(replay(s.events()).messages) < n
    rewind(root, out.session, to_turn=1, conversation=False)  # files only: back to the start
    assert (root / "a.txt").read_text() == "one\n"
