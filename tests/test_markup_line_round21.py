"""The markup and line stages, round twenty-one (issue 26, speed only): each rewritten step gives
what the step it replaced gave, on generated inputs (hypothesis), and does less work where a
shape of text input made it read line by line (counted, not timed)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from _counting import Counted, recorded
from ctxmill.compile import headings
from ctxmill.model import Block, Kind

# ------------------------------------------------------------------ headings._entry_share


def _share_line_by_line(texts: list[str]) -> float:
    """_entry_share as it read every line (a6b339d, without its memo): the reference."""
    lines = [t.strip() for t in texts if t.strip()]
    if not lines:
        return 0.0
    return sum(1 for t in lines if headings._entry_line(t)) / len(lines)


_PIECES = ["Intro", "Heading", "// note", "| 1 | 2 |", "2.1 Methods", "see Fig.", "Fig.", "Figs.", "Eq.", "pp.",
           "app.", "Vol.", "No.", "xFig.", "Results . . .", "Appendix", " ", "", ".", "\t", "\r", "\xa0", "x" * 200,
           "é", "ǅ", "²", "٣", "ii", "xii", "cl", "v", "1", "12", "123", "1234", "12345", "iv", "Ch.", "A line."]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=4).map(" ".join)
                | st.lists(st.sampled_from(_PIECES), min_size=1, max_size=4).map("".join),
                min_size=1, max_size=40), st.booleans())
def test_entry_share_is_the_share_line_by_line(texts, strip):
    # stripped, non-empty lines (a block joined from tiny lines) take the joined road; others not
    if strip:
        texts = [t.strip() for t in texts if t.strip()] or ["x"]
    b = Block(Kind.PARAGRAPH, "\n".join(texts), 1, attrs={"_line_texts": texts})
    assert headings._entry_share(b) == _share_line_by_line(texts)
    assert headings._entry_share(b, {}) == _share_line_by_line(texts)


def test_a_block_of_many_distinct_lines_is_read_in_one_search(monkeypatch):
    # a file of "# Heading N" lines (no outline) or "// note N" comments: blocks of 256 distinct
    # lines, 1,117 of them a MB, each line read by _entry_line (two searches) at a6b339d
    calls = recorded(monkeypatch, headings, "_entry_line")
    for make, share in ((lambda k: f"Heading {k}", 1.0), (lambda k: f"// note {k}", 1.0),
                        (lambda k: f"| {k} | {2 * k} | x |", 0.0), (lambda k: f"see Fig. {k}", 0.0)):
        lines = [make(k) for k in range(256)]
        b = Block(Kind.PARAGRAPH, "\n".join(lines), 1, attrs={"_line_texts": lines})
        assert headings._entry_share(b, {}) == share
        assert headings.toc_blocks([b], maybe=[]) == ({0} if share >= 0.6 else set())
        if share:
            assert calls == []  # a6b339d: 512 (each line, by _entry_share and again by toc_blocks)
    # lines ending in a cited number ("see Fig. 12") are the one case still read line by line
    assert len(calls) == 2 * 256


# ------------------------------------------------------------------ sources.engines: inline tags


def _tags_every_rewrite(s: str, cell: bool) -> str:
    """_clean_inline's tag rewrites as at a6b339d: all seven on every line holding a "<"."""
    from ctxmill.sources import engines as e

    s = e._SUP_TAG.sub(lambda m: e._mark(m.group(1)), s)
    s = e._SUB_TAG.sub(r"\1", s)
    s = e._BOLD_TAG.sub("**", s)
    s = e._ITALIC_TAG.sub("*", s)
    s = e._BR_TAG.sub(" " if cell else "\n\n", s)
    s = e._INLINE_TAG.sub("", s)
    return e._HTML_COMMENT.sub("", s)


_TAG_PIECES = ["<", ">", "/", "<sup>", "</sup>", "<SUP>", "<ſup>", "<sub>", "</SUB>", "<b>", "</b>", "<B>",
               "<strong>", "</STRONG>", "<i>", "</i>", "<İ>", "<ı>", "<em>", "</EM>", "<br>", "<BR/>", "<br />",
               "<span>", "</span>", "<font x>", "<p>", "<!--", "-->", "<a id='x'></a>", "<span id=\"y\"></span>",
               "1", "x", " ", "\\dagger", "a,b", "é", "K", "su", "p>", "b", "r", "!--", "<img>", "<|ref|>", "<image>"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_TAG_PIECES), min_size=1, max_size=14).map("".join), st.booleans())
def test_tag_rewrites_run_where_their_tag_is_are_every_rewrite(s, cell):
    from ctxmill.sources import engines as e

    assert e._tags(s, cell) == _tags_every_rewrite(s, cell)


def _clean_inline_a6b339d(s: str, engine: str, cell: bool = False) -> str:
    """engines._clean_inline as at a6b339d (every tag rewrite on a line holding a "<")."""
    import html

    from ctxmill.sources import engines as e

    if e._INLINE_MARKUP.isdisjoint(s):
        return s.rstrip() if not cell else s
    if "<" in s:
        s = e._ANCHOR_A.sub("", s)
        s = e._ANCHOR_SPAN.sub("", s)
    if "](#" in s:
        s = e._PAGE_LINK.sub(r"\1", s)
    if "\\[" in s:
        s = e._ESCAPED_NUMBER.sub(r"[\1]", s)
    if "^" in s and "$" in s:
        s = e._SUP_DOLLAR.sub(lambda m: e._mark(m.group(1)), s)
        s = e._SUP_DOLLAR_ONE.sub(lambda m: e._mark(m.group(1)), s)
    if "^" in s and "\\(" in s:
        s = e._SUP_PAREN.sub(lambda m: e._mark(m.group(1)), s)
    if "<" in s:
        s = _tags_every_rewrite(s, cell)
        if engine != "deepseek-ocr":
            s = e._PROMPT_TOKENS.sub(lambda m: f"`{m.group(0)}`", s)
    s = e._unpad_math(s)
    if "&" in s:
        s = html.unescape(s)
    if engine in ("mistral", "marker", "paddleocr-vl", "mineru", "docling") and "\\" in s:
        s = e._unescape_outside_math(s)
    if s.rstrip().endswith("  "):
        s = s.rstrip()
    return s.rstrip() if not cell else s


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_TAG_PIECES + ["$", "^", "{1}", "&amp;", "\\[", "\\]", "](#x)", "[", "\\("]),
                min_size=1, max_size=14).map("".join), st.booleans(), st.sampled_from(["text", "deepseek-ocr", "marker"]))
def test_a_line_is_cleaned_as_every_rewrite_cleaned_it(s, cell, engine):
    from ctxmill.sources import engines as e

    assert e._clean_inline(s, engine, cell) == _clean_inline_a6b339d(s, engine, cell)


# ------------------------------------------------------------------ sources.engines: LaTeX passes


def _latex_envs_a6b339d(text: str) -> str:
    import re

    from ctxmill.sources import engines as e

    pieces = re.split(r"(\$\$.*?\$\$)", text, flags=re.S)
    for k in range(0, len(pieces), 2):
        t = pieces[k]
        t = re.sub(r"\\begin\{figure\*?\}(.*?)\\end\{figure\*?\}", e._latex_figure, t, flags=re.S)
        t = re.sub(rf"\\begin\{{({e._MATH_ENVS})\}}.*?\\end\{{\1\}}", lambda m: f"\n\n$$\n{m.group(0).strip()}\n$$\n\n",
                   t, flags=re.S)
        t = re.sub(r"\\begin\{(algorithm\*?|algorithmic|lstlisting|verbatim|minted)\}(?:\{[^}]*\})?(.*?)\\end\{\1\}",
                   lambda m: "\n\n```\n" + m.group(2).strip("\n") + "\n```\n\n", t, flags=re.S)
        t = re.sub(r"\\caption\{((?:[^{}]|\{[^{}]*\})*)\}", lambda m: "\n\n" + e._latex_text(m.group(1)) + "\n\n", t)
        # (round33_ocr_rule.md W3: an environment inside inline $...$ math keeps its commands)
        t = "".join(p if j % 2 else re.sub(
            r"\\(?:begin|end)\{[a-zA-Z*]+\}(?:\[[^\]]*\])?(?:\{[^{}]*\})?|\\includegraphics(?:\[[^\]]*\])?\{[^}]*\}"
            r"|\\label\{[^}]*\}|\\centering\b", "", p) for j, p in enumerate(re.split(r"((?<![\\$])\$[^$\n]+\$)", t)))
        pieces[k] = t
    return "".join(pieces)


def _latex_structure_a6b339d(text: str) -> str:
    import re

    from ctxmill.sources import engines as e

    if "\\" not in text:
        return text

    def head(m):
        return "\n\n" + "#" * e._LATEX_HEADS[m.group(1)] + " " + e._latex_text(m.group(2)) + "\n\n"

    text = re.sub(r"^\s*\\(title|section|subsection|subsubsection)\*?\{((?:[^{}]|\{[^{}]*\})*)\}\s*$", head, text,
                  flags=re.M)
    text = re.sub(r"^\s*\\author\{((?:[^{}]|\{[^{}]*\})*)\}\s*$",
                  lambda m: "\n\n" + re.sub(r"\s*\\\\\s*|\s*\\and\s*", "\n\n", m.group(1)).strip() + "\n\n",
                  text, flags=re.M | re.S)
    text = re.sub(r"^\s*\\begin\{abstract\}\s*", "\n\n## Abstract\n\n", text, flags=re.M)
    text = re.sub(r"^\s*\\(?:end\{abstract\}|begin\{(?:itemize|enumerate|document)\}|end\{(?:itemize|enumerate|document)\}"
                  r"|maketitle)\s*$", "", text, flags=re.M)
    text = re.sub(r"^(\s*)\\item\s+", r"\1- ", text, flags=re.M)
    return re.sub(r"^\s*\\paragraph\*?\{([^{}]*)\}\s*", r"**\1** ", text, flags=re.M)


_LATEX_PIECES = ["\\begin{figure}", "\\end{figure}", "\\begin{equation}", "\\end{equation}", "\\begin{align*}",
                 "\\end{align*}", "\\begin{algorithm}", "\\end{algorithm}", "\\caption{", "\\label{x}", "\\centering",
                 "\\includegraphics{a}", "\\begin{itemize}", "\\end{itemize}", "\\item ", "\\section{", "\\section*{",
                 "\\title{", "\\subsection{", "\\author{", "\\and", "\\\\", "\\begin{abstract}", "\\end{abstract}",
                 "\\maketitle", "\\paragraph{", "\\textbf{", "\\ite", "m", "\\", "{", "}", "$$", "$", "\n", " ", "x",
                 "A", "\t", "section", "\\begin{document}"]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_LATEX_PIECES), min_size=1, max_size=24).map("".join))
def test_latex_passes_run_where_their_commands_are_as_before(text):
    from ctxmill.sources import engines as e

    assert e._latex_envs(text) == _latex_envs_a6b339d(text)
    assert e._latex_structure(text) == _latex_structure_a6b339d(text)


# ------------------------------------------------------------------ blocks._coalesce_tiny


_TINY_PIECES = ["Heading", "Table", "Fig", "Figure", "Listing", "Algorithm", "A", "B.", "C ", "1", "2.1", "²", "é", "K",
                "abstract", "ABSTRACT", "Related Work", "related work", " ", "\t", "x", ".", "References",
                "introduction", "İntroduction", "\x1c", "5 Results", "IV", "aaaaaaaaa", "Conclusions"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_TINY_PIECES), min_size=1, max_size=3).map("".join), min_size=1, max_size=30))
def test_tiny_flags_are_tiny_text_line_by_line(texts):
    from ctxmill.compile import blocks

    assert blocks._tiny_flags(texts) == [len(t) <= blocks.TINY_CHARS and blocks._tiny_text(t) for t in texts]


def test_a_run_of_distinct_tiny_lines_is_read_by_one_search(monkeypatch):
    # 1,000 "# Heading N" lines (no outline: one-line paragraphs) joined into paragraphs of tiny
    # lines; at a6b339d each was read by _tiny_text
    from ctxmill.compile import blocks
    from ctxmill.model import Line, Page

    calls = []
    real = blocks._tiny_text
    monkeypatch.setattr(blocks, "_tiny_text", lambda t: calls.append(t) or real(t))
    lines = [f"# Heading {k}" for k in range(1000)] + ["# Introduction", "# 2 Results"]
    page = Page(number=1, lines=[Line(t) for t in lines])
    out = blocks._coalesce_tiny(blocks._text_blocks(page, True), 1)
    assert [b.text.count("\n") + 1 for b in out[:4]] == [256, 256, 256, 232]
    assert [b.text for b in out[4:]] == ["Introduction", "2 Results"]
    assert sorted(calls) == ["2 Results", "Introduction"]  # a6b339d: 1,002 (all but the heading kept)


def test_a_line_of_html_soup_runs_the_rewrites_of_its_own_tags(monkeypatch):
    from ctxmill.sources import engines as e

    calls: list[str] = []
    for name in ("_ANCHOR_A", "_ANCHOR_SPAN", "_SUP_TAG", "_SUB_TAG", "_BOLD_TAG", "_ITALIC_TAG", "_BR_TAG",
                 "_INLINE_TAG", "_HTML_COMMENT", "_PROMPT_TOKENS"):
        monkeypatch.setattr(e, name, Counted(getattr(e, name), calls, ("sub",)))
    line = "<div>cache</div> evicts <sup>1</sup> keys</td>"
    assert e._clean_inline(line, "text") == "<div>cache</div> evicts [^1] keys</td>"
    # a6b339d: all ten (anchors, seven tag rewrites, prompts) on every line holding a "<"
    assert sorted(calls) == sorted([e._SUP_TAG.pattern, e._INLINE_TAG.pattern])


def test_latex_structure_runs_the_passes_of_its_commands(monkeypatch):
    # a page of LaTeX tables holds none of the commands of _latex_structure's six passes but
    # \end{...}: one pass runs (a6b339d: six, each a pattern from "^" under re.M)
    import re

    from ctxmill.sources import engines as e

    calls = []
    real = re.sub
    monkeypatch.setattr(e.re, "sub", lambda p, *a, **k: calls.append(p) or real(p, *a, **k))
    # (the passes run through _sub_at_line_starts since round33_fuzz_rule.md C1: counted there too)
    line_sub = e.sub_at_line_starts
    monkeypatch.setattr(e, "sub_at_line_starts", lambda rx, *a: calls.append(rx.pattern) or line_sub(rx, *a))
    text = "Model & Score \\\\\nA3 & \\textbf{93} \\\\\n\\end{tabular} stray end 1\n"
    assert e._latex_structure(text) == text
    assert len(calls) == 1
