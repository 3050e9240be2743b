"""scripts/run.sh and scripts/setup.sh as a newcomer meets them: every step says what it
installs before it does, and a second start with nothing changed installs nothing.

The scripts run on a copy of the repository's pyproject.toml in a temporary folder, with a
stand-in .venv whose `python` records each pip call and whose `ctxmill` prints the line the
real server prints: the scripts' own decisions are tested, not pip or the network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

FAKE_PYTHON = """#!/bin/sh
# stands in for .venv/bin/python: answers the version query, records pip calls
if [ "$1" = "-c" ]; then echo 3.11.7; exit 0; fi
echo "$*" >> "$(dirname "$0")/../../pip.log"
"""
FAKE_CTXMILL = """#!/bin/sh
echo "ctxmill: serving on http://127.0.0.1:8000/ (Ctrl-C stops) args: $*"
"""
FAKE_TESSERACT = "#!/bin/sh\necho tesseract 5\n"


def _exe(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


@pytest.fixture()
def checkout(tmp_path):
    if shutil.which("sha256sum") is None:
        pytest.skip("sha256sum is not installed")
    root = tmp_path / "ctxmill"
    shutil.copytree(REPO / "scripts", root / "scripts")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    _exe(root / ".venv" / "bin" / "python", FAKE_PYTHON)
    _exe(root / ".venv" / "bin" / "ctxmill", FAKE_CTXMILL)
    _exe(tmp_path / "bin" / "tesseract", FAKE_TESSERACT)
    return root


def sh(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{root.parent / 'bin'}:{os.environ['PATH']}", PORT="8765")
    return subprocess.run(["bash", *args], cwd=root, env=env, capture_output=True, text=True, timeout=60)


def pip_calls(root: Path) -> list[str]:
    log = root / "pip.log"
    return log.read_text().splitlines() if log.exists() else []


def test_second_setup_installs_nothing_until_pyproject_changes(checkout):
    first = sh(checkout, "scripts/setup.sh")
    assert first.returncode == 0, first.stderr
    assert "installing ctxmill and its Python dependencies [test]" in first.stderr
    assert pip_calls(checkout)[-1] == '-m pip install -q --disable-pip-version-check -e .[test]'

    calls = len(pip_calls(checkout))
    again = sh(checkout, "scripts/setup.sh")
    assert again.returncode == 0 and "Python packages up to date" in again.stderr
    assert len(pip_calls(checkout)) == calls  # pip not run at all

    # test.sh's extras cover run.sh's: after [test,ocr], [test] installs nothing
    assert sh(checkout, "scripts/setup.sh", "test", "ocr").returncode == 0
    assert pip_calls(checkout)[-1].endswith("-e .[test,ocr]")
    calls = len(pip_calls(checkout))
    assert "up to date" in sh(checkout, "scripts/setup.sh").stderr
    assert len(pip_calls(checkout)) == calls

    # a changed pyproject.toml (a new dependency, say) installs again
    with (checkout / "pyproject.toml").open("a") as f:
        f.write("\n# a local change\n")
    changed = sh(checkout, "scripts/setup.sh")
    assert "installing" in changed.stderr and len(pip_calls(checkout)) > calls


def test_run_says_each_step_before_it_and_starts_the_server(checkout):
    first = sh(checkout, "scripts/run.sh", "--workers", "3")
    assert first.returncode == 0, first.stderr
    steps = [ln for ln in first.stderr.splitlines() if ln.startswith("ctxmill: [")]
    assert [s[:14] for s in steps] == ["ctxmill: [1/3]", "ctxmill: [2/3]", "ctxmill: [3/3]"]
    assert "pip" in steps[0] and "apt-get" in steps[1] and "sample preloaded" in steps[2]
    # each step's line comes before what the step did
    err = first.stderr
    assert err.index("[1/3]") < err.index("installing ctxmill") < err.index("[2/3]")
    assert err.index("[2/3]") < err.index("system packages present (tesseract)") < err.index("[3/3]")
    assert "serving on http://127.0.0.1:8000/" in first.stdout and first.stdout.rstrip().endswith("--workers 3")

    calls = len(pip_calls(checkout))
    second = sh(checkout, "scripts/run.sh")
    assert second.returncode == 0, second.stderr
    assert len(pip_calls(checkout)) == calls and "Python packages up to date" in second.stderr
    assert "serving on" in second.stdout
