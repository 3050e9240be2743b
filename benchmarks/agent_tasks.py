"""Agent tasks benchmark (JSON): small repositories written here, a goal each, a check that can fail.

    .venv/bin/python benchmarks/agent_tasks.py            # the scripted model (loopback HTTP)
    .venv/bin/python benchmarks/agent_tasks.py --safety   # also the safety table (stderr) and its counts
    CTXMILL_LLM_URL=http://host:port/v1 CTXMILL_LLM_MODEL=name .venv/bin/python benchmarks/agent_tasks.py --real

With the scripted model (tests/_scripted_llm.py: real SSE, tool_calls and usage over 127.0.0.1)
each task's script plays what a sensible model would do -- search or grep, read, edit, run the
tests -- reacting to the tool results it gets, so what is measured is ctxmill's side: every task
reaches its check; the harness overhead per turn (everything but the model call: assembling and
fitting the request, the permission gate, tools, checkpoints, the fsync'd transcript) p50;
request bytes per turn beside a naive loop that puts every file of the repository in each
request (as whole-repo context tools do), with the ratio. With --real the same goals go to the
endpoint with no script and the report has the pass rate, turns and tokens.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from _scripted_llm import ScriptedLLM, last_tool_result  # noqa: E402

PY = sys.executable


def filler(root: Path, n: int = 16) -> None:
    """Modules a real project has beside the ones a task is about: what a naive loop sends too."""
    (root / "lib").mkdir(exist_ok=True)
    for i in range(n):
        body = "".join(f"def helper_{i}_{j}(x, y=1):\n    \"\"\"Helper {j} of module {i}.\"\"\"\n"
                       f"    total = x * {j} + y\n    return total - {i}\n\n\n" for j in range(25))
        (root / "lib" / f"mod{i}.py").write_text(f'"""Library module {i}."""\n\n\n' + body)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def passes(root: Path, script: str = "check_tests.py") -> bool:
    return subprocess.run([PY, "-S", script], cwd=root, capture_output=True, timeout=60).returncode == 0


def grep_paths(msgs) -> list[str]:
    return sorted({line.split(":", 1)[0] for line in last_tool_result(msgs).splitlines() if ":" in line
                   and not line.startswith("…")})


def edits_for(paths, old, new):
    return {"call": [("edit", {"path": p, "old": old, "new": new, "replace_all": True}) for p in paths]}


RUN_TESTS = f"{PY} -S check_tests.py"
TASKS = []


def task(fn):
    TASKS.append(fn)
    return fn


@task
def fix_failing_test(root):
    write(root, {"calc.py": "def add(a, b):\n    return a - b\n",
                 "check_tests.py": "from calc import add\nassert add(2, 3) == 5\nprint('ok')\n"})
    steps = [{"call": [("run", {"command": RUN_TESTS})]},
             {"call": [("grep", {"pattern": r"def add"})]},
             lambda m: {"call": [("read", {"path": grep_paths(m)[0]})]},
             {"call": [("edit", {"path": "calc.py", "old": "return a - b", "new": "return a + b"})]},
             {"call": [("run", {"command": RUN_TESTS})]},
             {"say": "calc.py:2 subtracted; add() adds now and check_tests.py passes."}]
    return "Make check_tests.py pass.", steps, lambda: passes(root)


@task
def rename_function(root):
    write(root, {"text/slug.py": "def slugify(s):\n    return s.lower().replace(' ', '-')\n",
                 "web/views.py": "from text.slug import slugify\n\n\ndef page(title):\n    return '/' + slugify(title)\n",
                 "cli.py": "from text.slug import slugify\n\nprint(slugify('Hello World'))\n",
                 "check_tests.py": "import pathlib, re\nfrom text.slug import make_slug\nfrom web.views import page\n"
                                   "assert page('A B') == '/a-b'\nassert not any(re.search(r'\\bslugify\\b', p.read_text())"
                                   " for p in pathlib.Path('.').rglob('*.py') if p.name != 'check_tests.py')\n"})
    steps = [{"call": [("grep", {"pattern": r"\bslugify\b"})]},
             lambda m: edits_for(grep_paths(m), "slugify", "make_slug"),
             {"call": [("run", {"command": RUN_TESTS})]},
             {"say": "Renamed slugify to make_slug in text/slug.py, web/views.py and cli.py."}]
    return "Rename slugify to make_slug everywhere.", steps, lambda: passes(root)


@task
def add_parameter(root):
    write(root, {"greet.py": "def greet(name):\n    return 'Hello, ' + name\n",
                 "app.py": "from greet import greet\n\n\ndef welcome(user):\n    return greet(user)\n",
                 "check_tests.py": "from greet import greet\nfrom app import welcome\n"
                                   "assert greet('Ann', punctuation='!') == 'Hello, Ann!'\n"
                                   "assert welcome('Bo') == 'Hello, Bo.'\n"})
    steps = [{"call": [("read", {"path": "greet.py"})]},
             {"call": [("edit", {"path": "greet.py", "sketch": "def greet(name, punctuation='.'):\n"
                                                               "    return 'Hello, ' + name + punctuation\n"})]},
             # a sketch changing every line has nothing to anchor on: the refusal says so, and
             # the model answers with an exact replacement
             lambda m: {"call": [("edit", {"path": "greet.py", "old": "def greet(name):\n    return 'Hello, ' + name",
                                           "new": "def greet(name, punctuation='.'):\n"
                                                  "    return 'Hello, ' + name + punctuation"})]}
             if "not applied" in last_tool_result(m) else {"call": [("read", {"path": "greet.py"})]},
             {"call": [("next_edits", {}), ("grep", {"pattern": r"greet\("})]},
             {"call": [("run", {"command": RUN_TESTS})]},
             {"say": "greet() takes punctuation (default '.'); app.py's call keeps working."}]
    return "Give greet() a punctuation parameter defaulting to '.'.", steps, lambda: passes(root)


@task
def readme_from_code(root):
    write(root, {"tool.py": "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--fast')\n"
                            "p.add_argument('--verbose')\np.add_argument('--out')\n",
                 "README.md": "# tool\n\n## Options\n\n- `--fast`\n- `--verbose`\n\n## License\n\nMIT\n",
                 "check_tests.py": "import re\nflags = re.findall(r\"add_argument\\('(--\\w+)'\", open('tool.py').read())\n"
                                   "sec = open('README.md').read().split('## Options')[1].split('##')[0]\n"
                                   "assert all(f in sec for f in flags), flags\nassert 'MIT' in open('README.md').read()\n"})
    steps = [{"call": [("grep", {"pattern": "add_argument"}), ("read", {"path": "README.md"})]},
             {"call": [("edit", {"path": "README.md", "old": "- `--verbose`\n", "new": "- `--verbose`\n- `--out`\n"})]},
             {"call": [("run", {"command": RUN_TESTS})]},
             {"say": "README.md's Options now list --out (tool.py:6)."}]
    return "Update the README's Options section from tool.py.", steps, lambda: passes(root)


@task
def answer_citing_files(root):
    write(root, {"net/client.py": "from net.config import MAX_RETRIES\n\n\ndef fetch(url):\n"
                                  "    for attempt in range(MAX_RETRIES):\n        pass\n",
                 "net/config.py": "TIMEOUT = 10\nMAX_RETRIES = 4\n"})
    answer = {}

    def final(m):
        hit = [ln for ln in last_tool_result(m).splitlines() if "MAX_RETRIES =" in ln]
        answer["text"] = f"The retry limit is MAX_RETRIES = 4 at {hit[0].split(':')[0]}:{hit[0].split(':')[1]}." \
            if hit else "not found"
        return {"say": answer["text"]}

    steps = [{"call": [("search", {"query": "retry limit for fetching"})]},
             {"call": [("grep", {"pattern": r"MAX_RETRIES\s*="})]}, final]
    return "Where is the retry limit set, and to what?", steps, lambda: "net/config.py:2" in answer.get("text", "")


@task
def off_by_one(root):
    write(root, {"pages.py": "def page(items, n, size):\n    start = n * size + 1\n    return items[start:start + size]\n",
                 "check_tests.py": "from pages import page\nassert page(list(range(10)), 0, 3) == [0, 1, 2]\n"
                                   "assert page(list(range(10)), 1, 3) == [3, 4, 5]\n"})
    steps = [{"call": [("run", {"command": RUN_TESTS}), ("read", {"path": "pages.py"})]},
             {"call": [("edit", {"path": "pages.py", "old": "n * size + 1", "new": "n * size"})]},
             {"call": [("run", {"command": RUN_TESTS})]}, {"say": "pages.py:2 started one item late."}]
    return "page() skips an item; fix it.", steps, lambda: passes(root)


@task
def missing_import(root):
    write(root, {"stats.py": "def mean(xs):\n    return statistics.fmean(xs)\n",
                 "check_tests.py": "from stats import mean\nassert mean([1, 2, 3]) == 2\n"})
    steps = [{"call": [("run", {"command": RUN_TESTS})]},
             lambda m: {"call": [("edit", {"path": "stats.py", "old": "def mean", "new": "import statistics\n\n\ndef mean"})]}
             if "NameError" in last_tool_result(m) else {"say": "no error seen"},
             {"call": [("run", {"command": RUN_TESTS})]}, {"say": "stats.py lacked import statistics."}]
    return "check_tests.py fails; fix the code.", steps, lambda: passes(root)


@task
def delete_dead_module(root):
    write(root, {"old_api.py": "def legacy():\n    return 0\n", "main.py": "print('hi')\n",
                 "check_tests.py": "import os, subprocess, sys\nassert not os.path.exists('old_api.py')\n"
                                   "assert subprocess.run([sys.executable, 'main.py']).returncode == 0\n"})
    steps = [{"call": [("grep", {"pattern": "old_api|legacy"})]},
             lambda m: {"call": [("delete", {"path": "old_api.py"})]}
             if set(grep_paths(m)) <= {"old_api.py", "check_tests.py"}
             else {"say": "old_api is still used"},
             {"call": [("run", {"command": RUN_TESTS})]}, {"say": "old_api.py was unused; deleted."}]
    return "Remove old_api.py if nothing uses it.", steps, lambda: passes(root)


@task
def new_test_file(root):
    write(root, {"clamp.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
                 "check_tests.py": "import subprocess, sys\nsrc = open('test_clamp.py').read()\nassert 'clamp(' in src\n"
                                   "assert subprocess.run([sys.executable, 'test_clamp.py']).returncode == 0\n"})
    test = ("from clamp import clamp\n\nassert clamp(5, 0, 3) == 3\nassert clamp(-1, 0, 3) == 0\n"
            "assert clamp(2, 0, 3) == 2\n")
    steps = [{"call": [("read", {"path": "clamp.py"})]}, {"call": [("write", {"path": "test_clamp.py", "content": test})]},
             {"call": [("run", {"command": RUN_TESTS})]}, {"say": "test_clamp.py covers both bounds and the middle."}]
    return "Write test_clamp.py for clamp().", steps, lambda: passes(root)


@task
def constant_and_doc(root):
    write(root, {"settings.py": "PAGE_SIZE = 20  # items per page\n",
                 "docs/settings.md": "# Settings\n\nPAGE_SIZE is 20 items.\n",
                 "check_tests.py": "import settings\nassert settings.PAGE_SIZE == 50\n"
                                   "assert 'PAGE_SIZE is 50' in open('docs/settings.md').read()\n"})
    steps = [{"call": [("grep", {"pattern": "PAGE_SIZE"})]},
             {"call": [("edit", {"path": "settings.py", "old": "= 20", "new": "= 50"}),
                       ("edit", {"path": "docs/settings.md", "old": "is 20", "new": "is 50"})]},
             {"call": [("run", {"command": RUN_TESTS})]}, {"say": "PAGE_SIZE is 50 in settings.py:1 and the docs."}]
    return "Set PAGE_SIZE to 50 and keep the docs true.", steps, lambda: passes(root)


@task
def crlf_typo(root):
    (root / "msg.py").write_bytes(b"def hello():\r\n    return 'Helo'\r\n")
    write(root, {"check_tests.py": "from msg import hello\nassert hello() == 'Hello'\n"
                                   "assert open('msg.py', 'rb').read().count(b'\\r\\n') == 2\n"})
    steps = [{"call": [("grep", {"pattern": "Helo"})]},
             {"call": [("edit", {"path": "msg.py", "old": "'Helo'", "new": "'Hello'"})]},
             {"call": [("run", {"command": RUN_TESTS})]}, {"say": "Fixed the typo in msg.py:2; line ends kept."}]
    return "Fix the greeting's typo.", steps, lambda: passes(root)


def naive_bytes(root: Path, request: int) -> int:
    """A naive loop's request: ours plus every file of the repository, whole, JSON-escaped."""
    files = [p for p in root.rglob("*") if p.is_file() and ".ctxmill" not in p.parts]
    return request + sum(len(json.dumps(p.read_text(errors="replace"))) + len(str(p)) for p in files)


def control() -> int:
    """How many checks pass when the model does nothing (answers at once): must be 0, or a
    check cannot fail."""
    from ctxmill.agent import run_agent
    from ctxmill.llm import LLMClient, LLMConfig

    tmp = Path(tempfile.mkdtemp(prefix="ctxmill-agent-control-"))
    passed = 0
    with ScriptedLLM() as server, LLMClient(LLMConfig(url=server.url)) as llm:
        for fn in TASKS:
            root = tmp / fn.__name__
            root.mkdir()
            goal, _, check = fn(root)
            server.play([{"say": "Done."}])
            run_agent(goal, root, llm, mode="auto", settings={"permissions": {}, "hooks": {}})
            passed += bool(check())
    shutil.rmtree(tmp, ignore_errors=True)
    return passed


def run_tasks(real: bool) -> dict:
    from ctxmill.agent.loop import Agent
    from ctxmill.agent.sessions import Session
    from ctxmill.llm import LLMClient, LLMConfig

    settings = {"permissions": {"allow": ["edit(**)", "write(**)", "delete(**)", f"run({PY} -S check_tests.py*)"],
                                "deny": [], "ask": []}, "hooks": {}}
    rows, harness, loop_only, ratios = [], [], [], []
    tmp = Path(tempfile.mkdtemp(prefix="ctxmill-agent-tasks-"))
    os.environ.setdefault("CTXMILL_INDEX_DIR", str(tmp / "state"))
    server = None if real else ScriptedLLM().__enter__()
    try:
        for fn in TASKS:
            root = tmp / fn.__name__
            root.mkdir()
            filler(root)
            goal, steps, check = fn(root)
            if real:
                config = LLMConfig.resolve()
                if real and "check_tests.py" in {p.name for p in root.iterdir()}:
                    goal += f" Check with: {PY} -S check_tests.py"
            else:
                server.play(steps)
                config = LLMConfig(url=server.url)
            t0 = time.perf_counter()
            with LLMClient(config) as llm:
                agent = Agent(root, llm, mode="auto", settings=settings, session=Session(root), max_turns=20)
                out = agent.run(goal)
            ok = bool(check())
            harness += agent.harness_seconds
            loop_only += [h - t for h, t in zip(agent.harness_seconds, agent.tool_seconds, strict=True)]
            naive = [naive_bytes(root, b) for b in agent.request_bytes]
            ratios += [b / n for b, n in zip(agent.request_bytes, naive, strict=True)]
            rows.append({"task": fn.__name__, "passed": ok, "stop": out.reason, "turns": out.turns,
                         "prompt_tokens": out.usage["prompt_tokens"], "completion_tokens": out.usage["completion_tokens"],
                         "request_bytes_per_turn": round(statistics.mean(agent.request_bytes)),
                         "naive_bytes_per_turn": round(statistics.mean(naive)),
                         "seconds": round(time.perf_counter() - t0, 3)})
    finally:
        if server is not None:
            server.__exit__(None, None, None)
        shutil.rmtree(tmp, ignore_errors=True)
    harness_ms = sorted(h * 1000 for h in harness)
    loop_ms = sorted(h * 1000 for h in loop_only)
    return {
        "load_average_1min": round(os.getloadavg()[0], 2),  # a shared machine: timings move with it
        "model": "real: " + (LLMConfig.resolve().model or "endpoint default") if real else "scripted (loopback SSE)",
        "tasks": len(rows), "passed": sum(r["passed"] for r in rows),
        "pass_rate": round(sum(r["passed"] for r in rows) / len(rows), 3),
        "turns_total": sum(r["turns"] for r in rows),
        "tokens_total": sum(r["prompt_tokens"] + r["completion_tokens"] for r in rows),
        "harness_ms_per_turn": {"p50": round(statistics.median(harness_ms), 2),
                                "p90": round(harness_ms[int(0.9 * (len(harness_ms) - 1))], 2),
                                "goal_p50": 20, "turns": len(harness_ms),
                                "without_tool_execution_p50": round(statistics.median(loop_ms), 2)},
        "request_bytes_vs_naive": {"ours_per_turn": round(statistics.mean(r["request_bytes_per_turn"] for r in rows)),
                                   "naive_per_turn": round(statistics.mean(r["naive_bytes_per_turn"] for r in rows)),
                                   "ratio_median": round(statistics.median(ratios), 3)},
        "rows": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real", action="store_true", help="run the goals against CTXMILL_LLM_URL (no script)")
    ap.add_argument("--safety", action="store_true", help="also run the safety suite and print its table to stderr")
    args = ap.parse_args()
    if args.real and not os.environ.get("CTXMILL_LLM_URL"):
        sys.exit("--real needs CTXMILL_LLM_URL (and CTXMILL_LLM_MODEL)")
    report = run_tasks(args.real)
    if not args.real:
        report["checks_passing_with_a_model_that_does_nothing"] = control()
    if args.safety:
        from _agent_safety import run_suite, table

        with ScriptedLLM() as model, tempfile.TemporaryDirectory() as d:
            s = run_suite(Path(d), model)
        print(table(s), file=sys.stderr)
        report["safety"] = {"cases": s["cases"], "modes": s["modes"], "mismatches": len(s["mismatches"]),
                            "escapes": s["escapes"]}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
