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
