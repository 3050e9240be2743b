"""Per-line facts the merge needs: match keys, indentation, block owners, definition names."""

from __future__ import annotations

import operator
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from itertools import accumulate

from ctxmill.apply.markers import is_marker

TAB = 4
_WS = re.compile(r"\s+")
_ALNUM = re.compile(r"[A-Za-z0-9_]")
# A line that only closes something: "}", "});", "]", ")", "end", "</div>", "fi", "done", "*/".
_CLOSER = re.compile(r"^(?:[}\])]+[)\]};,.\s]*|end\b.*|fi|done|esac|</[\w.:-]+>[;,]?|\*/|\)\s*:?)$")
_KEYWORD_DEF = re.compile(
    r"^(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|static|public|private|"
    r"protected|abstract|final|override|unsafe|extern|inline|virtual)\s+)*"
    r"(?:def|class|function\*?|fn|func|struct|enum|trait|interface|type|module|impl|object|"
    r"namespace|record|macro|defp?|defmodule|procedure|sub)\s+([A-Za-z_$][\w$.:]*)"
)
_METHOD = re.compile(
    r"^(?:(?:async|static|public|private|protected|override|readonly|get|set|final|abstract|"
    r"synchronized|virtual|export)\s+)*(?:[\w<>\[\],.?]+\s+)?\*?([A-Za-z_$][\w$]*)\s*\([^;]*$"
)
_BINDING = re.compile(r"^(?:export\s+)?(?:const|let|var|val|static|final)\s+(?:mut\s+)?\[?\{?\s*([A-Za-z_$][\w$]*)")
# Module-level "NAME = ..." / "NAME: type = ..." (only unindented lines: locals repeat too much).
_ASSIGN = re.compile(r"^([A-Za-z_][\w]*)\s*(?::[^=]+)?=(?!=)")
_CALL_NAMED = re.compile(r"^(describe|it|test|context|suite)(?:\.\w+)?\(\s*(['\"`])(.+?)\2")
_TAG = re.compile(r"^<([A-Za-z][\w.:-]*)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*$")
_NOT_NAMES = {"if", "for", "while", "switch", "catch", "return", "else", "elif", "with", "match",
              "loop", "do", "try", "foreach", "until", "unless", "case", "when", "new", "await",
              "yield", "print", "assert", "super", "this", "self"}


_UNSET = object()   # a name not worked out yet
# Whitespace a key may not keep: anything but single spaces between words.
_ODD_WS = re.compile(r"[^\S\n ]|  ")


def key_of(line: str) -> str:
    """Match key: no leading/trailing whitespace, inner runs of whitespace collapsed."""
    return " ".join(line.split())


def indent_cols(line: str) -> int:
    n = len(line) - len(line.lstrip())
    if "\t" not in line[:n]:
        return n
    cols = 0
    for ch in line:
        if ch == " ":
            cols += 1
        elif ch == "\t":
            cols += TAB - cols % TAB
        else:
            break
    return cols


_DEF_WORDS = frozenset("""export default pub async static public private protected abstract final
    override unsafe extern inline virtual def class function function* fn func struct enum trait
    interface type module impl object namespace record macro defp defmodule procedure sub""".split())
_BIND_WORDS = frozenset("export const let var val static final".split())
_CALL_WORDS = ("describe", "it(", "it.", "test", "context", "suite")
_HEADER_ENDS = ("{", ":", "=>", "(", ",")


def name_of(key: str) -> str | None:
    """The defined name a header line introduces ("def foo" -> "foo"), if any."""
    first = key.split(" ", 1)[0]
    c = key[0]
    if first.startswith("pub(") or first in _DEF_WORDS:
        m = _KEYWORD_DEF.match(key)
        if m:
            return m.group(1)
    elif c == "#":
        m = _HEADING.match(key)
        if m:
            return m.group(1) + " " + m.group(2).lower()
        return None
    elif c == "<":
        m = _TAG.match(key)
        return "<" + m.group(1) if m else None
    if key.startswith(_CALL_WORDS):
        m = _CALL_NAMED.match(key)
        if m:
            return f"{m.group(1)}:{m.group(3)}"
    if key.endswith(_HEADER_ENDS):
        m = _METHOD.match(key)
        if m and m.group(1) not in _NOT_NAMES:
            return m.group(1) + "()"
    if first in _BIND_WORDS:
        m = _BINDING.match(key)
        if m:
            return m.group(1)
    return None


def _name_of_slow(key: str) -> str | None:
    m = _KEYWORD_DEF.match(key)
    if m:
        return m.group(1)
    m = _HEADING.match(key)
    if m:
        return m.group(1) + " " + m.group(2).lower()
    m = _CALL_NAMED.match(key)
    if m:
        return f"{m.group(1)}:{m.group(3)}"
    m = _METHOD.match(key)
    if m and m.group(1) not in _NOT_NAMES and (key.endswith(("{", ":", "=>", "(", ",")) or
                                               key.endswith(") {")):
        return m.group(1) + "()"
    m = _BINDING.match(key)
    if m:
        return m.group(1)
    m = _TAG.match(key)
    if m:
        return "<" + m.group(1)
    return None


_CLOSER_FIRST = frozenset("}])efd<*)")   # the first characters _CLOSER can match


def is_closer(key: str) -> bool:
    return bool(key) and bool(_CLOSER.match(key))


def has_word(key: str) -> bool:
    return bool(_ALNUM.search(key))


@dataclass
class Text:
    """A text split into lines, with everything the merge asks about each line."""

    lines: list[str]                      # without line endings
    marker: list[bool]
    keys: list[str] = field(init=False)
    cols: list[int] = field(init=False)
    owner: list[int | None] = field(init=False)
    unit: int = field(init=False)         # indentation step in columns
    tabs: bool = field(init=False)        # indented with tabs
    indented: bool = field(init=False)    # has any indented line at all

    def __post_init__(self) -> None:
        lines = self.lines
        # key_of for every line: stripped in C; only lines with a tab or a run of spaces
        # inside (found by one scan of the joined text) need their whitespace collapsed.
        keys = list(map(str.strip, lines))
        joined = "\n".join(keys)
        row, last, done = 0, 0, -1
        for m in _ODD_WS.finditer(joined):
            row += joined.count("\n", last, m.start())
            last = m.start()
            if row != done:  # once a line: a line of 20,000 double spaces was split 20,000 times
                keys[row] = " ".join(keys[row].split())
                done = row
        self.keys = keys
        # indent_cols, from C-level len/lstrip: only lines with tabs need the column count
        cols = list(map(operator.sub, map(len, lines), map(len, map(str.lstrip, lines))))
        if "\t" in "".join(lines):
            cols = [indent_cols(s) if "\t" in s else c for s, c in zip(lines, cols, strict=True)]
        self.cols = cols
        # Names are worked out when asked for (most lines of a file never are): see name().
        self._names: list = [_UNSET] * len(lines)
        self._joined: tuple[str, list[int]] | None = None
        self.owner = self._owners()
        indented = [s for s in self.lines if s[:1] in (" ", "\t") and s.strip()]
        self.indented = bool(indented)
        self.tabs = bool(indented) and sum(s[0] == "\t" for s in indented) * 2 > len(indented)
        self.unit = self._unit()

    def name(self, i: int) -> str | None:
        """The name line ``i`` defines ("def foo" -> "foo", module-level "X = 1" -> "X=")."""
        n = self._names[i]
        if n is _UNSET:
            k = self.keys[i]
            n = None if self.marker[i] or not k else name_of(k)
            if n is None and k and self.cols[i] == 0 and not self.marker[i]:
                a = _ASSIGN.match(k)
                if a:
                    n = a.group(1) + "="
            self._names[i] = n
        return n

    @property
    def names(self) -> list[str | None]:
        """Every line's name (computes them all: prefer name() or named_lines())."""
        return [self.name(i) for i in range(len(self.keys))]

    def named_lines(self, wanted: set[str], lo: int, hi: int) -> tuple[Counter[str], dict[str, int]]:
        """How often each name in ``wanted`` is defined in lines [lo, hi), and its last line.

        A name is always spelled out in its line ("foo()" in "def foo(x):"), so only lines
        holding that text are asked; headings (lower-cased names) ask every line.
        """
        count: Counter[str] = Counter()
        where: dict[str, int] = {}
        if not wanted or lo >= hi:
            return count, where
        rows: set[int] = set()
        if any(w.startswith("#") for w in wanted):
            rows.update(range(lo, hi))
        else:
            if self._joined is None:
                self._joined = ("\n".join(self.keys),
                                [e + i for i, e in enumerate(accumulate(map(len, self.keys)))])
            text, ends = self._joined
            start = ends[lo - 1] + 1 if lo > 0 else 0
            stop = ends[hi - 1]
            for w in wanted:
                token = w.rstrip("()=")
                if ":" in token:
                    token = token.split(":", 1)[1] or token
                at = text.find(token, start, stop)
                while at >= 0:
                    j = bisect_left(ends, at)
                    rows.add(j)
                    at = text.find(token, ends[j] + 1, stop)  # next line: one hit per line
        for j in sorted(rows):
            n = self.name(j)
            if n in wanted:
                count[n] += 1
                where[n] = j
        return count, where

    @classmethod
    def from_lines(cls, lines: list[str]) -> Text:
        return cls(lines, [is_marker(s) for s in lines])

    def _owners(self) -> list[int | None]:
        # The owner of a line is the header of the block it sits in: the nearest earlier
        # non-blank line indented less (or, for a closing "}", indented the same).
        owners: list[int | None] = []
        stack: list[int] = []  # earlier non-blank lines, indentation strictly increasing
        cols, marker = self.cols, self.marker
        for i, k in enumerate(self.keys):
            if marker[i]:
                # A marker may hide block headers at any depth: nothing after it can be
                # said to sit in a block opened before it.
                stack.clear()
                owners.append(None)
                continue
            if not k:
                owners.append(None)
                continue
            c = cols[i]
            if k[0] in _CLOSER_FIRST and _CLOSER.match(k):
                while stack and cols[stack[-1]] > c:
                    stack.pop()
                owners.append(stack[-1] if stack and cols[stack[-1]] == c else None)
                while stack and cols[stack[-1]] >= c:
                    stack.pop()  # the block is closed; the closer owns nothing
                continue
            while stack and cols[stack[-1]] >= c:
                stack.pop()
            owners.append(stack[-1] if stack else None)
            stack.append(i)
        return owners

    def _unit(self) -> int:
        steps: Counter[int] = Counter()
        prev = None
        for k, c, m in zip(self.keys, self.cols, self.marker, strict=True):
            if not k or m:
                continue
            if prev is not None and c > prev:
                steps[c - prev] += 1
            prev = c
        if not steps:
            return TAB if self.tabs else 2
        return steps.most_common(1)[0][0]

    def opener_end(self, i: int, hi: int) -> int | None:
        """Index of the line closing the block opened at ``i`` (same indent, a closer), before ``hi``."""
        c = self.cols[i]
        deeper = False
        for j in range(i + 1, min(hi, len(self.keys))):
            k = self.keys[j]
            if not k:
                continue
            if self.marker[j]:
                if self.cols[j] <= c:
                    return None
                deeper = True
                continue
            if self.cols[j] > c:
                deeper = True
                continue
            if deeper and self.cols[j] == c and is_closer(k):
                return j
            return None
        return None

    def block_end(self, i: int) -> int:
        """End (exclusive) of the block headed by line ``i``: its deeper lines and closer."""
        c = self.cols[i]
        end = i + 1
        for j in range(i + 1, len(self.keys)):
            k = self.keys[j]
            if not k:
                continue
            if self.cols[j] > c:
                end = j + 1
                continue
            if self.cols[j] == c and end > i + 1 and is_closer(k) and not self.marker[j]:
                return j + 1
            break
        return end

    def definer(self, i: int) -> int | None:
        """The nearest enclosing line that defines something (def, class, function...)."""
        j = self.owner[i]
        while j is not None:
            n = self.name(j)
            if n is not None and not n.endswith("=") and not n.startswith("<"):
                return j
            j = self.owner[j]
        return None

