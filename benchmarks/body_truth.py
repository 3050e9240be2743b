"""Lists, footnotes and links of a paper, derived from its LaTeX (truth for body.py).

Per paper, from the source at the commit its manifest (or the corpus paper's truth.json) names, \\input / \\include
spliced in by unseen_truth.expand (comments and verbatim dropped there), \\iffalse .. \\fi dropped, the text after
\\begin{document} only; text cleaned by floats_truth.caption_text (the paper's argument-less macros spelled out,
inline math as its symbols, then unseen_truth.clean):

- ``lists`` in source order: itemize, enumerate, description and their block variants (paralist's compactitem /
  asparaenum ..., mdwlist's itemize*); ``{kind, depth, in_float, items: [{text, label}]}``. Items split at the list's
  own top-level \\item (a nested list is its own list, its text not the parent item's); a description item's
  \\item[term] is printed before its text and is part of it. An enumerate's labels as LaTeX prints them (1. / (a) /
  i. / A. by enumerate depth; \\item[x] as x; enumitem's label= / start= / resume, the enumerate package's [(i)]);
  where the preamble restyles the labels (\\setlist .. label, \\renewcommand\\labelenumi / \\theenumi) the labels
  are left None and not scored; where the PDF prints another counter form before a list's first item (a class's
  own style: mnras's (i)), that form is taken for the list (``relabelled_lists`` counts them). In-line lists (inparaenum, inparaitem, enumerate* under enumitem's [inline]) print
  as running text: their words stay in the surrounding item or paragraph.
- ``footnotes`` in order: \\footnote[n]{text} and \\footnotetext{text}; ``{text, number, before, after, in_float}``:
  ``before`` / ``after`` are up to 8 words of the sentence before and after the mark (None for \\footnotetext,
  whose mark stands elsewhere). \\thanks and every note inside the title block (\\title, \\author, \\affil,
  \\address, \\institute, elsarticle's \\fntext / \\tnotetext, ...) are metadata and not counted; a footnote in a
  float or minipage (a table's note) is kept with in_float true and scored apart; a note whose text the PDF's
  text layer does not hold (first or last 20 letters and digits) is kept with printed false and not scored.
- ``links`` in order: \\url{x}, \\nolinkurl{x}, \\doi{x} (printed x), \\email{x} in the body, \\href{target}{text}
  whose text is itself a URL / e-mail / DOI (printed text), bare http(s)://, www., doi:10. / 10.NNNN/ and e-mail
  strings in the text (\\_ \\% \\# \\& read as printed); ``{kind: url|doi|email, text, target, how, front}``.
  \\href with other text gives an ``anchors`` entry ``{text, target}`` (the target is not printed). Links inside
  the title block are kept with front true (metadata; scored apart). Where the printed form is ambiguous (a \\_
  inside \\url prints its backslash), the variant the PDF's text layer holds is taken.
- ``sanity``: how many items, footnotes (first 30 letters and digits) and links (spaces removed) the PDF's text
  layer holds.

    .venv/bin/python benchmarks/body_truth.py                    # unseen (80) -> benchmarks/data/body_unseen.json
    .venv/bin/python benchmarks/body_truth.py --set heldout3     # -> body_unseen_heldout3.json
    .venv/bin/python benchmarks/body_truth.py --set corpus17     # ../shared/corpus/papers/*/truth.json's sources

The mirrors are the `fetch` tool's bare snapshots under /work/.mirror (--mirror DIR).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import floats_truth as ft  # noqa: E402
from unseen_truth import MIRROR, Git, expand, group, macros, pdf_text, squash, strip_comments  # noqa: E402

DATA, FLOATS, braced, caption_text, optional = ft.DATA, ft.FLOATS, ft.braced, ft.caption_text, ft.optional
document_body, papers, pdf_of, spell_out = ft.document_body, ft.papers, ft.pdf_of, ft.spell_out

LISTS = {"itemize": "itemize", "enumerate": "enumerate", "description": "description",
         "compactitem": "itemize", "compactenum": "enumerate", "compactdesc": "description",
         "asparaitem": "itemize", "asparaenum": "enumerate", "asparadesc": "description",
         "dinglist": "itemize", "checklist": "itemize", "outline": "itemize"}
INLINE = {"inparaenum", "inparaitem", "inparadesc"}
# the title block: notes and links there are metadata (the byline's affiliations, e-mails, funding notes)
FRONT = ("title", "author", "affil", "affiliation", "address", "institute", "institution", "thanks", "tnotetext",
         "fntext", "corref", "email", "IEEEauthorblockA", "IEEEauthorblockN", "icmlauthor", "icmlaffiliation",
         "icmlcorrespondingauthor", "Author", "Address", "affiliations", "correspondingauthor", "authorinfo",
         "titlenote", "additionalaffiliation", "author*", "SetAuthors", "name", "addr")
FRONT_RE = re.compile(r"\\(" + "|".join(re.escape(f) for f in FRONT) + r")(?![A-Za-z])\*?\s*(?:\[[^\]]*\]\s*)*(?=\{)")
DISPLAY = re.compile(r"\\begin\{(equation|align|gather|multline|eqnarray|displaymath|flalign|alignat)(\*?)\}.*?"
                     r"\\end\{\1\2\}|\\\[.*?\\\]|\$\$.*?\$\$", re.S)
TOKEN = re.compile(r"\\(?P<be>begin|end)\s*\{(?P<env>[A-Za-z]+\*?)\}|\\item(?![A-Za-z])")
URL_RE = re.compile(r"https?://[^\s{}\\<>\"]+|(?<![\w/.@])www\.[^\s{}\\<>\"]+")
DOI_RE = re.compile(r"(?<![\w/.])10\.\d{4,9}/[^\s{}\\<>\"]+")
MAIL_RE = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
OWN = {"footnote", "footnotetext", "footnotemark", "url", "nolinkurl", "href", "doi", "email", "item", "begin", "end",
       "thanks", "title", "author", "caption", "chapter", "section", "subsection", "subsubsection", "paragraph",
       "label", "ref", "cite", "input", "include"} | set(FRONT)
ROMAN = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
         (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]


def roman(n: int) -> str:
    out = ""
    for v, s in ROMAN:
        while n >= v:
            out, n = out + s, n - v
    return out


def alph(n: int) -> str:
    return chr(ord("a") + n - 1) if 1 <= n <= 26 else str(n)


DEFAULT_FORMS = {1: "{arabic}.", 2: "({alph})", 3: "{roman}.", 4: "{Alph}."}  # LaTeX's enumi .. enumiv


def label_of(form: str | None, n: int) -> str | None:
    if form is None:
        return None
    return (form.replace("{arabic}", str(n)).replace("{alph}", alph(n)).replace("{Alph}", alph(n).upper())
            .replace("{roman}", roman(n)).replace("{Roman}", roman(n).upper()))


def enum_form(opt: str | None, depth: int) -> tuple[str | None, int | None, bool]:
    """An enumerate's optional argument -> (label form, start, resume); enumitem's label= / start= / resume, or the
    enumerate package's template ([(a)], [i.], [Step 1:])."""
    form = DEFAULT_FORMS.get(depth, "{arabic}.")
    if not opt:
        return form, None, False
    start = re.search(r"start\s*=\s*(\d+)", opt)
    resume = bool(re.search(r"(?<![\w-])resume\*?(?![\w-])", opt))
    lab = re.search(r"label\s*=\s*(\{(?:[^{}]|\{[^{}]*\})*\}|[^,]+)", opt)
    if lab:
        raw = lab.group(1).strip()
        raw = raw[1:-1] if raw.startswith("{") and raw.endswith("}") else raw
        f = re.sub(r"\\(arabic|alph|Alph|roman|Roman)\*", r"{\1}", raw)
        if "{" not in re.sub(r"\{(arabic|alph|Alph|roman|Roman)\}", "", f).replace("{}", ""):
            f = re.sub(r"\\text(bf|it|rm|sf|tt|sc)\s*|\\(bfseries|itshape|upshape|normalfont)\s*", "", f)
            form = f.replace("{}", "") if re.search(r"\{(arabic|alph|Alph|roman|Roman)\}", f) else None
        else:
            form = None  # a template of macros we do not read
    elif "=" not in opt:  # the enumerate package: the first 1 / a / A / i / I is the counter
        m = re.search(r"[1aAiI]", opt)
        kind = {"1": "{arabic}", "a": "{alph}", "A": "{Alph}", "i": "{roman}", "I": "{Roman}"}.get(m.group(0)) if m else None
        form = opt[:m.start()] + kind + opt[m.end():] if kind else None
        if form and re.search(r"\\", form):
            form = None
    return form, int(start.group(1)) if start else None, resume


def restyled(preamble: str) -> bool:
    """Whether the preamble restyles enumerate's labels (then its labels are not ours to know)."""
    return bool(re.search(r"\\setlist\s*(\[[^\]]*enum[^\]]*\]|\[\s*\d?\s*\])?\s*\{[^}]*label|"
                          r"\\(re)?newcommand\*?\s*\{?\\(labelenum|theenum)|\\def\s*\\(labelenum|theenum)", preamble))


def spans_of(tex: str, rx: re.Pattern) -> list[tuple[int, int]]:
    """The brace arguments (one or more, \\href's two) after each match of ``rx``."""
    out = []
    for m in rx.finditer(tex):
        _, end = group(tex, m.end())
        while end < len(tex) and tex[end] == "{":
            _, end = group(tex, end)
        out.append((m.start(), end))
    return out


def inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def printed(s: str) -> str:
    """A link's LaTeX as printed: escapes read back, \\textasciitilde and \\~{} as ~, \\slash as /."""
    s = re.sub(r"\\(?:textasciitilde|textasciitilde\{\}|~\{\}|~)", "~", s)
    s = re.sub(r"\{\\raise[^{}]*\\hbox\{\$\\scriptstyle\\sim\$\}\}|\$\\sim\$", "~", s)
    s = s.replace("\\slash", "/").replace("\\/", "").replace("\\@", "").replace("\\{", "\x01").replace("\\}", "\x02")
    s = re.sub(r"\\([_%#&$])", r"\1", s)
    s = re.sub(r"\\(?:texttt|url|nolinkurl|textsf|emph|textit|textbf|path)\s*\{([^{}]*)\}", r"\1", s)
    return s.replace("{", "").replace("}", "").replace("\x01", "{").replace("\x02", "}").strip()


def link_kind(s: str) -> str | None:
    if re.fullmatch(r"(?:https?://|ftp://|www\.)\S+", s) or re.fullmatch(r"[\w-]+(\.[\w-]+)+/\S*", s):
        return "url"
    if re.fullmatch(r"(?:doi:\s*)?10\.\d{4,9}/\S+", s, re.I):
        return "doi"
    if re.fullmatch(r"(?:mailto:)?[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+", s):
        return "email"
    return None


def tidy(s: str) -> str:
    """A bare link's end: the sentence's punctuation after it is no part of it."""
    s = s.rstrip(".,;:!?'")
    while s.endswith(")") and s.count(")") > s.count("("):
        s = s[:-1].rstrip(".,;:")
    return s


def links_of(tex: str, front: list[tuple[int, int]], body_at: int = 0,
             defs: dict[str, str] | None = None) -> tuple[list[dict], list[dict]]:
    """Links of ``tex`` after ``body_at`` (the preamble prints nothing) or inside the title block's arguments."""
    links, anchors, taken = [], [], []
    # (Sphinx's LaTeX writes \\sphinxhref / \\sphinxurl / \\sphinxnolinkurl for them)
    cmd = re.compile(r"\\(?:sphinx)?(?P<c>url|nolinkurl|href|doi|email)(?![A-Za-z])\s*(?=\{)")
    for m in cmd.finditer(tex):
        arg, end = group(tex, m.end())
        arg = spell_out(arg, defs or {})  # \\doi{\\codeDOI}: the paper's macro spelled out
        c, is_front = m.group("c"), inside(m.start(), front)
        if m.start() < body_at and not is_front:
            taken.append((m.start(), end))
            continue
        if c == "href":
            text, end = braced(tex, end)
            text = printed(text or "")
            kind = link_kind(text)
            target = printed(arg)
            if kind:
                links.append({"kind": kind, "text": re.sub(r"^(mailto:|doi:\s*)", "", text), "target": target,
                              "how": "href", "front": is_front})
            elif text:
                anchors.append({"text": " ".join(caption_text(text, {}).split()), "target": target, "front": is_front})
        else:
            text = arg.strip() if c in ("url", "nolinkurl") else printed(arg)
            kind = {"doi": "doi", "email": "email"}.get(c) or link_kind(printed(text)) or "url"
            links.append({"kind": kind, "text": text, "target": None, "how": c, "front": is_front})
        if links and "_at" not in links[-1]:
            links[-1]["_at"] = m.start()
        taken.append((m.start(), end))
    # bare links in the text: outside the commands above, \cite / \label / \ref / \includegraphics keys
    mask = list(tex)
    # a picture's code (tikz's "(TP@title.west)") prints no link
    pictures = [(m.start(), m.end()) for m in re.finditer(r"\\begin\{(tikzpicture|pgfpicture|picture)\}.*?\\end\{\1\}|"
                                                       r"\\(?:node|draw|coordinate|fill|path)(?![A-Za-z])[^;]*;", tex, re.S)]
    for a, b in pictures + taken + spans_of(tex, re.compile(r"\\(?:cite[a-zA-Z]*|label|ref|eqref|autoref|cref|Cref|input|"
                                                 r"includegraphics|bibliography|bibliographystyle|usepackage|"
                                                 r"hypersetup|hyperlink|hypertarget)\*?\s*(?:\[[^\]]*\]\s*)*(?=\{)")):
        mask[a:b] = " " * (b - a)
    flat = printed_escapes("".join(mask))
    for rx, kind in ((URL_RE, "url"), (DOI_RE, "doi"), (MAIL_RE, "email")):
        for m in rx.finditer(flat):
            s = tidy(m.group(0))
            if (kind == "url" and len(s) < 8) or (m.start() < body_at and not inside(m.start(), front)):
                continue
            if kind == "doi" and flat[max(0, m.start() - 12):m.start()].rstrip().lower().endswith(("doi.org/", "dx.doi.org/")):
                continue  # inside a doi.org URL: the URL counts
            if kind == "email" and re.search(r"https?://\S*$", flat[max(0, m.start() - 80):m.start()]):
                continue
            links.append({"kind": kind, "text": s, "target": None, "how": "bare", "front": inside(m.start(), front),
                          "_at": m.start()})
    # a macro this source does not define (a class's metadata, ReScience's \\codeDOI) prints what we cannot know
    links = [x for x in links if not re.search(r"\\[A-Za-z]|#\d", x["text"]) and x["text"]]
    links.sort(key=lambda x: x["_at"])  # source order
    for x in links:
        x.pop("_at", None)
    return links, anchors


def printed_escapes(s: str) -> str:
    """\\_ \\% \\# \\& as their characters, keeping every other character at its place (same length)."""
    return re.sub(r"\\([_%#&])", lambda m: " " + m.group(1), s)


def item_text(raw: str, defs: dict[str, str]) -> str:
    """An item's or a footnote's LaTeX as plain text: display math out (it is a block of its own), a link as its
    printed text, a citation dropped (its printed label differs by style), then caption_text."""
    raw = DISPLAY.sub(" ", raw)
    raw = re.sub(r"\\hyperref\s*\[[^\]]*\]", "", raw)
    raw = re.sub(r"\\(?:sphinx)?(?:url|nolinkurl)\s*\{([^{}]*)\}", lambda m: " " + printed(m.group(1)), raw)
    raw = re.sub(r"\\(?:sphinx)?href\s*\{(?:[^{}]|\{[^{}]*\})*\}\s*\{((?:[^{}]|\{[^{}]*\})*)\}", r" \1 ", raw)
    raw = re.sub(r"\\(?:begin|end)\s*\{[A-Za-z]+\*?\}(?:\s*\[[^\]]*\])?", " ", raw)
    return " ".join(caption_text(raw, defs).split())


def context_words(raw_before: str, raw_after: str, defs: dict[str, str]) -> tuple[list[str], list[str]]:
    """Up to 8 words of the mark's sentence before it and after it (same paragraph of the source)."""
    stop = re.compile(r"\n\s*\n|\\par(?![A-Za-z])|\\item(?![A-Za-z])|\\(?:sub)*section\*?|\\paragraph\*?|"
                      r"\\begin\s*\{[^{}]*\}|\\end\s*\{[^{}]*\}|\\caption|\\\\")
    cuts = list(stop.finditer(raw_before))
    at = cuts[-1].end() if cuts else 0
    if cuts and re.match(r"\\(?:sub)*section|\\paragraph|\\caption", cuts[-1].group(0)):
        at = braced(raw_before, optional(raw_before, at)[1])[1]  # the heading's own argument
    before = raw_before[at:]
    m = stop.search(raw_after)
    after = raw_after[:m.start()] if m else raw_after
    wb = re.findall(r"[^\W_]+", item_text(before, defs))
    # the sentence: what follows its last full stop (a mark after the stop belongs to the sentence it ends)
    tb = item_text(before, defs)
    head = re.split(r"(?<=[a-z]{2}[.!?])\s+(?=[A-Z])", tb)
    wb = re.findall(r"[^\W_]+", head[-1]) if head else wb
    ta = item_text(after, defs)
    # a mark after the sentence's full stop has no words of its sentence after it
    ended = re.search(r"[.!?]['\u201d)]*$", tb.rstrip())
    tail = re.split(r"(?<=[.!?])\s+", ta, maxsplit=1)[0] if not (ended or re.match(r"\s*[.!?]", ta)) else ""
    wa = re.findall(r"[^\W_]+", tail)
    return wb[-8:], wa[:8]


def arg_macros(tex: str) -> dict[str, tuple[int, str | None, str]]:
    """A paper's macros with arguments: \\newcommand{\\x}[2][default]{body} and \\def\\x#1#2{body} -> {name: (n,
    default of an optional first argument, body)}."""
    out = {}
    for m in re.finditer(r"\\(?:re|provide)?newcommand\*?\s*\{?\\([a-zA-Z]+)\}?\s*\[(\d)\]\s*(?:\[([^\]]*)\])?\s*(?=\{)", tex):
        if int(m.group(2)) > 0:
            out[m.group(1)] = (int(m.group(2)), m.group(3), group(tex, m.end())[0])
    for m in re.finditer(r"\\def\s*\\([a-zA-Z]+)((?:#\d)+)\s*(?=\{)", tex):
        out.setdefault(m.group(1), (len(m.group(2)) // 2, None, group(tex, m.end())[0]))
    # the commands this truth reads itself keep their names; a definition that defines is not expanded
    return {k: v for k, v in out.items() if k not in OWN and not re.search(r"##|\\(?:re)?newcommand|\\def", v[2])}


def expand_args(body: str, defs: dict[str, tuple[int, str | None, str]], rounds: int = 2) -> str:
    """Each use of a macro with arguments replaced by its body with the arguments put in (what it prints: a
    \\withurl{text}{url} that prints its text only, a \\practice{1a}{Title} that prints 'Title (1a)')."""
    if not defs:
        return body
    rx = re.compile(r"\\(" + "|".join(sorted(map(re.escape, defs), key=len, reverse=True)) + r")(?![a-zA-Z])")
    for _ in range(rounds):
        out, pos, hit = [], 0, False
        for m in rx.finditer(body):
            if m.start() < pos:
                continue
            n, default, text = defs[m.group(1)]
            args, k = [], m.end()
            if default is not None:
                opt, k = optional(body, k)
                args.append(default if opt is None else opt)
            while len(args) < n:
                arg, k2 = braced(body, k)
                if arg is None:  # an argument given as one token (\\x a): rare, left as it stands
                    j = k
                    while j < len(body) and body[j] in " \t\n":
                        j += 1
                    if j >= len(body):
                        break
                    arg, k2 = body[j], j + 1
                args.append(arg)
                k = k2
            if len(args) < n:
                continue
            for i in range(n, 0, -1):
                text = text.replace(f"#{i}", args[i - 1])
            out.append(body[pos:m.start()])
            out.append(text)
            pos, hit = k, True
        out.append(body[pos:])
        body = "".join(out)
        if not hit:
            break
    return body


def derive(tex: str) -> dict:
    """-> {lists, footnotes, links, anchors} of one expanded LaTeX source."""
    tex = strip_comments(tex)  # (expand has; a source given whole has not)
    defs = {k: v for k, v in macros(tex).items() if len(v) < 300 and "#" not in v}
    for m in re.finditer(r"\\(?:re)?newcommand\*?\s*\{?\\([a-zA-Z]+)\}?\s*\[0\]\s*(?=\{)", tex):
        defs.setdefault(m.group(1), group(tex, m.end())[0])
    preamble = tex[:tex.find("\\begin{document}")] if "\\begin{document}" in tex else ""
    inline_star = bool(re.search(r"\\usepackage\s*\[[^\]]*inline[^\]]*\]\s*\{enumitem\}", preamble))
    labels_known = not restyled(preamble)
    body = re.sub(r"\\iffalse(?![A-Za-z]).*?\\fi(?![A-Za-z])", " ", document_body(tex), flags=re.S)
    # environments opened through a paper's shorthand (\\newcommand{\\bi}{\\begin{itemize}})
    env_defs = {k: v for k, v in defs.items() if re.search(r"\\(begin|end)\s*\{|\\item(?![A-Za-z])", v)}
    if env_defs:
        body = re.sub(r"\\([a-zA-Z]+)(?![a-zA-Z])", lambda m: env_defs.get(m.group(1), m.group(0)), body)
    body = expand_args(body, arg_macros(preamble))
    full = preamble + body
    off = len(preamble)
    front = spans_of(full, FRONT_RE)
    body_front = [(a - off, b - off) for a, b in front if b > off]

    lists: list[dict] = []
    stack: list[dict] = []  # open lists: {list, item raw parts, counter}
    env_stack: list[str] = []
    last_count: dict[int, int] = {}
    inline_depth = 0
    pos = 0
    for m in TOKEN.finditer(body):
        if inside(m.start(), body_front):
            continue
        chunk = body[pos:m.start()]
        if stack and stack[-1]["cur"] is not None:
            stack[-1]["cur"]["raw"].append(chunk)
        pos = m.end()
        if m.group("env") is None:  # \\item
            if inline_depth or not stack:
                if stack and stack[-1]["cur"] is not None:
                    stack[-1]["cur"]["raw"].append(" ")
                continue
            top = stack[-1]
            opt, k = optional(body, pos)
            pos = k
            lst = top["list"]
            if opt is not None:
                label = " ".join(caption_text(opt, defs).split())
                if lst["kind"] == "description":
                    cur = {"raw": [opt, " "], "label": None}
                elif re.search(r"[^\W\d_]{2,}", label) and not re.fullmatch(r"\(?[ivxlcIVXLC]{1,6}[.):]?\)?", label):
                    cur = {"raw": [opt, " "], "label": label}  # a word as the label ("Compare(p, q)") reads as text
                else:
                    cur = {"raw": [], "label": label}
            else:
                label = None
                if lst["kind"] == "enumerate":
                    top["n"] += 1
                    label = label_of(top["form"], top["n"])
                cur = {"raw": [], "label": label}
            top["items"].append(cur)
            top["cur"] = cur
            continue
        env, begin = m.group("env"), m.group("be") == "begin"
        base = env.rstrip("*")
        starred_inline = env.endswith("*") and base in ("enumerate", "itemize", "description") and inline_star
        if base in INLINE or starred_inline:
            inline_depth += 1 if begin else -1
            inline_depth = max(inline_depth, 0)
            if begin:
                _, pos = optional(body, pos)
            continue
        if base in LISTS and not inline_depth:
            if begin:
                opt, pos = optional(body, pos)
                kind = LISTS[base]
                depth = len(stack) + 1
                enum_depth = 1 + sum(1 for s in stack if s["list"]["kind"] == "enumerate")
                form, start, resume = enum_form(opt, enum_depth) if kind == "enumerate" else (None, None, False)
                n0 = (start - 1) if start is not None else (last_count.get(enum_depth, 0) if resume else 0)
                lst = {"kind": kind, "depth": depth, "in_float": any(e.rstrip("*") in FLOATS for e in env_stack),
                       "items": []}
                lists.append(lst)
                stack.append({"list": lst, "items": [], "cur": None, "n": n0,
                              "form": form if labels_known else None, "enum_depth": enum_depth})
            elif stack:
                top = stack.pop()
                if top["list"]["kind"] == "enumerate":
                    last_count[top["enum_depth"]] = top["n"]
                top["list"]["items"] = [{"text": item_text("".join(c["raw"]), defs), "label": c["label"]}
                                        for c in top["items"]]
            continue
        if stack and stack[-1]["cur"] is not None:
            stack[-1]["cur"]["raw"].append(m.group(0))  # (an equation's \\begin, for item_text to drop it whole)
        if begin:
            env_stack.append(env)
        elif env in env_stack:
            del env_stack[len(env_stack) - 1 - env_stack[::-1].index(env)]
    while stack:  # an unclosed list (a broken source): its items as read
        top = stack.pop()
        top["list"]["items"] = [{"text": item_text("".join(c["raw"]), defs), "label": c["label"]} for c in top["items"]]
    lists = [x for x in lists if x["items"]]

    # footnotes
    footnotes: list[dict] = []
    count = 0
    floats_spans = []
    for m in re.finditer(r"\\begin\{(" + "|".join(list(FLOATS) + ["minipage", "tabular", "tabularx", "tabular\\*",
                                                                   "longtable", "threeparttable"]) + r")\*?\}", body):
        end = body.find("\\end{" + m.group(1), m.end())
        floats_spans.append((m.start(), len(body) if end < 0 else end))
    fn = re.compile(r"\\(?P<c>footnote|footnotetext|chapter)(?![A-Za-z])\*?")
    heading = re.search(r"\\(?:chapter|section)\*?\s*(?:\[[^\]]*\]\s*)?\{\s*[^\s}]", body)  # (not RSC's empty \\section*{})
    first_heading = heading.start() if heading else 0
    for m in fn.finditer(body):
        if m.group("c") == "chapter":
            count = 0
            continue
        if inside(m.start(), body_front):
            continue
        num, k = optional(body, m.end())
        arg, end = braced(body, k)
        if arg is None or re.search(r"#\d", arg):
            continue  # (a note inside a macro's definition: printed where the macro is used)
        if m.group("c") == "footnotetext" and m.start() < first_heading:
            continue  # the title area's notes set by hand (RSC's affiliations under \\footnotetext): metadata
        in_float = inside(m.start(), floats_spans)
        number = None
        if m.group("c") == "footnote" and not in_float:
            if num is None:
                count += 1
                number = str(count)
            else:
                number = num.strip()
        elif num is not None:
            number = num.strip()
        text = item_text(arg, defs)
        if not re.search(r"\w", text):
            continue
        before, after = (None, None)
        if m.group("c") == "footnote":
            before, after = context_words(body[max(0, m.start() - 1200):m.start()], body[end:end + 1200], defs)
        footnotes.append({"text": text, "number": number, "before": before, "after": after, "in_float": in_float,
                          "how": m.group("c")})
    links, anchors = links_of(full, front, off, defs)
    return {"lists": lists, "footnotes": footnotes, "links": links, "anchors": anchors}


def pick_printed(truth: dict, text: str) -> None:
    """A \\url's text with backslashes where the PDF prints them, without where it does not."""
    tight = re.sub(r"\s+", "", text)
    for x in truth["links"]:
        raw = x["text"]
        plain = printed(raw)
        if x["how"] in ("url", "nolinkurl") and raw != plain:
            x["text"] = raw if (raw in tight and plain not in tight) else plain
        x["text"] = x["text"].strip()


def labels_as_printed(truth: dict, text: str) -> int:
    """An enumerate whose class restyles its labels (mnras prints (i), (ii) where the source says nothing): the
    counter form the PDF prints before the first item's first words, confirmed by the second item's label in that
    form (the words may stand elsewhere too), applied to the list where it names another value than ours (the
    punctuation aside); -> how many lists were relabelled."""
    changed = 0
    forms = {"1": "{arabic}", "a": "{alph}", "A": "{Alph}", "i": "{roman}", "I": "{Roman}"}

    def lead(item: dict) -> str | None:
        words = re.findall(r"\w+", item["text"])[:4]
        return r"\W+".join(map(re.escape, words)) if len(words) >= 3 else None

    for lst in truth["lists"]:
        items = lst["items"]
        if lst["kind"] != "enumerate" or len(items) < 2 or not items[0]["label"] or not items[1]["label"] or \
                re.sub(r"[^0-9A-Za-z]", "", items[0]["label"]) not in forms:
            continue
        first, second = lead(items[0]), lead(items[1])
        if not first or not second:
            continue

        def ours(label: str, words: str) -> bool:
            value = re.escape(re.sub(r"[^0-9A-Za-z]", "", label))
            return bool(re.search(r"(?<!\w)\(?" + value + r"[.):]?\s*" + words, text))

        if ours(items[0]["label"], first) and ours(items[1]["label"], second):
            continue  # the PDF prints our values (its punctuation may differ: the scoring reads values)
        for m in re.finditer(r"(\(?)([0-9]+|[a-zA-Z]|[ivxlcIVXLC]+)([.):]?)\s*" + first, text):
            if m.group(2) not in forms or (not m.group(1) and not m.group(3)):
                continue
            form = m.group(1) + forms[m.group(2)] + m.group(3)
            two = label_of(form, 2)
            if not re.search(r"(?<!\w)" + re.escape(two) + r"\s*" + second, text):
                continue  # the words with a label of another list
            if re.sub(r"\W", "", label_of(form, 1)) != re.sub(r"\W", "", items[0]["label"]):
                n = 0
                for it in items:
                    if it["label"] is not None and re.sub(r"[^0-9A-Za-z]", "", it["label"]):
                        n += 1
                        it["label"] = label_of(form, n)
                changed += 1
            break
    return changed


def mark_printed(truth: dict, text: str) -> None:
    """A footnote whose text the PDF does not print (a class's or a macro's own note, drawn some other way) is
    kept with printed false and not scored: its first or last 20 letters and digits must be in the text layer."""
    flat = squash(text)
    for f in truth["footnotes"]:
        sq = squash(f["text"])
        f["printed"] = not sq or sq[:20] in flat or sq[-20:] in flat


def sanity(text: str, truth: dict) -> dict:
    flat, tight = squash(text), re.sub(r"\s+", "", text)
    items = [i for lst in truth["lists"] for i in lst["items"] if squash(i["text"])]
    items_found = sum(squash(i["text"])[:30] in flat for i in items)
    fns = [f for f in truth["footnotes"] if squash(f["text"])]
    fns_found = sum(squash(f["text"])[:30] in flat for f in fns)
    ln = [x for x in truth["links"] if x["text"]]
    missing = [x["text"] for x in ln if re.sub(r"\s+", "", x["text"]).casefold() not in tight.casefold()]
    return {"items_found": f"{items_found}/{len(items)}", "footnotes_found": f"{fns_found}/{len(fns)}",
            "links_found": f"{len(ln) - len(missing)}/{len(ln)}", "links_missing": missing[:6]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="unseen", help="unseen (default), heldout, heldout2 .. heldout6, or corpus17")
    ap.add_argument("--mirror", type=Path, default=MIRROR)
    ap.add_argument("--out", type=Path, help="default: benchmarks/data/body_<set>.json")
    ap.add_argument("--only")
    args = ap.parse_args()
    name = args.set if args.set in ("unseen", "corpus17") else "unseen_" + args.set.removeprefix("unseen_")
    out: dict = {}
    for e in papers(name):
        if args.only and args.only not in e["slug"]:
            continue
        if not e.get("tex_main"):  # a pandoc / Typst document: no LaTeX to read
            out[e["slug"]] = {"skipped": "no LaTeX source (pandoc / Typst)"}
            continue
        inputs = ("input", "include", "subfile") + tuple(e.get("input_macros", []))
        tex = expand(Git(e["repo"], args.mirror), e["commit"], e["tex_main"], inputs=inputs)
        truth = derive(tex)
        pdf = pdf_of(name, e["slug"])
        text = pdf_text(pdf.read_bytes())[2] if pdf.exists() else ""
        if text:
            pick_printed(truth, text)
            mark_printed(truth, text)
            truth["relabelled_lists"] = labels_as_printed(truth, text)
        out[e["slug"]] = {"source": {k: e[k] for k in ("repo", "commit", "tex_main")}, **truth,
                          "sanity": sanity(text, truth) if text else {}}
    path = args.out or DATA / f"body_{name}.json"
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    v = [t for t in out.values() if "lists" in t]
    print(json.dumps({"set": name, "papers": len(out), "lists": sum(len(t["lists"]) for t in v),
                      "items": sum(len(x["items"]) for t in v for x in t["lists"]),
                      "footnotes": sum(len(t["footnotes"]) for t in v),
                      "links": sum(len(t["links"]) for t in v), "written": str(path)}))


if __name__ == "__main__":
    main()
