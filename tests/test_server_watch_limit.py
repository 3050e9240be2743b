"""The background server watches a bounded number of roots: each watch holds one of the user's
128 inotify instances (shared with editors and every other program), so a server asked about
hundreds of folders keeps only the most recently used ones watched, drops folders that are gone,
and still answers every root correctly (an unwatched root's sync walks its tree)."""

from __future__ import annotations

import shutil
import time

import pytest

pytest.importorskip("watchfiles")


def _watchers(srv) -> list[str]:
    """The roots with a watcher, each of them live (watching)."""
    held = [st for st in srv.states.values() if st.watcher is not None]
    assert all(st.watching for st in held), [(st.root, st.error) for st in held]
    return sorted(st.root for st in held)


def _wait_stopped(watcher, timeout=10.0) -> bool:
    deadline = time.monotonic() + timeout
    while watcher.alive and time.monotonic() < deadline:
        time.sleep(0.02)
    return not watcher.alive


def test_only_the_most_recently_used_roots_are_watched_and_gone_ones_are_dropped(tmp_path, monkeypatch):
    from ctxmill.server import daemon

    monkeypatch.setenv("CTXMILL_INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setattr(daemon, "MAX_WATCHED_ROOTS", 2)
    roots = []
    for n in range(4):
        root = tmp_path / f"r{n}"
        root.mkdir()
        (root / "m.py").write_text(f"def f{n}():\n    return {n}\n")
        roots.append(str(root.resolve()))
    srv = daemon.Server()
    try:
        first = srv.state(roots[0], None)
        srv.sync(first, force=True)
        old_watcher = first.watcher
        for root in roots[1:3]:
            srv.sync(srv.state(root, None), force=True)
        # three roots asked about, two watched: the least recently used one let go
        assert _watchers(srv) == roots[1:3]
        assert first.watcher is None and _wait_stopped(old_watcher)
        # the unwatched root still syncs right: its edit is found by a walk
        (tmp_path / "r0" / "m.py").write_text("def f0():\n    return 100\n")
        reply = srv._sync_op({"root": roots[0], "db": None})
        assert not reply["from_watcher"] and reply["report"]["files_changed"] == 1
        assert _watchers(srv) == [roots[0], roots[2]]  # watched again; r1 is now the oldest
        # a root that was deleted gives its watch back before any used one is stopped
        gone = srv.states[(roots[2], None)].watcher
        shutil.rmtree(tmp_path / "r2")
        srv.sync(srv.state(roots[3], None), force=True)
        assert _watchers(srv) == [roots[0], roots[3]] and _wait_stopped(gone)
    finally:
        for st in srv.states.values():
            if st.watcher is not None:
                st.watcher.stop()
