"""A table cell is inline Markdown, as a paragraph is: math and escapes come out as they went in,
and a pipe inside a cell is escaped once (GFM), whether the source escaped it or not."""

import subprocess
import sys

from ctxmill.render.markdown import table_markdown


def test_a_cells_math_and_escapes_are_kept_and_its_pipe_escaped_once(tmp_path):
    src = tmp_path / "in.md"
    src.write_text("# T\n\nSome text here.\n\n| a | b |\n|---|---|\n| $\\alpha$ | x\\_y |\n"
                   "| x \\| y | `p\\|q` |\n\nMore.\n", encoding="utf-8")
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "ctxmill.cli", "compile", str(src), "-o", str(out)], check=True,
                   capture_output=True, timeout=120)
    md = (out / "document.md").read_text(encoding="utf-8")
    assert "| $\\alpha$ | x\\_y |" in md
    assert "| x \\| y | `p\\|q` |" in md


def test_a_pipe_in_a_cells_text_ends_no_cell():
    assert table_markdown([["a", "b"], ["x | y", "2"]]).splitlines()[2] == "| x \\| y | 2 |"
