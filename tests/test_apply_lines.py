"""Per-line facts: names worked out on demand agree with asking every line."""

from __future__ import annotations

from ctxmill.apply.lines import Text

SRC = """import os

LIMIT = 3


def load(path):
    return open(path).read()


class Store:
    def load(self, key):
        return key

    def save(self, key):
        return key
""".split("\n")

MD = ["# Guide", "", "## Install", "text", "", "## Use", "more", "", "## install"]


def test_named_lines_matches_every_line_asked():
    t = Text(SRC, [False] * len(SRC))
    every = [t.name(i) for i in range(len(SRC))]
    wanted = {"load", "save", "LIMIT=", "Store:", "missing"}
    count, where = t.named_lines(wanted, 0, len(SRC))
    for name in wanted:
        rows = [i for i, n in enumerate(every) if n == name]
        assert count.get(name, 0) == len(rows)
        if rows:
            assert where[name] == rows[-1]
    assert count["load"] == 2 and count["Store:"] == 1 and "missing" not in count


def test_named_lines_counts_only_inside_the_stretch():
    t = Text(SRC, [False] * len(SRC))
    inside = SRC.index("class Store:")
    count, where = t.named_lines({"load"}, inside, len(SRC))
    assert count["load"] == 1 and where["load"] == inside + 1


def test_headings_are_named_case_blind():
    t = Text(MD, [False] * len(MD))
    count, _ = t.named_lines({"## install"}, 0, len(MD))
    assert count["## install"] == 2
