"""The two readers of AnyStyle's XML (refparse.datasets): AnyStyle's own parser files hold no
text between fields, so read_anystyle joins the children with a space; scripts/bbl_refdata.py's
files keep that text in <ignore> children, so read_bbl joins them as they are. Both keep only
sequences with text and a label."""

from __future__ import annotations

from ctxmill.compile.refparse.datasets import read_anystyle, read_bbl

XML = """<?xml version="1.0" encoding="UTF-8"?>
<dataset>
  <sequence><author>A. Writer,</author><title>A  study
    of things.</title><date>2020.</date></sequence>
  <sequence><author>B. Author</author><ignore>, </ignore><title>Other</title><ignore>. </ignore></sequence>
  <sequence><note></note></sequence>
</dataset>
"""


def test_anystyle_children_joined_by_a_space(tmp_path):
    (tmp_path / "core.xml").write_text(XML)
    got = read_anystyle(tmp_path / "core.xml")
    assert got[0] == ("A. Writer, A study of things. 2020.",
                      [(0, 10, "author"), (11, 29, "title"), (30, 35, "date")])
    assert got[1][0] == "B. Author , Other ."
    assert len(got) == 2  # the empty sequence is dropped


def test_bbl_children_joined_as_they_are(tmp_path):
    (tmp_path / "bbl-a+b.xml").write_text(XML)
    got = read_bbl(tmp_path / "bbl-a+b.xml")
    assert got[0] == ("A. Writer,A study of things.2020.", [(0, 10, "author"), (10, 28, "title"), (28, 33, "date")])
    assert got[1] == ("B. Author, Other.", [(0, 9, "author"), (11, 16, "title")])
    assert len(got) == 2
