"""Round thirteen, search: fuzz seed 1414 case 387 (--kinds wide2 --only index, a tree of one-line
files) ended in a search timeout. A one-line Markdown file's chunk takes its first line as its
title (its symbol), 104 KB there, and ranking turned every candidate's symbol into the name it
defines with ``re.sub(r"[^.]*? for ", "", symbol)``: a lazy scan retried from every start,
quadratic in a name without `` for `` (minutes for 100 KB). These tests run the work in a child
process with a generous limit: before the fix they ran past it, after it they take well under a
second (the limit only catches a hang; speed itself is measured in benchmarks/)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import textwrap

import pytest

from ctxmill.index.rank import _implementor, _leaf

LIMIT_S = 60  # the quadratic scan of the 400 KB name below needs ~10 minutes; the linear one milliseconds


def _old_implementor(symbol: str) -> str:
    """The regex form this round replaced (its results are the contract)."""
    if " for " not in symbol and "<" not in symbol:
        return symbol
    for _ in range(3):
        symbol = re.sub(r"<[^<>]*>", "", symbol)
    return re.sub(r"[^.]*? for ", "", symbol)


def _run(code: str, tmp_path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                              timeout=LIMIT_S, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"did not finish in {LIMIT_S} s: search cost grows faster than the chunk")


@pytest.mark.parametrize("seed", range(5))
def test_the_name_an_impl_adds_to_is_unchanged(seed):
    rnd = random.Random(seed)
    alphabet = ["a", "Type", " ", "for", " for ", ".", "<", ">", "<T>", "impl ", "::"]
    for _ in range(3000):
        s = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 24)))
        assert _implementor(s) == _old_implementor(s), s


def test_known_names():
    assert _implementor("impl FromRequest for Json<T>") == "Json"
    assert _implementor("impl<T> Trait for a::Type") == "a::Type"
    assert _leaf("mod.impl Display for Point") == "Point"


def test_a_long_title_without_for_is_linear(tmp_path):
    # the shape of case 387's title: code soup with "<" (so the generics pass runs) and no " for "
    r = _run("""
        from ctxmill.index.rank import _implementor, _leaf
        name = ("x <<EOF fn from import =[ %{ } */ " * 12_000)[:400_000]  # no ">"
        assert _implementor(name) == name  # no <...> pair, no " for ": unchanged
        assert _leaf(name + " for Point") == "Point"
        print("ok")
    """, tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_search_over_one_line_markdown_files_answers_any_query(tmp_path):
    """Case 387 end to end, smaller: one-line files (Markdown among them), indexed, then the hostile
    query of the case and the ordinary one; the good file is still found."""
    tree = tmp_path / "tree"
    tree.mkdir()
    line = ("\" %{ } ...*/ ` import[0x*/'\t=>x import->x/* }] `} /* \\ from[ fn #[ <<EOF class func " * 1_500)
    for ext in (".md", ".js", ".c", ".txt"):
        # "# " first: the Markdown file's one line is its title, the symbol of each of its chunks
        (tree / f"hostile{ext}").write_text("# " + line[:118_000])
    (tree / "good.py").write_text("def good_function():\n    return 1\n")
    r = _run(f"""
        import json
        from ctxmill.index import search, sync_index
        tree, db = {str(tree)!r}, {str(tmp_path / "index.db")!r}
        sync_index(tree, db_path=db)
        search("\\x01\\x02\\x1b[31m\\x7f", tree, db_path=db, k=10)
        hits = search("good_function", tree, db_path=db, k=10)
        print(json.dumps([h.path for h in hits]))
    """, tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "good.py" in r.stdout.strip().splitlines()[-1]
