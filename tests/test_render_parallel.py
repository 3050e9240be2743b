"""A document with many references has references.json and references.csl.json written by a
forked child while the compile writes the other files (issue 26). The files, their names and
their order are what one process writes; a failed child's files are written in process."""

from __future__ import annotations

import os
import zipfile

import pytest

from ctxmill import beside, render
from ctxmill.compile.pipeline import compile_document
from ctxmill.render import graph, write_outputs

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or beside._cpus() < 2, reason="needs os.fork and 2 CPUs")


@pytest.fixture(autouse=True)
def _asked(monkeypatch):
    # children are off unless asked for (ctxmill.beside): a fork is what these tests check
    monkeypatch.setenv("CTXMILL_BESIDE", "1")

TEXT = ("Title\n\nSome text [1] and [2].\n\nReferences\n\n"
        + "".join(f"[{i}] A. Author{i}, B. Writer. A title {i}. In Proc. X, {1990 + i % 30}.\n" for i in range(1, 41)))


@pytest.fixture(scope="module")
def doc():
    return compile_document(TEXT.encode(), name="refs.txt")


def _files(folder):
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name not in ("metrics.json", "bundle.zip"):
            out[str(p.relative_to(folder))] = p.read_bytes()
    with zipfile.ZipFile(folder / "bundle.zip") as z:
        out["bundle names"] = z.namelist()
    return out


def test_the_exports_are_written_beside_and_equal(doc, tmp_path, monkeypatch):
    one = write_outputs(doc, tmp_path / "one")
    monkeypatch.setattr(render, "PARALLEL_MIN_REFERENCES", 10)
    me, pids = os.getpid(), tmp_path / "pids"
    real = graph.write_references

    def spy(d, folder, options):
        with open(pids, "a") as fh:
            fh.write(f"{os.getpid()}\n")
        return real(d, folder, options)

    monkeypatch.setattr(graph, "write_references", spy)
    two = write_outputs(doc, tmp_path / "two")
    assert [int(x) for x in pids.read_text().split()] != [me]  # written in another process
    assert list(two) == list(one)  # the same names in the same order
    assert _files(tmp_path / "two") == _files(tmp_path / "one")


def test_a_failed_child_is_replaced(doc, tmp_path, monkeypatch):
    one = write_outputs(doc, tmp_path / "one")
    monkeypatch.setattr(render, "PARALLEL_MIN_REFERENCES", 10)
    me = os.getpid()
    real = graph.write_references

    def fails_in_child(d, folder, options):
        if os.getpid() != me:
            raise RuntimeError("the child fails")
        return real(d, folder, options)

    monkeypatch.setattr(graph, "write_references", fails_in_child)
    two = write_outputs(doc, tmp_path / "two")
    assert list(two) == list(one)
    assert _files(tmp_path / "two") == _files(tmp_path / "one")


def test_an_error_in_process_waits_for_the_child_and_leaves_nothing(doc, tmp_path, monkeypatch):
    from ctxmill.render import bibtex

    monkeypatch.setattr(render, "PARALLEL_MIN_REFERENCES", 10)

    def boom(d, folder, options):
        raise RuntimeError("a renderer fails")

    monkeypatch.setattr(bibtex, "write", boom)
    with pytest.raises(RuntimeError):
        write_outputs(doc, tmp_path / "out")
    assert list(tmp_path.iterdir()) == []  # no output and no temporary folder left


def test_few_references_no_child(doc, tmp_path, monkeypatch):
    monkeypatch.setattr(beside, "start", lambda *a: pytest.fail("no child for a short list"))
    write_outputs(doc, tmp_path / "out")
