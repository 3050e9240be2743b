"""ctxmill.atomic.write_bytes: the one way apply and the agent's checkpoints replace a file."""

import os
import stat

import pytest

from ctxmill.atomic import write_bytes


def test_replaces_the_bytes_and_keeps_the_files_mode(tmp_path):
    p = tmp_path / "run.sh"
    p.write_bytes(b"old\n")
    p.chmod(0o750)
    write_bytes(p, b"new\n")
    assert p.read_bytes() == b"new\n" and stat.S_IMODE(p.stat().st_mode) == 0o750
    assert os.listdir(tmp_path) == ["run.sh"]  # no temporary file left beside it


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"kept\n")
    with pytest.raises(TypeError):
        write_bytes(p, "not bytes")  # type: ignore[arg-type]
    assert p.read_bytes() == b"kept\n" and os.listdir(tmp_path) == ["a.txt"]
