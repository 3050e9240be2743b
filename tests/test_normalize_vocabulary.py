"""normalize builds its vocabulary (every word of the document counted, to decide whether a hyphen
at a line end joins a word) only when some text it re-flows has a line ending in a hyphen before
another line (issue 26: 4 MB of one-line paragraphs spent ~0.14 CPU-s building one nobody read).
Where one is needed it is built as before, and the outputs are those of building it always."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from _counting import CountedCall
from ctxmill.compile import normalize
from ctxmill.compile.pipeline import compile_document
from ctxmill.model import Block, Kind

SAMPLE = Path(__file__).resolve().parents[1] / "src" / "ctxmill" / "samples" / "tidal-caching.txt"
_PIECES = ["con", "Word", "-", "- ", " -", "--", " ", "\t", "\u00a0", "\u2003", "\x1c", "\r", "\x0c", "x", "é"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=4).map("".join), max_size=5),
       st.sampled_from(["text", "lines", "caption", "cell"]))
def test_every_text_join_lines_reads_the_vocabulary_of_is_found(lines, where):
    # join_lines looks a word up only past its early return: a stripped line ending in "-"
    # with a non-empty line after it
    reads_vocabulary = "-\n" in "\n".join(t for t in map(str.strip, lines) if t)
    text = "\n".join(lines)
    block = Block(Kind.TABLE if where == "cell" else Kind.PARAGRAPH, "plain" if where != "text" else text, 1)
    if where == "lines":
        block.attrs["_line_texts"] = list(lines)
    elif where == "caption":
        block.attrs["caption"] = text
    elif where == "cell":
        block.attrs["rows"] = [["head", "x"], ["y", text]]
    if reads_vocabulary:
        assert normalize._vocabulary_needed([Block(Kind.PARAGRAPH, "plain", 1), block])


def _count_vocabulary(monkeypatch) -> CountedCall:
    spy = CountedCall(normalize._vocabulary)
    monkeypatch.setattr(normalize, "_vocabulary", spy)
    return spy


def test_no_vocabulary_without_a_word_broken_at_a_line_end(monkeypatch):
    spy = _count_vocabulary(monkeypatch)
    text = "Title\n\n" + "".join(f"See Section {i} and a well-known Figure {i}.\n\n" for i in range(500))
    doc = compile_document(text.encode(), name="x.txt")
    assert spy.calls == 0
    assert "well-known Figure 7." in doc.markdown


def test_a_broken_word_builds_it_once_and_is_joined_by_it(monkeypatch):
    spy = _count_vocabulary(monkeypatch)
    text = "Title\n\nA well-known layer keeps the state.\n\nA short line about the well-\nknown state.\n"
    doc = compile_document(text.encode(), name="x.txt")
    assert spy.calls == 1
    assert "about the well-known state" in doc.markdown  # (the hyphen kept: "well-known" is a word of it)


def _markdown(source, monkeypatch, always: bool) -> str:
    with monkeypatch.context() as m:
        if always:
            m.setattr(normalize, "_vocabulary_needed", lambda blocks: True)
        return compile_document(source, name="x.txt").markdown


def test_outputs_are_those_of_always_building_it(monkeypatch):
    texts = [SAMPLE.read_bytes(),
             b"Title\n\n" + b"".join(b"line %d of a para-\ngraph about dis-\ntributed caching\n\n" % i
                                     for i in range(200)),
             b"Title\n\n| a | b |\n|---|---|\n| cach- | x |\n\nTable 1: A cap-\ntion.\n\ncaching here\n"]
    for source in texts:
        assert _markdown(source, monkeypatch, False) == _markdown(source, monkeypatch, True)
