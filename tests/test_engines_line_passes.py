"""sources.engines' passes over the lines of every page (issue 26, round 22, speed only): a pass
that changes only the lines after a heading, or lines holding a mark, reads no line where the
text has no such heading or mark, and still rewrites them where it has. Counted, not timed."""

from __future__ import annotations

from _counting import Counted, CountedCall
from ctxmill.sources import engines

BODY = "\n".join(f"## Results of part {i}\n\nSome prose about table {i}, as a paper has.\n" for i in range(300))


def test_lists_after_their_heading_are_rewritten_on_a_later_page():
    pages = [(1, "# A Paper\n\nText."), (2, "## Contents\n\n1 Introduction 3\n2 Methods 5\n\n## 1 Introduction\n\nText."),
             (3, "## References\n\n- [1] A. Author. Title. 2020.\n- [2] B. Writer. Title. 2021.")]
    out = engines._reference_bullets(engines._contents_lists(pages))
    assert out[1][1] == "## Contents\n\n- 1 Introduction 3\n- 2 Methods 5\n\n## 1 Introduction\n\nText."
    assert out[2][1] == "## References\n\n[1] A. Author. Title. 2020.\n\n[2] B. Writer. Title. 2021."
    plain = [(n, body.replace("Contents", "Scope").replace("References", "Results")) for n, body in pages]
    assert engines._reference_bullets(engines._contents_lists(plain)) == plain


def test_superscripts_read_no_heading_of_a_page_without_a_mark(monkeypatch):
    # 1,000 "# ..." lines (no section heading: the front matter never ends) and no "[^": each
    # line was tried as the heading that ends the front matter
    pages = [(1, "\n".join(f"# Heading {i}" for i in range(1000))), (2, "Text after, no mark.")]
    calls: list = []
    monkeypatch.setattr(engines, "_SECTION_HEADING", Counted(engines._SECTION_HEADING, calls))
    assert engines._superscripts(pages) == pages
    assert calls == []
    # with a mark: the markers after the front matter become superscripts, defined ones stay
    marked = [(1, "# T\n\nA. Author[^1]"), (2, "# Not a section[^a]\n\n## 1 Intro\n\nText b[^b] and c[^2]."),
              (3, "[^2]: the note")]
    out = engines._superscripts(marked)
    assert [body for _, body in out] == ["# T\n\nA. Author[^1]", "# Not a section[^a]\n\n## 1 Intro\n\nText bᵇ and c[^2].",
                                         "[^2]: the note"]
    no_mark = [(1, "# T\n\n## 1 Intro"), (2, "Text b[^b].")]  # the front matter ends on a page without a mark
    assert engines._superscripts(no_mark)[1][1] == "Text bᵇ."


def test_relevel_reads_the_title_once(monkeypatch):
    pages = [(1, "# A Paper of Tables\n\n" + BODY)]
    calls: list = []
    norm = engines._norm

    def counted(s):
        calls.append(s)
        return norm(s)

    monkeypatch.setattr(engines, "_norm", counted)
    out = engines.relevel(pages, "nougat", {})
    assert out[0][1].startswith("# A Paper of Tables\n\n## Results of part 0\n")
    assert calls.count("A Paper of Tables") <= 3  # (_title_of's own reads); it was read again at every heading
    assert len(calls) < 3 * 300


def test_tidy_reads_each_heading_once_for_both_lists(monkeypatch):
    # (round 23) _contents_lists and _reference_bullets each read every heading for their names
    norm = CountedCall(engines._norm)
    monkeypatch.setattr(engines, "_norm", norm)
    pages = [(1, BODY)]
    assert engines.tidy(pages) == pages
    assert norm.calls == 300  # 600 at 60a8663
    listed = [(1, BODY + "\n## Contents\n\n1 Intro 3\n\n## References\n\n- [1] A. Author. Title. 2020.")]
    assert engines.tidy(listed)[0][1].endswith("## Contents\n\n- 1 Intro 3\n\n## References\n\n[1] A. Author. Title. 2020.")


def test_pipe_rows_are_tried_as_rules_only_with_a_dash(monkeypatch):
    # (round 23) every row of a pipe table was matched against the rule pattern twice
    rule = Counted(engines._TABLE_RULE)
    monkeypatch.setattr(engines, "_TABLE_RULE", rule)
    rows = "\n".join(f"| A{i} | {i}.5 | x |" for i in range(100))
    text = "| Model | Score | Note |\n| - | :-: | --- |\n" + rows + "\n| B | n-a | y |"
    want = "| Model | Score | Note |\n|---|---|---|\n" + rows + "\n| B | n-a | y |"
    assert engines.clean_markdown(text, "docling") == want
    assert rule.calls == 4  # the rule row and the row with a dash, each in two passes; 206 at 60a8663
