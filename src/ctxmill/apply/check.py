"""Does a text still parse? tree-sitter grammars for the languages the index covers."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from ctxmill import parse_guard
from ctxmill.grammars import GRAMMARS, get_parser, parse_bounded

EXTENSIONS = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript",
    ".cjs": "javascript", ".jsx": "javascript", ".ts": "typescript", ".mts": "typescript",
    ".cts": "typescript", ".tsx": "tsx", ".go": "go", ".rs": "rust", ".java": "java", ".c": "c",
    ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".php": "php", ".kt": "kotlin", ".kts": "kotlin",
    ".swift": "swift", ".scala": "scala", ".lua": "lua", ".sh": "bash", ".bash": "bash",
    ".ex": "elixir", ".exs": "elixir", ".hs": "haskell", ".zig": "zig",
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
}
ALIASES = {"js": "javascript", "ts": "typescript", "py": "python", "rs": "rust", "jsx": "javascript",
           "c#": "csharp", "c++": "cpp", "sh": "bash", "shell": "bash", "golang": "go", "md": "markdown"}


def language_for(path: str | None, hint: str | None = None) -> str | None:
    if hint:
        h = hint.lower()
        return ALIASES.get(h, h)
    if not path:
        return None
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return EXTENSIONS.get(name[dot:].lower()) if dot >= 0 else None


def _parser(lang: str):
    """The shared parser of ``lang`` (ctxmill.grammars), or None: no grammar, no parse check."""
    if lang not in GRAMMARS:
        return None
    try:
        return get_parser(lang)
    except Exception:  # grammar not installed: no parse check for this language
        return None


def first_error(text: str, lang: str | None) -> int | None | bool:
    """1-based line of the first syntax error; None when it parses; False when we cannot tell
    (no grammar, a parse past its bound, a grammar that crashed on it)."""
    if (_parser(lang) if lang else None) is None:
        return False
    try:
        return _guarded(lang, _size(text), _first_error, text, lang)
    except parse_guard.GrammarCrashed:
        return False


def _first_error(text: str, lang: str) -> int | None | bool:
    tree = parse_bounded(_parser(lang), text.encode("utf-8", "surrogatepass"))
    if tree is None:
        return False
    root = tree.root_node
    if not root.has_error:
        return None
    return _error_line(root)


def new_error(original: str, result: str, lang: str | None) -> int | None:
    """1-based line of a syntax error ``result`` has where ``original`` parsed cleanly; None when
    it has none, or when that cannot be checked (no grammar, a parse past its bound, a grammar
    that crashed on the text in the grammar child: see :func:`_guarded`)."""
    if (_parser(lang) if lang else None) is None:
        return None
    try:
        return _guarded(lang, max(_size(original), _size(result)), _new_error, original, result, lang)
    except parse_guard.GrammarCrashed:
        return None


def _size(text: str) -> int:
    """UTF-8 length of ``text`` (what parse_guard's size rule counts), without encoding ASCII."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _guarded(lang: str, size: int, func, *args):
    """``func(*args)`` where the index's chunker would parse this input (parse_guard.needed):
    in the grammar child for a grammar seen crashing or a large (possibly hostile) input, in
    process otherwise. The check only sends back a line number, like chunking; in process it
    is bounded in work all the same (grammars.parse_bounded). Small files of other grammars
    stay here because the child costs a short command a fork: sending every check there cost
    `ctxmill apply` 10-20% of its CPU on each Continue fixture that reaches the check
    (benchmarks/apply_command.py, docs/limits.md)."""
    if parse_guard.needed(lang, size):
        return parse_guard.call(func, *args)
    return func(*args)


def _new_error(original: str, result: str, lang: str) -> int | None:
    """1-based line of a syntax error ``result`` has where ``original`` parsed cleanly.

    Most edits touch one top-level definition of a file, so the check first parses only the
    stretch of whole top-level paragraphs around the edit, once as it was and once as it is
    now: the bytes before and after it are the same in both files. When the old stretch parses
    on its own and the new one does too, the result parses wherever the original did. Anything
    else (the old stretch does not parse on its own, the new one has an error, the stretch is
    most of the file) is decided on the whole file: the original parsed once, the result
    re-parsed incrementally from that tree.
    """
    parser = _parser(lang)
    old = original.encode("utf-8", "surrogatepass")
    new = result.encode("utf-8", "surrogatepass")
    p = common_prefix(old, new)
    q = common_suffix(old, new, p)
    region = _region(old, new, p, q)
    if region is not None:
        a, b, b_new = region
        if (b - a) * 3 < len(old) * 2:  # a stretch that is most of the file: parse it whole
            old_r, new_r = old[a:b], new[a:b_new]
            tree = parse_bounded(parser, old_r)
            if tree is not None and not tree.root_node.has_error:
                # the new stretch re-parsed from the old one's tree: only the edit is new
                _edit(tree, old_r, new_r, p - a, q - (len(old) - b))
                again = parse_bounded(parser, new_r, tree)
                if again is not None and not again.root_node.has_error:
                    return None
    return _whole_file_error(parser, old, new, p, q)


def _edit(tree, old: bytes, new: bytes, p: int, q: int) -> None:
    """Tell ``tree`` (parsed from ``old``) that bytes [p, len(old) - q) became new[p:len(new) - q]."""

    def point(buf: bytes, at: int) -> tuple[int, int]:
        row = buf.count(b"\n", 0, at)
        return row, at - (buf.rfind(b"\n", 0, at) + 1)

    tree.edit(start_byte=p, old_end_byte=len(old) - q, new_end_byte=len(new) - q,
              start_point=point(old, p), old_end_point=point(old, len(old) - q),
              new_end_point=point(new, len(new) - q))


def _whole_file_error(parser, old: bytes, new: bytes, p: int, q: int) -> int | None:
    tree = parse_bounded(parser, old)
    if tree is None or tree.root_node.has_error:
        return None  # it did not parse before (or past the bound): nothing to compare with
    _edit(tree, old, new, p, q)
    again = parse_bounded(parser, new, tree)
    if again is None or not again.root_node.has_error:
        return None  # (past the bound: not checked)
    return _error_line(again.root_node)


# A word that only continues the statement above it, never starts one at the top level.
_CONTINUES = re.compile(rb"(?:else|elif|except|finally|catch|case|default|rescue|ensure|end|when|"
                        rb"then|do|done|fi|esac|in|and|or|is|as)\b")


_ENDS_OPEN = tuple(b"\\,([{=+-*/%|&.:?<>!^~")  # a line ending so goes on below
_DELIMS = (b'"""', b"'''", b"/*", b"*/")


def _top_start(buf: bytes, ls: int) -> bool:
    """Does the line at byte ``ls`` look like the start of a top-level statement? Column 0, a
    first character that starts a statement or definition (a letter, _, $ or @) and not a word
    that continues one (else, except, catch...); the line above is blank or ends a statement
    (no trailing operator, comma, open bracket or backslash, not a decorator)."""
    if ls == 0:
        return True
    c = buf[ls:ls + 1]
    if not c or not (c.isalpha() or c in b"_$@") or _CONTINUES.match(buf, ls):
        return False
    pe = ls - 1
    if pe > 0 and buf[pe - 1] == 13:  # CRLF
        pe -= 1
    ps = buf.rfind(b"\n", 0, pe) + 1
    above = buf[ps:pe].rstrip()
    return not (above and (above[-1] in _ENDS_OPEN or above[:1] == b"@" or above.lstrip()[:2] == b"#["))


class _Outside:
    """Is an offset outside block comments and triple-quoted strings? Delimiters are counted,
    so this is only a hint: a cut inside a string makes the old stretch fail to parse on its
    own, and then the whole file is checked. Counts are kept from the last offset asked, so a
    walk over many offsets reads the text once."""

    def __init__(self, buf: bytes):
        self.buf = buf
        self.delims = [d for d in _DELIMS if d in buf]
        self.at = 0
        self.counts = dict.fromkeys(self.delims, 0)

    def __call__(self, ls: int) -> bool:
        if not self.delims:
            return True
        lo, hi, sign = (self.at, ls, 1) if ls >= self.at else (ls, self.at, -1)
        for d in self.delims:
            self.counts[d] += sign * self.buf.count(d, lo, hi)
        self.at = ls
        c = self.counts
        return not (c.get(b'"""', 0) % 2 or c.get(b"'''", 0) % 2 or c.get(b"/*", 0) > c.get(b"*/", 0))


# Where a line starts in column 0 with a character a top-level statement can start with: the
# only places _top_start can say yes, found in one C-level scan instead of line by line.
_COL0 = re.compile(rb"\n(?=[A-Za-z_$@])")


def _region(old: bytes, new: bytes, p: int, q: int) -> tuple[int, int, int] | None:
    """(a, b, b_new): old[a:b] and new[a:b_new] are whole top-level paragraphs covering the
    changed bytes, with the same bytes before (old[:a]) and after (old[b:]) in both."""
    starts = [m.end() for m in _COL0.finditer(old)]
    ls = old.rfind(b"\n", 0, p) + 1   # start of the line holding the first changed byte
    outside = _Outside(old)   # old[:a] == new[:a]: the counts before a are the same in both
    # The nearest line that looks like a statement start, taken when the delimiter counts say
    # every one is inside a string (counts are easily thrown by a quote inside a string).
    near: int | None = None
    a = None
    # the first line of the stretch may itself be changed: it must open a paragraph in both
    for k in range(bisect_right(starts, ls) - 1, -1, -1):
        s = starts[k]
        if _top_start(old, s) and _top_start(new, s):
            near = s if near is None else near
            if outside(s):
                a = s
                break
    a = a if a is not None else near if near is not None else 0
    n, shift = len(old), len(new) - len(old)
    b = None
    near = None
    outside(a)   # the walk forward goes on from a: only [a, b) is counted again
    for k in range(bisect_left(starts, n - q), len(starts)):
        s = starts[k]
        # the next paragraph must start a line in the new text as well (not mid-line after
        # inserted bytes): only then do the old and the new stretch end at the same place
        if s > a and _top_start(old, s) and new[s + shift - 1:s + shift] == b"\n":
            near = s if near is None else near
            if outside(s):
                b = s
                break
    b = b if b is not None else near if near is not None else n
    if a == 0 and b >= n:
        return None
    return a, b, b + shift


def _error_line(root) -> int:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return node.start_point[0] + 1
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing or c.is_error]))
    return root.start_point[0] + 1


_BLOCK = 4096  # items compared at once by common_prefix / common_suffix (one C-level compare)


def common_prefix(a, b) -> int:
    """Length of the common head of two sequences (bytes, or lists of lines).

    Compared a block of 4,096 items at a time, each one C-level compare of two slices, then
    by binary search inside the first block that differs: linear in C. (A binary search over
    the whole length copied two slices of up to n items log n times: O(n log n), x2.95 a
    doubling of an identical sketch's diff.)"""
    n = min(len(a), len(b))
    base = 0
    while base + _BLOCK <= n and a[base:base + _BLOCK] == b[base:base + _BLOCK]:
        base += _BLOCK
    lo, hi = base, min(n, base + _BLOCK)  # a[:lo] == b[:lo]; the head ends at hi at most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[base:mid] == b[base:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a, b, prefix: int) -> int:
    """Length of the common tail of two sequences, not overlapping a head of ``prefix`` items
    (as common_prefix: block by block from the end, then a binary search in the last block)."""
    la, lb = len(a), len(b)
    n = min(la, lb) - prefix
    base = 0
    while base + _BLOCK <= n and a[la - base - _BLOCK:la - base] == b[lb - base - _BLOCK:lb - base]:
        base += _BLOCK
    lo, hi = base, max(base, min(n, base + _BLOCK))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid:la - base] == b[lb - mid:lb - base]:
            lo = mid
        else:
            hi = mid - 1
    return lo

