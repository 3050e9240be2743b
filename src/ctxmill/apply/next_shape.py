"""Repeated edits by line shape: the lines the edit rewrote, found again elsewhere with other
names or literals in the same places, and rewritten as the edit rewrote them.

The token rules of ``next_repeated`` learn one changed *region* and need its context to agree
around each site. They miss a change whose context is the very thing that varies: an insertion
whose neighbour is another name (``Request.forwarded_priority`` -> ``config_value(:forwarded_priority)
|| Request.forwarded_priority`` at ``Request.x_forwarded_proto_priority``), or several lines
rewritten at once (three lines of a test set-up replaced by two). Here the unit is the whole
run of lines the edit replaced: a site is a run of as many lines whose tokens are the same,
except identifiers, numbers and strings, which may differ where they map one-to-one onto the
example's (the same name always to the same name). The replacement is the edit's new lines with
each such token mapped to the site's, at the site's indentation.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from ctxmill.apply.next_repeated import _IMPORT_LINE, TOK, WEIGHT, kind

MAX_RUN_LINES = 6  # a longer run is a rewrite, not an edit to repeat
MAX_MAPPED = 2  # names/literals a site may hold in the example's place
KEYWORDS = frozenset("""and as assert async await break case catch class const continue def defp do elif else end
enum except export extends false final finally fn for from func fun function if impl import in is let loop
match mod module nil None not null or override pass private protected pub public raise require return self
static struct super switch this throw true True False try type use val var void when where while with yield""".split())


def _toks(line: str) -> list[str]:
    return [t for t in TOK.findall(line) if t != "\n"]


def _holeable(t: str) -> bool:
    k = kind(t)
    return k in ("num", "str") or (k == "id" and t not in KEYWORDS)


def _line_pattern(toks: list[str]) -> re.Pattern:
    """A regex that finds candidate lines for ``toks`` quickly (verified token by token after)."""
    parts = []
    for t in toks:
        k = kind(t)
        if _holeable(t):
            parts.append({"id": r"[A-Za-z_$][A-Za-z0-9_$]*[?!]?", "num": r"\d[\w.]*",
                          "str": r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"}[k].join("()"))
        else:
            parts.append(re.escape(t))
    # a newline first, not `^` under re.M: the engine then scans for that character instead of
    # trying every position (73 -> 44 ms over 5 MB); the text is searched with one prepended
    return re.compile(r"\n[ \t]*" + r"[ \t]*".join(parts) + r"[ \t]*(?=\n|\Z)")


def _runs(h) -> list[tuple[list[str], list[str]]]:
    """(old lines, new lines) of each run of lines the hunk replaced or deleted."""
    out = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, h.old, h.new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete") and i2 - i1 <= MAX_RUN_LINES:
            out.append((h.old[i1:i2], h.new[j1:j2]))
    return out


def _comment(line: str) -> bool:
    s = line.strip()
    return s.startswith(("//", "/*", "*", "<!--", "--", ";", "%")) or s.startswith("#") and s[1:2] in ("", " ", "#", "!")


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def suggest_shape(files: dict[str, str], hunks, edited: set[tuple[str, int]]):
    """[(path, first, last, replacement, features)]: the edit's runs of rewritten lines at the
    sites whose lines have their shape."""
    out = []
    seen: set[tuple[str, int, int]] = set()
    trigger_paths = {h.path for h in hunks}
    for h in hunks:
        for old, new in _runs(h):
            while old and not old[0].strip():  # blank lines at the ends are layout
                old = old[1:]
            tail = 0  # blank lines a deletion took with it (the site's go too, where it has them)
            while old and not old[-1].strip():
                old, tail = old[:-1], tail + 1
            if not old or any(not x.strip() for x in old):
                continue
            if all(_comment(x) for x in old):
                continue  # a reworded comment is about its own place
            if not new and all(_IMPORT_LINE.match(x) for x in old):
                continue  # an import the file no longer needs: other files still may
            pat = [_toks(x) for x in old]
            new_toks = [t for x in new for t in _toks(x)]
            if [t for p in pat for t in p] == new_toks:
                continue  # only whitespace changed
            concrete = sum(WEIGHT[kind(t)] for p in pat for t in p if not _holeable(t))
            names = sum(WEIGHT[kind(t)] for p in pat for t in p if _holeable(t))
            if names + concrete < 3.0:
                continue  # too short to say anything (`}` or `x = 1`)
            first_re = _line_pattern(pat[0])
            # a site keeps all but MAX_MAPPED of the example's names and every other token: a
            # file without them is passed over before any line is matched
            names_of = {t for p in pat for t in p if _holeable(t)}
            marks = {t for p in pat for t in p if not _holeable(t) and len(t) > 1}
            run_out = []
            for path, text in files.items():
                if any(t not in text for t in marks) or sum(t not in text for t in names_of) > MAX_MAPPED:
                    continue
                lines = None
                start, pos = 0, 0
                for m in first_re.finditer("\n" + text):
                    if lines is None:
                        lines = text.split("\n")
                    # (matches come in order: the line number counted on from the last one)
                    start, pos = start + text.count("\n", pos, m.start()), m.start()  # the site's first line, 0-based
                    last = start + len(pat) - 1
                    if last >= len(lines) or any((path, n + 1) in edited for n in range(start, last + 1)):
                        continue
                    mapping = _map(pat, lines[start:last + 1])
                    if mapping is None:
                        continue
                    moved = {a: b for a, b in mapping.items() if a != b}
                    if len(moved) > MAX_MAPPED or moved and names + concrete < 4.0:
                        continue  # (a short line says something only as it is: `import "phoenix_html"`)
                    # every token that stays is evidence; a mapped one says only its kind
                    kept = sum(WEIGHT[kind(t)] for p in pat for t in p if t not in moved)
                    if kept < 0.5 * (names + concrete):
                        continue
                    transferred: set[str] = set()
                    if len(old) == 1 and len(new) == 1:
                        rep = [_rewritten(old[0], new[0], lines[start], moved, transferred)]
                    else:
                        pad, had = _indent(lines[start]), _indent(old[0])
                        rep = [_mapped(x, moved) for x in new]
                        rep = [pad + x[len(had):] if x.startswith(had) else (pad + x.lstrip() if x.strip() else x)
                               for x in rep]
                    # a name or literal of the site's own that the edit drops (`get_uint::<LittleEndian>`
                    # where the example's `get_uint::<BigEndian>` became `get_uint_be`): the new
                    # lines would say the example's thing, not the site's
                    dropped = bool(new) and any(not _carried(a, new) and a not in transferred for a in moved)
                    if not new and tail and all(not x.strip() for x in lines[last + 1:last + 1 + tail]) \
                            and last + tail < len(lines) - 1:
                        last += tail
                    if rep == lines[start:last + 1]:
                        continue
                    key = (path, start + 1, last + 1)
                    if key in seen:
                        continue
                    seen.add(key)
                    run_out.append((path, start + 1, last + 1, "".join(x + "\n" for x in rep), {
                        "moved": float(len(moved)),
                        "deletion": float(not new),
                        "same_file": float(path in trigger_paths),
                        "lines": float(len(pat)),
                        "kept": kept,
                        "dropped": float(dropped),
                    }))
            for o in run_out:
                o[4]["sites"] = len(run_out)
            out += run_out
    return out


def _map(pat: list[list[str]], site: list[str]) -> dict[str, str] | None:
    """The example's token -> the site's, one-to-one, when the site's lines have the shape."""
    fwd: dict[str, str] = {}
    back: dict[str, str] = {}
    for p, line in zip(pat, site, strict=True):
        got = _toks(line)
        if len(got) != len(p):
            return None
        for a, b in zip(p, got, strict=True):
            if a == b and not _holeable(a):
                continue
            if not (_holeable(a) and _holeable(b) and kind(a) == kind(b)):
                return None
            if fwd.setdefault(a, b) != b or back.setdefault(b, a) != a:
                return None
    return fwd


def _carried(tok: str, new: list[str]) -> bool:
    if any(tok in _toks(x) for x in new):
        return True
    return kind(tok) == "str" and len(tok) > 4 and any(tok[1:-1] in x for x in new)


def _rewritten(old: str, new: str, site: str, moved: dict[str, str], edited: set | None = None) -> str:
    """The site's line with the example's one-line change made to it: tokens the change keeps
    keep the site's spacing (`# include` stays `# include`), changed ones take the example's.
    A string the example edited in place whose site holds another string gets the same edit
    where the site's string has the text around it (``edited`` collects such strings)."""
    a = [(m.group(), m.start(), m.end()) for m in TOK.finditer(old)]
    b = [(m.group(), m.start(), m.end()) for m in TOK.finditer(new)]
    c = [(m.group(), m.start(), m.end()) for m in TOK.finditer(site)]
    if not b:
        return ""
    src: dict[int, int] = {}  # new token -> the old (so the site's) token it is
    strings: dict[int, str] = {}  # new token -> the site's string given the example's edit
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, [t for t, _, _ in a], [t for t, _, _ in b],
                                               autojunk=False).get_opcodes():
        if tag == "equal":
            src.update({j1 + k: i1 + k for k in range(j2 - j1)})
        elif tag == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                was, now = a[i1 + k][0], b[j1 + k][0]
                if kind(was) == kind(now) == "str" and was in moved:
                    got = _string_edit(was, now, moved[was])
                    if got is not None:
                        strings[j1 + k] = got
                        if edited is not None:
                            edited.add(was)
    # pieces of the result: (text, from the example?); runs from the example are mapped together,
    # so a string's content carried over several tokens (`<cppformat/format.h>`) follows the site
    out = [(site[:c[src[0]][1]], False) if src.get(0) == 0 else (_indent(site) + new[len(_indent(new)):b[0][1]], True)]
    for j, (t, s, _e) in enumerate(b):
        if j:
            if j in src and j - 1 in src and src[j] == src[j - 1] + 1:
                out.append((site[c[src[j - 1]][2]:c[src[j]][1]], False))
            else:
                out.append((new[b[j - 1][2]:s], True))
        out.append((c[src[j]][0], False) if j in src else (strings[j], False) if j in strings else (t, True))
    last = len(b) - 1
    out.append((site[c[-1][2]:], False) if src.get(last) == len(c) - 1 else (new[b[-1][2]:], True))
    text, run = [], []
    for piece, ours in out + [("", False)]:
        if ours:
            run.append(piece)
            continue
        if run:
            text.append(_mapped("".join(run), moved, force=True))
            run = []
        text.append(piece)
    return "".join(text)


def _string_edit(was: str, now: str, site: str) -> str | None:
    """``site`` with the edit that made ``was`` into ``now`` (`'GET _200 _color_0_'` ->
    `'GET _200_color_0_'` makes `'GET _300 _color_0_'` `'GET _300_color_0_'`), placed by the
    longest text around it that occurs once in ``site``; None where it is nowhere or ambiguous."""
    p = 0
    while p < min(len(was), len(now)) and was[p] == now[p]:
        p += 1
    q = 0
    while q < min(len(was), len(now)) - p and was[-1 - q] == now[-1 - q]:
        q += 1
    cut, put = was[p:len(was) - q], now[p:len(now) - q]
    for k in range(12, 2, -1):  # context chars around the edit, both sides together
        for kl in range(min(k, p), -1, -1):
            kr = k - kl
            if kr > q:
                continue
            key = was[p - kl:p] + cut + was[len(was) - q:len(was) - q + kr]
            if site.count(key) == 1:
                at = site.index(key) + kl
                return site[:at] + put + site[at + len(cut):]
    return None


def _mapped(line: str, moved: dict[str, str], force: bool = False) -> str:
    if not moved:
        return line
    out = TOK.sub(lambda m: moved.get(m.group(), m.group()), line)
    for a, b in moved.items():
        # a string's content carried into another form (`"format.h"` -> `<cppformat/format.h>`)
        if kind(a) == "str" and len(a) > 4 and (force or a not in line) and a[1:-1] in out:
            out = out.replace(a[1:-1], b[1:-1])
    return out
