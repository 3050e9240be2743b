"""Repeated edits: the same token-level change the edit made, at the other sites that look like
the place it was made.

The edit's removed and added text are read as token streams (newlines are tokens too, so a
change may span lines) and diffed. Each changed *region* becomes a rule, anti-unified from the
one example: the tokens it removes stay concrete, identifiers, numbers and strings that it
carries over from before to after become holes (``print x`` -> ``print(x)`` is ``print ?1`` ->
``print(?1)``), and the tokens around it are *context*. A site matches a rule when the region's
tokens are there; the rule's confidence grows with how much of the context agrees on both
sides and how specific the changed tokens are (names and literals say more than punctuation).
The suggestion rewrites only the region's characters, so the site keeps its own names and
indentation; rules of one example that match on neighbouring lines become one suggestion.
Thin matches (a lone ``)`` without context) are never proposed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

TOK = re.compile(r"\n|[A-Za-z_$][A-Za-z0-9_$]*[?!]?|\d[\w.]*|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|\S")
CONTEXT = 8  # tokens of context kept each side of a region
# how much a changed token says about the edit: names and literals more than punctuation
WEIGHT = {"id": 2.0, "num": 1.0, "str": 1.5, "op": 0.5, "nl": 0.25}


def kind(tok: str) -> str:
    c = tok[0]
    if c == "\n":
        return "nl"
    if c.isalpha() or c in "_$":
        return "id"
    if c.isdigit():
        return "num"
    if c in "\"'":
        return "str"
    return "op"


def tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in TOK.finditer(text)]


@dataclass
class Rule:
    before: list[str]  # the region's tokens (holes match any token of the same kind)
    holes: dict[int, int]  # index in before -> hole number
    after: list  # the region's new text: str pieces and int hole numbers
    left: list[str]  # context before the region, nearest first
    right: list[str]  # context after it, nearest first
    weight: float  # how specific the changed tokens are
    at_start: bool = False  # the region began its example's text (so: at a line start)
    at_end: bool = False
    indent: str = ""  # the indentation of the example's line where the region starts
    gap_left: str | None = None  # the blank between the region and the token before it, before the edit
    gap_right: str | None = None  # and after it
    key: str = field(default="")  # a concrete token every match contains (for a quick index)
    ex_old: str = ""  # the example's whole line(s) around the region, before the edit
    ex_new: str = ""  # and after it
    ex_parent: str = ""  # the line the example's line sits under (its enclosing definition or block), set by suggest_repeated
    ex_row: int = 0  # the example's line in the edit's old text (0-based, from the hunk's first line)
    ex_path: str = ""  # the example's file and line there now (0-based), set by suggest_repeated
    ex_line: int = 0
    ex_parent_row: int = -1  # the row of ex_parent in that file (-1: none)


def rules_for(old: str, new: str) -> list[Rule]:
    """The rules the change old -> new teaches, one per region (changes within 2 tokens merged)."""
    a, b = tokens(old), tokens(new)
    at, bt = [t for t, _, _ in a], [t for t, _, _ in b]
    ops = [op for op in SequenceMatcher(None, at, bt, autojunk=False).get_opcodes() if op[0] != "equal"]
    # whole lines inserted read as "line + newline" before the next line, not "newline + line"
    # after the last token of the line above (the diff may align either way)
    ops = [("insert", i1 + 1, i2 + 1, j1 + 1, j2 + 1)
           if tag == "insert" and bt[j1] == "\n" and i1 < len(at) and at[i1] == "\n" and j2 < len(bt) and bt[j2] == "\n"
           else (tag, i1, i2, j1, j2) for tag, i1, i2, j1, j2 in ops]
    ops = [_line_aligned(op, at, bt) for op in ops]
    regions: list[list[int]] = []
    for _, i1, i2, j1, j2 in ops:
        if regions and i1 - regions[-1][1] <= 2 and j1 - regions[-1][3] <= 2:
            regions[-1][1], regions[-1][3] = i2, j2
        else:
            regions.append([i1, i2, j1, j2])
    out = []
    for i1, i2, j1, j2 in regions:
        before = at[i1:i2]
        hole_of: dict[str, int] = {}
        carried = {t for t in bt[j1:j2] if kind(t) in ("id", "num", "str")}
        holes = {}
        for k, t in enumerate(before):
            if t in carried:
                holes[k] = hole_of.setdefault(t, len(hole_of))
        # the new text runs from the end of the last equal token to the start of the next one,
        # so whitespace the edit added or removed goes with it
        s_new = b[j1 - 1][2] if j1 else (b[0][1] if b else 0)
        e_new = b[j2][1] if j2 < len(b) else len(new)
        after: list = []
        pos = s_new
        for t, s, e in b[j1:j2]:
            if t in hole_of:
                after.append(new[pos:s])
                after.append(hole_of[t])
                pos = e
        after.append(new[pos:e_new])
        changed = [t for k, t in enumerate(before) if k not in holes] + [t for t in bt[j1:j2] if t not in hole_of]
        weight = sum(WEIGHT[kind(t)] for t in changed)
        concrete = [t for k, t in enumerate(before) if k not in holes and kind(t) != "nl"]
        left = at[max(0, i1 - CONTEXT):i1][::-1]
        right = at[i2:i2 + CONTEXT]
        key = max(concrete, key=lambda t: (WEIGHT[kind(t)], len(t)), default="")
        if not key:  # a pure insertion (or only holes): index it by a context token right beside it
            # (a line inserted at a line start is anchored by the line after it: `#[doc(no_inline)]`
            # before `pub use ...`, not by some word of the line above)
            key = next((t for t in (left[:1] + right[:1]) if kind(t) != "nl"), "") or \
                next((t for t in left + right if kind(t) != "nl"), "")
        at_char = a[i1][1] if i1 < len(a) else len(old)
        line = old[old.rfind("\n", 0, at_char) + 1:]
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        gap_left = old[a[i1 - 1][2]:a[i1][1]] if 0 < i1 < i2 else None
        gap_right = old[a[i2 - 1][2]:a[i2][1]] if i1 < i2 < len(a) else None
        end_char = a[i2 - 1][2] if i2 > i1 else at_char
        end_new = b[j2 - 1][2] if j2 > j1 else s_new
        out.append(Rule(before, holes, after, left, right, weight, i1 == 0, i2 == len(at), indent=indent, key=key,
                        gap_left=gap_left, gap_right=gap_right, ex_old=_lines_around(old, at_char, end_char),
                        ex_new=_lines_around(new, s_new, end_new), ex_row=old.count("\n", 0, at_char)))
    return out


def _lines_around(text: str, start: int, end: int) -> str:
    """The whole lines of ``text`` that the characters start..end touch."""
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", max(start, end))
    return text[a:len(text) if b < 0 else b]


# ---- how much a site resembles the place the example was made (before the edit), and whether
# the example's change makes of it what it made of the example. A rule that matches at many
# sites (18 to 800 in the training cases) was right at few of them: the ones that look like the
# example's own place (the same statement, indentation, callee, enclosing definition), not any
# place that holds the region's tokens.

_WORDS = frozenset("""def fn func fun function class struct impl trait interface module defmodule defp it test describe
let var val const if else elif for while return match case when with try catch raise throw assert pub private
public protected static async await yield import from use require include new self this""".split())


def shape(text: str) -> list[str]:
    """The token shape of a piece of code: names abstracted (keywords kept), literals by kind."""
    out = []
    for t, _, _ in tokens(text):
        k = kind(t)
        out.append(t if k in ("op", "nl") or t in _WORDS else k)
    return out


def _ratio(a: list[str], b: list[str]) -> float:
    if not a and not b:
        return 1.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def indent_width(line: str) -> int:
    return len(line[:len(line) - len(line.lstrip(" \t"))].expandtabs(4))


def parent_line(lines: list[str], row: int, width: int) -> str:
    """The nearest line above ``row`` (0-based) indented less than ``width``: the definition or
    block the line sits in ("" at the top level, or past 200 lines)."""
    r = parent_row(lines, row, width)
    return lines[r].strip() if r >= 0 else ""


def parent_row(lines: list[str], row: int, width: int) -> int:
    """parent_line's row (-1 where there is none)."""
    if not 0 < row <= len(lines) or not width:
        return -1
    for r in range(row - 1, max(-1, row - 200), -1):
        x = lines[r]
        if x.strip() and indent_width(x) < width:
            return r
    return -1


def resemblance(rule: Rule, site_old: str, site_new: str, parent: str) -> dict[str, float]:
    """How the site (its whole line(s) before and after the rule is applied, and the line it sits
    under) compares with the example's: token similarity of the lines as written and as shapes,
    the same first token (statement kind), the same indentation, the same enclosing line's shape,
    and whether the result has the shape of the example's result."""
    ex_t = [t for t, _, _ in tokens(rule.ex_old)]
    site_t = [t for t, _, _ in tokens(site_old)]
    first_ex = next((t for t in ex_t if t != "\n"), "")
    first_site = next((t for t in site_t if t != "\n"), "")
    ex_shape, site_shape = shape(rule.ex_old), shape(site_old)
    new_ex, new_site = shape(rule.ex_new), shape(site_new)
    par_ex, par_site = shape(rule.ex_parent)[:12], shape(parent)[:12]
    return {
        "sim_line": round(_ratio(ex_t, site_t), 3),
        "sim_shape": round(_ratio(ex_shape, site_shape), 3),
        "sim_stmt": float(first_ex == first_site),
        "sim_indent": float(indent_width(rule.ex_old) == indent_width(site_old)),
        "sim_parent": round(_ratio(par_ex, par_site), 3),
        "sim_parent_first": float(bool(par_ex) and par_ex[:1] == par_site[:1]),
        "sim_result": float(new_ex == new_site),
        "sim_result_ratio": round(_ratio(new_ex, new_site), 3),
    }


def _line_aligned(op: tuple, at: list[str], bt: list[str]) -> tuple:
    """A deleted or inserted run of tokens slid to start on a line where it can: deleting
    `config=None,` between two `x=None,` lines diffs as `=None,\nconfig` after the line above
    (the same tokens, shifted); as a whole line it matches the other sites' lines."""
    tag, i1, i2, j1, j2 = op
    if tag == "delete":
        run, seq, k = i2 - i1, at, i1
    elif tag == "insert":
        run, seq, k = j2 - j1, bt, j1
    else:
        return op
    if not run or (k == 0 or seq[k - 1] == "\n"):
        return op
    for shift in range(1, run + 1):  # sliding right by one keeps the result when the token leaving equals the one entering
        if k + run + shift - 1 >= len(seq) or seq[k + shift - 1] != seq[k + run + shift - 1]:
            return op
        if seq[k + shift - 1] == "\n":
            return (tag, i1 + shift, i2 + shift, j1 + shift, j2 + shift)
    return op


@dataclass
class Match:
    start: int  # character span of the site's text the rule rewrites
    end: int
    text: str
    left: int  # context tokens that agree
    right: int
    evidence: float  # weight of the concrete tokens that agree (the region's own and its context)
    same_holes: bool = True  # every hole holds the example's own token


def find(rule: Rule, text: str, toks: list[tuple[str, int, int]], index: dict[str, list[int]]) -> list[Match]:
    """Every place ``rule`` applies in ``text`` (tokens ``toks``, ``index`` token -> positions)."""
    texts = [t for t, _, _ in toks]
    n = len(rule.before)
    if not rule.key:
        return []
    offsets = [k for k, t in enumerate(rule.before) if t == rule.key and k not in rule.holes]
    starts: set[int] = set()
    for q in index.get(rule.key, ()):
        if offsets:
            starts.update(q - k for k in offsets)
        else:  # indexed by context: the region starts right after a left one / before a right one
            if rule.left and rule.left[0] == rule.key:
                starts.add(q + 1)
            if rule.right and rule.right[0] == rule.key:
                starts.add(q - n)
    out = []
    for p in sorted(starts):
        if p < 0 or p + n > len(texts):
            continue
        filled: dict[int, str] = {}
        ok = True
        for k, want in enumerate(rule.before):
            got = texts[p + k]
            if k in rule.holes:
                if kind(got) != kind(want) or filled.setdefault(rule.holes[k], got) != got:
                    ok = False
                    break
            elif got != want:
                ok = False
                break
        if not ok:
            continue
        left = 0
        while left < len(rule.left) and p - 1 - left >= 0 and texts[p - 1 - left] == rule.left[left]:
            left += 1
        right = 0
        while right < len(rule.right) and p + n + right < len(texts) and texts[p + n + right] == rule.right[right]:
            right += 1
        if n == 0 and not (left and right):
            continue  # an insertion needs an anchor on both sides
        if rule.at_start and p and texts[p - 1] != "\n":
            continue
        # the span: from the end of the left neighbour to the start of the right one when they
        # agree with the example's context, else just the region's own tokens
        # where the context differs but the blank beside the region is the example's (`should ==`
        # as `not ==`), the blank is rewritten as the example rewrote it (`should.equal`)
        gap_l = n and not left and p and rule.gap_left is not None and "\n" not in rule.gap_left \
            and text[toks[p - 1][2]:toks[p][1]] == rule.gap_left
        gap_r = n and not right and p + n < len(toks) and rule.gap_right is not None and "\n" not in rule.gap_right \
            and text[toks[p + n - 1][2]:toks[p + n][1]] == rule.gap_right
        if left or (n == 0 and p) or gap_l:
            start = toks[p - 1][2]
        elif n:
            start = toks[p][1]
        else:
            start = 0
        if right or n == 0 or gap_r:
            end = toks[p + n][1] if p + n < len(toks) else len(text)
        else:
            end = toks[p + n - 1][2]
        new = "".join(piece if isinstance(piece, str) else filled.get(piece, "") for piece in rule.after)
        if "\n" in new:
            # lines the rule writes take the site's indentation, not the example's
            line = text[text.rfind("\n", 0, start) + 1:]
            indent = line[:len(line) - len(line.lstrip(" \t"))]
            if indent != rule.indent:
                # (the end too: an inserted line ends in the indentation of the line below it,
                # `return 0` above a `}` that is the site's own, not the example's)
                new = re.sub("\n" + re.escape(rule.indent) + r"(?=[^\n]|\Z)", "\n" + indent.replace("\\", r"\\"), new)
        if (start == 0 or text[start - 1] == "\n") and rule.indent and new.startswith(rule.indent):
            # the region begins its line: the site's own indentation, not the example's
            site = text[start:len(text) - len(text[start:].lstrip(" \t"))] if start < len(text) else ""
            new = site + new[len(rule.indent):]
        if n and not left and not gap_l:
            new = new.lstrip(" \t")
        if n and not right and not gap_r:
            new = new.rstrip(" \t")
        if text[start:end] == new:
            continue
        if n == 0 and new.strip():
            # the lines are there already (several lines too: the example's own block, found again
            # beside itself where blank lines let the diff align it either way)
            near = 200 + len(new) if "\n" in new.strip() else 200
            there = {y.strip() for y in text[max(0, start - near):end + near].split("\n")}
            if all(x.strip() in there for x in new.strip().split("\n")):
                continue
        ev = sum(WEIGHT[kind(t)] for k, t in enumerate(rule.before) if k not in rule.holes)
        ev += sum(WEIGHT[kind(t)] for t in rule.left[:left]) + sum(WEIGHT[kind(t)] for t in rule.right[:right])
        out.append(Match(start, end, new, left, right, ev,
                         all(texts[p + k] == t for k, t in enumerate(rule.before) if k in rule.holes)))
    return out


def _overlap(a: Match, b: Match) -> bool:
    return (a.start < b.end and b.start < a.end) or (a.start, a.end) == (b.start, b.end)


def line_starts(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def _balance(text: str) -> int:
    return sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")


# a line that only brings a name in: #include, import, from x import, use, require, alias, or a
# Go import block's quoted path
_IMPORT_LINE = re.compile(r'\s*(?:#\s*include\b|import\b|from\s+\S+\s+import\b|(?:pub\s+)?use\s|require\b|alias\s|'
                          r'"[\w./-]+"\s*$|\w+\s+"[\w./-]+"\s*$)')


def suggest_repeated(files, hunks, edited: set[tuple[str, int]], resemble: bool = True, similar: bool | None = None):
    """[(path, first, last, replacement, confidence, reason)] for the edit's rules at other sites.

    ``files`` maps path -> current text; ``edited`` holds the (path, line) pairs the edit wrote;
    ``resemble``: with each site's standing against the example (context_share ... site_done) and,
    unless ``similar`` is False, its resemblance to the example's place (resemblance, sim_*
    features: only the training dumps read those, and they cost a token diff per site)."""
    similar = resemble if similar is None else similar and resemble
    from bisect import bisect_right

    rules: list[Rule] = []
    hunk_rules: dict[int, set[int]] = {}  # id(hunk) -> the indices of the rules it taught
    rule_hunk: list[int] = []  # each rule's hunk (its index in hunks)
    # with ``resemble``: each example's change undone, as rules, to count the places where the
    # edit's result already stands (done_share)
    undo: list[tuple[int, Rule]] = []
    for hi, h in enumerate(hunks):
        if h.old_text == h.new_text:
            continue
        if not h.removed and h.added and all(_IMPORT_LINE.match(x) or not x.strip() for x in h.added):
            continue  # an import a file's own code needs: not an edit to repeat in other places
        taught = [r for r in rules_for(h.old_text, h.new_text) if r.weight >= 1.0]
        if resemble and h.path in files:
            here = files[h.path].split("\n")
            for r in taught:
                # (the lines above the hunk are as they were: the example's enclosing line is there)
                r.ex_path, r.ex_line = h.path, h.new_start - 1 + r.ex_row
                r.ex_parent_row = parent_row(here, r.ex_line, indent_width(r.ex_old))
                r.ex_parent = here[r.ex_parent_row].strip() if r.ex_parent_row >= 0 else ""
        hunk_rules[id(h)] = set(range(len(rules), len(rules) + len(taught)))
        rules += taught
        rule_hunk += [hi] * len(taught)
        if resemble and taught:
            undo += [(hi, r) for r in rules_for(h.new_text, h.old_text) if r.weight >= 1.0]
    # the same change made on several lines of the example is one rule (seven `indexOf(x) >= 0`
    # -> `contains(x)` teach two rules, not fourteen); each copy keeps its own context, and a
    # site takes the best agreeing one (overlapping matches keep the best evidenced)
    sig_of: dict = {}
    same = [sig_of.setdefault((tuple(r.before), tuple(sorted(r.holes.items())), tuple(map(str, r.after))), len(sig_of))
            for r in rules]
    if not rules or len(sig_of) > 12:
        return []  # nothing, or a rewrite rather than an edit to repeat
    per_file = {}
    per_rule: dict[int, int] = {}
    # how the example moved the bracket balance (0 for nearly every edit): a site must move it alike
    balanced = sum(_balance(h.new_text) - _balance(h.old_text) for h in hunks) == 0
    done: dict[int, int] = {}  # hunk index -> places (outside the edit) where its result already stands
    done_at: set[tuple[str, int]] = set()  # and those places' lines (path, 0-based row)
    for path, text in files.items():
        ahead = any(r.key in text for r in rules)
        back = [(hi, r) for hi, r in undo if r.key in text]
        if not ahead and not back:
            continue
        toks = tokens(text)
        index: dict[str, list[int]] = {}
        for k, (t, _, _) in enumerate(toks):
            index.setdefault(t, []).append(k)
        starts = line_starts(text)
        for hi, r in back:
            for m in find(r, text, toks, index):
                row = bisect_right(starts, m.start) - 1
                if (path, row + 1) not in edited:
                    done[hi] = done.get(hi, 0) + 1
                    done_at.add((path, row))
        if not ahead:
            continue
        found = []
        for ri, r in enumerate(rules):
            for m in find(r, text, toks, index):
                first = bisect_right(starts, m.start) - 1
                last = bisect_right(starts, max(m.start, m.end - 1)) - 1
                if any((path, n + 1) in edited for n in range(first, last + 1)):
                    continue
                found.append((m, first, last, m.evidence, ri))
                per_rule[ri] = per_rule.get(ri, 0) + 1
        if found:
            per_file[path] = (starts, found)
    trigger_paths = {h.path for h in hunks}
    # lines that read as the example's removed lines, whole: they become its added lines, whatever
    # the token rules made of them (a reordering `{mws, h, chain(mws, h)}` -> `{h, chain(mws, h),
    # mws}` is a deletion and an insertion whose deletion also fits inside `chain(mws, h)`)
    whole = {tuple(x.strip() for x in h.removed): h for h in hunks if h.removed and h.added}
    out = []
    for path, (starts, found) in per_file.items():
        text = files[path]
        text_lines = text.split("\n") if resemble else []
        kept: list = []
        for f in sorted(found, key=lambda f: -f[3]):  # where matches overlap the best evidenced one stays
            if not any(_overlap(f[0], k[0]) for k in kept):
                kept.append(f)
        kept.sort(key=lambda f: f[0].start)
        groups: list[list] = []
        for f in kept:
            # matches on one line are one suggestion (two `writer_.` on a line are one accept);
            # on neighbouring lines too, as a commit's diff makes them one hunk, when they are
            # about as well evidenced (a strong match does not carry a weak neighbour along)
            if groups and (f[1] <= max(x[2] for x in groups[-1]) or f[1] == max(x[2] for x in groups[-1]) + 1
                           and (min(f[3], groups[-1][-1][3]) >= 0.7 * max(f[3], groups[-1][-1][3])
                                or f[0].left and f[0].right and groups[-1][-1][0].left and groups[-1][-1][0].right)) \
                    and not (not rules[f[4]].before and f[1] > max(x[2] for x in groups[-1])
                             and any(x[4] == f[4] for x in groups[-1])):
                # (but an inserted line is inserted once per site: the same insertion matching
                # above and below one line, `#[cfg(..)]` before and after `#[test]`, is two sites,
                # the weaker one on its own)
                groups[-1].append(f)
            else:
                groups.append([f])
        for g in groups:
            first, last = g[0][1], max(f[2] for f in g)
            s0 = starts[first]
            s1 = starts[last + 1] if last + 1 < len(starts) else len(text)
            piece, pos = [], s0
            for m, *_ in g:
                piece.append(text[pos:m.start] + m.text)
                pos = m.end
            piece.append(text[pos:s1])
            new = "".join(piece)
            site = text[s0:s1].split("\n")[:last - first + 1]
            ex = whole.get(tuple(x.strip() for x in site))
            if ex is not None and hunk_rules.get(id(ex)) and hunk_rules[id(ex)] <= {f[4] for f in g}:
                # (only where every rule of that example applied here: one that did not, such as a
                # new function written above the renamed one, is not this site's)
                pad = site[0][:len(site[0]) - len(site[0].lstrip())]
                had = ex.removed[0][:len(ex.removed[0]) - len(ex.removed[0].lstrip())]
                new = "".join(pad + x[len(had):] if x.startswith(had) else x for x in (y + "\n" for y in ex.added))
                if s1 == len(text) and not text.endswith("\n"):
                    new = new[:-1]
            if new == text[s0:s1] or balanced and _balance(new) != _balance(text[s0:s1]):
                continue  # unchanged, or brackets left open that the example kept balanced
            best = max(g, key=lambda f: f[3])
            r = rules[best[4]]
            feats = {
                "evidence": min(best[3], 12.0),
                "evidence_sum": min(sum(f[3] for f in g), 24.0),
                "left": min(best[0].left, 4), "right": min(best[0].right, 4),
                "both_sides": float(bool(best[0].left and best[0].right)),
                "rule_weight": min(r.weight, 8.0),
                "rules_share": len({same[f[4]] for f in g}) / len(sig_of),
                "sites_log": math.log1p(max(per_rule.get(f[4], 0) for f in g)),
                "insertion": float(not r.before),
                "holes": float(bool(r.holes)),
                "other_holes": float(bool(r.holes) and not all(f[0].same_holes for f in g)),
                "same_file": float(path in trigger_paths),
                "lines": min(last - first + 1, 5),
                "name_swap": float(name_swap(r)),
            }
            if resemble:
                hi = rule_hunk[best[4]]
                todo = sum(per_rule.get(ri, 0) for ri in hunk_rules[id(hunks[hi])])
                got = done.get(hi, 0)
                # how the site matches the example (the share of its context that agrees, what
                # kinds of token the holes take), where it is against the example (lines away in
                # its file, under the same enclosing line), and how far the change has gone in
                # the tree already (places that read as the example's result against those left)
                hole_kinds = [kind(r.before[k]) for k in {v: k for k, v in r.holes.items()}.values()]
                feats.update({
                    "context_share": round((best[0].left + best[0].right) / max(1, len(r.left) + len(r.right)), 3),
                    "holes_id": float(hole_kinds.count("id")),
                    "holes_lit": float(len(hole_kinds) - hole_kinds.count("id")),
                    "ex_dist_log": round(math.log1p(min(abs(first - r.ex_line), 1000)), 3) if path == r.ex_path else 7.0,
                    "same_scope": float(path == r.ex_path and r.ex_parent_row >= 0
                                        and parent_row(text_lines, first, indent_width(text_lines[first])) == r.ex_parent_row),
                    "done_log": round(math.log1p(got), 3),
                    "done_share": round(got / (got + todo), 3) if got + todo else 0.0,
                    # (a site that reads as the result already: the rule found its tokens again)
                    "site_done": float(any((path, n) in done_at for n in range(first, last + 1))),
                })
                if similar:
                    site_old = text[s0:s1].rstrip("\n")
                    feats.update(resemblance(r, site_old, new.rstrip("\n"),
                                             parent_line(text_lines, first, indent_width(site_old))))
                    feats["_rule"] = same[best[4]]
            out.append((path, first + 1, last + 1, new, feats, len(g)))
    if not similar:
        return out
    # each site's place among the sites of its rule, by resemblance: where a rule matches in many
    # places, the few most like the example's are the ones a commit changed
    by_rule: dict[int, list[dict]] = {}
    for o in out:
        by_rule.setdefault(o[4].pop("_rule"), []).append(o[4])
    for group in by_rule.values():
        score = lambda f: f["sim_line"] + f["sim_shape"] + f["sim_parent"] + f["sim_result_ratio"]  # noqa: E731
        best = max(score(f) for f in group)
        for rank, f in enumerate(sorted(group, key=score, reverse=True)):
            f["sim_rank"] = float(min(rank, 10))
            f["sim_gap"] = round(best - score(f), 3)
            f["sim_score"] = round(score(f), 3)
            f.update(derived_inputs(f))
    return out


_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*[?!]?")


def name_swap(rule: Rule) -> bool:
    """Whether the rule puts one name in another's place and nothing else (`with_lock(env)` ->
    `with_lock(req)`): a rename, whose other uses are the rename propagator's, scope by scope."""
    return (not rule.holes and len(rule.before) == 1 and kind(rule.before[0]) == "id" and len(rule.after) == 1
            and bool(_NAME.fullmatch(rule.after[0].strip())))


def derived_inputs(f: dict) -> dict[str, float]:
    """Inputs of the confidence made of two features: the site most like the example among its
    rule's sites, and that and the gap to it weighed by how many sites the rule has (one site in
    eight hundred like the example says more than one in two)."""
    top = float(f.get("sim_rank", 0.0) == 0.0)
    many = f.get("sites_log", 0.0)
    return {"sim_top": top, "sim_top_many": top * many, "sim_gap_many": round(f.get("sim_gap", 0.0) * many, 3)}
