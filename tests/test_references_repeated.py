"""An entry printed more than once in a bibliography is labelled once (issue 26: a hostile list
of one entry repeated 16,000 times made 2,000 parses of the same string); every repeat still
gets its own Reference with its own copy of the fields."""

from __future__ import annotations

from ctxmill.compile import references
from ctxmill.compile.pipeline import compile_document
from ctxmill.compile.refparse import reference_fields


def test_a_repeated_entry_is_labelled_once(monkeypatch):
    calls = []

    def fields(raw, fallback=None):
        calls.append(raw)
        return {"raw": raw, "authors": [raw[:5]]}

    monkeypatch.setattr("ctxmill.compile.refparse.reference_fields", fields)
    texts = ["one entry, 2001.", "another entry, 2002.", "one entry, 2001."] * 300
    got = references._fields_of(texts)
    assert sorted(calls) == ["another entry, 2002.", "one entry, 2001."]
    assert [f["raw"] for f in got] == texts
    assert got[0] == got[2] and got[0]["authors"] is not got[2]["authors"]  # copies, not one object


def test_repeated_entries_compile_as_each_labelled_alone(monkeypatch):
    text = "Title\n\nSome text.\n\nReferences\n\n" + "A. Author. The same title. In Proc. X, 2020.\n" * 30
    calls = []
    real = references._label_all

    def spy(texts):
        calls.append(len(texts))
        return real(texts)

    monkeypatch.setattr(references, "_label_all", spy)
    doc = compile_document(text.encode(), name="refs.txt")
    assert calls == [1]  # the thirty entries, labelled as one
    monkeypatch.setattr(references, "_fields_of", lambda texts: [
        reference_fields(t, references.parse_entry) for t in texts])
    one = compile_document(text.encode(), name="refs.txt")
    assert len(doc.references) == 30 and doc.references == one.references
