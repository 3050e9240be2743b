"""The repository walk: ignore files, hidden folders, size cap, symlinks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxmill.sources.repo import is_binary, walk


def write(root: Path, rel: str, text: str = "x = 1\n") -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def paths(root: Path, **kw) -> list[str]:
    return [f.path for f in walk(root, **kw).files]


def test_nested_gitignore_ignore_and_ctxmillignore(tmp_path: Path):
    write(tmp_path, ".gitignore", "*.log\nbuild/\n!keep.log\n")
    write(tmp_path, "a.py")
    write(tmp_path, "debug.log")
    write(tmp_path, "keep.log")
    write(tmp_path, "build/out.py")
    write(tmp_path, "src/.gitignore", "generated_*.py\n/local.py\n")
    write(tmp_path, "src/generated_api.py")
    write(tmp_path, "src/local.py")
    write(tmp_path, "src/deep/local.py")  # /local.py is anchored to src/ only
    write(tmp_path, "src/main.py")
    write(tmp_path, "src/.ignore", "*.tmp.py\n")
    write(tmp_path, "src/x.tmp.py")
    write(tmp_path, ".ctxmillignore", "docs/private/\n")
    write(tmp_path, "docs/private/secret.md")
    write(tmp_path, "docs/public.md")
    # A deeper file re-includes what a shallower one ignored.
    write(tmp_path, "logs/.gitignore", "!wanted.log\n")
    write(tmp_path, "logs/wanted.log")
    write(tmp_path, "logs/other.log")
    got = paths(tmp_path)
    assert "a.py" in got and "keep.log" in got and "src/main.py" in got and "docs/public.md" in got
    assert "src/deep/local.py" in got and "logs/wanted.log" in got
    for gone in ["debug.log", "build/out.py", "src/generated_api.py", "src/local.py", "src/x.tmp.py",
                 "docs/private/secret.md", "logs/other.log"]:
        assert gone not in got, gone
    assert got == sorted(got)


def test_nothing_below_an_ignored_folder_is_reincluded(tmp_path: Path):
    write(tmp_path, ".gitignore", "vendor/\n!vendor/keep.py\n")
    write(tmp_path, "vendor/keep.py")
    assert paths(tmp_path) == [".gitignore"]


def test_hidden_folders_skipped_hidden_files_kept(tmp_path: Path):
    write(tmp_path, ".git/config", "[core]\n")
    write(tmp_path, ".venv/lib/x.py")
    write(tmp_path, ".github/workflows/ci.yml", "on: push\n")
    write(tmp_path, ".editorconfig", "root = true\n")
    assert paths(tmp_path) == [".editorconfig"]


def test_git_info_exclude_and_extra_ignore(tmp_path: Path):
    write(tmp_path, ".git/info/exclude", "scratch.py\n")
    write(tmp_path, "scratch.py")
    write(tmp_path, "main.py")
    write(tmp_path, "gen/a.py")
    assert paths(tmp_path, extra_ignore=["gen/"]) == ["main.py"]


def test_size_cap_reports_the_reason(tmp_path: Path):
    write(tmp_path, "small.py", "x = 1\n")
    write(tmp_path, "big.js", "a" * 2000)
    res = walk(tmp_path, max_file_bytes=1000)
    assert [f.path for f in res.files] == ["small.py"]
    assert res.skipped == [("big.js", "too large (2000 bytes > 1000)")]


def test_stat_fields(tmp_path: Path):
    p = write(tmp_path, "a.py", "hello\n")
    (f,) = walk(tmp_path).files
    st = os.stat(p)
    assert (f.size, f.mtime_ns, f.inode) == (st.st_size, st.st_mtime_ns, st.st_ino)


def test_symlinks_never_leave_the_root_and_cycles_do_not_loop(tmp_path: Path):
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    write(outside, "secret.py", "TOKEN = 1\n")
    write(root, "src/a.py")
    (root / "escape").symlink_to(outside)  # folder outside
    (root / "escape_file.py").symlink_to(outside / "secret.py")  # file outside
    (root / "src/loop").symlink_to(root)  # cycle
    (root / "src/self").symlink_to(root / "src")  # another cycle
    (root / "alias.py").symlink_to(root / "src/a.py")  # file inside: indexed under its link name
    (root / "dangling.py").symlink_to(root / "nope.py")
    res = walk(root)
    assert [f.path for f in res.files] == ["alias.py", "src/a.py"]
    reasons = dict(res.skipped)
    assert reasons["escape"] == "symlink points outside the root"
    assert reasons["escape_file.py"] == "symlink points outside the root"
    assert reasons["src/loop"] == "symlinked folder not followed"
    assert "dangling.py" in reasons


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_unreadable_folder_is_skipped_with_reason(tmp_path: Path):
    write(tmp_path, "ok.py")
    locked = tmp_path / "locked"
    write(tmp_path, "locked/x.py")
    locked.chmod(0)
    try:
        res = walk(tmp_path)
    finally:
        locked.chmod(0o755)
    assert [f.path for f in res.files] == ["ok.py"]
    assert res.skipped[0][0] == "locked"


def test_is_binary():
    assert is_binary(b"abc\x00def")
    assert not is_binary("héllo wörld\n".encode())
    assert not is_binary(b"a" * 9000 + b"\x00")  # only the first 8 KB count


def _tree_for_forked_walk(root: Path) -> None:
    write(root, ".gitignore", "*.log\nbuild/\n")
    for i in range(12):
        write(root, f"pkg{i}/m{i}.py")
        write(root, f"pkg{i}/sub/n{i}.py")
        write(root, f"pkg{i}/debug.log")
    write(root, "pkg3/.gitignore", "sub/\n")  # a deeper ignore file, inside one child's share
    write(root, "pkg4/.ctxmillignore", "!debug.log\n")
    write(root, "build/out.py")
    write(root, ".hidden/x.py")
    write(root, "pkg5/big.py", "x" * 5000)
    (root / "pkg6/loop").symlink_to(root)
    (root / "pkg7/alias.py").symlink_to(root / "pkg0/m0.py")


def _summary(res):
    return (sorted((f.path, f.size, f.mtime_ns, f.inode) for f in res.files),
            sorted(res.skipped), sorted(res.unchanged))


def test_forked_walk_equals_the_one_process_walk(tmp_path: Path, monkeypatch):
    import ctxmill.sources.repo as repo

    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    _tree_for_forked_walk(tmp_path)
    forks = []
    real_fork = os.fork

    def counting_fork():
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(repo, "_can_fork", lambda: True)  # other tests may have left threads
    monkeypatch.setattr(repo.os, "fork", counting_fork)
    serial = walk(tmp_path, max_file_bytes=1000)
    forked = walk(tmp_path, max_file_bytes=1000, processes=2)
    assert len(forks) == 1  # this process walks the first share itself
    assert _summary(forked) == _summary(serial)
    assert [f.path for f in forked.files] == sorted(f.path for f in forked.files)
    assert "pkg4/debug.log" in [f.path for f in forked.files]
    assert "pkg3/sub/n3.py" not in [f.path for f in forked.files]
    # With the last walk's stats: unchanged files come back as unchanged, in both.
    known = {f.path: (f.size, f.mtime_ns, f.inode) for f in serial.files}
    write(tmp_path, "pkg9/m9.py", "changed = 2\n")
    a = walk(tmp_path, max_file_bytes=1000, known=known)
    b = walk(tmp_path, max_file_bytes=1000, known=known, processes=2)
    assert _summary(a) == _summary(b)
    assert [f.path for f in b.files] == ["pkg9/m9.py"]


def test_forked_walk_falls_back_when_a_child_fails(tmp_path: Path, monkeypatch):
    import ctxmill.sources.repo as repo

    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    _tree_for_forked_walk(tmp_path)
    serial = walk(tmp_path)
    monkeypatch.setattr(repo, "_can_fork", lambda: True)
    parent = os.getpid()

    def dumps_failing_in_children(obj, protocol=None):
        if os.getpid() != parent:
            raise MemoryError("simulated")
        return b""

    monkeypatch.setattr(repo.pickle, "dumps", dumps_failing_in_children)
    assert _summary(walk(tmp_path, processes=2)) == _summary(serial)
