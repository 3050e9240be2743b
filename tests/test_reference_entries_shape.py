"""A line of a bibliography that holds no word of two letters, no year and no identifier is
text of the section, not a reference (issue 26: 100,000 one-character lines after
"References" made 51,700 references and 30 MB of output from 0.39 MB of input, compiled at
~0.14 MB per CPU-s). Nothing is lost: its characters stay in document.md and conservation
accounts for every word."""

from __future__ import annotations

import json
import random

from ctxmill.compile.pipeline import compile_document
from ctxmill.model import BlockKind
from ctxmill.render import write_outputs

REAL = [f"[{i}] A. Author. Title {i}. Venue, 20{i:02d}." for i in range(1, 10)]
JUNK = ["x", "[1] x", "- x", "1. x", "."]


def _paper(lines: int, seed: int = 3) -> str:
    """fuzz.py's one_char_refs shape, small: a paper with nine real entries, then a second
    "References" and one character a line."""
    rnd = random.Random(seed)
    body = "".join(f"Some words of the section about caches and keys [{1 + k % 9}].\n\n" for k in range(20))
    return ("A Title of the Paper\n\nJane Doe, John Roe\n\nAbstract\n\nA short abstract of the paper.\n\n"
            "1 Introduction\n\n" + body + "References\n\n" + "\n".join(REAL) + "\n\nReferences\n\n"
            + "".join(rnd.choice(JUNK) + "\n" for _ in range(lines)))


def test_one_character_lines_make_no_references():
    doc = compile_document(_paper(3_000).encode(), name="refs.txt")
    # the nine printed entries and nothing else (e7beac6: ~1,550 references)
    assert [r.raw for r in doc.references] == REAL
    assert all(b.attrs.get("reference_id") for b in doc.blocks if b.kind is BlockKind.REFERENCE)
    assert sum(b.kind is BlockKind.REFERENCE for b in doc.blocks) == 9


def test_the_lines_stay_in_document_md_and_are_counted(tmp_path):
    text = _paper(2_000)
    out = tmp_path / "o"
    write_outputs(compile_document(text.encode(), name="refs.txt"), out)
    md = (out / "document.md").read_text()
    tail = text.split("References\n\n")[-1]
    removed = json.loads((out / "removed.json").read_text())
    assert removed["words_lost"] == 0
    # every "x" of the list is in document.md (the text of the second References section), or
    # in removed.json (a lone "x" line is read as a roman page number, on e7beac6 too)
    gone = sum(r["text"] == "x" for r in removed["removed"])
    assert md.split("## References")[-1].count("x") + gone == tail.count("x")
    assert len(json.loads((out / "references.json").read_text())) == 9


def test_no_citation_is_read_from_the_lines():
    # "[1] x" in the list is the list's text, not a callout of ref 1: only the body cites
    doc = compile_document(_paper(1_000).encode(), name="refs.txt")
    bib_ids = {b.id for b in doc.blocks if b.attrs.get("bibliography")}
    assert doc.mentions and not [m for m in doc.mentions if m.block_id in bib_ids]
    assert {r for m in doc.mentions for r in m.reference_ids} <= {r.id for r in doc.references}


def test_a_junk_line_between_real_entries_leaves_them_whole():
    text = ("Title\n\nSome text citing [1] and [3].\n\nReferences\n\n[1] A. Author. Title one. Venue, 2001.\n"
            "[2] x\n.\n[3] B. Writer. Title three. Venue, 2003.\n[4] 10.1145/3290605.3300233\n[5] 2019.\n"
            "[6] 王小明. 中文标题.\n")
    doc = compile_document(text.encode(), name="refs.txt")
    raws = [r.raw for r in doc.references]
    assert raws == ["[1] A. Author. Title one. Venue, 2001.", "[3] B. Writer. Title three. Venue, 2003.",
                    "[4] 10.1145/3290605.3300233", "[5] 2019.", "[6] 王小明. 中文标题."]
    para = [b for b in doc.blocks if b.kind is BlockKind.PARAGRAPH and b.attrs.get("bibliography")]
    assert [b.text for b in para] == ["[2] x ."]


def test_what_reads_as_a_reference():
    from ctxmill.compile.references import reads_as_reference  # (here: the tests above run on e7beac6)

    for t in ["[12] Ibid.", "Lee, J. 2019.", "[Lee06] x 2006", "10.1000/182", "arXiv:1706.03762",
              "https://example.org/a", "(3) Id., 45.", "中文", "ab"]:
        assert reads_as_reference(t), t
    for t in ["x", "[1] x", "- x", "1. x", ".", "[Lee06] x", "12.", "(3) ;", "a b c d", "中", "199"]:
        assert not reads_as_reference(t), t
