"""The agent's loop against a scripted model behind a real loopback HTTP server (SSE, tool_calls)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _scripted_llm import ScriptedLLM, last_tool_result  # noqa: E402
from ctxmill.agent import rewind, run_agent, sessions  # noqa: E402
from ctxmill.agent.sessions import Session, replay  # noqa: E402
from ctxmill.llm import LLMClient, LLMConfig  # noqa: E402

PY = sys.executable
CALC = "def add(a, b):\n    return a - b\n"
TEST = ("from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
        "if __name__ == '__main__':\n    test_add()\n")
CHECK = f"{PY} -S test_calc.py"  # the fixture's test, run plainly: pytest's start-up would dominate
NO_HOOKS = {"permissions": {"allow": [], "deny": [], "ask": []}, "hooks": {}}


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXMILL_INDEX_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("CTXMILL_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture(scope="module")
def model():
    with ScriptedLLM() as m:
        yield m


def _repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "calc.py").write_text(CALC)
    (root / "test_calc.py").write_text(TEST)
    return root


def _settings(allow=(), deny=(), ask=(), **hooks):
    return {"permissions": {"allow": list(allow), "deny": list(deny), "ask": list(ask)},
            "hooks": {k: list(v) for k, v in hooks.items()}}


def _tests_pass(root: Path) -> bool:
    return subprocess.run(CHECK, shell=True, cwd=root, capture_output=True, timeout=120).returncode == 0


FIX = [{"call": [("grep", {"pattern": "def add"})]},
       lambda msgs: {"call": [("read", {"path": last_tool_result(msgs).split(":")[0]})]},
       {"call": [("edit", {"path": "calc.py", "old": "return a - b", "new": "return a + b"})]},
       {"call": [("run", {"command": CHECK})]},
       {"say": "add() in calc.py:2 subtracted; it adds now and the tests pass."}]


def test_fix_a_failing_test_then_rewind_gives_back_the_bytes(tmp_path, model):
    root = _repo(tmp_path)
    assert not _tests_pass(root)
    model.play(FIX)
    with LLMClient(LLMConfig(url=model.url)) as llm:
        out = run_agent("make the tests pass", root, llm, mode="auto",
                        settings=_settings(allow=["edit(**)", f"run({PY} -S test_calc.py*)"]))
    assert out.reason == "answered" and out.turns == 5 and out.changed == ["calc.py"]
    assert _tests_pass(root)
    # the model saw the grep hit, then the numbered file, and tool results carry their call ids
    bodies = model.requests
    assert "calc.py:1:def add(a, b):" in bodies[1]["messages"][-1]["content"]
    assert "2\t    return a - b" in bodies[2]["messages"][-1]["content"]
    assert all(b["tools"] and b["stream"] for b in bodies)
    st = replay(Session(root, out.session).events())
    assert len(st.results) == 4 and not st.pending
    # rewind: the file's original bytes and the conversation as it was before turn 1
    plan = rewind(root, out.session, to_turn=1, dry_run=True)
    assert plan["files"] == [{"path": "calc.py", "action": "restore"}]
    assert (root / "calc.py").read_text() != CALC  # a dry run changes nothing
    rewind(root, out.session, to_turn=1)
    assert (root / "calc.py").read_text() == CALC
    st = replay(Session(root, out.session).events())
    assert [m["role"] for m in st.messages] == ["user"] and st.checkpoints == []


def test_default_mode_without_a_terminal_denies_edits_and_tells_the_model(tmp_path, model):
    root = _repo(tmp_path)
    model.play([{"call": [("edit", {"path": "calc.py", "old": "a - b", "new": "a + b"})]},
                lambda msgs: {"say": "Could not edit: " + last_tool_result(msgs)}])
    with LLMClient(LLMConfig(url=model.url)) as llm:
        out = run_agent("fix it", root, llm, mode="default", settings=NO_HOOKS, asker=None)
    assert (root / "calc.py").read_text() == CALC
    assert "permission denied" in out.answer and "no one can answer" in out.answer


def test_asker_yes_and_always(tmp_path, model):
    root = _repo(tmp_path)
    asked = []

    def asker(tool, args, why):
        asked.append(tool)
        return "always"

    model.play([{"call": [("write", {"path": "a.txt", "content": "1\n"})]},
                {"call": [("write", {"path": "a.txt", "content": "2\n"})]},
                {"say": "done"}])
    with LLMClient(LLMConfig(url=model.url)) as llm:
        run_agent("write", root, llm, mode="default", settings=NO_HOOKS, asker=asker)
    assert (root / "a.txt").read_text() == "2\n" and asked == ["write"]  # 'always' asks once


def test_continue_picks_up_the_conversation(tmp_path, model):
    root = _repo(tmp_path)
    model.play([{"say": "first answer"}, {"say": "second answer"}])
    with LLMClient(LLMConfig(url=model.url)) as llm:
        a = run_agent("question one", root, llm, mode="plan", settings=NO_HOOKS)
        b = run_agent("question two", root, llm, continue_last=True, settings=NO_HOOKS)
    assert a.session == b.session
    contents = [m["content"] for m in model.requests[-1]["messages"][1:]]
    assert contents == ["question one", "first answer", "question two"]
    assert [s["id"] for s in sessions(root)] == [a.session]


def test_json_fallback_for_models_without_tool_calls(tmp_path):
    root = _repo(tmp_path)
    with ScriptedLLM([{"call": [("read", {"path": "calc.py"})]},
                      lambda msgs: {"say": "line 2 is: " + last_tool_result(msgs).splitlines()[1]}],
                     native=False) as m, LLMClient(LLMConfig(url=m.url)) as llm:
        out = run_agent("what does add do", root, llm, mode="plan", settings=NO_HOOKS)
        assert "return a - b" in out.answer
        assert '"tool": "<name>"' in m.requests[0]["messages"][0]["content"]  # tools described in text


def test_hooks_block_rewrite_and_send_back(tmp_path, model):
    root = _repo(tmp_path)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "pre.py").write_text(
        "import json, sys\ncall = json.load(sys.stdin)\n"
        "if call['tool'] == 'delete':\n    print('deleting is not allowed here', file=sys.stderr); sys.exit(2)\n"
        "if call['tool'] == 'write':\n    call['args']['content'] = call['args']['content'].upper()\n"
        "    print(json.dumps({'args': call['args']}))\n")
    stop = (f"{CHECK} 2>/dev/null || "
            "(echo 'the tests still fail' >&2; exit 2)")
    model.play([{"call": [("delete", {"path": "calc.py"})]},
                {"call": [("write", {"path": "notes.txt", "content": "quiet\n"})]},
                {"say": "all done"},  # the stop hook sends the model back: tests fail
                lambda msgs: {"call": [("edit", {"path": "calc.py", "old": "a - b", "new": "a + b"})]}
                if "the tests still fail" in msgs[-1]["content"] else {"say": "unexpected"},
                {"say": "now really done"}])
    settings = _settings(allow=["edit(**)", "write(**)", "delete(**)"], pre_tool=[f"{PY} -S {hooks / 'pre.py'}"],
                         post_tool=["grep -c . notes.txt 2>/dev/null | sed 's/^/notes lines: /' || true"],
                         stop=[stop])
    with LLMClient(LLMConfig(url=model.url)) as llm:
        out = run_agent("tidy", root, llm, mode="auto", settings=settings)
    assert (root / "calc.py").is_file() and (root / "notes.txt").read_text() == "QUIET\n"
    assert out.answer == "now really done" and _tests_pass(root)
    first_result = model.requests[1]["messages"][-1]["content"]
    assert "blocked by a hook: deleting is not allowed here" in first_result
    assert model.requests[2]["messages"][-1]["content"] == "created notes.txt\nhook: notes lines: 1"


def test_bounded_context_no_request_over_budget(tmp_path, model):
    root = _repo(tmp_path)
    (root / "big.txt").write_text("".join(f"line {i} " + "x" * 60 + "\n" for i in range(3000)))
    steps = [{"call": [("read", {"path": "big.txt", "start": 1 + 60 * i, "end": 60 * (i + 1)})]} for i in range(24)]
    model.play([*steps, {"say": "read it all"}])
    budget = 4000
    with LLMClient(LLMConfig(url=model.url)) as llm:
        out = run_agent("read big.txt", root, llm, mode="plan", settings=NO_HOOKS, max_context=budget)
    assert out.reason == "answered"
    from ctxmill.agent.context import CHARS_PER_TOKEN
    sizes = [len(json.dumps(b["messages"], ensure_ascii=False)) + len(json.dumps(b.get("tools") or []))
             for b in model.requests]
    assert max(sizes) <= budget * CHARS_PER_TOKEN
    events = Session(root, out.session).events()
    assert any(e["type"] == "compact" for e in events)  # old turns were summarised
    # a first read is capped with how to read on
    (root / "long.py").write_text("".join(f"x{i} = {i}\n" for i in range(500)))
    model.play([{"call": [("read", {"path": "long.py"})]}, lambda msgs: {"say": last_tool_result(msgs)[-60:]}])
    with LLMClient(LLMConfig(url=model.url)) as llm:
        out = run_agent("read", root, llm, mode="plan", settings=NO_HOOKS)
    assert "… 300 more lines: read('long.py', 201, 500)" in out.answer


def test_cli_json_events_and_sessions(tmp_path, model):
    root = _repo(tmp_path)
    model.play([{"call": [("read", {"path": "calc.py"})]},
                {"call": [("edit", {"path": "calc.py", "old": "a - b", "new": "a + b"})]},
                {"say": "done"}])
    env = {**os.environ, "CTXMILL_LLM_URL": model.url}
    p = subprocess.run([PY, "-m", "ctxmill.cli", "agent", "fix calc", "--root", str(root), "--mode", "accept-edits",
                        "--json"], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    events = [json.loads(line) for line in p.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "session" and kinds[-1] == "done" and "checkpoint" in kinds
    assert {e["type"] for e in events} <= {"session", "message", "text", "tool_call", "permission", "checkpoint",
                                           "tool_result", "usage", "done"}
    edit = next(e for e in events if e["type"] == "tool_result" and e.get("diff"))
    assert "+    return a + b" in edit["diff"]
    p = subprocess.run([PY, "-m", "ctxmill.cli", "agent", "sessions", "--root", str(root), "--json"],
                       capture_output=True, text=True, timeout=60, env=env)
    assert json.loads(p.stdout)[0]["edits"] == 1
    p = subprocess.run([PY, "-m", "ctxmill.cli", "agent", "rewind", "--root", str(root), "--yes"],
                       capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0 and (root / "calc.py").read_text() == CALC, p.stderr
    p = subprocess.run([PY, "-m", "ctxmill.cli", "agent", "--root", str(root), "--resume", "nope"],
                       capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 3 and "names no sessions" in p.stderr


def test_sub_agent_has_read_only_tools_and_returns_its_answer(tmp_path, model):
    root = _repo(tmp_path)
    model.play([{"call": [("task", {"goal": "what does calc.add return?"})]},
                {"call": [("read", {"path": "calc.py"})]},  # the sub-agent's turns
                lambda msgs: {"say": "sub: " + last_tool_result(msgs).splitlines()[1].strip()},
                lambda msgs: {"say": "main got: " + last_tool_result(msgs)}])
    with LLMClient(LLMConfig(url=model.url)) as llm:
        out = run_agent("investigate", root, llm, mode="accept-edits", settings=NO_HOOKS)
    assert out.answer == "main got: sub: 2\t    return a - b"
    sub_tools = {t["function"]["name"] for t in model.requests[1]["tools"]}
    assert "edit" not in sub_tools and "run" not in sub_tools and "read" in sub_tools
    assert [s["id"] for s in sessions(root)] == [out.session]  # the sub-agent's transcript is not listed


def test_turn_limit_and_token_budget_stop_with_a_done_event(tmp_path, model):
    root = _repo(tmp_path)
    forever = [{"call": [("list", {})]}] * 10
    with LLMClient(LLMConfig(url=model.url)) as llm:
        model.play(forever)
        a = run_agent("loop", root, llm, mode="plan", settings=NO_HOOKS, max_turns=3)
        model.play(forever)
        b = run_agent("loop", root, llm, mode="plan", settings=NO_HOOKS, max_tokens=2500)
    assert (a.reason, a.turns) == ("max_turns", 3)
    used = [e["prompt_tokens"] + e["completion_tokens"] for e in Session(root, b.session).events()
            if e["type"] == "usage"]
    assert b.reason == "token_budget" and sum(used) >= 2500 and sum(used[:-1]) < 2500  # stopped at once
    for out in (a, b):
        st = replay(Session(root, out.session).events())
        assert not st.pending and st.done["reason"] == out.reason


def test_settings_merge_deny_wins_and_project_rules_reach_the_prompt(tmp_path, model, monkeypatch):
    from ctxmill.agent import settings as settings_mod

    root = _repo(tmp_path)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.toml").write_text('[permissions]\ndeny = ["write(secrets/**)"]\n')
    (root / ".ctxmill").mkdir()
    (root / ".ctxmill" / "settings.toml").write_text('[permissions]\nallow = ["write(**)"]\n')
    (root / "AGENTS.md").write_text("Always answer in French.\n")
    loaded = settings_mod.load(root)
    assert loaded["permissions"]["deny"] == ["write(secrets/**)"] and loaded["permissions"]["allow"] == ["write(**)"]
    model.play([{"call": [("write", {"path": "secrets/k.txt", "content": "x"}),
                          ("write", {"path": "ok.txt", "content": "x"})]}, {"say": "fini"}])
    with LLMClient(LLMConfig(url=model.url)) as llm:
        run_agent("write two files", root, llm, mode="auto")
    assert (root / "ok.txt").exists() and not (root / "secrets").exists()
    assert "Always answer in French." in model.requests[0]["messages"][0]["content"]
    (root / ".ctxmill" / "settings.toml").write_text('[permissions]\nallow = "write(**"\n')
    with pytest.raises(Exception, match="tool or tool"):
        run_agent("x", root, llm=None, mode="auto")


@pytest.mark.skipif(not __import__("shutil").which("script"), reason="needs util-linux script for a terminal")
def test_terminal_prompts_yes_then_no(tmp_path, model):
    root = _repo(tmp_path)
    model.play([{"call": [("edit", {"path": "calc.py", "old": "a - b", "new": "a + b"})]},
                {"call": [("run", {"command": "echo hi > b.txt"})]}, {"say": "ok"}])
    env = {**os.environ, "CTXMILL_LLM_URL": model.url}
    cmd = f"{PY} -m ctxmill.cli agent 'fix' --root {root}"
    p = subprocess.run(["script", "-qec", cmd, "/dev/null"], input="y\nn\n", capture_output=True, text=True,
                       env=env, timeout=120)  # script gives the command a terminal: the prompts are asked
    assert p.returncode == 0, p.stdout
    assert "allow? [y]es / [n]o / [a]lways" in p.stdout and "effects cannot be rewound" in p.stdout
    assert "+    return a + b" in p.stdout  # the edit's diff
    assert (root / "calc.py").read_text() == CALC.replace("a - b", "a + b") and not (root / "b.txt").exists()


def test_edit_keeps_a_crlf_files_line_ends_and_refusals_go_back(tmp_path):
    from ctxmill.agent.tools import ToolFailed, Tools

    (tmp_path / "w.py").write_bytes(b"def f():\r\n    return 1\r\n")
    tools = Tools(tmp_path)
    tools.call("edit", {"path": "w.py", "old": "def f():\n    return 1", "new": "def f():\n    x = 2\n    return x"})
    assert (tmp_path / "w.py").read_bytes() == b"def f():\r\n    x = 2\r\n    return x\r\n"
    for args, why in [({"path": "w.py", "old": "nope", "new": "x"}, "not found"),
                      ({"path": "w.py", "old": "x", "new": "y"}, "occurs 2 times"),
                      ({"path": "w.py", "sketch": "totally different\n"}, "sketch was not applied"),
                      ({"path": "w.py", "bogus": 1}, "takes no argument bogus")]:
        with pytest.raises(ToolFailed, match=why):
            tools.call("edit", args)


def test_one_result_bigger_than_the_budget_is_shrunk_not_sent(tmp_path, model):
    root = _repo(tmp_path)
    (root / "wide.txt").write_text("".join(f"{i} " + "y" * 150 + "\n" for i in range(150)))
    model.play([{"call": [("read", {"path": "wide.txt"})]}, {"say": "too wide"}])
    budget = 3500
    with LLMClient(LLMConfig(url=model.url)) as llm:
        out = run_agent("read it", root, llm, mode="plan", settings=NO_HOOKS, max_context=budget)
    assert out.reason == "answered"
    from ctxmill.agent.context import CHARS_PER_TOKEN
    last = model.requests[-1]
    assert len(json.dumps(last["messages"], ensure_ascii=False)) + len(json.dumps(last["tools"])) <= budget * CHARS_PER_TOKEN
    assert "shrunk from this old result" in last["messages"][-1]["content"]


def test_compile_document_and_search_tools_call_the_core(tmp_path):
    from ctxmill.agent.tools import Tools

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "paper.txt").write_text("A Small Paper\n\nAbstract\n\nThis paper shows things.\n\n"
                                                  "1 Introduction\n\nWe study agents in depth here.\n")
    (tmp_path / "retry.py").write_text("def backoff_delay(attempt):\n    return 2 ** attempt\n")
    tools = Tools(tmp_path)
    md = tools.call("compile_document", {"path": "notes/paper.txt"}).content
    assert "## 1 Introduction" in md and "We study agents" in md
    hits = tools.call("search", {"query": "backoff delay for a retry attempt", "k": 3}).content
    assert hits.startswith("retry.py:1-2")


def test_endpoint_failure_ends_the_transcript_and_continue_goes_on(tmp_path, model):
    from ctxmill.llm import LLMError

    root = _repo(tmp_path)
    with LLMClient(LLMConfig(url="http://127.0.0.1:9/v1", model="m", retries=0)) as dead:
        with pytest.raises(LLMError):
            run_agent("question", root, dead, mode="plan", settings=NO_HOOKS)
    st = replay(Session(root, sessions(root)[0]["id"]).events())
    assert st.done["reason"] == "error" and not st.pending
    model.play([{"say": "answered later"}])
    with LLMClient(LLMConfig(url=model.url)) as llm:
        out = run_agent(None, root, llm, continue_last=True, settings=NO_HOOKS)
    assert out.answer == "answered later" and model.requests[0]["messages"][1]["content"] == "question"
