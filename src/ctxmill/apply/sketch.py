"""Apply a sketched edit: merge it into the file, show the diff, refuse rather than guess.

    >>> from ctxmill.apply import apply_sketch   # (re-exported from this module)
    >>> r = apply_sketch(original, sketch, path="calc.js")
    >>> r.applied, r.diff, r.reason

A sketch is the changed code plus marker comments ("// ... existing code ...") standing for
unchanged stretches; see :mod:`ctxmill.apply.markers` and :mod:`ctxmill.apply.merge`. Every
result is checked: no marker text left, original bytes kept outside the edited lines, and
a file that parsed before must still parse (tree-sitter). The CLI, web page and MCP server
all call :func:`apply_sketch` / :func:`apply_file`.
"""

from __future__ import annotations

import gc
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path

from ctxmill.apply.check import common_prefix, common_suffix, language_for, new_error
from ctxmill.apply.lines import TAB, Text, is_closer, key_of
from ctxmill.apply.markers import is_marker
from ctxmill.apply.merge import Merger, Op, Refused
from ctxmill.atomic import write_bytes
from ctxmill.errors import InputRefused

__all__ = ["ApplyResult", "apply_sketch", "apply_file", "is_marker"]

from ctxmill.limits import APPLY_MAX_BYTES as MAX_BYTES  # the file and the sketch, each
from ctxmill.procs import GC_THRESHOLD

_FENCE = re.compile(r"^\s*(```|~~~)[\w+.#-]*\s*$")


@dataclass
class ApplyResult:
    applied: bool
    result: str | None = None
    diff: str | None = None
    reason: str | None = None
    hunks: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        out: dict = {"applied": self.applied}
        if self.result is not None:
            out["result"] = self.result
        if self.diff is not None:
            out["diff"] = self.diff
        if self.reason is not None:
            out["reason"] = self.reason
        out["hunks"] = self.hunks
        return out


def apply_sketch(original: str, sketch: str, *, path: str | None = None,
                 language: str | None = None) -> ApplyResult:
    """Merge ``sketch`` into ``original``; ``applied`` is False with a ``reason`` when refused.

    Raises :class:`InputRefused` when either text is over ``MAX_BYTES`` (checked up front).
    """
    for what, text in (("sketch", sketch), ("file", original)):
        if len(text) > MAX_BYTES // 4 and len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
            raise InputRefused(f"{path or what}: the {what} is too large to apply "
                               f"(limit APPLY_MAX_BYTES = {MAX_BYTES:,} bytes)")
    bom = "\ufeff" if original.startswith("\ufeff") else ""
    # Classic Mac OS line endings (a lone CR ends each line, no LF anywhere): merged as LF lines
    # and given their CRs back; split on LF alone the whole file was one line nothing matched
    cr = "\r" in original and "\n" not in original
    if cr:
        original = original.replace("\r", "\n")
    # Collect cyclic garbage less often while merging, as a compile does (entry.main): the
    # merge of a large file makes an Op per line and holds lists per line, and at the default
    # threshold (700) the collector's full passes over them took ~20% of an identical 4.6 MB
    # sketch and grew faster than the input (x2.3 a doubling; x2.05 with this). Restored after.
    threshold = gc.get_threshold()
    if threshold[0] and threshold[0] < GC_THRESHOLD:
        gc.set_threshold(GC_THRESHOLD, *threshold[1:])
    try:
        merged, raw, out = _apply(original[len(bom):], sketch.removeprefix("\ufeff"),
                             language_for(path, language))
    except Refused as exc:
        return ApplyResult(False, reason=str(exc))
    finally:
        if gc.get_threshold()[0] == GC_THRESHOLD != threshold[0]:
            gc.set_threshold(*threshold)
    name = path or "file"
    result = bom + merged
    # the rendered lines are the result's lines (each ends in its newline), unless a BOM
    # goes in front or the last one was emptied
    same = not bom and out is not None and (not out or out[-1])
    diff, hunks = _diff(original, result, name, None if bom else raw, out if same else None)
    if cr:
        result = result.replace("\n", "\r")
    return ApplyResult(True, result=result, diff=diff, hunks=hunks)


def apply_file(path: str | os.PathLike, sketch_text: str, write: bool = False) -> ApplyResult:
    """Apply a sketch to the file at ``path``; with ``write`` replace it atomically when applied."""
    p = Path(path)
    if not p.exists():
        raise InputRefused(f"{path}: no such file")
    if p.is_dir():
        raise InputRefused(f"{path}: is a folder, not a file")
    size = p.stat().st_size  # checked before the file is read
    if size > MAX_BYTES:
        raise InputRefused(f"{path}: {size:,} bytes is too large to apply a sketch to "
                           f"(limit APPLY_MAX_BYTES = {MAX_BYTES:,} bytes)")
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputRefused(f"{path}: not UTF-8 text (byte {exc.start})") from None
    res = apply_sketch(text, sketch_text, path=str(path))
    if write and res.applied and res.result != text:
        # through a symlink: replace the file it points at, keep the link
        write_bytes(p.resolve(), res.result.encode("utf-8"))
    return res


# ---------------------------------------------------------------------------- merge


_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def _split(text: str) -> list[str]:
    """Lines with their endings; a last line without a newline keeps none."""
    return _LINE.findall(text)


def _sketch_lines(sketch: str, original_lines: list[str]) -> list[str]:
    lines = sketch.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    # A sketch pasted with its Markdown fence: drop the fence unless the file has one there.
    if len(lines) >= 2 and _FENCE.match(lines[0]) and _FENCE.match(lines[-1]):
        first = next((s for s in original_lines if s.strip()), "")
        if not _FENCE.match(first):
            lines = lines[1:-1]
    return lines


def _apply(original: str, sketch: str, lang: str | None) -> tuple[str, list[str], list[str] | None]:
    """The merged text, the original's lines and the merged text's lines (with endings)."""
    raw = _split(original)
    nl = "\r\n" if original.count("\r\n") * 2 > original.count("\n") else "\n"
    final_nl = original.endswith("\n")
    if "\r" in original:
        o_lines = [r.rstrip("\r\n") for r in raw]
    else:  # the same lines, split in C
        o_lines = original.split("\n") if original else []
        if original.endswith("\n"):
            o_lines.pop()
    s_lines = _sketch_lines(sketch, o_lines)
    if not any(s.strip() for s in s_lines):
        raise Refused("sketch is empty")
    F = Text(o_lines, [False] * len(o_lines))  # the file's own lines are never markers
    flags = [is_marker(x) for x in s_lines]
    if any(flags):
        # A marker-looking comment the file itself contains is that line, not a marker.
        own = set(F.keys)
        flags = [f and key_of(x) not in own for f, x in zip(flags, s_lines, strict=True)]
    S = Text(s_lines, flags)
    if not any(k for k in F.keys):
        if any(S.marker):
            raise Refused("file is empty but the sketch refers to existing code with markers")
        return nl.join(s_lines) + (nl if final_nl or not original else ""), raw, None

    partial = any(S.marker)
    implicit = False
    if not partial:
        s_first = next(k for k in S.keys if k)
        s_last = next(k for k in reversed(S.keys) if k)
        o_first = next(k for k in F.keys if k)
        o_last = next(k for k in reversed(F.keys) if k)
        if not (s_first == o_first and s_last == o_last):
            implicit = partial = True

    region = _fragment_region(F, S) if implicit else None
    if implicit and region is None:
        # A fragment that is not a run of whole definitions: as if it had markers around it.
        S = Text(["..."] + s_lines + ["..."], [True] + S.marker + [True])
    m = Merger(F, S, partial)
    if region is not None:
        # Whole definitions: they replace the same definitions in the file, nothing else.
        a, b = region
        if a > 0:
            m.ops.append(Op("keep", o=0, o_end=a))
        m.closed(-1, len(S.lines), a - 1, b)
        if b < len(F.lines):
            m.ops.append(Op("keep", o=b, o_end=len(F.lines)))
    else:
        m.window(-1, len(S.lines), -1, len(F.lines))
    m.check_elision()
    m.check_moves()
    m.check_structure()
    m.check_dead_code()
    used = _used(m.ops)
    if partial:
        _check_ends(m, used)
    if not any(op.kind in ("match", "modify") for op in m.ops) and implicit:
        raise Refused("no line of the sketch matches the file and it has no markers")
    out = _render(m, raw, nl, final_nl or not original)
    result = "".join(out)
    _check_result(m, result, original, lang)
    return result, raw, out


_LEADING = ("@", "#[", "//", "/*", "*", "#", "<!--", "--", '"""', "'''")


def _fragment_region(F: Text, S: Text) -> tuple[int, int] | None:
    """The original lines a fragment of whole definitions replaces, or None.

    Every top-level line of the fragment must head a definition found exactly once in the
    file (same text, else same name), in order and next to each other there.
    """
    rows = [i for i, k in enumerate(S.keys) if k]
    base = min(S.cols[i] for i in rows)
    tops = [i for i in rows if S.cols[i] == base]
    heads = [i for i in tops if not S.keys[i].startswith(_LEADING) and not is_closer(S.keys[i])]
    if not heads or any(i < heads[0] and not S.keys[i].startswith(_LEADING) for i in rows):
        return None
    mapped: list[int] = []
    for h in heads:
        if S.block_end(h) == h + 1 and S.name(h) is None:
            return None  # a bare statement, not a definition
        cands = [j for j, k in enumerate(F.keys) if k == S.keys[h]]
        if len(cands) != 1 and S.name(h):
            cands = [j for j, n in enumerate(F.names) if n == S.name(h)]
        if len(cands) != 1:
            return None
        mapped.append(cands[0])
    if any(b <= a for a, b in zip(mapped, mapped[1:], strict=False)) or len({F.cols[j] for j in mapped}) != 1:
        return None
    for a, b in zip(mapped, mapped[1:], strict=False):
        between = range(F.block_end(a), b)
        if any(F.keys[j] and F.cols[j] <= F.cols[a] and not F.keys[j].startswith(_LEADING)
               for j in between):
            return None  # the fragment skips a definition the file has in between
    start = mapped[0]
    if heads[0] != rows[0]:  # the fragment brings its own comments/decorators: replace the file's
        while (start > 0 and F.keys[start - 1].startswith(_LEADING)
               and F.cols[start - 1] == F.cols[mapped[0]]):
            start -= 1
    return start, F.block_end(mapped[-1])


def _used(ops: list[Op]) -> set[int]:
    used: set[int] = set()
    for op in ops:
        if op.kind in ("match", "modify"):
            used.add(op.o)
        elif op.kind == "keep":
            used.update(range(op.o, op.o_end))
    return used


def _check_ends(m: Merger, used: set[int]) -> None:
    """A partial sketch may not silently drop the top or the bottom of the file.

    Lines before the first (after the last) line the sketch pins down are the sketch's to
    replace only if it puts something there; dropping more than it adds is refused.
    """
    F, S = m.o, m.s
    pinned = [i for i, op in enumerate(m.ops) if op.kind in ("match", "modify", "keep")]
    if not pinned:
        return
    first, last = m.ops[pinned[0]], m.ops[pinned[-1]]
    first_o = first.o
    last_o = last.o_end - 1 if last.kind == "keep" else last.o
    added_head = sum(1 for op in m.ops[: pinned[0]] if op.kind == "new" and S.keys[op.s])
    added_tail = sum(1 for op in m.ops[pinned[-1] + 1:] if op.kind == "new" and S.keys[op.s])
    lost_head = [j for j in range(first_o) if F.keys[j] and j not in used]
    lost_tail = [j for j in range(last_o + 1, len(F.keys)) if F.keys[j] and j not in used]
    if len(lost_head) > added_head:
        raise Refused(f"sketch starts at line {first_o + 1} without a marker above it; lines "
                      f"{lost_head[0] + 1}-{lost_head[-1] + 1} would be deleted")
    if len(lost_tail) > added_tail:
        raise Refused(f"sketch ends at line {last_o + 1} without a marker below it; lines "
                      f"{lost_tail[0] + 1}-{lost_tail[-1] + 1} would be deleted")


def _check_result(m: Merger, result: str, original: str, lang: str | None) -> None:
    F, S = m.o, m.s
    own = set(F.keys)
    for op in m.ops:
        # Only sketch lines can bring marker text in; the file's own comments are its own.
        if op.kind in ("new", "modify") and S.keys[op.s] not in own and is_marker(S.lines[op.s]):
            raise Refused(f"marker text would be left in the file: {_short(S.keys[op.s])!r}")
    err = new_error(original, result, lang)
    if err:
        raise Refused(f"result no longer parses as {lang} (error near line {err}); "
                      "the sketch probably does not fit where it matched")


def _short(text: str, n: int = 60) -> str:
    text = text.strip()
    return text if len(text) <= n else text[: n - 1] + "…"


def _scale(m: Merger) -> float:
    """Indentation ratio file:sketch, read off consecutive matched lines (tabs vs 2 vs 4)."""
    S, F = m.s, m.o
    ratios: Counter[float] = Counter()
    prev = None
    for op in m.ops:
        if op.kind != "match":
            if op.kind == "keep":
                prev = None
            continue
        if prev is not None:
            ds, do = S.cols[op.s] - S.cols[prev.s], F.cols[op.o] - F.cols[prev.o]
            if ds and do and (ds > 0) == (do > 0):
                ratios[round(do / ds * 2) / 2] += 1
        prev = op
    if not (F.indented and S.indented) or F.unit == S.unit:
        return 1.0
    # Units differ (2 vs 4 spaces, tabs vs 2): trust the ratio only if matched lines agree.
    if ratios:
        # Matched lines at different depths show the scale itself (a sketch's own indent
        # step is easily misread off aligned continuation lines, or absent).
        r, c = ratios.most_common(1)[0]
        if r in (0.5, 2.0) and c * 2 > sum(ratios.values()):
            return r
    want = F.unit / S.unit
    if not ratios:
        # No matched lines at different depths to confirm it: trust the two indent steps
        # only for the usual conversions (2 <-> 4 spaces, 4 <-> 8), and only when an
        # indented line the file has shows that scale (new code alone proves nothing).
        seen = any(op.kind == "match" and F.cols[op.o] and S.cols[op.s] * want == F.cols[op.o]
                   for op in m.ops)
        return want if want in (0.5, 2.0) and seen else 1.0
    return want if ratios.get(round(want * 2) / 2, 0) * 2 >= sum(ratios.values()) else 1.0


def _render(m: Merger, raw: list[str], nl: str, final_nl: bool) -> list[str]:
    S, F = m.s, m.o
    scale = _scale(m)
    tabs = F.tabs if F.indented else S.tabs
    seg = []
    n = 0
    for mk in S.marker:
        n += mk
        seg.append(n)

    def indent(cols: int) -> str:
        cols = max(0, cols)
        return "\t" * (cols // TAB) + " " * (cols % TAB) if tabs else " " * cols

    # For a new line with no earlier sketch line in its segment: the next matched one.
    nxt: list[Op | None] = [None] * len(m.ops)
    following = None
    for idx in range(len(m.ops) - 1, -1, -1):
        op = m.ops[idx]
        if op.kind == "keep":
            following = None
        nxt[idx] = following
        if op.kind in ("match", "modify"):
            following = op
    out: list[str] = []
    prev: tuple[int, int, int] | None = None    # (sketch cols, output cols, segment)
    last_pair: tuple[int, int] | None = None    # (sketch cols, output cols) anywhere
    for idx, op in enumerate(m.ops):
        if op.kind == "keep":
            out.extend(raw[op.o:op.o_end])
            prev = None
            continue
        if op.kind == "blank":
            out.append(nl)
            continue
        s = op.s
        line = S.lines[s]
        if op.kind == "modify":
            orig = raw[op.o]
            body = orig.rstrip("\r\n")
            lead = body[: len(body) - len(body.lstrip())]
            out.append(lead + line.strip() + nl)
            prev = (S.cols[s], F.cols[op.o], seg[s])
            last_pair = prev[:2]
            continue
        if op.kind == "match" and S.keys[s] != F.keys[op.o]:
            want = F.cols[op.o]  # a definition matched by name: its line, the file's indent
        elif prev is not None and prev[2] == seg[s]:
            want = prev[1] + round((S.cols[s] - prev[0]) * scale)
        elif op.kind == "match":
            want = F.cols[op.o]
        elif nxt[idx] is not None and seg[nxt[idx].s] == seg[s]:
            ref = nxt[idx]
            want = F.cols[ref.o] + round((S.cols[s] - S.cols[ref.s]) * scale)
        elif last_pair is not None:
            want = last_pair[1] + round((S.cols[s] - last_pair[0]) * scale)
        else:
            want = round(S.cols[s] * scale)
        want = max(0, want)
        if op.kind == "match" and want == F.cols[op.o] and S.keys[s] == F.keys[op.o]:
            out.append(raw[op.o])
        elif not line.strip():
            out.append(line + nl)  # the sketch's own blank line, whitespace and all
            continue
        else:
            out.append(indent(want) + line.lstrip() + nl)
        if line.strip():  # a blank line's column 0 says nothing of the sketch's indentation
            prev = (S.cols[s], want, seg[s])
            last_pair = prev[:2]
    for i in range(len(out) - 1):
        if not out[i].endswith("\n"):
            out[i] += nl
    if out:
        if final_nl and not out[-1].endswith("\n"):
            out[-1] += nl
        elif not final_nl:
            out[-1] = out[-1].rstrip("\r\n")
    return out


def _diff(a: str, b: str, name: str, al: list[str] | None = None, bl: list[str] | None = None,
          context: int = 3) -> tuple[str, list[dict]]:
    al = al if al is not None else _split(a)
    bl = bl if bl is not None else _split(b)
    sm = _Trimmed(al, bl)
    hunks = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag != "equal":
            hunks.append({"kind": {"replace": "replace", "delete": "delete", "insert": "insert"}[tag],
                          "old_start": i1 + 1, "old_lines": i2 - i1,
                          "new_start": j1 + 1, "new_lines": j2 - j1})
    if not hunks:
        return "", hunks
    name = name.lstrip("/")
    out = [f"--- a/{name}\n", f"+++ b/{name}\n"]
    for group in sm.get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_rng(i1, i2)} +{_rng(j1, j2)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(" " + x for x in al[a1:a2])
            if tag in ("replace", "delete"):
                out.extend("-" + x for x in al[a1:a2])
            if tag in ("replace", "insert"):
                out.extend("+" + x for x in bl[b1:b2])
    fixed = []
    for x in out:
        if not x.endswith("\n"):
            x += "\n\\ No newline at end of file\n"
        fixed.append(x)
    return "".join(fixed), hunks


class _Trimmed(SequenceMatcher):
    """SequenceMatcher that skips the common head and tail (an edit touches a few lines)."""

    def __init__(self, a: list[str], b: list[str]):
        la, lb = len(a), len(b)
        p = common_prefix(a, b)
        q = common_suffix(a, b, p)
        self._p, self._q, self._la, self._lb = p, q, la, lb
        super().__init__(None, a[p: len(a) - q], b[p: len(b) - q])

    def get_opcodes(self):
        p, q, la, lb = self._p, self._q, self._la, self._lb
        ops = [(t, i1 + p, i2 + p, j1 + p, j2 + p) for t, i1, i2, j1, j2 in super().get_opcodes()
               if i2 > i1 or j2 > j1]
        if p:
            ops.insert(0, ("equal", 0, p, 0, p))
        if q:
            ops.append(("equal", la - q, la, lb - q, lb))
        merged = []
        for op in ops:
            if merged and op[0] == "equal" and merged[-1][0] == "equal":
                t, i1, _, j1, _ = merged[-1]
                merged[-1] = ("equal", i1, op[2], j1, op[4])
            else:
                merged.append(op)
        return merged or [("equal", 0, la, 0, lb)]


def _rng(lo: int, hi: int) -> str:
    n = hi - lo
    start = lo + 1 if n else lo
    return f"{start}" if n == 1 else f"{start},{n}"
