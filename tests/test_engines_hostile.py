"""Hostile OCR-engine outputs (fuzz.py --kinds wide3, round32_fuzz_rule.md): a malformed block is
read as well as it can be and never takes the words of the blocks around it, or the compile, with it."""

from __future__ import annotations

import json

from ctxmill.sources import engines


def _words(et: engines.EngineText) -> str:
    return "\n".join(b for _, b in et.pages) + "\n" + "\n".join(t for _, _, t in et.removed)


def _chandra(label: str, body: str) -> str:
    return f'<div data-bbox="1 2 3 4" data-label="{label}">{body}</div>\n'


def test_unclosed_img_tag_keeps_the_blocks_after_it():
    text = (_chandra("Text", "<p>Alpha words zqalpha here.</p>") + _chandra("Table", "<img src=<img src=<img src=\n")
            + _chandra("Text", "<p>Beta words zqbeta here.</p>") + _chandra("Text", "<p>Gamma has 3 > 2 in it zqgamma.</p>"))
    assert engines.sniff_engine(text) == "chandra"
    out = _words(engines.to_pages(text, "chandra"))
    for w in ("zqalpha", "zqbeta", "zqgamma"):
        assert w in out


def test_unclosed_p_tag_keeps_its_words():
    text = _chandra("Text", '<p class="x words zqinside here</p>') + _chandra("Text", "<p>Next block zqnext.</p>")
    out = _words(engines.to_pages(text, "chandra"))
    assert "zqnext" in out and "zqinside" in out


def _dots(blocks: list) -> str:
    return json.dumps([{"bbox": [1, 2, 3, 4], "category": "Text", "text": "First block zqfirst."}] + blocks)


def test_dots_nested_past_the_recursion_limit_is_read_not_exit_1():
    text = _dots([])[:-1] + ", " + "[" * 200_000 + "]" * 200_000 + ', {"bbox": [1, 2, 3, 4], "category": "Text", ' \
        '"text": "Last block zqlast."}]'
    assert engines.sniff_engine(text) == "dots-ocr"
    out = _words(engines.to_pages(text, "dots-ocr"))
    assert "zqfirst" in out and "zqlast" in out


def test_dots_one_bad_block_does_not_drop_the_ones_after_it():
    text = _dots([])[:-1] + ', {"category": "Text", "text": "bad \\q escape"}, ' \
        '{"bbox": [1, 2, 3, 4], "category": "Text", "text": "After the bad one zqafter."}]'
    out = _words(engines.to_pages(text, "dots-ocr"))
    assert "zqfirst" in out and "zqafter" in out


def test_dots_deep_objects_cost_is_bounded():
    import time

    text = _dots([])[:-1] + ", " + '{"a": ' * 100_000
    t = time.process_time()
    out = _words(engines.to_pages(text, "dots-ocr"))
    assert "zqfirst" in out
    assert time.process_time() - t < 10  # (unbounded retries: one try per "{", each to the limit)


def _mineru(blocks: list) -> str:
    return json.dumps([{"type": "text", "text": "Body words zqbody.", "page_idx": 0}] + blocks)


def test_mineru_text_level_not_a_number_is_text_not_exit_1():
    for level in ("x", [1], float("nan"), "1e999", {"a": 1}):
        text = _mineru([{"type": "text", "text": "Odd level zqodd", "text_level": level, "page_idx": 0}])
        out = _words(engines.to_pages(text, "mineru-json"))
        assert "zqodd" in out and "zqbody" in out


def test_mineru_caption_as_one_string_is_one_caption():
    text = _mineru([{"type": "image", "img_path": "images/a.jpg", "image_caption": "Figure 1: zqcaption words"}])
    out = _words(engines.to_pages(text, "mineru-json"))
    assert "zqcaption" in out


def test_doctags_unclosed_element_does_not_swallow_the_blocks_after_it():
    text = ("<doctag><text><loc_1><loc_2><loc_3><loc_4>Before zqbefore.</text>\n<picture><picture>x\n"
            "<text><loc_1><loc_2><loc_3><loc_4>Swallowed before zqmiddle.</text>\n"
            "<text><loc_1><loc_2><loc_3><loc_4>Unclosed text zqunclosed\n"
            "<picture><loc_1><loc_2><loc_3><loc_4></picture>\n"
            "<text><loc_1><loc_2><loc_3><loc_4>After zqafter.</text>\n</doctag>")
    assert engines.sniff_engine(text) == "doctags"
    out = _words(engines.to_pages(text, "doctags"))
    for w in ("zqbefore", "zqmiddle", "zqunclosed", "zqafter"):
        assert w in out, w


# round33_fuzz_rule.md C1: a whole-text pattern "^\s*..." under re.M was tried at every line start of
# a run of blank lines, each try reading the rest of the run (quadratic; the cost is measured in
# benchmarks/fuzz.py --scaling, shapes blank_run and chandra_hostile). The rewrites now go through
# _sub_at_line_starts, which must give exactly what re.sub gave, on every shape of blanks.
_LINE_RULES = ("_IMAGE_COMMENT_LINE", "_LATEX_HEAD_LINE", "_LATEX_AUTHOR_LINE", "_LATEX_ABSTRACT_LINE",
               "_LATEX_LIST_LINE", "_LATEX_ITEM_LINE", "_LATEX_PARAGRAPH_LINE")
_PIECES = ("\n", "\n", "\n\n", " ", "\t", "\r", "\x0c", "\u2028", "\u3000", "\x1c", "x", "word ", "\\", "{", "}",
           "\\item ", "\\item\n", "\\section{A}", "\\section*{B {c}}", "\\title{T", "\\author{A \\\\ B}",
           "\\author{C \\and D}\n", "\\begin{abstract}", "\\end{abstract}", "\\begin{itemize}", "\\end{enumerate}",
           "\\maketitle", "\\paragraph{P}", "\\paragraph*{Q} ", "<!-- image -->", "<!--image-->", "<!-- IMAGE  -->",
           "<!--", "-->", "<!-- x -->")


def _hostile_texts():
    import random

    rnd = random.Random(3301)
    fixed = ["", "\n", "<!-- image -->", "a\n\n<!-- image -->\n\nb", "<!-- image -->\n\n\n<!-- image -->",
             "<!-- image -->\n \n<!-- image -->x", " \n \n\\item a\n\n\n\\item b", "\\item\\item\n\\item",
             "x\\section{A}\n\\section{B}\n\n", "\n" * 50 + "\\paragraph{P} text", "\\author{A \\\\ B}\n\n\\author{C}",
             "y\n" + " \n" * 30 + "<!-- image --> \n \nz", "<!-- image -->\r\n<!-- image -->", "\u2028\n<!-- image -->"]
    rand = ["".join(rnd.choice(_PIECES) for _ in range(rnd.randint(1, 40))) for _ in range(3000)]
    return fixed + rand


def test_line_rewrites_give_what_re_sub_gave_on_every_shape_of_blanks():
    texts = _hostile_texts()
    for name in _LINE_RULES:
        rx, lead = getattr(engines, name)
        for repl in ("[R]", r"<\g<0>>", lambda m: "{" + m.group(0) + "}"):  # (a text, a template, a function)
            for t in texts:
                assert engines.sub_at_line_starts(rx, lead, repl, t) == rx.sub(repl, t), (name, t)
                # (and with the coarsest start, any backslash or "<": the same text)
                assert engines.sub_at_line_starts(rx, r"[<\\]", repl, t) == rx.sub(repl, t), (name, t)


def test_line_rewrites_try_each_command_once_not_each_blank_line():
    # the structure of the fix, not its time: one try of the pattern per line that starts with its
    # command, whatever the number of blank lines before it (re.sub tried every line start of the run)
    class Counting:
        def __init__(self, rx):
            self.rx, self.tries = rx, 0

        def match(self, text, pos):
            self.tries += 1
            return self.rx.match(text, pos)

    rx = Counting(engines._LATEX_ITEM_LINE[0])
    text = "\\item a\n" + " \n" * 10_000 + "word \\item b\n" + "\n" * 10_000 + "\\item c\n\\section{x}\n\\end{x}"
    out = engines.sub_at_line_starts(rx, engines._LATEX_ITEM_LINE[1], r"\1- ", text)
    # (the middle \\item is no line's first word; the lines of other commands are not tried either)
    assert out == engines._LATEX_ITEM_LINE[0].sub(r"\1- ", text) and rx.tries == 2


def test_sniffers_give_the_same_answer_with_blanks_of_their_own_line():
    import re

    from ctxmill.sources import _OCR_HINTS

    old = re.compile(r"^\s*[─━—–=\-]{1,}\s*PAGE\s+\d+\s*(?:/|of)\s*\d+\s*[─━—–=\-]{1,}\s*$", re.M | re.I)
    old_wrapped = re.compile(r"^\s*[#|]|\$\$|\\\(|<table", re.M)
    new_wrapped = re.compile(r"^[^\S\n]*[#|]|\$\$|\\\(|<table", re.M)
    pieces = ("\n", "\n\n", " ", "\t", "\u3000", "x", "── PAGE 2 / 9 ──", "-- page 3 of 4 --", "#", "|", "$$")
    import random

    rnd = random.Random(3302)
    for _ in range(3000):
        t = "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 30)))
        assert bool(engines._PAGED_TEXT.search(t)) == bool(old.search(t)) == bool(_OCR_HINTS[0].search(t)), t
        assert bool(new_wrapped.search(t)) == bool(old_wrapped.search(t)), t


def test_marker_json_cut_short_keeps_its_complete_blocks():
    # round33_fuzz_rule.md M1: a marker tree cut short did not parse, and the complete objects the
    # prefix reader gave (a list) were not read: the file was refused as "holds no text"
    def block(page: int, k: int, words: str) -> dict:
        return {"id": f"/page/{page}/Text/{k}", "block_type": "Text", "html": f"<p>{words}</p>", "children": None}

    def page(n: int, *blocks: dict) -> dict:
        return {"id": f"/page/{n}/Page/0", "block_type": "Page", "html": f"<content-ref src='/page/{n}/Text/0'>"
                "</content-ref>", "children": list(blocks)}

    tree = json.dumps({"children": [page(0, block(0, 0, "First block zqfirst."), block(0, 1, "Second zqsecond.")),
                                    page(1, block(1, 0, "Third zqthird."), block(1, 1, "Fourth zqfourth."))],
                       "block_type": "Document"}, indent=2)
    cut = tree[:tree.index("zqfourth")]
    assert engines.sniff_engine(cut, "paper.json") == "marker-json"
    out = _words(engines.to_pages(cut, "marker-json"))
    for w in ("zqfirst", "zqsecond", "zqthird"):
        assert w in out
    assert "zqfourth" not in out  # (cut: never written out in full)
