"""Issue 26: numbered entries past 9,999 ("[10000] ...") start entries as shorter labels do, and
citations of them resolve (the label patterns read at most 4 digits: every entry after [9999]
was kept as text of entry [9999])."""

from __future__ import annotations

import re

from ctxmill.compile.pipeline import compile_document
from ctxmill.compile.references import entry_label


def _text(first: int, last: int, sep: str = "\n") -> bytes:
    entries = sep.join(f"[{i}] A. Author, B. Writer. A title {i}. In Proc. X, 2020." for i in range(first, last + 1))
    return ("A title of a paper\n\nSome text citing [9999] and [10001] and [123456].\n\nReferences\n\n"
            + entries + "\n").encode()


def test_five_and_six_digit_labels_start_entries_and_resolve():
    doc = compile_document(_text(9997, 10003) + b"[123456] C. Writer. Another title. In Proc. Y, 2021.\n",
                           name="long-labels.txt")
    raws = [r.raw for r in doc.references]
    assert len(raws) == 8, raws
    assert [re.match(r"\[(\d+)\]", r).group(1) for r in raws] == [*map(str, range(9997, 10004)), "123456"]
    cited = {m.text: m.reference_ids for m in doc.mentions}
    assert cited["[10001]"] == [doc.references[4].id]
    assert cited["[123456]"] == [doc.references[7].id]


def test_labels_in_one_reflowed_paragraph_split_past_9999():
    doc = compile_document(_text(9998, 10002, sep=" "), name="long-labels-flowed.txt")
    assert [r.raw.split("]")[0] + "]" for r in doc.references] == [f"[{i}]" for i in range(9998, 10003)]


def test_entry_label_reads_long_numbers():
    assert entry_label("[10000] A. Author") == "10000"
    assert entry_label("1234567. A. Author") == "1234567"
    assert entry_label("[12345678] A. Author") is None  # over 7 digits: no label


def test_first_word_of_a_reference_is_that_of_its_whole_normalised_text():
    import random

    from ctxmill.compile.citations import _first_word, norm

    rnd = random.Random(7)
    pieces = [" ", "  ", "\t", "[12]", "(", ")", "’", "'", "`", "&", "_", "Dell’Acqua", "é", "e\u0301", "İ", "ﬁ",
              "—", ".", ",", "\u00a0", "Ab", "x", "12", "\u2003", "-", "et al.", "Ö", "\u0301"]
    for _ in range(20_000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 8)))
        whole = norm(text).split()
        assert _first_word(text) == (whole[0] if whole else None), repr(text)
