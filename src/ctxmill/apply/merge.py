"""Merge a sketch into an original: unique-or-nothing anchoring, markers keep what they hide.

The sketch is a list of lines, some of them markers. Lines that occur exactly once in the
original and once in the sketch (or definitions whose name does) are anchors; the longest
in-order chain of them pins the sketch to the file, and the stretch between two anchors is
handled on its own, recursively, with uniqueness judged inside the stretch (that is how
"more context" disambiguates). A stretch without markers is an explicit edit: the sketch
lines replace the original lines. A stretch with a marker is open: the sketch lines before
the marker continue from the left anchor, the lines after it lead up to the right anchor,
and the marker keeps every original line in between. Nothing is ever chosen among several
equal candidates: no unique anchor means no anchor, and what cannot be placed is refused.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher, get_close_matches

from ctxmill.apply.lines import Text, has_word, is_closer

_TERMINATOR = re.compile(r"^(?:return|raise|throw|continue|break)\b[^{]*$")
_CONTINUES = re.compile(r"^(?:else|elif|except|finally|catch|case|default)\b")
_LEAD = re.compile(r"[^\w$]*[\w$.]+")   # the statement's opening: "fh.write", "return", "from x"
_DECORATION = ("@", "#[")   # decorators and annotations (Python, Java, TS), attributes (Rust)


def _decorated(T, i: int) -> int | None:
    """The line a decorator at ``i`` decorates (past further decorators and blank lines)."""
    j = i + 1
    while j < len(T.keys) and (not T.keys[j] or T.keys[j].startswith(_DECORATION)) and not T.marker[j]:
        j += 1
    return j if j < len(T.keys) and not T.marker[j] else None
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]+")
_DEF_START = ("@", "#[", "//", "/*", "*", "#", "<!--", "--")


class Refused(Exception):
    """The sketch cannot be applied without guessing; the message says why (one line)."""


@dataclass
class Op:
    kind: str              # "match" | "modify" | "new" | "keep" | "blank"
    s: int = -1            # sketch line (match, modify, new)
    o: int = -1            # original line (match, modify) or start of a kept stretch
    o_end: int = -1        # end of a kept stretch (exclusive)


def _lis(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Longest chain of pairs increasing in both coordinates (pairs sorted by the first)."""
    tails: list[int] = []      # smallest o ending a chain of each length
    tail_idx: list[int] = []
    prev: list[int] = [-1] * len(pairs)
    for i, (_, o) in enumerate(pairs):
        k = bisect.bisect_left(tails, o)
        if k == len(tails):
            tails.append(o)
            tail_idx.append(i)
        else:
            tails[k] = o
            tail_idx[k] = i
        prev[i] = tail_idx[k - 1] if k else -1
    out = []
    i = tail_idx[-1] if tail_idx else -1
    while i >= 0:
        out.append(pairs[i])
        i = prev[i]
    return out[::-1]


def _chain_lengths(pairs: list[tuple[int, int]]) -> list[int]:
    """For each pair, the longest increasing chain ending at it."""
    tails: list[int] = []
    out = []
    for _, o in pairs:
        k = bisect.bisect_left(tails, o)
        if k == len(tails):
            tails.append(o)
        else:
            tails[k] = o
        out.append(k + 1)
    return out


def _rival(pairs, chosen, best: int, exact: set[int]) -> tuple[int, int] | None:
    fwd = _chain_lengths(pairs)
    back = _chain_lengths([(-i, -o) for i, o in reversed(pairs)])[::-1]
    for n, (i, o) in enumerate(pairs):
        if (i, o) not in chosen and i in exact and fwd[n] + back[n] - 1 == best:
            return i, o
    return None


def _short(text: str, n: int = 60) -> str:
    text = text.strip()
    return text if len(text) <= n else text[: n - 1] + "…"


class Merger:
    def __init__(self, orig: Text, sketch: Text, partial: bool):
        self.o = orig
        self.s = sketch
        self.partial = partial     # the sketch shows only part of the file
        self.ops: list[Op] = []
        self.smap: dict[int, int] = {}
        self.by_name: set[int] = set()   # sketch anchors matched by name, not by text
        self.o_count = Counter(orig.keys)
        self.moved: list[tuple[int, int]] = []

    def strong(self, key: str) -> bool:
        """A line distinctive enough that one copy in the file is that line wherever it moved."""
        return len(key) >= 20 and len(set(_WORD.findall(key))) >= 3 and self.o_count[key] == 1

    # ------------------------------------------------------------------ windows

    def window(self, s_lo: int, s_hi: int, o_lo: int, o_hi: int) -> None:
        """Merge sketch lines (s_lo, s_hi) into original lines (o_lo, o_hi), bounds excluded."""
        if s_hi - s_lo <= 1 and o_hi - o_lo <= 1:
            return
        if not any(self.s.marker[i] for i in range(s_lo + 1, s_hi)):
            self.closed(s_lo, s_hi, o_lo, o_hi)
            return
        anchors = self.anchors(s_lo, s_hi, o_lo, o_hi)
        if not anchors:
            self.open(s_lo, s_hi, o_lo, o_hi)
            return
        for s, o in anchors:
            self.smap[s] = o
        ps, po = s_lo, o_lo
        for n, (s, o) in enumerate(anchors):
            self.window(ps, s, po, o)
            self.ops.append(Op("match", s, o))
            ps, po = s, o
            nxt = anchors[n + 1] if n + 1 < len(anchors) else (s_hi, o_hi)
            body = self.whole_block(s, o, nxt[0], nxt[1])
            if body is not None:
                # The sketch shows this block whole (a sibling line follows it, no marker
                # inside): its body replaces the file's body, as a closer would say in C.
                se, oe = body
                self.closed(s, se, o, oe)
                ps, po = se - 1, oe - 1
        self.window(ps, s_hi, po, o_hi)

    def whole_block(self, s: int, o: int, s_next: int, o_next: int) -> tuple[int, int] | None:
        """(sketch end, file end) of an indented block (no closing line) the sketch shows
        complete: ended by a non-marker line at the header's depth before the next anchor."""
        S, F = self.s, self.o
        se = self._indent_end(S, s, s_next)
        oe = self._indent_end(F, o, o_next)
        if se is None or oe is None or se >= s_next or oe > o_next:
            return None
        if S.marker[se] or is_closer(S.keys[se]) or any(S.marker[i] for i in range(s + 1, se)):
            return None
        while se - 1 > s and not S.keys[se - 1]:
            se -= 1  # blank lines after the body are between blocks, not in them
        while oe - 1 > o and not F.keys[oe - 1]:
            oe -= 1
        return se, oe

    @staticmethod
    def _indent_end(T: Text, i: int, hi: int | None = None) -> int | None:
        """The first line after ``i``'s indented body, at ``i``'s depth or shallower (looked
        for up to line ``hi``). None: no body, or no end before ``hi``; without ``hi``, a
        body that runs to the end of the text ends there."""
        c = T.cols[i]
        deeper = False
        for j in range(i + 1, len(T.keys) if hi is None else min(hi + 1, len(T.keys))):
            if not T.keys[j]:
                continue
            if T.cols[j] > c:
                deeper = True
                continue
            return j if deeper else None
        return len(T.keys) if deeper and hi is None else None

    def anchors(self, s_lo: int, s_hi: int, o_lo: int, o_hi: int) -> list[tuple[int, int]]:
        S, F = self.s, self.o
        s_range = [i for i in range(s_lo + 1, s_hi) if not S.marker[i] and has_word(S.keys[i])]
        s_count = Counter(S.keys[i] for i in s_range)
        # Counted in C over the whole stretch; positions looked up only for lines seen once.
        o_count = Counter(F.keys[o_lo + 1:o_hi])
        o_pos = {k: F.keys.index(k, o_lo + 1, o_hi) for k, c in s_count.items() if c == 1 and o_count.get(k) == 1}
        s_names = Counter(n for n in map(S.name, s_range) if n)
        o_names, o_name_pos = F.named_lines({n for n, c in s_names.items() if c == 1}, o_lo + 1, o_hi)
        cands: dict[int, int] = {}
        exact: set[int] = set()
        late: list[tuple[int, int]] = []   # distinctive lines whose surroundings changed
        for i in s_range:
            k = S.keys[i]
            if s_count[k] == 1 and o_count.get(k) == 1:
                j = o_pos[k]
                if self.compatible(i, j):
                    cands[i] = j
                    exact.add(i)
                elif self.strong(k):
                    late.append((i, j))
                continue
            n = S.name(i)
            if n and s_names[n] == 1 and o_names.get(n) == 1:
                j = o_name_pos[n]
                if F.name(j) == n and self.compatible(i, j):
                    cands[i] = j
        # More context: a run of 2-3 adjacent lines, none unique alone, may be unique as a run.
        self._run_anchors(s_lo, s_hi, o_lo, o_hi, cands)
        # A block the sketch shows whole pins its closing line to the original's.
        for i, j in list(cands.items()):
            ci = S.opener_end(i, s_hi)
            cj = F.opener_end(j, o_hi) if ci is not None else None
            if ci is not None and cj is not None and S.keys[ci] == F.keys[cj] and ci not in cands:
                cands[ci] = cj
        pairs = sorted(cands.items())
        if len(set(j for _, j in pairs)) != len(pairs):
            seen = Counter(j for _, j in pairs)
            pairs = [(i, j) for i, j in pairs if seen[j] == 1]
        chain = _lis(pairs)
        chosen = set(chain)
        # Another chain just as long through a unique line the chosen one leaves out means
        # the sketch fits the file in two orders: that choice is not ours to make.
        rival = _rival(pairs, chosen, len(chain), exact)
        if rival is not None:
            i, j = rival
            raise Refused(f"sketch lines fit the file in two different orders (around "
                          f"{_short(S.keys[i], 40)!r}, line {j + 1}): add context to pin the edit")
        # A distinctive line now in a different block (moved into a new function, say) is an
        # anchor only where it fits the chain: it must not outvote lines in their old places.
        pinned_o = {o for _, o in chain}
        for i, j in late:
            if F.owner[j] is not None and F.owner[j] not in pinned_o:
                continue  # its old block is not in the sketch: new code that repeats a line
            at = bisect.bisect_left(chain, (i, -1))
            if (at == 0 or chain[at - 1][1] < j) and (at == len(chain) or j < chain[at][1]):
                chain.insert(at, (i, j))
                exact.add(i)
                chosen.add((i, j))
        # Unique lines out of order are moves (or new code that repeats a line): no anchor.
        # Whether the move is clean is judged on the result (see check_moves).
        for i, j in pairs:
            if (i, j) not in chosen and i in exact and len(S.keys[i]) >= 8:
                self.moved.append((i, j))
        for i, _ in chain:
            if i not in exact:
                self.by_name.add(i)
        return chain

    def _run_anchors(self, s_lo: int, s_hi: int, o_lo: int, o_hi: int, cands: dict[int, int]) -> None:
        S, F = self.s, self.o
        for width in (2, 3):
            s_runs: dict[tuple[str, ...], list[int]] = {}
            for i in range(s_lo + 1, s_hi - width + 1):
                if any(S.marker[i + d] for d in range(width)):
                    continue
                run = tuple(S.keys[i:i + width])
                if sum(1 for k in run if has_word(k)) < 2:
                    continue
                s_runs.setdefault(run, []).append(i)
            if not s_runs:
                continue
            o_runs: dict[tuple[str, ...], list[int]] = {}
            firsts = {run[0] for run in s_runs}
            keys = F.keys
            for j in range(o_lo + 1, o_hi - width + 1):
                if keys[j] not in firsts:
                    continue  # cheap test first: most file lines start no sketch run
                run = tuple(keys[j:j + width])
                if run in s_runs:
                    o_runs.setdefault(run, []).append(j)
            for run, where in s_runs.items():
                spots = o_runs.get(run, [])
                if len(where) != 1 or len(spots) != 1:
                    continue
                i, j = where[0], spots[0]
                if any(i + d in cands for d in range(width)) or not self.compatible(i, j):
                    continue
                for d in range(width):
                    cands[i + d] = j + d

    def compatible(self, i: int, j: int) -> bool:
        """Both lines sit in blocks that look alike (or one side shows no enclosing block),
        and in the same definition: a unique "if span:" in another function is not this one."""
        S, F = self.s, self.o
        if not self._alike(S.owner[i], F.owner[j]):
            return False
        return self._alike(S.definer(i), F.definer(j))

    def _alike(self, a: int | None, b: int | None) -> bool:
        if a is None or b is None:
            return True
        if self.s.keys[a] == self.o.keys[b]:
            return True
        na, nb = self.s.name(a), self.o.name(b)
        return na is not None and na == nb

    # ------------------------------------------------------------------ closed stretch

    def closed(self, s_lo: int, s_hi: int, o_lo: int, o_hi: int) -> None:
        S, F = self.s, self.o
        a = S.keys[s_lo + 1: s_hi]
        b = F.keys[o_lo + 1: o_hi]
        if not a:
            return  # explicit deletion of everything between the anchors
        if not b:
            self.ops.extend(Op("new", s) for s in range(s_lo + 1, s_hi))
            return
        # Lines equal at both ends are matched in one linear pass: SequenceMatcher without
        # autojunk is quadratic on long stretches of repeated lines, and a sketch that repeats
        # most of a large file is the common case.
        head = 0
        while head < len(a) and head < len(b) and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
            tail += 1
        for d in range(head):
            self._match(s_lo + 1 + d, o_lo + 1 + d)
        mid_a, mid_b = a[head:len(a) - tail], b[head:len(b) - tail]
        if mid_a and not mid_b:
            self.ops.extend(Op("new", s) for s in range(s_lo + 1 + head, s_lo + 1 + head + len(mid_a)))
        elif mid_a:
            sm = SequenceMatcher(None, mid_a, mid_b, autojunk=False)
            base_s, base_o = s_lo + 1 + head, o_lo + 1 + head
            for tag, i1, i2, j1, _j2 in sm.get_opcodes():
                if tag == "equal":
                    for d in range(i2 - i1):
                        self._match(base_s + i1 + d, base_o + j1 + d)
                elif tag in ("replace", "delete"):  # sketch lines the original lacks
                    self.ops.extend(Op("new", s) for s in range(base_s + i1, base_s + i2))
        for d in range(tail, 0, -1):
            self._match(s_hi - d, o_hi - d)

    def _match(self, s: int, o: int) -> None:
        self.smap[s] = o
        self.ops.append(Op("match", s, o))

    # ------------------------------------------------------------------ open stretch

    def open(self, s_lo: int, s_hi: int, o_lo: int, o_hi: int) -> None:
        S = self.s
        parts: list[list[int]] = [[]]
        for i in range(s_lo + 1, s_hi):
            if S.marker[i]:
                parts.append([])
            else:
                parts[-1].append(i)
        # Blank lines touching a marker are soft: the original decides how many stay.
        soft_before: list[int] = []   # per marker: blank sketch lines just before it
        soft_after: list[int] = []
        cores: list[list[int]] = []
        for n, part in enumerate(parts):
            lo, hi = 0, len(part)
            if n > 0:
                while lo < hi and not S.keys[part[lo]]:
                    lo += 1
                soft_after.append(lo)
            if n < len(parts) - 1:
                while hi > lo and not S.keys[part[hi - 1]]:
                    hi -= 1
                soft_before.append(len(part) - hi)
            cores.append(part[lo:hi])
        head, floating, tail = cores[0], cores[1:-1], cores[-1]

        head_ops, p_end = self.align_head(head, s_lo, s_hi, o_lo, o_hi)
        for op in head_ops:
            if op.kind != "new":
                self.smap[op.s] = op.o
        tail_ops, q_start = self.align_tail(tail, s_lo, s_hi, o_lo, o_hi, p_end)
        if q_start < p_end:
            raise Refused("sketch lines around a marker overlap in the original; "
                          f"cannot tell what the marker after line {o_lo + 2} keeps")
        if any(floating):
            # What the sketch shows right after the floating lines: the first line after the
            # last marker if it matched, or the right anchor itself.
            if tail_ops:
                after = tail_ops[0].s if tail_ops[0].kind == "match" else None
            else:
                after = s_hi if s_hi < len(S.keys) else None
            block_end = after is not None and is_closer(S.keys[after])
            for part in floating:
                if not part:
                    continue
                if not (block_end and self.is_definitions(part)
                        and S.cols[after] < min(S.cols[i] for i in part if S.keys[i])):
                    raise Refused(f"cannot place {_short(S.keys[part[0]])!r}: it sits between two "
                                  "markers and no line next to it matches the file")
        self.near_duplicate(head_ops, tail_ops, p_end, q_start)
        if not any(floating):
            self.appended_after_rewrite(head_ops, tail_ops, s_lo, s_hi, p_end, q_start)
        last_s = head_ops[-1].s if head_ops else s_lo
        if (soft_before[0] >= 2 and (not head_ops or head_ops[-1].kind == "match") and last_s >= 0
                and p_end < q_start and self.o.keys[p_end]):
            # Two blank lines (a Python top-level gap) right after a line the file has, where
            # the file goes straight on: lines deleted there, or blank lines for layout?
            raise Refused(f"the sketch leaves a gap after {_short(S.keys[last_s], 40)!r} where "
                          f"the file goes on ({_short(self.o.keys[p_end], 30)!r}, line {p_end + 1}): "
                          "deleted or kept?")
        self.leftover(head_ops, s_lo, s_hi, p_end, q_start)
        self.ops.extend(head_ops)
        markers = len(parts) - 1
        # Is the line next to the marker one the file has (or the anchor itself)?
        head_pinned = head_ops[-1].kind != "new" if head_ops else True
        tail_pinned = tail_ops[0].kind != "new" if tail_ops else True
        has_floating = any(floating)
        # The first marker keeps the whole stretch; new definitions between markers go at the
        # end of the enclosing block (the sketch shows that block closing right after).
        self.stretch(p_end, q_start, soft_before[0], soft_after[0], head_pinned,
                     tail_pinned and not has_floating)
        for n in range(1, markers):
            for i in floating[n - 1]:
                self.ops.append(Op("new", i))
            self.stretch(q_start, q_start, soft_before[n], soft_after[n], False,
                         tail_pinned and n == markers - 1)
        self.ops.extend(tail_ops)
        for op in head_ops + tail_ops:
            if op.kind in ("match", "modify"):
                self.smap[op.s] = op.o

    def leftover(self, head_ops: list[Op], s_lo: int, s_hi: int, a: int, b: int) -> None:
        """New lines, then a marker at an outer depth, then the file goes on deeper: the
        marker would keep the old rest of the block the new lines rewrote."""
        S, F = self.s, self.o
        if not head_ops or head_ops[-1].kind != "new":
            return
        first = next((j for j in range(a, b) if F.keys[j]), None)
        mark = next((i for i in range(s_lo + 1, s_hi) if S.marker[i]), None)
        if first is None or mark is None:
            return
        ref = next((op for op in reversed(head_ops)
                    if op.kind in ("match", "modify") and S.keys[op.s]), None)
        if ref is None and s_lo >= 0 and s_lo in self.smap:
            ref = Op("match", s_lo, self.smap[s_lo])
        if ref is None:
            return
        mark_cols = F.cols[ref.o] + S.cols[mark] - S.cols[ref.s]
        if F.cols[first] > mark_cols and not is_closer(F.keys[first]):
            raise Refused(f"the marker after {_short(S.keys[head_ops[-1].s], 30)!r} sits outside the "
                          f"block it follows, but the file goes on inside it ({_short(F.keys[first], 30)!r}, "
                          f"line {first + 1}): should those lines stay?")

    def appended_after_rewrite(self, head_ops: list[Op], tail_ops: list[Op], s_lo: int, s_hi: int,
                               a: int, b: int) -> None:
        """New definitions right after a block the sketch rewrote, then a marker, then the end
        of the enclosing block: here, or at the end of the block?

        An unchanged block shown before new code is context shown to place it; a rewritten
        block is shown for its own sake, and "<new method> / ... existing code ... / }" is also
        how sketches say "add this to the class". Both readings fit, so neither is picked.
        """
        S, F = self.s, self.o
        if a >= b or not any(F.keys[j] for j in range(a, b)):
            return  # the marker keeps nothing: one place only
        if any(op.kind != "new" or S.keys[op.s] for op in tail_ops):
            return
        if s_hi >= len(S.keys) or not is_closer(S.keys[s_hi]):
            return
        run = []
        for op in reversed(head_ops):
            if op.kind != "new":
                break
            run.append(op.s)
        run.reverse()
        rows = [i for i in run if S.keys[i]]
        if not rows or not self.is_definitions(rows) or S.cols[s_hi] >= min(S.cols[i] for i in rows):
            return
        before = run[0] - 1
        while before > s_lo and not S.keys[before]:
            before -= 1
        if before < 0 or not is_closer(S.keys[before]) or before not in self.smap:
            return
        head = S.owner[before]
        if head is None or head not in self.smap:
            return
        shown = [k for k in S.keys[head:before + 1] if k]
        had = [k for k in F.keys[self.smap[head]:self.smap[before] + 1] if k]
        if shown != had:
            raise Refused(f"new {_short(S.keys[rows[0]], 40)!r} follows the rewritten "
                          f"{_short(S.keys[head], 30)!r} and a marker follows it before the block "
                          "ends: add it there or at the end of the block? Show the line after it")

    def near_duplicate(self, head_ops: list[Op], tail_ops: list[Op], a: int, b: int) -> None:
        """New lines right next to a marker that closely resemble the block the marker keeps
        there are a rewrite as often as an addition (a renamed function, a reworded paragraph):
        keeping both would be a silent duplicate, dropping the old one a guess."""
        S, F = self.s, self.o
        rows = [j for j in range(a, b) if F.keys[j]]
        if not rows:
            return
        n = 0
        while n < len(head_ops) and head_ops[len(head_ops) - 1 - n].kind == "new":
            n += 1
        head_new = {S.keys[op.s] for op in head_ops[len(head_ops) - n:] if S.keys[op.s]}
        n = 0
        while n < len(tail_ops) and tail_ops[n].kind == "new":
            n += 1
        tail_new = {S.keys[op.s] for op in tail_ops[:n] if S.keys[op.s]}
        first = rows[0]
        head_block = [j for j in range(first, min(b, F.block_end(first))) if F.keys[j]]
        top = rows[-1]
        while F.owner[top] is not None and F.owner[top] >= a:
            top = F.owner[top]
        tail_block = [j for j in range(top, rows[-1] + 1) if F.keys[j]]
        # Also the lines right at the marker, as many as the sketch added: reworded comments
        # or edited statements (close, not equal) are a rewrite as well.
        head_near = rows[: len(head_new)]
        tail_near = rows[len(rows) - len(tail_new):] if tail_new else []
        for new, block, fuzzy in ((head_new, head_block, False), (tail_new, tail_block, False),
                                  (head_new, head_near, True), (tail_new, tail_near, True)):
            if len(new) < 2 or len(block) < (2 if fuzzy else 3):
                continue
            if fuzzy:
                pool = list(new)
                same = [F.keys[j] for j in block
                        if get_close_matches(F.keys[j], pool, n=1, cutoff=0.8)]
            else:
                same = [F.keys[j] for j in block if F.keys[j] in new]
            # Short lines ("return self", "def value(self):") look alike across any code; only
            # longer ones tell a rewrite apart (all the more when matched loosely).
            long = 24 if fuzzy else 10
            telling = [k for k in same if len(k) >= long and len(_WORD.findall(k)) >= (3 if fuzzy else 2)]
            if len(same) * 2 >= len(block) and len(telling) >= 2:
                raise Refused(f"new lines next to a marker repeat most of {_short(F.keys[block[0]], 40)!r} "
                              f"(line {block[0] + 1}), which the marker keeps: a rewrite or an addition?")

    def stretch(self, a: int, b: int, before: int, after: int, pinned_before: bool,
                pinned_after: bool) -> None:
        """Keep original lines [a, b) for a marker, with the sketch's blank lines around it.

        Blank lines between two lines the file already has stay as the file has them; the
        sketch's own blank lines count only next to lines it adds.
        """
        F = self.o
        if a >= b:
            if not (pinned_before and pinned_after):
                self.ops.extend(Op("blank") for _ in range(min(before, after)))
            return
        lead = 0
        while a + lead < b and not F.keys[a + lead]:
            lead += 1
        trail = 0
        while b - 1 - trail >= a + lead and not F.keys[b - 1 - trail]:
            trail += 1
        if not pinned_before:
            self.ops.extend(Op("blank") for _ in range(max(0, before - lead)))
        self.ops.append(Op("keep", o=a, o_end=b))
        if not pinned_after:
            want = after - trail
            if after and not trail:
                # New lines go into a gap of blank lines the file has right there (its lines
                # after the gap are shown below them): the gap is the file's spacing at that
                # depth (two blank lines between Python definitions), the sketch's lone blank
                # line next to a marker mostly padding.
                gap = 0
                while b + gap < len(F.keys) and not F.keys[b + gap] and not F.marker[b + gap]:
                    gap += 1
                want = max(want, gap)
            self.ops.extend(Op("blank") for _ in range(max(0, want)))

    def is_definitions(self, part: list[int]) -> bool:
        S = self.s
        base = min(S.cols[i] for i in part if S.keys[i])
        tops = [i for i in part if S.keys[i] and S.cols[i] == base]
        heads = [i for i in tops if not S.keys[i].startswith(_DEF_START) and not is_closer(S.keys[i])]
        if not heads or any(S.name(i) is None or S.name(i).startswith("<") for i in heads):
            return False
        last = part[-1]
        return is_closer(S.keys[last]) or S.cols[last] > base

    def _shape(self, run: list[int], j: int) -> bool:
        """Same relative indentation in the sketch run and the file lines from ``j``."""
        S, F = self.s, self.o
        return all(S.cols[i] - S.cols[run[0]] == F.cols[j + d] - F.cols[j]
                   for d, i in enumerate(run) if S.keys[i])

    def _rewritten(self, s: int, o: int, rest: list[int], lo: int, j: int, from_end: bool) -> bool:
        """The line's block header was rewritten: the sketch's header is among the new lines
        and the file's header among the lines they replace."""
        a, b = self.s.owner[s], self.o.owner[o]
        return from_end and a in rest and b is not None and lo <= b < j

    def _valid(self, s: int, o: int, local: dict[int, int]) -> bool:
        # A matched line only counts if the block the sketch puts it in is the block it
        # sits in in the file: a "}" or "return x" of another function is not the same line.
        # A line the sketch shows with no enclosing line (first after a marker) may sit in
        # any block the marker hides.
        a = self.s.owner[s]
        if a is None:
            return True
        return local.get(a, self.smap.get(a)) == self.o.owner[o]

    def align_head(self, part, s_lo, s_hi, o_lo, o_hi) -> tuple[list[Op], int]:
        """Lines after the left anchor, up to a marker: they continue from the anchor."""
        S, F = self.s, self.o
        ops: list[Op] = []
        local: dict[int, int] = {}
        k = o_lo + 1
        cut = False
        for s in part:
            kind = "new"
            if not cut and k < o_hi:
                if S.keys[s] == F.keys[k]:
                    kind = "match"
                elif self.modifiable(s, k):
                    kind = "modify"
                if kind != "new":
                    if self._valid(s, k, local):
                        local[s] = k
                    else:
                        kind, cut = "new", True
            if kind == "new":
                ops.append(Op("new", s))
            else:
                ops.append(Op(kind, s, k))
                k += 1
        # New lines followed by context the file has a little further on: the sketch
        # replaced what lies between (shown on both sides, so the deletion is explicit).
        last = max((n for n, op in enumerate(ops) if op.kind != "new"), default=-1)
        rest = [op.s for op in ops[last + 1:]]
        pin = self._pin(rest, k, o_hi, local, from_end=True)
        if pin is not None:
            j, t = pin
            for n in range(t):
                ops[len(ops) - t + n] = Op("match", rest[len(rest) - t + n], j + n)
            k = j + t
        return ops, k

    def align_tail(self, part, s_lo, s_hi, o_lo, o_hi, lo) -> tuple[list[Op], int]:
        """Lines after the last marker, up to the right anchor: they lead into it."""
        S, F = self.s, self.o
        pairs: list[tuple[int, int | None, str]] = []
        k = o_hi - 1
        for s in reversed(part):
            kind = "new"
            if k >= lo:
                if S.keys[s] == F.keys[k]:
                    kind = "match"
                elif self.modifiable(s, k):
                    kind = "modify"
            if kind == "new":
                pairs.append((s, None, "new"))
            else:
                pairs.append((s, k, kind))
                k -= 1
        local = {s: o for s, o, kind in pairs if o is not None}
        start = o_hi
        cut = False
        out: list[Op] = []
        for s, o, kind in pairs:       # from the right anchor outwards
            if o is not None and not cut and self._valid(s, o, local):
                out.append(Op(kind, s, o))
                start = o
            else:
                if o is not None:
                    cut = True
                    local.pop(s, None)
                out.append(Op("new", s))
        out.reverse()
        first = next((n for n, op in enumerate(out) if op.kind != "new"), len(out))
        rest = [op.s for op in out[:first]]
        pin = self._pin(rest, lo, start, local, from_end=False)
        if pin is not None:
            j, t = pin
            for n in range(t):
                out[n] = Op("match", rest[n], j + n)
            start = j
        return out, start

    def _pin(self, rest: list[int], lo: int, hi: int, local: dict[int, int],
             from_end: bool) -> tuple[int, int] | None:
        """Find the context run at the marker end of ``rest`` once, near the anchor side.

        ``rest`` are sketch lines that did not line up with the file; their run next to
        the marker (up to 5 lines) is looked for among the next few original lines. One
        place: pinned there. Several: refused, never the first. None: they are new lines.
        """
        S, F = self.s, self.o
        if not rest:
            return None
        reach = 2 * len(rest) + 10
        for t in range(min(5, len(rest)), 0, -1):
            run = rest[len(rest) - t:] if from_end else rest[:t]
            keys = [S.keys[i] for i in run]
            weak = not any(has_word(x) and len(x) >= 4 for x in keys)
            # Where the run would sit with nothing of the file dropped: right at the anchor.
            flush = lo if from_end else hi - t
            # The next few original lines on the anchor side, where the run may start.
            spots = range(lo, min(hi, lo + reach) - t + 1) if from_end else range(max(lo, hi - reach), hi - t + 1)
            if weak and not any(keys):
                continue
            if weak and (t < 2 or not all(keys)):
                # "}" alone says nothing, unless it is exactly where the sketch puts it
                if not (0 <= flush and F.keys[flush:flush + t] == keys and self._shape(run, flush)):
                    if t == 1 and keys[0] and not is_closer(keys[0]):
                        near = [j for j in spots if F.keys[j] == keys[0]]
                        if near:
                            # The file has that line a little further on: the marker may end
                            # there (the lines between replaced) or the line may be new.
                            raise Refused(f"{_short(keys[0])!r} next to a marker is in the file "
                                          f"(line {near[0] + 1}) but not where the sketch puts it: "
                                          "does the marker end there? Show one more line")
                    continue
                found = [flush]
            else:
                found = [j for j in spots if F.keys[j:j + t] == keys]
                if weak:
                    found = [j for j in found if self._shape(run, j)]
                if len(found) > 1 and flush in found:
                    found = [flush]  # the reading that drops nothing of the file
            if len(found) > 1:
                raise Refused(f"context {_short(keys[-1] if from_end else keys[0])!r} next to a marker "
                              f"matches {len(found)} places (lines {found[0] + 1} and {found[1] + 1})")
            if found:
                j = found[0]
                trial = dict(local)
                trial.update({run[n]: j + n for n in range(t)})
                if (any(self.strong(x) for x in keys)
                        or all(self._valid(run[n], j + n, trial)
                               or self._rewritten(run[n], j + n, rest, lo, j, from_end)
                               for n in range(t))):
                    local.update(trial)
                    return j, t
                return None
        return None

    @staticmethod
    def _similar(a: str, b: str) -> bool:
        # short lines ("return this;") resemble too much to say one rewrote the other
        if min(len(a), len(b)) < 16:
            return False
        ta, tb = _LEAD.match(a), _LEAD.match(b)
        return (bool(ta and tb) and ta.group(0) == tb.group(0)
                and SequenceMatcher(None, a, b, autojunk=False).ratio() >= 0.6)

    def modifiable(self, s: int, o: int) -> bool:
        """An edited line: same statement opening, mostly the same text (not a block line)."""
        a, b = self.s.keys[s], self.o.keys[o]
        if not a or not b or is_closer(a) or is_closer(b) or self.o.marker[o]:
            return False
        ta, tb = _LEAD.match(a), _LEAD.match(b)
        if not ta or not tb or ta.group(0) != tb.group(0) or self.s.name(s) != self.o.name(o):
            return False
        if a.startswith(_DECORATION):
            # A decorator is part of the definition below it: "@cache(64)" over a new
            # function is not an edit of "@cache(16)" over another one.
            ds, do = _decorated(self.s, s), _decorated(self.o, o)
            if ds is not None and do is not None and self.s.name(ds) != self.o.name(do):
                return False
        return SequenceMatcher(None, a, b, autojunk=False).ratio() >= 0.6

    # ------------------------------------------------------------------ checks

    def check_elision(self) -> None:
        """Refuse a block the sketch shows whole (same header, shown closing) but shorter.

        That is the classic lazy sketch: a model rewrites a few lines of a function and
        silently leaves out the rest, which a merger would then delete.
        """
        if not self.partial:
            return
        S, F = self.s, self.o
        used = set()
        for op in self.ops:
            if op.kind in ("match", "modify"):
                used.add(op.o)
            elif op.kind == "keep":
                used.update(range(op.o, op.o_end))
        for s, o in self.smap.items():
            if s in self.by_name or not S.keys[s] or S.keys[s] != F.keys[o]:
                continue
            se = self._indent_end(S, s)
            oe = self._indent_end(F, o)
            if se is None or oe is None or se >= len(S.keys) or oe >= len(F.keys):
                continue
            if any(S.marker[i] for i in range(s + 1, se + 1)) or self.smap.get(se) != oe:
                continue
            ns = sum(1 for i in range(s + 1, se) if S.keys[i])
            dropped = [j for j in range(o + 1, oe) if F.keys[j] and j not in used]
            no = sum(1 for j in range(o + 1, oe) if F.keys[j])
            # a dropped line the sketch rewrote (same opening, mostly the same text) was
            # replaced, not dropped
            news = [i for i in range(s + 1, se) if S.keys[i] and i not in self.smap]
            dropped = [j for j in dropped if not any(self._similar(S.keys[i], F.keys[j]) for i in news)]
            kept = [j for j in range(o + 1, oe) if F.keys[j] and (j in used or j not in dropped)]
            # Only lines dropped at the end of the block are the lazy pattern (the model shows
            # the first lines and closes the block); a line dropped between two lines the
            # sketch shows is an explicit deletion.
            tail = dropped and (not kept or dropped[-1] > kept[-1])
            if tail and ns < no:
                raise Refused(f"sketch shortens {_short(F.keys[o], 40)!r} (line {o + 1}) from {no} "
                              f"to {ns} lines without a marker; add '... existing code ...' "
                              "where lines stay, or show the whole block")

    def check_dead_code(self) -> None:
        """A sketch block that ends in return/raise/throw right where a marker keeps more
        statements of the same block: the marker kept the old rest of a rewritten body."""
        S, F = self.s, self.o
        last: tuple[str, int, int] | None = None   # (key, cols, original line or -1)
        for op in self.ops:
            if op.kind == "keep":
                first = next((j for j in range(op.o, op.o_end) if F.keys[j]), None)
                if (last is not None and first is not None and last[2] != first - 1
                        and _TERMINATOR.match(last[0]) and F.cols[first] == last[1]
                        and not is_closer(F.keys[first]) and not _CONTINUES.match(F.keys[first])):
                    raise Refused(f"a marker keeps {_short(F.keys[first], 40)!r} (line {first + 1}) right "
                                  f"after the sketch's {_short(last[0], 30)!r}: the old rest of a "
                                  "rewritten block? Show the block whole or mark where it ends")
                last = None
                nonblank = [j for j in range(op.o, op.o_end) if F.keys[j]]
                if nonblank:
                    last = (F.keys[nonblank[-1]], F.cols[nonblank[-1]], nonblank[-1])
            elif op.kind in ("new", "match", "modify") and S.keys[op.s]:
                last = (S.keys[op.s], F.cols[op.o] if op.kind != "new" else -1,
                        op.o if op.kind == "match" else -1)
                if op.kind == "new":
                    # the file's depth of a new line is decided when rendering; compare the
                    # sketch's own depth relative to the nearest matched line instead
                    last = (S.keys[op.s], self._depth_hint(op.s), -1)

    def _depth_hint(self, s: int) -> int:
        """The file column a new sketch line will get, judged from the nearest earlier match."""
        S, F = self.s, self.o
        for i in range(s - 1, -1, -1):
            if S.marker[i]:
                break
            o = self.smap.get(i)
            if o is not None:
                return F.cols[o] + S.cols[s] - S.cols[i]
        return -1

    def check_structure(self) -> None:
        """Every matched line must sit under the same matched block header as in the file."""
        S, F = self.s, self.o
        pairs = {op.s: op.o for op in self.ops if op.kind in ("match", "modify")}
        for s, o in pairs.items():
            a = S.owner[s]
            if a is None or a not in pairs:
                continue
            b = F.owner[o]
            # A different header above it is a re-nesting the sketch made (a `with` removed,
            # a loop added); the same header text at another place is two places at once.
            if pairs[a] != b and b is not None and F.keys[b] == S.keys[a]:
                raise Refused(f"{_short(S.keys[s], 40)!r} sits under {_short(S.keys[a], 30)!r} in the sketch "
                              f"but not in the file (line {o + 1}): the sketch matches two places at once")

    def check_moves(self) -> None:
        """A line the sketch shows out of order must not end up twice in the file."""
        if not self.moved:
            return
        used = set()
        for op in self.ops:
            if op.kind == "keep":
                used.update(range(op.o, op.o_end))
            elif op.kind in ("match", "modify"):
                used.add(op.o)
        for i, j in self.moved:
            if j in used:
                raise Refused(f"sketch moves {_short(self.s.keys[i])!r} (line {j + 1}) but a marker "
                              "keeps its old place: cannot tell a move from a copy")

