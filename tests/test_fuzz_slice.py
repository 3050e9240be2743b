"""A short seeded slice of benchmarks/fuzz.py (issue 26): every entry point, through the real
command line, never exits 1, never hangs and never leaves half-written output. The full
campaign (1,000 cases per entry point) is `benchmarks/fuzz.py`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("entry,cases", [("pdf", 5), ("text", 8), ("apply", 8), ("index", 8)])
def test_a_seeded_slice_of_the_fuzzer_finds_nothing(entry, cases, tmp_path):
    _slice(entry, cases, 11, "classic", tmp_path)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("entry,cases,seed", [("pdf", 6, 11), ("text", 6, 11), ("apply", 6, 11), ("index", 6, 31)])
def test_a_seeded_slice_of_the_wider_kinds_finds_nothing(entry, cases, seed, tmp_path):
    # round eleven's kinds (--kinds wide): UTF-16/32 text, built PDF structures, CR-only apply
    # pairs, folders with odd names or changed while indexed, where an ordinary file beside them
    # must still be found (seed 31 for index: seed 11's first cases hold a 100,000-line .gitignore)
    _slice(entry, cases, seed, "wide", tmp_path)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("entry,cases,seed", [("text", 6, 12), ("apply", 6, 12), ("index", 5, 12)])
def test_a_seeded_slice_of_round_twelves_kinds_finds_nothing(entry, cases, seed, tmp_path):
    # round twelve's kinds (--kinds wide2): deep nesting and syntax soup for the code chunker,
    # generated and one-line files, notebooks, mixed encodings, unclosed Markdown, conflict
    # markers, a hostile search query before good.py must be found
    _slice(entry, cases, seed, "wide2", tmp_path)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("seed", [25, 53])
def test_a_seeded_slice_of_round_thirteens_pdf_kinds_finds_nothing(seed, tmp_path):
    # round thirteen's PDF kinds (--kinds wide2, three cases in four): seed 25 draws rotations of
    # 2^31 and -270 on inverted boxes, an XFA form with 100 widgets, a Form XObject that draws
    # itself, a Type3 font with a 1e30 matrix; seed 53 a wrong linearization hint table, inline
    # images that never end or hold "EI", a /JavaScript name tree of 5,000 names, a Type3 font
    # with a zero matrix (and wide's page-tree loop in the fourth case)
    _slice("pdf", 6, seed, "wide2", tmp_path)


def _slice(entry, cases, seed, kinds, tmp_path):
    run = tmp_path / "run"  # the user's runtime folder: the campaign's server must not live there
    run.mkdir(mode=0o700)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(run), CTXMILL_SERVER="1")
    p = subprocess.run([sys.executable, str(REPO / "benchmarks" / "fuzz.py"), "--cases", str(cases), "--seed", str(seed),
                        "--only", entry, "--scaling", "0", "--timeout", "90", "--kinds", kinds],
                       capture_output=True, text=True, timeout=580, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    res = json.loads(p.stdout)[entry]
    outcomes = res["outcomes"]
    assert sum(outcomes.values()) - outcomes.get("half_written", 0) - outcomes.get("good_part_lost", 0) == cases
    bad = {k: v for k, v in outcomes.items() if k.endswith("exit_1") or k in ("timeout", "half_written",
                                                                               "good_part_lost")}
    assert not bad, res["failures"]
    if kinds in ("wide", "wide2"):
        assert "classic" not in res["by_kind"]
    # the index cases' background server was the campaign's own, and it was stopped: a user's
    # server left watching a thousand deleted folders held all of their inotify instances
    status = subprocess.run([sys.executable, "-c", "from ctxmill.entry import main; main()", "server", "status", "--json"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert json.loads(status.stdout) == {"running": False}, status.stdout
