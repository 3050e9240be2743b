"""Round 38, the scanned-PDF road (round38_tScan_rule.md R1): reference labels OCR half-read.

A label kept on its entry's line whose bracket OCR misread ({2} between [1] and [3]) is written in the
column's style, so the reference stage reads it as a label; in a column of lone labels, an entry whose
label OCR lost but for its closing mark (a line opening with "|" or "]" where the labels end) takes the
number between its neighbours, and a label's closing mark read apart from it is dropped.
Alphabetic keys in a column of their own ([Abc01]) are set in front of their entries too (round 37's
left-over patch), their brackets and "et al." mark as printed and a year's 0 read as O put right.
Lines are shaped as Tesseract gives them (pixel boxes at 150 dpi); no benchmark text.
"""

from __future__ import annotations

from ctxmill.sources import ocr


def _line(words: list[tuple[str, tuple[int, int, int, int]]], size: float = 30.0) -> ocr.TextLine:
    ws = [ocr.Word(t, b, 0.9) for t, b in words]
    box = (min(b[0] for _, b in words), min(b[1] for _, b in words), max(b[2] for _, b in words),
           max(b[3] for _, b in words))
    return ocr.TextLine(words=ws, box=box, size=size)


def _entry(first: str, x: int, y: int, rest: str = "Author. A title of a paper, 2001.") -> ocr.TextLine:
    words = [(first, (x, y, x + 30, y + 26))]
    at = x + 40
    for w in rest.split():
        words.append((w, (at, y, at + 12 * len(w), y + 26)))
        at += 12 * len(w) + 10
    return _line(words)


def _texts(lines: list[ocr.TextLine]) -> list[str]:
    return [" ".join(w.text for w in ln.words) for ln in lines]


def test_a_misread_bracket_on_an_entry_line_takes_the_lists_style():
    read = ["[1]", "{2}", "[3]", "(4]", "[5]"]
    lines = [_entry(t, 20, 100 + 60 * k) for k, t in enumerate(read)]
    out = ocr.attach_label_column(lines)
    assert [t.split()[0] for t in _texts(out)] == ["[1]", "[2]", "[3]", "[4]", "[5]"]


def test_a_misread_label_out_of_turn_or_alone_is_left_as_read():
    # {9} does not go on from [2] nor lead to [4]: no label of this list's order
    lines = [_entry(t, 20, 100 + 60 * k) for k, t in enumerate(["[1]", "[2]", "{9}", "[4]"])]
    assert [t.split()[0] for t in _texts(ocr.attach_label_column(lines))] == ["[1]", "[2]", "{9}", "[4]"]
    # two labels are no column
    two = [_entry(t, 20, 100 + 60 * k) for k, t in enumerate(["[1]", "{2}"])]
    assert [t.split()[0] for t in _texts(ocr.attach_label_column(two))] == ["[1]", "{2}"]


def test_an_entry_whose_label_was_lost_but_its_bracket_takes_the_number_between():
    # labels in a column of their own (x 20-55), each entry's first line beside it from x 56; the
    # engine read the closing bracket with the entry ("| Author ..."), and lost two labels whole
    rows = [100 + 60 * k for k in range(8)]
    labels = {0: "[11", 1: "[12", 2: "(13", 4: "[15", 7: "[18"}
    lines = [_line([(t, (20, rows[k], 55, rows[k] + 28))]) for k, t in labels.items()]
    for k, y in enumerate(rows):
        lines.append(_entry("|" if k % 2 else "]", 56, y, f"Writer{k} A. A title of the work, 2010."))
    out = ocr.attach_label_column(lines)
    assert _texts(out) == [f"[{11 + k}] Writer{k} A. A title of the work, 2010." for k in range(8)]


def test_a_bracket_opening_a_line_outside_a_label_column_stays():
    # a table read as text, rows opening with "|", and no column of labels beside them
    rows = [_line([("|", (56, y, 62, y + 26)), ("cell", (70, y, 120, y + 26)), ("|", (130, y, 136, y + 26)),
                   ("value", (150, y, 220, y + 26))]) for y in (100, 160, 220)]
    assert _texts(ocr.attach_label_column(rows)) == _texts(rows)
    # a label column whose entries all have their labels: a "|" line far from the labels' right edge
    labels = [_line([(f"[{k}]", (20, y, 55, y + 28))]) for k, y in ((1, 100), (2, 160), (3, 220))]
    entries = [_entry("Name", 60, y) for y in (100, 160, 220)]
    bar = [_line([("|", (400, 130, 406, 156)), ("aside", (420, 130, 480, 156)), ("text", (490, 130, 540, 156))])]
    out = _texts(ocr.attach_label_column(labels + entries + bar))
    assert out[-1] == "| aside text"
    assert out[:3] == [f"[{k}] Name Author. A title of a paper, 2001." for k in (1, 2, 3)]


def test_the_reference_stage_reads_the_mended_labels_as_entries():
    from ctxmill.compile.pipeline import compile_document

    read = ["[1]", "{2}", "[3]", "[4]"]
    body = "\n\n".join(f"{t} Author{k} B. A paper on the subject number {k}. Journal of Things, {k}:1-9, 2001."
                       for k, t in enumerate(read, 1))
    # what a page of OCR'd lines gives the text road, with and without the restyling
    lines = [_entry(t, 20, 100 + 60 * k) for k, t in enumerate(read)]
    first_words = [t.split()[0] for t in _texts(ocr.attach_label_column(lines))]
    text = "\n\n".join("Some running text of the letter, cited [1] and [2].\n" for _ in range(6))
    mended = body
    for was, now in zip(read, first_words, strict=True):
        mended = mended.replace(f"{was} ", f"{now} ", 1)
    doc = compile_document((text + "\n\n" + mended).encode(), kind="ocr_text")
    assert [r.raw.split()[0] for r in doc.references] == ["[1]", "[2]", "[3]", "[4]"]


def test_a_column_of_alphabetic_keys_opens_the_entries_beside_it():
    # alpha styles' keys ([Abc01], [Def+02]) in a column of their own, as Tesseract reads them: a bracket
    # misread, the "+" read as "*", a year's 0 read as O, the closing bracket read twice
    read = ["[Abc01]", "[Def*02]", "(Ghi03]", "[JklO4]", "[Mno05]|"]
    rows = [100 + 60 * k for k in range(len(read))]
    labels = [_line([(t, (20, y, 130, y + 28))]) for t, y in zip(read, rows, strict=True)]
    entries = [_entry("Writer", 150, y, f"{k} B. A title of the work, 2010.") for k, y in enumerate(rows)]
    out = _texts(ocr.attach_label_column(labels + entries))
    assert [t.split()[0] for t in out] == ["[Abc01]", "[Def+02]", "[Ghi03]", "[Jkl04]", "[Mno05]"]
    assert out[3] == "[Jkl04] Writer 3 B. A title of the work, 2010."


def test_bracketed_words_in_no_column_are_no_keys():
    # a lone bracketed word beside text, two keys only: left as read
    lines = [_line([("[Note]", (20, 100, 110, 128))]), _entry("Some", 150, 100),
             _line([("[Abc01]", (20, 160, 130, 188))]), _entry("Other", 150, 160)]
    assert _texts(ocr.attach_label_column(lines)) == _texts(lines)
