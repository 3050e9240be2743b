"""A long bibliography is labelled on two cores (issue 26): a forked child labels the second
half of the entries. The fields, their order and every output must be what one process gives;
a child that fails or cannot start changes nothing but the time."""

from __future__ import annotations

import os

import pytest

from ctxmill import beside
from ctxmill.compile import references
from ctxmill.compile.pipeline import compile_document
from ctxmill.compile.refparse import reference_fields

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or beside._cpus() < 2, reason="needs os.fork and 2 CPUs")


@pytest.fixture(autouse=True)
def _asked(monkeypatch):
    # children are off unless asked for (ctxmill.beside): a fork is what these tests check
    monkeypatch.setenv("CTXMILL_BESIDE", "1")


def _entries(n: int) -> list[str]:
    return [f"A. Author{i}, B. Writer. A title about thing {i}. In Proc. Conf {i % 7}, {1990 + i % 30}."
            for i in range(n)]


def test_fields_of_a_long_list_equal_one_process():
    texts = _entries(references.PARALLEL_MIN_ENTRIES + 3)
    want = [reference_fields(t, references.parse_entry) for t in texts]
    assert references._fields_of(texts) == want


def test_the_second_half_is_labelled_in_another_process(monkeypatch):
    me = os.getpid()
    monkeypatch.setattr("ctxmill.compile.refparse.reference_fields", lambda raw, fallback=None: {"pid": os.getpid()})
    texts = _entries(references.PARALLEL_MIN_ENTRIES)
    pids = [f["pid"] for f in references._fields_of(texts)]
    cut = len(texts) // 2
    assert set(pids[:cut]) == {me}
    assert len(set(pids[cut:])) == 1 and pids[-1] != me


def test_a_short_list_stays_in_one_process(monkeypatch):
    me = os.getpid()
    monkeypatch.setattr("ctxmill.compile.refparse.reference_fields", lambda raw, fallback=None: {"pid": os.getpid()})
    texts = _entries(references.PARALLEL_MIN_ENTRIES - 1)
    assert {f["pid"] for f in references._fields_of(texts)} == {me}


def test_a_failing_child_is_replaced_by_this_process(monkeypatch):
    me = os.getpid()

    def fields(raw, fallback=None):
        if os.getpid() != me:
            raise RuntimeError("the child fails")
        return {"pid": me, "raw": raw}

    monkeypatch.setattr("ctxmill.compile.refparse.reference_fields", fields)
    texts = _entries(references.PARALLEL_MIN_ENTRIES + 1)
    got = references._fields_of(texts)
    assert [f["raw"] for f in got] == texts and {f["pid"] for f in got} == {me}


def test_no_fork_while_another_thread_runs(monkeypatch):
    import threading

    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert beside.start(len, "x") is None
    finally:
        stop.set()
        t.join()


def test_a_long_list_compiles_the_same_on_one_core(monkeypatch):
    """Every reference of a 1,000-entry list: the same with the fork and without it."""
    text = "References\n\n" + "".join(f"[{i}] {t}\n" for i, t in enumerate(_entries(1000), start=1))
    doc = compile_document(text.encode(), name="refs.txt")
    monkeypatch.setattr(beside, "start", lambda fn, *args: None)
    one = compile_document(text.encode(), name="refs.txt")
    assert len(doc.references) == 1000
    assert doc.references == one.references
    assert [b.number for b in doc.blocks] == [b.number for b in one.blocks]


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


def test_repeated_entries_compile_as_before(monkeypatch):
    text = "Title\n\nSome text.\n\nReferences\n\n" + "A. Author. The same title. In Proc. X, 2020.\n" * 30
    calls = []
    real = references._fields_of

    def spy(texts):
        calls.append(len(texts))
        return real(texts)

    monkeypatch.setattr(references, "_fields_of", spy)
    doc = compile_document(text.encode(), name="refs.txt")
    assert calls == [30, 1]  # the thirty entries, labelled as one
    monkeypatch.setattr(references, "_fields_of", lambda texts: [
        reference_fields(t, references.parse_entry) for t in texts])
    one = compile_document(text.encode(), name="refs.txt")
    assert len(doc.references) == 30 and doc.references == one.references


def test_beside_returns_the_childs_result_or_failed():
    import signal

    child = beside.start(lambda n: (os.getpid(), n * 2), 21)
    assert child is not None
    pid, v = child.result()
    assert v == 42 and pid != os.getpid()
    assert beside.start(lambda: 1 / 0).result() is beside.FAILED
    assert beside.start(lambda: os.kill(os.getpid(), signal.SIGKILL)).result() is beside.FAILED


def test_no_child_unless_asked(monkeypatch):
    monkeypatch.delenv("CTXMILL_BESIDE")
    assert beside.start(len, "x") is None
    monkeypatch.setenv("CTXMILL_BESIDE", "0")
    assert beside.start(len, "x") is None
    me = os.getpid()
    monkeypatch.setattr("ctxmill.compile.refparse.reference_fields", lambda raw, fallback=None: {"pid": os.getpid()})
    assert {f["pid"] for f in references._fields_of(_entries(references.PARALLEL_MIN_ENTRIES))} == {me}
    monkeypatch.setenv("CTXMILL_BESIDE", "1")
    assert beside.start(len, "xy").result() == 2
