"""Signature changes: a definition's parameters were added, removed, renamed or reordered, so
the calls of that function are rewritten to match.

The edit's removed and added lines are searched for the same function defined on both sides
with different parameter lists. Each parameter is read for its name and default the way its
language writes them (``x: int = 3``, ``final String s``, ``mut x: T``, ``x \\\\ 3``, ``x:``).
A call site is ``name(`` anywhere in the tree that is not a definition, whose arguments fit the
old list (positional count between the required and the full count; keywords by name). Its new
arguments: the old argument of each kept parameter, the new name for a renamed keyword, and for
a new parameter its default left out when it has one, else its name (the value a caller most
often has in hand under that name). Method calls (``obj.name(``) skip ``self``.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

from ctxmill.apply.next_repeated import indent_width, line_starts
from ctxmill.linescan import finditer_lines

EXT_LANG = {".py": "python", ".pyi": "python", ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript",
            ".cjs": "javascript", ".ts": "typescript", ".tsx": "typescript", ".go": "go", ".rs": "rust",
            ".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".rb": "ruby", ".ex": "elixir", ".exs": "elixir",
            ".c": "c", ".h": "c", ".cc": "c", ".cpp": "c", ".hpp": "c", ".swift": "swift", ".scala": "scala",
            ".cs": "java", ".php": "javascript", ".lua": "javascript"}
_JAVA_MODS = r"(?:(?:public|private|protected|static|final|abstract|synchronized|native|default|override|open|" \
             r"internal|suspend|inline|operator|infix|tailrec|external|virtual|async|export)\s+)*"
DEF = {
    "python": r"\bdef\s+(\w+)\s*\(",
    "go": r"\bfunc\s+(?:\([^)]*\)\s*)?(\w+)\s*(?:\[[^\]]*\]\s*)?\(",
    "rust": r"\bfn\s+(\w+)\s*(?:<[^(]*>)?\s*\(",
    "kotlin": r"\bfun\s+(?:<[^>]*>\s*)?(?:[\w.]+\.)?(\w+)\s*\(",
    "swift": r"\bfunc\s+(\w+)\s*(?:<[^>]*>)?\s*\(",
    "ruby": r"\bdef\s+(?:self\.)?(\w+[?!]?)\s*\(",
    "elixir": r"\bdef[pm]?\w*\s+(\w+[?!]?)\s*\(",
    "javascript": r"(?:\bfunction\s*\*?\s*(\w+)\s*\(|^\s*(?:async\s+|static\s+|get\s+|set\s+)*(\w+)\s*\([^;]*\)\s*\{"
                  r"|\b(\w+)\s*[:=]\s*(?:async\s+)?function\s*\()",
    "java": r"^\s*(?:@\w+\s+)*" + _JAVA_MODS + r"(?:<[^>]*>\s+)?[\w<>\[\],.? ]+\s+(\w+)\s*\(",
    "c": r"^\s*(?:(?:static|inline|extern|const|unsigned|virtual|constexpr|FMT_\w+)\s+)*[\w:<>*&,]+[\s*&]+(\w+)\s*\(",
}
DEF["typescript"] = DEF["javascript"] + r"|^\s*(?:export\s+)?(?:async\s+)?function\s+(\w+)\s*(?:<[^>]*>)?\s*\("
DEF["scala"] = r"\bdef\s+(\w+)\s*(?:\[[^\]]*\])?\s*\("
NOT_DEF = re.compile(r"\s*(return|new|else|throw|case|await|yield|if|for|while|switch|catch|super|this)\b")
SKIP_NAMES = {"if", "for", "while", "switch", "catch", "return", "sizeof", "function", "main", "new", "init",
              "__init__", "constructor", "super"}
# languages whose methods see a class's fields by their bare names
BARE_FIELDS = {"java", "kotlin", "scala", "swift", "c"}
SELF = {"self", "&self", "&mut self", "mut self", "cls", "this"}


@dataclass
class Param:
    name: str
    default: str | None
    text: str
    keyword_only: bool = False  # Ruby's ``name:`` and Python's after ``*``
    value: str | None = None  # what a call passes for it when it is new (read off an edited call)
    pattern: bool = False  # an Elixir pattern (`{:ok, changeset}`), named by its text


def balanced(text: str, start: int) -> int | None:
    """Index of the bracket closing text[start] (an opening one), strings skipped; None if open."""
    depth, i, quote = 0, start, None
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def split_top(inner: str) -> list[tuple[int, int]]:
    """Spans of the comma-separated parts of an argument list (brackets, generics and strings kept whole)."""
    parts, depth, quote, start, i = [], 0, None, 0, 0
    while i < len(inner):
        ch = inner[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'`":
            quote = ch
        elif ch in "([{<":
            depth += 1 if ch != "<" or re.match(r"[\w\s,<>?\[\]&:'.]*>", inner[i + 1:]) else 0
        elif ch in ")]}>":
            if ch != ">" or depth > 0 and inner[i - 1] != "-" and inner[i - 1] != "=":
                depth -= 1
        elif ch == "," and depth <= 0:
            parts.append((start, i))
            start = i + 1
        i += 1
    if inner[start:].strip():
        parts.append((start, len(inner)))
    return parts


def parse_param(text: str, lang: str) -> Param | None:
    t = _norm(text)
    if not t:
        return None
    if t in SELF or t.startswith(("&'", "self:")):
        return Param("self", None, t)
    default = None
    if lang == "elixir":
        # a pattern bound to a name (`%Project{} = project`, `project = %Project{}`): the name
        # (Elixir writes defaults as `\\`, so a lone `=` is always such a match)
        head, sep, tail = t.partition("\\\\")
        parts = re.split(r"(?<![=<>!])=(?![=>~])", head)
        if len(parts) == 2:
            name = next((x.strip() for x in parts[::-1] if re.fullmatch(r"\w+[?!]?", x.strip())), None)
            if name:
                t = name + (" " + sep + tail if sep else "")
    for sep in (r"\s*\\\\\s*", r"\s*=(?!=)\s*"):  # Elixir's \\ first: it may hold "="
        m = re.search(sep, t)
        if m and (lang != "ruby" or sep != r"\s*\\\\\s*"):
            t, default = t[:m.start()], t[m.end():]
            break
    keyword_only = False
    if lang == "ruby":
        m = re.match(r"(\w+):\s*(.*)$", t)
        if m:
            return Param(m.group(1), m.group(2) or None if default is None else default, text.strip(), True)
    if lang in ("java", "c", "scala") and lang != "scala":
        ids = re.findall(r"[A-Za-z_]\w*", re.sub(r"<[^>]*>|@\w+(\([^)]*\))?", " ", t))
        name = ids[-1] if ids else None
    elif lang == "go":
        name = t.split(" ")[0]
    else:  # name first: python, js/ts, rust, kotlin, swift, ruby, elixir, scala
        t2 = re.sub(r"^(?:mut|ref|vararg|val|var|readonly|public|private|protected|override)\s+", "", t.lstrip("*&"))
        m = re.match(r"[A-Za-z_$][\w$]*[?!]?", t2)
        name = m.group() if m else None
        if name is None and lang == "elixir" and t2:
            # a pattern (`{:ok, changeset}`; `%{} = x` is read as x above): positional, named by
            # its text, so a call's arguments can be counted against the clause
            return Param(t2, default, text.strip(), pattern=True)
    if not name:
        return None
    return Param(name, default, text.strip(), keyword_only)


def defs_in(text: str, lang: str) -> dict[str, list[Param]]:
    """{function name: parameters} for the definitions that start in ``text`` (the first of a name)."""
    out: dict[str, list[Param]] = {}
    for name, params in defs_all(text, lang):
        out.setdefault(name, params)
    return out


def defs_all(text: str, lang: str, only: str | None = None):
    """(function name, parameters) for every definition that starts in ``text``, a name's other
    clauses and overloads too (Elixir's `read_part_headers/7` after a `read_part_headers/2`);
    ``only``: that name's alone."""
    pat = DEF.get(lang)
    if not pat or only is not None and only not in text:
        return
    for m in finditer_lines(pat, text):
        name = next((g for g in m.groups() if g), None)
        if not name or name in SKIP_NAMES or only is not None and name != only or NOT_DEF.match(text[m.start():m.end()]):
            continue
        p = text.find("(", m.end() - 1 if text[m.end() - 1] == "(" else m.end())
        close = balanced(text, p) if p >= 0 else None
        if close is None:
            continue
        inner = text[p + 1:close]
        if lang in ("java", "javascript", "typescript") and text[close + 1:close + 80].lstrip().startswith(";"):
            continue  # a call or an abstract declaration, not a body
        params = []
        for s, e in split_top(inner):
            prm = parse_param(inner[s:e], lang)
            if prm is None:
                break
            params.append(prm)
        else:
            yield name, params


@dataclass
class Change:
    name: str
    old: list[Param]
    new: list[Param]
    lang: str
    receiver: bool = False  # the dropped first parameter is the new definition's receiver (_took_receiver)


def _took_receiver(h, name: str, old: list[Param], new: list[Param], lang: str) -> bool:
    """Whether the re-signing dropped the first parameter ``p: T`` and made T the definition's
    receiver: Kotlin's ``fun T.name(``, Go's ``func (x T) name(``, or a Java/Kotlin ``static``
    method of class T (the file's name) made an instance method. Its calls then pass that
    argument as the receiver (okio's ``ByteString.encodeUtf8("a")`` -> ``"a".encodeUtf8()``)."""
    if len(old) != len(new) + 1 or [p.name for p in old[1:]] != [p.name for p in new]:
        return False
    t = _type_of(old[0], lang).lstrip("*&").strip()
    if not re.fullmatch(r"[\w.]+", t):
        return False
    before = "\n".join(h.old) if h.old else "\n".join(h.removed)
    after = "\n".join(h.new) if h.new else "\n".join(h.added)
    n, tq = re.escape(name), re.escape(t)
    if lang == "kotlin" and re.search(r"\bfun\s+(?:<[^>]*>\s*)?" + tq + r"\??\." + n + r"\s*\(", after):
        return True
    if lang == "go" and re.search(r"\bfunc\s*\(\s*\w+\s+\*?" + tq + r"\s*\)\s*" + n + r"\s*\(", after):
        return True
    static = r"\bstatic\b[^;{}=()]*\b" + n + r"\s*\("
    return lang in ("java", "kotlin") and t == Path(h.path).stem and bool(re.search(static, before)) \
        and not re.search(static, after)


def _redefined(hunks):
    """(hunk, name, old params, new params, language) of each definition a hunk rewrites with
    other parameter texts: the re-signed ones (changes) and the re-typed ones (retyped)."""
    for h in hunks:
        lang = EXT_LANG.get(_ext(h.path))
        if not lang or not h.removed or not h.added:
            continue
        # the hunk's whole text on each side, its context too: a definition written over several
        # lines may change only its first line (`private RestAdapter(IServer server, ...,` with the
        # other parameters below) or only a parameter's line (`fn f(\n-    v: T,\n+    v: &T,\n)`);
        # a definition the hunk leaves alone reads the same on both sides and is no change
        old = "\n".join(h.old) if h.old else "\n".join(h.removed)
        new = "\n".join(h.new) if h.new else "\n".join(h.added)
        before, after = defs_in(old, lang), defs_in(new, lang)
        for name in sorted(set(before) & set(after)):
            a, b = before[name], after[name]
            if any(p.pattern for p in a + b):
                continue  # a clause's patterns rewritten (`:bytea` -> `TypeInfo[sender: :bytea]`): the other clauses' edit, no re-signing
            if [p.text for p in a] != [p.text for p in b]:
                yield h, name, a, b, lang


@dataclass
class Redefined:
    """The definitions an edit rewrote, read once per edit (the rename, signature and ranking
    steps all ask): ``changes`` re-signed them (parameter names differ), ``retyped`` kept the
    names but not the types."""
    changes: list[Change]
    retyped: list[Change]


def redefined(hunks) -> Redefined:
    out = Redefined([], [])
    for h, name, a, b, lang in _redefined(hunks):
        if [p.name for p in a] != [p.name for p in b]:
            _values_from_body(h, a, b)
            out.changes.append(Change(name, a, b, lang, _took_receiver(h, name, a, b, lang)))
        else:
            out.retyped.append(Change(name, a, b, lang))
    return out


def changes(hunks) -> list[Change]:
    """Definitions the edit re-signed (their parameter names changed)."""
    return redefined(hunks).changes


def retyped(hunks) -> list[Change]:
    """Definitions whose parameters kept their names but not their types (``value: T`` ->
    ``value: &T``, ``at: Instant`` -> ``at: SystemTime``, Ruby's ``is_array = false`` ->
    ``is_array: false``): the calls whose arguments the type change reaches (see _retyped_arg).
    Not a re-signing edit (changes): the repeated edits at look-alike definitions stay shown
    (Java's overrides follow their interface)."""
    return redefined(hunks).retyped


def _type_of(p: Param, lang: str) -> str:
    """The type text of a parameter (``&'a T`` of ``x: &'a T``, ``*T`` of Go's ``x *T``)."""
    t = re.split(r"\s*(?:\\\\|=(?!=))", p.text, maxsplit=1)[0]
    if lang in ("java", "c"):
        return re.sub(r"\b" + re.escape(p.name) + r"\s*$", "", t).strip()
    t = re.sub(r"^(?:mut\s+)?" + re.escape(p.name) + r"\b\s*:?", "", t.strip(), count=1)
    return t.strip()


# an argument that takes a method call as it is (a name, a literal, a chain of names, calls and
# indexes); anything else goes in parentheses
_OPERAND = re.compile(r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[\w$]+(?:\([^()]*\)|\[[^\[\]]*\])*)"""
                      r"(?:\s*(?:\.|::|->|\?\.)\s*[\w$]+(?:\([^()]*\)|\[[^\[\]]*\])*)*")
_PLACE = re.compile(r"(?:self\.|this\.)?[A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*")


def _retyped_arg(arg: str, old: Param, new: Param, lang: str) -> str:
    """A kept parameter's argument after its type changed: a value now taken by reference is
    lent (``serialize_element(e)`` -> ``(&e)`` for ``value: T`` -> ``value: &T``; Go's ``x T`` ->
    ``x *T`` and C's pointer the same), one no longer taken by reference is passed as it is, and
    a type the argument names (``Instant::now()``, ``Timeout.NONE``) becomes the new one."""
    a, b = _type_of(old, lang), _type_of(new, lang)
    if a == b or not a or not b:
        return arg
    ref = {"rust": "&", "go": "*", "c": "*"}.get(lang)
    if ref and lang == "c":
        a, b = a.replace(" ", ""), b.replace(" ", "")
        gained, lost = b.endswith("*") and not a.endswith("*") and b.rstrip("*") == a, \
            a.endswith("*") and not b.endswith("*") and a.rstrip("*") == b
    elif ref:
        gained = b.startswith(ref) and not a.startswith(ref) and re.sub(r"^&(?:'\w+\s+)?(?:mut\s+)?|^\*", "", b) == a
        lost = a.startswith(ref) and not b.startswith(ref) and re.sub(r"^&(?:'\w+\s+)?(?:mut\s+)?|^\*", "", a) == b
    else:
        gained = lost = False
    if gained and _PLACE.fullmatch(arg):
        return ("&mut " if lang == "rust" and re.match(r"&(?:'\w+\s+)?mut\s", b) else "&") + arg
    if lost and re.match(r"&(?!&)", arg) and _PLACE.fullmatch(re.sub(r"^&\s*(?:mut\s+)?", "", arg)):
        return re.sub(r"^&\s*(?:mut\s+)?", "", arg)
    ta, tb = re.findall(r"[A-Za-z_]\w*", a), re.findall(r"[A-Za-z_]\w*", b)
    if len(ta) == len(tb):
        diff = [(x, y) for x, y in zip(ta, tb, strict=True) if x != y]
        if len(diff) == 1 and re.match(re.escape(diff[0][0]) + r"(?:::|\.)", arg):
            return diff[0][1] + arg[len(diff[0][0]):]
    # renamed and re-typed at once, where the caller converted its own variable of the new name to
    # the old type (cJSON's `input` -> `parse_buffer *input_buffer`, called as
    # `buffer_at_offset(input_buffer)`, or `input_buffer.as_str()`): it passes that variable as it
    # is. Only with the new name as evidence: fmt's `to_sys(val)` for a `val` re-typed alone is a
    # conversion the new type may still need
    n = re.escape(new.name)
    if old.name != new.name and IDENT_RE.match(new.name) and (
            re.fullmatch(r"[A-Za-z_$][\w$.:<>]*\(\s*" + n + r"\s*\)", arg)
            or re.fullmatch(n + r"(?:\s*(?:\.|::|->)\s*[A-Za-z_]\w*\s*\(\s*\))+", arg)):
        return new.name
    return arg


def _values_from_body(h, old: list[Param], new: list[Param]) -> None:
    """A new parameter that took the place of one literal in the body (``[200, {}, body]`` ->
    ``[status, {}, body]``) was that literal before: the old callers pass it and keep what they
    had. Read off the edit's own token diff; a literal replaced in two different ways says nothing."""
    from ctxmill.apply.next_repeated import kind, tokens

    fresh = {p.name for p in new if p.default is None} - {p.name for p in old}
    if not fresh:
        return
    a = [t for t, _, _ in tokens("\n".join(h.removed))]
    b = [t for t, _, _ in tokens("\n".join(h.added))]
    seen: dict[str, set[str]] = {}
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "replace" and i2 - i1 == 1 and j2 - j1 == 1 and b[j1] in fresh and kind(a[i1]) in ("num", "str"):
            seen.setdefault(b[j1], set()).add(a[i1])
    for p in new:
        if p.name in fresh and len(seen.get(p.name, ())) == 1:
            p.value = next(iter(seen[p.name]))


def _ext(path: str) -> str:
    i = path.rfind(".")
    return path[i:].lower() if i >= 0 else ""


KW = {"python": r"^\s*(\w+)\s*=(?!=)", "kotlin": r"^\s*(\w+)\s*=(?!=)", "ruby": r"^\s*(\w+):(?!:)",
      "swift": r"^\s*(\w+):(?!:)", "scala": r"^\s*(\w+)\s*=(?!=)", "elixir": r"^\s*(\w+):(?!:)"}


KW_FORM = {"python": "{0}={0}", "kotlin": "{0} = {0}", "scala": "{0} = {0}", "swift": "{0}: {0}"}


def _bound(name: str, scope: str) -> bool:
    return bool(re.search(r"(?<![\w$.])" + re.escape(name) + r"(?![\w$])", scope))


def enclosing(text: str, pos: int, lang: str) -> str:
    """The text a call at ``pos`` can see names from: its function from the definition line to
    the call's line (Python: the nearest ``def`` indented less than the call), else everything
    above it."""
    line_start = text.rfind("\n", 0, pos) + 1
    before = text[:line_start]
    pat = DEF.get(lang)
    if not pat:
        return before
    if lang == "python":
        indent = len(text[line_start:pos]) - len(text[line_start:pos].lstrip())
        for m in reversed(list(re.finditer(r"^([ \t]*)(?:async\s+)?def\s", before, re.M))):
            if len(m.group(1)) < indent:
                return before[m.start():]
        # at module level: what the module's own statements bind, not the functions' locals
        return "\n".join(x for x in before.split("\n")
                         if not x[:1].isspace() and not x.startswith(("def ", "async def ", "class ", "@")))
    last = None
    for m in finditer_lines(pat, before):
        last = m
    return before[last.start():] if last else before


def rewrite_args(ch: Change, args: list[str], method: bool, scope: str,
                 unbound: list[str] | None = None) -> list[str] | None:
    """The new argument texts for a call with ``args`` (None when the call does not fit).

    ``scope`` is the text the call sees names from: a new parameter is passed by its name only
    where that name is there (a required one not there goes into ``unbound``: the caller has no
    such value, so the suggestion would not compile); a new parameter with a default is passed
    (by keyword where the language has them) when the caller holds a value of that name, as a
    caller threading ``timeout`` through does; ``*args``/``**kw`` are passed through the same way."""
    unbound = [] if unbound is None else unbound
    old = [p for p in ch.old if not (method and p.name == "self")]
    new = [p for p in ch.new if not (method and p.name == "self")]
    kw_re = KW.get(ch.lang)
    positional, keywords = [], {}
    for a in args:
        m = re.match(kw_re, a) if kw_re else None
        if m:
            keywords[m.group(1)] = a
        elif keywords:
            return None  # a positional after a keyword: not a call we read
        else:
            positional.append(a)
    given = {p.name for p in old[:len(positional)]} | set(keywords)
    if len(positional) > len(old) or any(k not in {p.name for p in old} for k in keywords) or any(
            p.default is None and not p.keyword_only and p.name not in given for p in old):
        return None  # not a call of this definition: too many arguments, an unknown keyword, a missing one
    value = {p.name: positional[i] for i, p in enumerate(old) if i < len(positional)}
    old_by_name = {p.name: p for p in old}
    renamed = {}
    old_names, new_names = [p.name for p in old], [p.name for p in new]
    if len(old) == len(new):  # a parameter renamed in place keeps its argument
        for a, b in zip(old, new, strict=True):
            if a.name != b.name and a.name not in new_names and b.name not in old_names:
                renamed[b.name] = a.name
    out = []
    last_given = -1
    for i, p in enumerate(new):
        src = renamed.get(p.name, p.name)
        if src in value:
            last_given = i
    for i, p in enumerate(new):
        src = renamed.get(p.name, p.name)
        if src in keywords:
            continue
        star = re.match(r"\*{1,2}|&", p.text) if ch.lang in ("python", "ruby") else None
        if src in value:
            if src != p.name:
                got = _named_after(value[src], src, p.name, scope)
                # renamed and retyped at once (okio's `Timeout timeout` -> `Deadline deadline`): an
                # argument the name left alone follows the type (`Timeout.NONE` -> `Deadline.NONE`)
                out.append(got if got != value[src] else _retyped_arg(got, old_by_name[src], p, ch.lang))
            elif ch.lang == "ruby" and p.keyword_only and not old_by_name[src].keyword_only and i == last_given:
                out.append(f"{p.name}: {value[src]}")  # `is_array = false` -> `is_array: false`: by keyword now
            else:
                out.append(_retyped_arg(value[src], old_by_name[src], p, ch.lang))
        elif star and src not in old_names:
            if _bound(p.name, scope):  # a new *args / **kw: the caller's own, passed through
                (keywords.__setitem__(p.name, star.group() + p.name) if star.group() == "**"
                 else out.append(star.group() + p.name))
            continue
        elif p.default is None and not p.keyword_only:
            if not _bound(p.name, scope) and not (p.value is not None and not IDENT_RE.match(p.value)):
                unbound.append(p.name)
            elif p.value is not None and kw_re and (kv := re.match(kw_re + r"\s*(.*?)\s*$", p.value)) \
                    and IDENT_RE.match(kv.group(2)) and not _bound(kv.group(2), scope):
                unbound.append(kv.group(2))  # `block=pool_block` copied from the edited call: a value this caller lacks
            if keywords and ch.lang in KW_FORM:  # after keywords, a positional would bind the wrong slot
                keywords[p.name] = KW_FORM[ch.lang].format(p.name)
                continue
            if p.value is not None:
                out.append(p.value)  # the value the edited call passed
            else:
                out.append(p.name)  # a new required parameter: the caller's value of that name
            last_given = max(last_given, i)
        elif src not in old_names and ch.lang in KW_FORM and _bound(p.name, scope) and i >= len(value):
            keywords[p.name] = KW_FORM[ch.lang].format(p.name)  # a new optional one the caller holds
            continue
        elif i < last_given:
            out.append(p.default or p.name)  # a gap before a later positional: its default
        else:
            continue
    for p in new:
        src = renamed.get(p.name, p.name)
        if src in keywords and src not in {q.name for q in old} and src == p.name:
            out.append(keywords[src])  # a new parameter passed by keyword
        elif src in keywords:
            a = keywords[src]
            if src != p.name:
                a = re.sub(r"^(\s*)" + re.escape(src), r"\g<1>" + p.name, a)
                # `connection=_connection` -> `pools=_pools`: a value named after its keyword follows it
                a = re.sub(r"(=\s*|:\s+)((?:self\.|@|_)?)" + re.escape(src) + r"\s*$",
                           r"\g<1>\g<2>" + p.name.replace("\\", r"\\"), a)
            out.append(a)
    return out


_ARG_PATH = r"(?:&\s*mut\s+|[&*@])?(?:[A-Za-z_$][\w$]*(?:\(\))?(?:\.|::|->|\?\.))*"


def _named_after(arg: str, old: str, new: str, scope: str) -> str:
    """The argument of a parameter renamed in place (``val`` -> ``value``): where the caller
    wrote it as the old parameter's name (``record(key, val)``), or as the last segment of a path
    (``request.url.authority``, ``&self.new_recorder``), it is the same value under the new name
    (``request.url.host``); a bare name changes only where the caller holds the new one."""
    m = re.fullmatch("(" + _ARG_PATH + ")" + re.escape(old), arg)
    if m is None and old[:1].islower() and new[:1].islower():
        # a path's exported field of that name (Go's `f.FilePath` for `filePath` -> `filePaths`)
        m = re.fullmatch("(" + _ARG_PATH + r")(?<=[.>])" + re.escape(old[:1].upper() + old[1:]), arg)
        new = new[:1].upper() + new[1:] if m else new
    if not m or not IDENT_RE.match(new) or old.strip("_") == new.strip("_"):
        # (`state` -> `_state` says the parameter is unused there: axum's trait impls, whose
        # calls pass another function's `state`)
        return arg
    path = m.group(1).lstrip("&*@ ").removeprefix("mut ").strip()
    if not path and not _bound(new, scope):
        return arg
    return m.group(1) + new


IDENT_RE = re.compile(r"^(?!(?:true|false|nil|null|None|True|False|undefined|this|self)$)[A-Za-z_$][\w$]*[?!]?$")
DYNAMIC = ("python", "ruby", "elixir", "javascript", "typescript")


def _calls_in(lines: list[str], lang: str, quals: dict[str, str] | None = None) -> dict[str, list[str]]:
    """{name: arguments} for the calls in ``lines`` that are not definitions. A call may span
    lines (``getImplicitBinding(member,`` / ``rawType)``): its arguments are read whitespace-
    collapsed. A line is a definition where defs_in reads one there, not wherever DEF's pattern
    matches (Java's and C's would take any indented ``nextNonWhitespace(true);`` for one).
    ``quals`` gets each call's qualifier (``key.`` of ``key.equals(``, ``Objects.`` of ``Objects.equals(``)."""
    out: dict[str, list[str]] = {}
    text = "\n".join(lines)
    starts = line_starts(text)
    is_def: dict[int, bool] = {}
    for m in re.finditer(r"(?<![\w$])([A-Za-z_][\w]*[?!]?)\s*\(", text):
        if m.group(1) in SKIP_NAMES or m.group(1) in out:
            continue
        row = bisect_right(starts, m.start()) - 1
        if row not in is_def:
            is_def[row] = bool(defs_in(lines[row], lang)) if row < len(lines) else False
        if is_def[row]:
            continue
        close = balanced(text, m.end() - 1)
        if close is None:
            continue
        inner = text[m.end():close]
        args = [_norm(inner[a:b]) for a, b in split_top(inner)]
        if lang == "elixir" and text[starts[row]:m.start()].rstrip().endswith("|>"):
            args.insert(0, "_piped_")  # `|> f(b)` is f(a, b): the definition counts the piped value
        out[m.group(1)] = args
        if quals is not None:
            q = re.search(r"(?:[\w$]+\s*(?:\.|::|->|\?\.)\s*)*$", text[starts[row]:m.start()])
            quals[m.group(1)] = re.sub(r"\s+", "", q.group()) if q else ""
    return out


# a typed language's parameter: its name and type, in its order
TYPED_PARAM = {"java": "{type} {name}", "c": "{type} {name}", "go": "{name} {type}"}
_TYPE = r"[A-Za-z_][\w.:]*(?:<[^<>()=;]*(?:<[^<>()=;]*>)?[^<>()=;]*>)?(?:\[\])*"


def declared_type(text: str, name: str, line: int, lang: str) -> str | None:
    """The type ``name`` is declared with in ``text`` (a parameter, a local, a field), the
    declaration nearest above line ``line`` first (1-based), else the nearest below; None where
    the file declares it without one (`x := ...`, `let x = ...`) or not at all."""
    n = re.escape(name)
    if lang in ("java", "c"):
        mods = r"(?:(?:public|private|protected|static|final|volatile|transient|const|unsigned|struct)\s+)*"
        pat = (rf"(?:^\s*|[(,;{{]\s*){mods}(?!(?:return|new|else|throw|case|import|package|var|val|let|auto)\b)"
               rf"({_TYPE}(?:\s*\*+)?)\s*\**\s*(?<=[\s*]){n}\s*(?=[=;,)]|$)")
    elif lang == "go":
        pat = rf"(?:\bvar\s+|[(,]\s*|^\s*){n}\s+((?:\*|\[\])*[A-Za-z_][\w.]*(?:\[[^\]]*\])?)\s*(?=[=,)]|$)"
    else:  # name: Type (Rust, Kotlin, TypeScript, Swift, Scala)
        pat = (rf"(?:\b(?:let|val|var|const)\s+(?:mut\s+)?|[(,]\s*|^\s*){n}\s*:\s*"
               rf"(&?(?:'\w+\s+)?(?:mut\s+)?{_TYPE}\??)\s*(?=[=,)]|$)")
    best = None
    offset = sum(len(x) + 1 for x in text.split("\n")[:max(0, line - 1)])
    for m in finditer_lines(pat, text):
        if m.start() <= offset or best is None:
            best = m
        if m.start() > offset:
            break
    return best.group(1).strip() if best else None


def _variadic(p: Param) -> bool:
    """A parameter that takes any number of arguments (``*args``, ``...rest``, Go's ``xs ...T``,
    Java's ``T... xs``, Kotlin's ``vararg``)."""
    return bool(re.match(r"\s*(?:\*(?!\*)|\.\.\.|vararg\s)", p.text) or re.search(r"\w\s*\.\.\.\s*\w|\s\.\.\.\w", p.text))


def _changed_at_line(h) -> int:
    return h.new_lines[0] if h.added else h.new_start


def call_changes(hunks, files: dict[str, str], redone: Redefined | None = None) -> tuple[list[Change], list]:
    """A call the edit gave an argument more or one fewer (``cmd(project, x)`` -> ``cmd(project,
    x, false)``): the function's other calls need the same, and its definition (found in the
    tree) a parameter more or fewer. ([Change], [(path, first, last, text, features, reason)])
    for the definitions; a typed language's new parameter takes the type the caller declared the
    argument with (none declared: no definition)."""
    changes_out, defs_out = [], []
    # a function the edit re-signs itself is that definition's change: its other overloads are
    # other functions (javapoet's `builder(String name)` -> `builder(Type type, String name)`
    # calling `builder(type, new Name(name))` says nothing of `builder(Name name)`)
    redone = redefined(hunks) if redone is None else redone
    own = {c.name for c in redone.changes + redone.retyped}
    for h in hunks:
        lang = EXT_LANG.get(_ext(h.path))
        if not lang or not h.removed or not h.added:
            continue
        q_before: dict[str, str] = {}
        q_after: dict[str, str] = {}
        before, after = _calls_in(h.removed, lang, q_before), _calls_in(h.added, lang, q_after)
        for name in sorted(set(before) & set(after) - own):
            if q_before[name] != q_after[name]:
                continue  # another function of that name (`key.equals(x)` -> `Objects.equals(key, x)`)
            a, b = before[name], after[name]
            ops = [op for op in SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
            if len(ops) != 1 or ops[0][0] not in ("insert", "delete") or ops[0][2] - ops[0][1] + ops[0][4] - ops[0][3] != 1:
                continue
            tag, i1, _, j1, _ = ops[0]
            moved = a[i1] if tag == "delete" else b[j1]
            if moved == "_piped_":
                continue  # a call piped on one side only: not an argument more or fewer
            # a keyword argument dropped (`min_version='1.4'`): its parameter is found by name, not
            # by place (fmt's `pip_install(package, commit=None, **kwargs)` would have lost its
            # **kwargs); no parameter of that name, no definition
            kw = re.match(KW[lang], moved) if tag == "delete" and KW.get(lang) else None
            kw_gone = kw.group(1) if kw else None
            # the definition in the tree, with as many parameters as the old call passed (self aside)
            found = None
            for path, text in files.items():
                if EXT_LANG.get(_ext(path)) != lang or name not in text:
                    continue
                # any clause or overload of that name with as many parameters as the old call passed
                # (Elixir's `read_part_headers/7` below a `read_part_headers/2`), or one more where
                # the last takes any number (Go's `files ...T`): the call now fills it
                for params in (prm for _, prm in defs_all(text, lang, name)):
                    taken = [q for q in params if q.name != "self"]
                    if len(taken) == len(a) or tag == "insert" and taken and _variadic(taken[-1]) and len(taken) - 1 == len(a):
                        found = (path, text, params, len(params) - len(taken), len(taken) != len(a))
                        break
                if found:
                    break
            if found is None:
                continue
            path, text, params, skip, variadic = found
            old = [q for q in params if q.name != "self"][:len(a)]
            if tag == "insert":
                arg = b[j1]
                pname = arg.lstrip("*&") if IDENT_RE.match(arg.lstrip("*&")) else f"_new{j1}"
                new = old[:i1] + [Param(pname, None, arg if pname == arg.lstrip("*&") else pname, value=arg)] + old[i1:]
            else:
                new = old[:i1] + old[i1 + 1:]
            changes_out.append(Change(name, old, new, lang))
            if variadic or tag == "insert" and not IDENT_RE.match(b[j1].lstrip("*&")):
                continue  # (a variadic definition takes the argument already)
            param = b[j1] if tag == "insert" else ""
            if re.fullmatch(r"__[A-Za-z]\w*__", param):
                param = param.strip("_").lower()  # Elixir's `__CALLER__` passed: a parameter `caller`
            if tag == "insert" and lang not in DYNAMIC:
                # a typed language's parameter needs its type: the one the caller declared the
                # argument with (`HTTPRequest fetchRequest = ...` above `parseResponse(fetchResponse,
                # fetchRequest)`), written the language's way; none declared, no definition
                typ = declared_type(files.get(h.path, ""), param, _changed_at_line(h), lang)
                if typ is None:
                    continue
                if lang == "c" and typ.endswith("*"):
                    param = re.sub(r"\s*\*+$", lambda m: " " + m.group().strip(), typ) + param  # `parse_buffer *buffer`
                else:
                    param = TYPED_PARAM.get(lang, "{name}: {type}").format(name=param, type=typ)
            for dm in finditer_lines(DEF[lang], text):
                if next((g for g in dm.groups() if g), None) != name or NOT_DEF.match(text[dm.start():dm.end()]):
                    continue
                p0 = text.find("(", dm.end() - 1 if text[dm.end() - 1] == "(" else dm.end())
                close = balanced(text, p0)
                if close is not None and text[close + 1:close + 80].lstrip().startswith(";"):
                    continue  # a call (`    nextNonWhitespace(true);` reads as Java's `Type name(`)
                if close is None or "\n" in text[p0:close]:
                    break
                inner = text[p0 + 1:close]
                parts = [inner[x:y].strip() for x, y in split_top(inner)]
                if len(parts) != len(params):
                    continue  # another clause or overload of the name
                at = i1 + skip
                if kw_gone is not None:
                    at = next((k for k, x in enumerate(parts) if (parse_param(x, lang) or Param("", None, "")).name == kw_gone), None)
                    if at is None:
                        break
                if tag == "insert" and lang == "elixir" and IDENT_RE.match(param) and not param.startswith("_") \
                        and any(re.fullmatch(r"_\w+", x) for x in parts):
                    # a clause that ignores parameters already (`_types, _adapter`) and whose body
                    # does not use the new one names it `_repo` (Elixir warns of an unused variable):
                    # ecto's `defp prepare(embeds, _types, _adapter, _repo, _repo_action) when embeds == %{}`
                    nxt = re.search(r"^[^\S\n]*(?:def|defp|defmacro|defmacrop)\s", text[close:], re.M)
                    body = text[close:close + nxt.start()] if nxt else text[close:]
                    if not _bound(param, body):
                        param = "_" + param
                parts = parts[:at] + [param] + parts[at:] if tag == "insert" else parts[:at] + parts[at + 1:]
                starts = line_starts(text)
                first = bisect_right(starts, p0) - 1
                s0 = starts[first]
                s1 = starts[first + 1] if first + 1 < len(starts) else len(text)
                defs_out.append((path, first + 1, first + 1, text[s0:p0 + 1] + ", ".join(parts) + text[close:s1],
                                 {"definition": 1.0, "same_file": float(path == h.path)},
                                 f"a call of {name} changed its arguments: the definition"))
                break
    return changes_out, defs_out


def _joined(sites: list, files: dict[str, str]) -> list:
    """One suggestion per run of touching lines: calls on one line or on neighbouring lines
    (``first = sort_list(first)`` over ``second = sort_list(second)``) are one change, as a
    commit's hunk makes them. ``sites``: (path, first, last, [(start, end, new text)], n args,
    n unbound) per call, lines 1-based; out: (path, first, last, new text of those lines, ...)."""
    from ctxmill.apply.next_repeated import line_starts

    out = []
    for site in sorted(sites, key=lambda x: (x[0], x[1], x[3][0][0])):
        prev = out[-1] if out else None
        if prev and prev[0] == site[0] and site[1] <= prev[2] + 1:
            out[-1] = (prev[0], prev[1], max(prev[2], site[2]), prev[3] + site[3], prev[4], prev[5] + site[5])
        else:
            out.append(site)
    rows = []
    for path, first, last, edits, n, unbound_n in out:
        text = files[path]
        starts = line_starts(text)
        s0 = starts[first - 1]
        s1 = starts[last] if last < len(starts) else len(text)
        new, at = [], s0
        for a, b, repl in edits:
            if a < at:
                continue  # a call inside another call's arguments: the outer one's text stands
            new += [text[at:a], repl]
            at = b
        rows.append((path, first, last, "".join(new) + text[at:s1], n, unbound_n))
    return rows


# a Go interface's method (`SetT(TestingT)` in `type Suite interface {`): no `func`, the name first
_GO_METHOD_DECL = r"^[ \t]+([A-Za-z_]\w*)\s*\((?=[^\n]*\)[^\n{]*$)"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _tail(text: str, close: int) -> str:
    """What a definition's line says after its parameter list (the return type, `throws ...`),
    up to its body or the end of the line."""
    end = text.find("\n", close)
    rest = text[close + 1:end if end >= 0 else len(text)]
    return _norm(re.split(r"\{|\bwhere\b|=>| do\b|\bdo:", rest, maxsplit=1)[0].rstrip(";").rstrip(":"))


def _definitions(text: str, name: str, lang: str):
    """(open, close, bodiless) of the parameter list of each definition or declaration of
    ``name`` in ``text``; ``bodiless``: a declaration without a body (an interface's, a trait's
    or an abstract method ending in `;`, a C prototype, a Go or Kotlin interface's method)."""
    pats = [re.compile(DEF[lang], re.M)] + ([re.compile(_GO_METHOD_DECL, re.M)] if lang == "go" else [])
    seen = set()
    # only the lines where the name opens a parenthesis are read with the (slower) definition
    # patterns, not the whole file (a 4,000-line Java file took 25 ms)
    lines = {}
    for q in re.finditer(r"(?<![\w$])" + re.escape(name) + r"\s*(?:<[^(\n]*>|\[[^(\n]*\])?\s*\(", text):
        ls = text.rfind("\n", 0, q.start()) + 1
        le = text.find("\n", q.end())
        lines[ls] = le if le >= 0 else len(text)
    hits = []
    for k, pat in enumerate(pats):
        for ls, le in lines.items():
            hits += [(k, m) for m in pat.finditer(text, ls, le)]
    hits.sort(key=lambda x: (x[0], x[1].start()))
    for k, m in hits:
        if next((g for g in m.groups() if g), None) != name or NOT_DEF.match(text[m.start():m.end()]):
            continue
        p = text.find("(", m.end() - 1 if text[m.end() - 1] == "(" else m.end())
        close = balanced(text, p) if p >= 0 else None
        if close is None or p in seen:
            continue
        seen.add(p)
        rest = text[close + 1:close + 400]
        if lang == "go":
            bodiless = k == 1
        elif lang in ("kotlin", "swift", "scala"):
            line, _, below = rest.partition("\n")
            bodiless = not re.search(r"[{=]", line) and not below.lstrip().startswith(("{", "="))
        else:
            end = re.search(r"[{;]", rest)
            bodiless = bool(end) and end.group() == ";" and "\n\n" not in rest[:end.start()]
        yield p, close, bodiless


def _trigger_tails(hunks, ch: Change) -> tuple[str, str] | None:
    """The text after the re-signed definition's parameter list before and after the edit (its
    return type), read off the hunk that rewrote it; None where the hunk does not show it."""
    for h in hunks:
        if EXT_LANG.get(_ext(h.path)) != ch.lang:
            continue
        got = []
        for side in ("\n".join(h.old) if h.old else "\n".join(h.removed), "\n".join(h.new) if h.new else "\n".join(h.added)):
            d = next(iter(_definitions(side, ch.name, ch.lang)), None)
            got.append(_tail(side, d[1]) if d else None)
        if None not in got:
            return got[0], got[1]
    return None


def _same_edit(params: list[str], ch: Change, lang: str) -> list[str] | None:
    """The parameter texts of another definition of a re-signed function after the edit made the
    same way, or None where it is not the same function's: every parameter as the old definition
    wrote it (then the new texts), or, where only the types changed, the same types at the same
    places under its own names (an implementation's `fn record(&self, f: &Field, v: &V)` follows
    its trait's `value: &V` -> `value: V`: `v: V`). A Go interface writes the types alone."""
    old, new = ch.old, ch.new
    if [_norm(x) for x in params] == [_norm(p.text) for p in old]:
        return [p.text for p in new]
    if len(params) != len(old) or len(old) != len(new) or lang in DYNAMIC:
        return None
    out = []
    for text, a, b in zip(params, old, new, strict=True):
        if a.name != b.name:
            return None  # a renamed parameter: only a definition written as the old one follows it
        ta, tb = _type_of(a, lang), _type_of(b, lang)
        if a.name == "self" or ta == tb:
            mine = parse_param(text, lang)
            if mine is None or a.name != "self" and ta and _norm(_type_of(mine, lang)) != _norm(ta) \
                    and not (lang == "go" and _norm(text) == _norm(ta)):
                return None
            out.append(text)
            continue
        if not ta or not tb:
            return None
        if lang == "go" and _norm(text) == _norm(ta):
            out.append(tb)  # an interface's method: the type alone
            continue
        mine = parse_param(text, lang)
        if mine is None or _norm(_type_of(mine, lang)) != _norm(ta):
            return None
        t = _type_of(mine, lang)
        at = text.rfind(t) if lang in ("java", "c") else text.find(t)
        if at < 0:
            return None
        out.append(text[:at] + tb + text[at + len(t):])
    return out


def other_definitions(files: dict[str, str], hunks, edited: set[tuple[str, int]], redone: Redefined):
    """A re-signed or re-typed definition's declarations elsewhere: an interface's, a trait's or
    an abstract method, a C prototype, a Go or Kotlin interface's method of the same name whose
    parameters read as the old definition's (the same texts, or the same types at the same places
    under its own names) get the edit made the same way, and the new return type where the edit
    changed it and they had the old one. An implementation the edit re-signed brings its
    interface's declarations (jsoup's `Connection timeout(int seconds);`), a declaration the
    others of its name (its inner interface's). Bodies of the same name and parameters are left:
    on the training cases they were another class's own method or rewritten with their bodies.
    [(path, first, last, replacement, features, reason)]."""
    out = []
    for ch in redone.changes + redone.retyped:
        if ch.name in SKIP_NAMES or any(p.pattern for p in ch.old + ch.new):
            continue
        tails = _trigger_tails(hunks, ch)
        if tails is None:
            continue
        found = []
        for path, text in files.items():
            if EXT_LANG.get(_ext(path)) != ch.lang or ch.name not in text:
                continue
            starts = None
            for p, close, bodiless in _definitions(text, ch.name, ch.lang):
                if not bodiless:
                    # a body of the same name and types was as often another class's own method
                    # (jsoup's `Request timeout(int)` beside `Connection timeout(int)`), or a
                    # definition the commit rewrote with its body: with bodies too, the training
                    # cases' signature class lost 5 right tops and gained 1 (declarations alone: 3 gained)
                    continue
                starts = starts or line_starts(text)
                first = bisect_right(starts, p) - 1
                last = bisect_right(starts, close) - 1
                if any((path, n + 1) in edited for n in range(first, last + 1)):
                    continue  # the edited definition itself
                inner = text[p + 1:close]
                spans = split_top(inner)
                params = [inner[a:b] for a, b in spans]
                new = _same_edit([x.strip() for x in params], ch, ch.lang)
                if new is None:
                    continue
                if ch.lang == "java":
                    # `final` on a parameter says nothing without a body: an interface does not write it
                    new = [re.sub(r"^final\s+", "", x) for x in new]
                tail = _tail(text, close)
                if tails[0] != tails[1] and tail != tails[0]:
                    continue  # the return type changed, and this one's is not the old one
                if len(new) == len(params):
                    # each parameter rewritten in its place: the definition's own layout kept
                    body, at = [], 0
                    for (a, b), x, y in zip(spans, params, new, strict=True):
                        body += [inner[at:a], x[:len(x) - len(x.lstrip())] + y + x[len(x.rstrip()):]]
                        at = b
                    new_inner = "".join(body) + inner[at:]
                elif "\n" in inner:
                    continue  # parameters over several lines, some added or removed: the author's layout
                else:
                    new_inner = ", ".join(new)
                s0 = starts[first]
                s1 = starts[last + 1] if last + 1 < len(starts) else len(text)
                after = text[close:s1]
                if tails[0] != tails[1] and tails[0]:
                    at = after.find(tails[0])
                    if at < 0:
                        continue
                    after = after[:at] + tails[1] + after[at + len(tails[0]):]
                repl = text[s0:p + 1] + new_inner + after
                if repl == text[s0:s1]:
                    continue
                found.append((path, first + 1, last + 1, repl))
        for path, first, last, repl in found:
            # (a definition, as call_changes proposes one: after the calls, which the commits
            # changed more often where both were proposed)
            feats = {"same_file": float(path in {h.path for h in hunks}), "sites_log": math.log1p(len(found)),
                     "added": float(len(ch.new) > len(ch.old)), "removed": float(len(ch.new) < len(ch.old)),
                     "reordered": float(len(ch.new) == len(ch.old)), "name_len": min(len(ch.name), 20) / 10,
                     "definition": 1.0}
            out.append((path, first, last, repl, feats, f"the signature of {ch.name} changed: another definition of it"))
    return out


# a one-line assignment of a bare local: `x = ...`, `let mut x: T = ...`, `x := ...`, `Type x = ...`
_ASSIGN = re.compile(r"([ \t]*)(?:(?:let(?:\s+mut)?|val|var|const|auto)\s+|(" + _TYPE + r")\s+)?"
                     r"([A-Za-z_]\w*)\s*(?::\s*[^=\n]+)?(?::=|=(?![=>~]))")
_NOT_TYPE = {"if", "elsif", "unless", "while", "until", "return", "when", "case", "and", "or", "not", "for", "in"}


def _dropped_above(text: str, starts: list[int], first: int, last: int, gone: set[str], scope: str,
                   edited: set[int]) -> int:
    """The first line (0-based) of the one-line assignments right above a call's line ``first`` that
    computed only arguments the rewrite drops (``gone``): a commit that drops such an argument drops
    its computation too (`children = node.iter_child_nodes()` above `macro_body(node, frame,
    children)`), so a suggestion that keeps them is not the commit's. ``first`` when there are none."""
    lines = text.split("\n")
    indent = indent_width(lines[first])
    # where a name could be read again: the block around the call and, for languages whose locals
    # live to the end of the function, the function from its definition line (``scope``, the text
    # ``enclosing`` gave) to the first line indented no deeper than that line
    def_at = starts[first] - len(scope)
    def_at = def_at if def_at >= 0 and text[def_at:starts[first]] == scope else 0
    top = bisect_right(starts, def_at) - 1
    def_indent = indent_width(lines[top]) if def_at else -1
    lo = first
    while lo > 0 and (not lines[lo - 1].strip() or indent_width(lines[lo - 1]) >= indent):
        lo -= 1
    hi = last
    while hi + 1 < len(lines) and (not lines[hi + 1].strip() or indent_width(lines[hi + 1]) > min(def_indent, indent - 1)):
        hi += 1
    region = "\n".join(lines[min(lo, top):hi + 1])
    at = first
    taken: set[str] = set()
    while at > 0 and at - 1 not in edited:
        line = lines[at - 1]
        m = _ASSIGN.match(line)
        if m is None or indent_width(line) != indent or m.group(2) in _NOT_TYPE:
            break
        name = m.group(3)
        rhs = line[m.end():].rstrip()
        word = re.compile(r"(?<![\w$.])" + re.escape(name) + r"(?![\w$]|::)")
        if name not in gone or name in taken or word.search(rhs) or not rhs.strip(" ;") \
                or rhs.endswith((",", "\\", "+", "-", "*", "/", "=", "&", "|", ".", "(", "[", "{")) \
                or sum(rhs.count(c) for c in "([{") != sum(rhs.count(c) for c in ")]}") \
                or len(word.findall(region)) != 2:  # its assignment and the argument, nothing else
            break
        taken.add(name)
        at -= 1
    return at


# where a declaration sits, walking up its syntax tree: in a class body (or at the file's top) a
# field or a global, seen by its bare name; inside a function, method, constructor or lambda (its
# body or its parameter list) a local or a parameter, seen only inside that function. (A Kotlin
# primary constructor's `val x: T` is a field: matched first.)
_FIELD_HOME = re.compile(r"class_parameter|primary_constructor|class_body|field_declaration_list|enum_body|"
                         r"interface_body|object_declaration|translation_unit|compilation_unit|^program$|source_file")
_LOCAL_HOME = re.compile(r"function|method|lambda|closure|constructor|parameter|^block$|compound_statement|"
                         r"initializer_block|static_initializer|statements")
_FUNCTION = re.compile(r"function|method|lambda|closure|constructor")
_NOT_FUNCTION = re.compile(r"declarator|parameter|type|call|invocation|reference")


def _held_by_declaration(name: str, lines: list[tuple[int, str, bool]], path: str, text: str, lang: str, at: int) -> bool:
    """Whether the file declares ``name`` where the call at ``at`` (a character offset) sees it by
    its bare name, though the call's scope text (``enclosing``) does not show it: a class's field
    or a global, or a local or parameter of a function that contains the call (the re-signed
    definition's own new parameter too, for a recursive call). ``lines``: the file's lines (0-based
    row, text, whether the edit wrote it). A local or parameter of ANOTHER function
    holds nothing here (cJSON's `cJSON_bool case_sensitive = false;` in `apply_patch` for a call in
    `cJSONUtils_ApplyPatches`; gson's `boolean first) throws IOException {`, another method's
    second header line). Without a grammar for the file, any declaration outside the edit and
    the definitions' first lines counts, as before."""
    from ctxmill.apply.next_edit import _syntax_tree

    pat = re.compile(rf"\b(?:val|var|let|const|self\.|this\.|@)({re.escape(name)})\b|\b({re.escape(name)})\s*:\s*[\w&(\[]|"
                     rf"[\w>\]]\s+({re.escape(name)})\s*[;=,)]")
    tree = None
    call_byte = None
    for row, line, edited in lines:
        for m in pat.finditer(line):
            if m.group().startswith(("self.", "this.", "@")) and not edited:
                return True  # a member written as one: a field wherever it is
            if tree is None:
                tree = _syntax_tree(path, text.encode("utf-8")) or False
            if tree is False:
                if not edited and not re.search(DEF[lang], line):
                    return True
                continue
            g = next(i for i in (1, 2, 3) if m.group(i) is not None)
            col = len(line[:m.start(g)].encode("utf-8"))
            node = tree.root_node.descendant_for_point_range((row, col), (row, col))
            local = False
            while node is not None:
                if not local and _FIELD_HOME.search(node.type):
                    return True
                if not local and _LOCAL_HOME.search(node.type):
                    local = True
                if local and _FUNCTION.search(node.type) and not _NOT_FUNCTION.search(node.type):
                    if call_byte is None:
                        call_byte = len(text[:at].encode("utf-8"))
                    if node.start_byte <= call_byte < node.end_byte:
                        return True  # the calling function's own local or parameter
                    break
                node = node.parent
            else:
                if not local:
                    return True
    return False


def suggest_signature(files: dict[str, str], hunks, edited: set[tuple[str, int]], redone: Redefined | None = None):
    """[(path, first, last, replacement, features, reason)] for the calls of a re-signed function
    (``redone``: redefined(hunks), where the caller has read it already)."""
    from ctxmill.apply.next_edit import _code_mask

    out = []
    fields: dict[str, str] = {}
    redone = redefined(hunks) if redone is None else redone
    by_call, defs = call_changes(hunks, files, redone)
    out += [d for d in defs if not any((d[0], n) in edited for n in range(d[1], d[2] + 1))]
    out += other_definitions(files, hunks, edited, redone)
    for ch in redone.changes + redone.retyped + by_call:
        call = re.compile(r"(?<![\w$])" + re.escape(ch.name) + r"\s*(?:!\s*)?\(")
        lost = {p.name for p in ch.old} - {p.name for p in ch.new}
        sites = []
        for path, text in files.items():
            if EXT_LANG.get(_ext(path)) != ch.lang or ch.name not in text:
                continue
            starts = None
            is_code = None
            for m in call.finditer(text):
                open_at = m.end() - 1
                close = balanced(text, open_at)
                if close is None:
                    continue
                head = text[max(0, m.start() - 60):m.start()]
                line_head = head.rsplit("\n", 1)[-1]
                if re.search(DEF[ch.lang] if ch.lang not in ("java", "c") else r"$^", line_head + text[m.start():m.end()]) \
                        or re.search(r"\b(def|defp|fn|func|fun|function)\s+(?:\([^)]*\)\s*)?(?:[\w.]+[.:])?$", line_head):
                    continue
                if re.match(r"\s*@(?:spec|callback|macrocallback)\s+$", line_head):
                    continue  # an Elixir typespec names the function's types, not its arguments
                if ch.lang in ("java", "c") and re.search(r"[\w>\]]\s+$", line_head) and not re.search(
                        r"\b(return|new|throw|else|case)\s+$", line_head):
                    continue  # `Type name(` is a definition in Java and C
                starts = starts or line_starts(text)
                first = bisect_right(starts, m.start()) - 1
                last = bisect_right(starts, close) - 1
                if any((path, n + 1) in edited for n in range(first, last + 1)):
                    continue
                if is_code is None:
                    is_code = _code_mask(path, text.encode("utf-8")) or (lambda row, col: True)
                if not is_code(first, len(text[starts[first]:m.start()].encode("utf-8"))):
                    continue  # a call in a docstring's example or a comment is prose, not a caller
                inner = text[open_at + 1:close]
                parts = split_top(inner)
                args = [inner[s:e].strip() for s, e in parts]
                method = line_head.rstrip().endswith((".", "->", "?.")) or ch.lang in ("go",)
                piped = line_head.rstrip().endswith("|>")
                unbound: list[str] = []
                fit = rewrite_args(ch, (["_piped_"] if piped else []) + args, method,
                                   enclosing(text, m.start(), ch.lang), unbound)
                if unbound and ch.lang in BARE_FIELDS:
                    # a class's field is visible by its bare name in these languages only (Rust, Go,
                    # Python, Ruby, JS reach it through self./this./@, and a parameter of another
                    # function is no field: `fn park(&mut self, handle: &Handle)` elsewhere in the
                    # file gave `v.park(handle)` where no `handle` exists)
                    if path not in fields:  # the file's lines, and which of them the edit wrote
                        fields[path] = [(n - 1, x, (path, n) in edited) for n, x in enumerate(text.split("\n"), 1)]
                    unbound = [u for u in unbound if not _held_by_declaration(u, fields[path], path, text, ch.lang, m.start())]
                if fit is None:
                    continue
                if piped:
                    if not fit or fit[0] != "_piped_":
                        continue
                    fit = fit[1:]
                if "\n" in inner:
                    continue  # arguments over several lines: their layout is the author's
                # the call's own layout: `print_value(child,depth+1,fmt)` keeps its bare commas,
                # `f( a, b )` its padding
                commas = [e for _, e in parts[:-1]]
                sep = "," if commas and all(inner[e + 1:e + 2] not in (" ", "\t") for e in commas) else ", "
                pad = re.match(r"[ \t]*", inner).group(), re.search(r"[ \t]*$", inner).group()
                new_inner = sep.join(fit)
                if new_inner == inner.strip():
                    continue
                new_inner = pad[0] + new_inner + pad[1] if new_inner else new_inner
                edits = [(open_at + 1, close, new_inner)]
                kept = fit
                if ch.receiver and args and not piped and len(fit) == len(args) - 1:
                    # the first argument is the receiver now, in place of the call's qualifier
                    q = re.search(r"(?:[\w$]+\s*(?:\.|::|->|\?\.)\s*)*$", line_head)
                    recv = args[0] if _OPERAND.fullmatch(args[0]) else f"({args[0]})"
                    edits.insert(0, (m.start() - len(q.group()), m.start(), recv + "."))
                    kept = [args[0], *fit]
                gone = {a for a in args if IDENT_RE.match(a) and args.count(a) == 1
                        and not any(re.search(r"(?<![\w$.])" + re.escape(a) + r"(?![\w$])", f) for f in kept)}
                top = first
                # fewer arguments than before: a renamed parameter's argument is replaced, not dropped
                if gone and lost and len(fit) < len(args):
                    top = _dropped_above(text, starts, first, last, gone, enclosing(text, m.start(), ch.lang),
                                         {n - 1 for p, n in edited if p == path})
                    if top < first:
                        edits.insert(0, (starts[top], starts[first], ""))
                sites.append((path, top + 1, last + 1, edits, len(args), len(unbound)))
        n_calls = len(sites)
        sites = _joined(sites, files)
        for path, first, last, new_text, n, unbound_n in sites:
            feats = {"same_file": float(path in {h.path for h in hunks}), "sites_log": math.log1p(n_calls),
                     "added": float(len(ch.new) > len(ch.old)), "removed": float(len(ch.new) < len(ch.old)),
                     "reordered": float(len(ch.new) == len(ch.old)), "name_len": min(len(ch.name), 20) / 10,
                     "no_args": float(n == 0), "unbound": float(unbound_n > 0)}
            reason = f"the signature of {ch.name} changed: a call"
            out.append((path, first, last, new_text, feats, reason))
    return out
