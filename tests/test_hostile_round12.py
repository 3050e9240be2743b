"""Issue 26, round twelve: what round eleven left, and what the wider campaign (benchmarks/fuzz.py
--kinds wide2) found. Each test fails on the code before its fix (542b635). Time limits here are
safety nets against a hang, not speed assertions (benchmarks/fuzz.py measures speed)."""

from __future__ import annotations

import pytest

from ctxmill.errors import InputRefused
from ctxmill.sources import decode_text

# ---------------------------------------------------------------------------- text input

_DOC = ("A Title of the Paper\n\nJane Doe\n\nAbstract\n\nThe cache keeps recently used keys in memory.\n\n"
        "1 Introduction\n\nWe measured the hit rate on three traces and found it stable.\n")


@pytest.mark.parametrize("enc", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("tail", ["", "これは日本語", "é ß Ω \U0001f600"], ids=["ascii", "japanese", "astral"])
@pytest.mark.parametrize("cut", [1, 2, 3])
def test_unmarked_utf16_and_utf32_cut_inside_the_last_character_keep_the_rest(enc, tail, cut):
    # the marked road kept the rest of a file cut short inside its last character, the unmarked
    # one refused it as "binary data" (round eleven's campaign: 24 of 70 such cases)
    text = _DOC + tail
    got = decode_text(text.encode(enc)[:-cut], "in.txt")
    kept = got.rstrip("\ufffd")
    assert text.startswith(kept) and len(kept) >= len(text) - 2  # all but the character cut


@pytest.mark.parametrize("run", ["-" * 500_000, "=" * 200_000, "—" * 300_000, "_" * 100_000, "." * 70_000])
def test_a_long_rule_before_the_text_does_not_hide_it(run):
    # readability was decided on the first 64 KB alone: a document that begins with one run of
    # punctuation longer than that was refused as "no readable text", the text after it with it
    text = run + "\n\n" + _DOC
    assert decode_text(text.encode(), "in.txt") == text
    mid = _DOC[:40] + " " + run + " " + _DOC[40:]  # the campaign's long_word case: inside a line
    assert decode_text(mid.encode(), "in.txt") == mid


@pytest.mark.parametrize("data", [
    b"-" * 500_000,  # a rule and nothing else
    b"!!!! ---- **** ////\n" * 10_000,  # short runs of punctuation, 200 KB
    ("-" * 100_000 + "\n" + "!?" * 50_000 + " x\n").encode(),  # a rule, then punctuation
])
def test_punctuation_past_64kb_is_still_unreadable(data):
    with pytest.raises(InputRefused, match="no readable text"):
        decode_text(data, "junk.txt")


@pytest.mark.timeout(300)
def test_the_command_compiles_the_text_after_a_long_rule(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    ctxmill = Path(sys.executable).with_name("ctxmill")
    src = tmp_path / "in.txt"
    src.write_text("-" * 500_000 + "\n\n" + _DOC)
    out = tmp_path / "out"
    p = subprocess.run([str(ctxmill), "compile", str(src), "-o", str(out)], capture_output=True, text=True,
                       timeout=280)
    assert p.returncode == 0, p.stderr[-500:]
    assert "hit rate on three traces" in (out / "document.md").read_text()
