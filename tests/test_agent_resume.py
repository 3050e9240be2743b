"""kill -9 while a tool call runs, then --resume: the task finishes, no tool call lost or run twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _scripted_llm import ScriptedLLM  # noqa: E402

PY = sys.executable
# SIGINT at its default and unblocked (both survive exec), then exec Python with the given arguments
AS_FROM_A_TERMINAL = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                      "signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); "
                      "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")


def test_kill_9_mid_command_then_resume(tmp_path):
    root = tmp_path / "repo"
    (root / ".ctxmill").mkdir(parents=True)
    (root / ".ctxmill" / "settings.toml").write_text('[permissions]\nallow = ["write(**)", "edit(**)", "run(echo *)"]\n')
    env = {**os.environ, "CTXMILL_INDEX_DIR": str(tmp_path / "state"), "CTXMILL_CONFIG_DIR": str(tmp_path / "cfg")}
    steps = [{"call": [("write", {"path": "a.txt", "content": "one\n"})]},
             {"call": [("run", {"command": "echo $$ >> pids.txt; echo started >> log.txt; sleep 30"})]},
             {"call": [("edit", {"path": "a.txt", "old": "one", "new": "one two"})]},
             {"say": "finished"}]
    with ScriptedLLM(steps) as model:
        env["CTXMILL_LLM_URL"] = model.url
        cmd = [PY, "-m", "ctxmill.cli", "agent", "--root", str(root), "--mode", "auto", "--json"]
        p = subprocess.Popen([*cmd, "do the task"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        try:
            first = json.loads(p.stdout.readline())
            deadline = time.time() + 60
            while not (root / "log.txt").exists() and time.time() < deadline:
                time.sleep(0.05)
            assert (root / "log.txt").exists(), p.stderr.read() if p.poll() is not None else "no command ran"
        finally:
            p.send_signal(signal.SIGKILL)
            p.wait()
            for pid in (root / "pids.txt").read_text().split() if (root / "pids.txt").exists() else []:
                try:
                    os.killpg(int(pid), signal.SIGKILL)  # the command's own group (start_new_session)
                except ProcessLookupError:
                    pass
        sid = first["id"]
        q = subprocess.run([*cmd, "--resume", sid[:15]], capture_output=True, text=True, timeout=120, env=env)
    assert q.returncode == 0, q.stderr
    events = [json.loads(line) for line in (tmp_path / "state").glob(f"*.agent/sessions/{sid}.jsonl").__next__()
              .read_text().splitlines()]
    calls = [e["id"] for e in events if e["type"] == "tool_call"]
    results = [e["id"] for e in events if e["type"] == "tool_result"]
    assert len(calls) == 3 and sorted(calls) == sorted(results)  # each call exactly one result
    assert (root / "log.txt").read_text() == "started\n"  # the killed command was not run again
    assert (root / "a.txt").read_text() == "one two\n"  # the edit after the resume, once
    interrupted = next(e for e in events if e["type"] == "tool_result" and e.get("resumed"))
    assert "was not run again" in interrupted["content"]
    assert events[-1]["type"] == "done" and events[-1]["reason"] == "answered"


def _cut_after_precheck(path: Path) -> None:
    """The transcript as a kill -9 right after the prior bytes were kept would leave it."""
    lines = path.read_text().splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if '"stage": "before"' in line)
    path.write_text("".join(lines[:k + 1]) + lines[k + 1][:10])  # and half a line torn off


def test_kill_mid_edit_is_recorded_once_or_run_once(tmp_path, monkeypatch):
    from ctxmill.agent import run_agent
    from ctxmill.agent.sessions import Session, replay
    from ctxmill.llm import LLMClient, LLMConfig

    monkeypatch.setenv("CTXMILL_INDEX_DIR", str(tmp_path / "state"))
    settings = {"permissions": {"allow": [], "deny": [], "ask": []}, "hooks": {}}
    for landed in (True, False):
        root = tmp_path / f"r{landed}"
        root.mkdir()
        (root / "a.txt").write_text("x\n")
        steps = [{"call": [("edit", {"path": "a.txt", "old": "x", "new": "xx"})]}, {"say": "done"}]
        with ScriptedLLM(steps) as model, LLMClient(LLMConfig(url=model.url)) as llm:
            out = run_agent("edit", root, llm, mode="accept-edits", settings=settings)
            s = Session(root, out.session)
            _cut_after_precheck(s.path)
            if not landed:
                (root / "a.txt").write_text("x\n")  # killed before the write
            model.play([{"say": "done after resume"}])
            again = run_agent(None, root, llm, resume=out.session, settings=settings)
        assert again.reason == "answered"
        assert (root / "a.txt").read_text() == "xx\n"  # applied exactly once either way
        st = replay(s.events())
        assert len(st.results) == 1 and not st.pending and len(st.checkpoints) == 1


def test_ctrl_c_mid_command_leaves_a_consistent_transcript(tmp_path):
    root = tmp_path / "repo"
    (root / ".ctxmill").mkdir(parents=True)
    (root / ".ctxmill" / "settings.toml").write_text('[permissions]\nallow = ["run(echo *)"]\n')
    env = {**os.environ, "CTXMILL_INDEX_DIR": str(tmp_path / "state"), "CTXMILL_CONFIG_DIR": str(tmp_path / "cfg")}
    with ScriptedLLM([{"call": [("run", {"command": "echo started > log.txt; sleep 30"})]}]) as model:
        env["CTXMILL_LLM_URL"] = model.url
        # A user's Ctrl-C reaches a foreground process whose SIGINT is at its default. A process started
        # with SIGINT ignored (a job put in the background by a script, as a CI runner may start pytest)
        # keeps it ignored - Python installs KeyboardInterrupt only over SIG_DFL - and ran the command to
        # its end: exit 0. So the agent starts as from a terminal, whatever this pytest inherited.
        p = subprocess.Popen([PY, "-c", AS_FROM_A_TERMINAL, "-m", "ctxmill.cli", "agent", "wait", "--root", str(root),
                              "--mode", "auto", "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        deadline = time.time() + 60
        while not (root / "log.txt").exists() and time.time() < deadline:
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    events = [json.loads(line) for line in out.splitlines()]
    call = next(e for e in events if e["type"] == "tool_call")
    result = next(e for e in events if e["type"] == "tool_result")
    assert result["id"] == call["id"] and "interrupted" in result["content"]
    assert events[-1]["type"] == "done" and events[-1]["reason"] == "interrupted"


@pytest.mark.parametrize("command", ["sleep 30", "true"])
def test_ctrl_c_while_the_command_starts_ends_the_command_too(tmp_path, monkeypatch, command):
    """A Ctrl-C that lands inside Popen, after the fork but before ``proc`` is bound, must still end
    the command (it runs in its own session, so nothing else would) and the agent: SIGINT sent from
    inside Popen. "true" has ended (and been reaped) by then, so its process group is gone."""
    from ctxmill.agent.tools import Tools

    started: list[subprocess.Popen] = []

    class CtrlCInside(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self)
            if command == "true":
                self.wait()
            os.kill(os.getpid(), signal.SIGINT)  # the handler runs at the next bytecode: still in here

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as from a terminal,
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])  # whatever this pytest inherited
    monkeypatch.setattr(subprocess, "Popen", CtrlCInside)
    try:
        with pytest.raises(KeyboardInterrupt):  # not lost, nor turned into a tool error
            Tools(tmp_path).run(command)
        assert len(started) == 1
        try:
            assert started[0].wait(timeout=10) == (0 if command == "true" else -signal.SIGKILL)
        finally:
            if started[0].poll() is None:  # left running: end it, the assertion above has failed
                os.killpg(started[0].pid, signal.SIGKILL)
                started[0].wait()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, previous)
