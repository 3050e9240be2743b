"""The background server gives up on a search nobody waits for, and one slow search does not
hold up the others (issue 26, round fourteen; fuzz seed 1414 case 387's search held
``good_function`` for 88.8 s).

A real server process and real ``ctxmill search`` commands. The slow search is a test hook: a
``sitecustomize`` module on the server's PYTHONPATH makes the ranker spin, in Python, on a
query holding SPIN_MARK (every other query is ranked as usual), and writes the server's pid
to a file when it starts spinning. The server's CPU time is read from /proc."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sample_code import CACHE_PY

pytest.importorskip("watchfiles")
if not Path("/proc/self/stat").exists():  # pragma: no cover
    pytest.skip("reads the server's CPU time from /proc", allow_module_level=True)
CTXMILL = Path(sys.executable).with_name("ctxmill")
SPIN_MARK = "spinmarkquery"

HOOK = textwrap.dedent('''
    import importlib.abc, importlib.util, os, sys

    class _SpinRank(importlib.abc.MetaPathFinder):
        """ctxmill.index.rank with a rerank that spins on the test's query."""

        def find_spec(self, name, path, target=None):
            if name != "ctxmill.index.rank":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                real = module.rerank

                def rerank(query, hits, *args, **kwargs):
                    if "%(mark)s" in query:
                        with open(os.environ["SPIN_BEACON"], "a") as fh:
                            fh.write(f"{os.getpid()}\\n")
                        x = 0
                        while True:  # a runaway ranking, in Python
                            x += 1
                    return real(query, hits, *args, **kwargs)

                module.rerank = rerank

            spec.loader.exec_module = exec_module
            return spec

    if os.environ.get("SPIN_BEACON"):
        sys.meta_path.insert(0, _SpinRank())
''') % {"mark": SPIN_MARK}


@pytest.fixture
def env(tmp_path):
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOOK)
    path = [p for p in (os.environ.get("PYTHONPATH"), str(hook)) if p]
    e = dict(os.environ, XDG_RUNTIME_DIR=str(run), CTXMILL_INDEX_DIR=str(tmp_path / "index"),
             CTXMILL_SERVER="1", CTXMILL_SERVER_IDLE="120", PYTHONPATH=os.pathsep.join(path),
             SPIN_BEACON=str(tmp_path / "spinning"))
    yield e
    subprocess.run([str(CTXMILL), "server", "stop"], env=e, capture_output=True, timeout=30)
    # nothing of this test left behind: a client still waiting, a server that would not stop
    # (a thread spinning forever), one a retrying client started after it
    for pid in _ours(e["SPIN_BEACON"]):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _ours(mark: str) -> list[int]:
    """This user's processes whose environment holds ``mark`` (this test's clients and servers)."""
    got = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                if f"SPIN_BEACON={mark}".encode() in Path(f"/proc/{name}/environ").read_bytes().split(b"\0"):
                    got.append(int(name))
            except OSError:
                pass
    return got


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "cache.py").write_text(CACHE_PY)
    (root / "good.py").write_text("def good_function():\n    return 1\n")
    return root


def _pids(env) -> list[int]:
    beacon = Path(env["SPIN_BEACON"])
    got = {int(x) for x in beacon.read_text().split()} if beacon.exists() else set()
    return sorted(got)


def ctx(env, *args, timeout=60):
    return subprocess.run([str(CTXMILL), *args], env=env, capture_output=True, text=True, timeout=timeout)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_spinning(env, repo) -> tuple[subprocess.Popen, int]:
    """A search that spins in the server; returns its client and the server's pid."""
    slow = subprocess.Popen([str(CTXMILL), "search", f"{SPIN_MARK} cache", "--root", str(repo)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not _pids(env):
        assert slow.poll() is None, slow.communicate()
        assert time.monotonic() < deadline, "the spinning search never started"
        time.sleep(0.05)
    return slow, _pids(env)[0]


def idle_cpu(pid: int, seconds: float = 1.0) -> float:
    """CPU seconds the server used over ``seconds`` of wall time."""
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return cpu_seconds(pid) - before


def test_a_slow_search_does_not_hold_up_the_next_and_stops_when_its_client_goes(env, repo):
    assert ctx(env, "index", str(repo), "-q").returncode == 0
    warm_up(env, repo)
    slow, pid = start_spinning(env, repo)
    try:
        t = time.monotonic()
        r = ctx(env, "search", "good_function", "--root", str(repo), "--json", timeout=30)
        took = time.monotonic() - t
        assert r.returncode == 0, r.stderr
        assert '"good.py"' in r.stdout
        assert took < 15, took  # a hang guard: the command takes well under a second beside the spin
        assert slow.poll() is None  # still spinning: the other search did not wait for it
        assert idle_cpu(pid, 2.0) > 0.02  # (the spin is real; on a loaded machine it gets a small share of a core)
    finally:
        slow.send_signal(signal.SIGINT)  # the user gives up (Ctrl-C)
        try:
            slow.wait(timeout=30)
        except subprocess.TimeoutExpired:
            slow.kill()
            slow.wait()
    # the server notices within a poll and stops the search: its CPU goes back to idle
    used = settled_cpu(pid)
    assert used <= 0.15, f"the server still used {used:.2f} CPU-s a second after its client went"
    # and it still answers, with the thread the stopped search used
    r = ctx(env, "search", "good_function", "--root", str(repo))
    assert r.returncode == 0 and "good.py" in r.stdout


def settled_cpu(pid: int) -> float:
    """The server's CPU use a second, once it falls to idle or after 10 s of asking."""
    deadline = time.monotonic() + 10
    used = idle_cpu(pid)
    while used > 0.15 and time.monotonic() < deadline:
        used = idle_cpu(pid)
    return used


def warm_up(env, repo) -> None:
    """A first search answered (the server started and the index loaded: under a heavy load
    that alone may take a few seconds, more than a short time limit)."""
    for _ in range(5):
        r = ctx(env, "search", "good_function", "--root", str(repo))
        if r.returncode == 0:
            assert "good.py" in r.stdout
            return
    raise AssertionError(r.stderr)


def test_a_search_over_the_time_limit_is_stopped_and_refused_naming_the_limit(env, repo):
    env["CTXMILL_SERVER_SEARCH_SECONDS"] = "5"
    assert ctx(env, "index", str(repo), "-q").returncode == 0
    warm_up(env, repo)
    t = time.monotonic()
    r = ctx(env, "search", f"{SPIN_MARK} cache", "--root", str(repo), timeout=60)
    took = time.monotonic() - t
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert "CTXMILL_SERVER_SEARCH_SECONDS" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stdout == ""
    assert took < 30, took
    assert _pids(env), "the search was stopped before it reached the ranker"
    pid = _pids(env)[0]
    used = settled_cpu(pid)
    assert used <= 0.15, f"the server still used {used:.2f} CPU-s a second after the limit"
    r = ctx(env, "search", "good_function", "--root", str(repo))
    assert r.returncode == 0 and "good.py" in r.stdout


def test_searches_queued_behind_busy_threads_still_get_answers(env, repo):
    """Every search thread spinning: a new search waits for a thread and is answered once the
    spinning ones are stopped, not lost."""
    env["CTXMILL_SERVER_SEARCH_THREADS"] = "2"
    env["CTXMILL_SERVER_SEARCH_SECONDS"] = "8"
    assert ctx(env, "index", str(repo), "-q").returncode == 0
    warm_up(env, repo)
    slow = [subprocess.Popen([str(CTXMILL), "search", f"{SPIN_MARK} {w}", "--root", str(repo)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in ("cache", "get")]
    try:
        deadline = time.monotonic() + 30
        while len(Path(env["SPIN_BEACON"]).read_text().split()) < 2 if Path(env["SPIN_BEACON"]).exists() else True:
            assert time.monotonic() < deadline, "the spinning searches never started"
            time.sleep(0.05)
        r = ctx(env, "search", "good_function", "--root", str(repo), timeout=60)
        assert r.returncode == 0 and "good.py" in r.stdout, r.stderr
        for p in slow:
            p.wait(timeout=60)
    finally:
        for p in slow:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert [p.returncode for p in slow] == [3, 3]


# ---------------------------------------------------------------------------- the pool, in process


def test_a_stopped_job_ends_and_its_thread_serves_the_next():
    from ctxmill.server import jobs

    pool = jobs.Pool(2)
    started = []

    def spin():
        started.append(1)
        while True:
            pass

    job = pool.submit(spin)
    while not started:
        time.sleep(0.001)
    assert job.stop("client gone")
    assert job.done.wait(5) and job.abandoned and job.error is None
    assert pool.submit(lambda: 41 + 1).done.wait(5)
    assert len(pool.threads) == 1  # one at a time: one warm thread


def test_a_queued_job_that_is_stopped_never_runs():
    from ctxmill.server import jobs

    pool = jobs.Pool(1)
    gate = __import__("threading").Event()
    ran = []
    first = pool.submit(gate.wait)
    second = pool.submit(lambda: ran.append(1))
    assert second.stop("time limit")
    gate.set()
    assert first.done.wait(5) and second.done.wait(5)
    assert second.abandoned and ran == []


def test_stops_racing_with_the_end_of_a_job_never_reach_the_next_job():
    # a stop sent as a job finishes must not arrive in the worker's loop or the next job:
    # 3,000 short jobs, each stopped at some moment of its run from another thread
    import random
    import threading

    from ctxmill.server import jobs

    pool = jobs.Pool(1)
    rnd = random.Random(7)
    results = []
    for i in range(3000):
        job = pool.submit(lambda i=i: sum(range(rnd.randrange(1, 300))) + i * 0)
        if i % 2:
            t = threading.Timer(rnd.random() * 0.0002, job.stop, ("time limit",))
            t.start()
            t.join()
        assert job.done.wait(5)
        results.append((job.abandoned, job.error))
        check = pool.submit(lambda: "fine")  # the next job is never hit by a late stop
        assert check.done.wait(5) and check.result() == "fine" and not check.abandoned
    assert all(err is None for _, err in results)
    assert all(t.is_alive() for t in pool.threads) and len(pool.threads) == 1
