"""Figure / table captions and numbered display equations of a paper, derived from its LaTeX (truth for floats.py).

Per paper, from the source at the commit its manifest (or the corpus paper's truth.json) names, \\input / \\include
spliced in by unseen_truth.expand and text cleaned by unseen_truth.clean (imported, not copied):

- ``floats``: every \\caption of a figure or table float, in source order (figure, figure*, wrapfigure,
  SCfigure, sidewaysfigure, table, table*, wraptable, sidewaystable, longtable) and every
  \\captionof{figure|table} (a minipage's); ``{kind, number, caption, subcaptions}``. The caption is the long
  argument (not \\caption[short]'s), its math given as latex2mathml's token text; a subfigure's caption
  (subfigure / subtable environments, \\subfloat[...], \\subcaptionbox{...}) counts under its float, never as one.
  Numbers as LaTeX counts them: per chapter where the document has numbered chapters, per section after
  \\numberwithin / \\counterwithin, appendix chapters and sections lettered; \\caption* has none.
- ``equations``: numbered display equations in order: equation, align, gather, multline, eqnarray, flalign,
  alignat, IEEEeqnarray, dmath; the row environments split at top-level \\\\, a row numbered unless
  \\nonumber / \\notag or the starred environment; \\tag{x} prints x (on a starred one too); rows inside
  subequations are numbered 3a, 3b; ``{number, latex}``.

    .venv/bin/python benchmarks/floats_truth.py                    # unseen (80) -> benchmarks/data/floats_unseen.json
    .venv/bin/python benchmarks/floats_truth.py --set heldout3     # unseen_heldout3.json -> floats_unseen_heldout3.json
    .venv/bin/python benchmarks/floats_truth.py --set corpus17     # ../shared/corpus/papers/*/truth.json's sources

The mirrors are the `fetch` tool's bare snapshots under /work/.mirror (--mirror DIR).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from unseen_truth import MIRROR, Git, clean, expand, group, macros, pdf_text, squash  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "papers"
DATA = REPO / "benchmarks" / "data"

FLOATS = {"figure": "figure", "wrapfigure": "figure", "SCfigure": "figure", "sidewaysfigure": "figure",
          "table": "table", "wraptable": "table", "SCtable": "table", "sidewaystable": "table", "longtable": "table",
          "deluxetable": "table",  # AASTeX: captioned by \\tablecaption
          "marginfigure": "figure", "margintable": "table",  # tufte-latex
          # floats of other kinds: their captions ("Algorithm 1", "Listing 2") number no figure, even inside one
          "algorithm": None, "algorithm2e": None, "listing": None, "program": None}
SUBFLOATS = {"subfigure", "subtable"}
ROWS = {"align", "gather", "eqnarray", "flalign", "alignat", "IEEEeqnarray", "xalignat", "xxalignat"}
SINGLE = {"equation", "multline", "dmath"}
TOKEN = re.compile(
    r"\\(?P<be>begin|end)\s*\{(?P<env>[A-Za-z]+\*?)\}"
    r"|\\(?P<cap>captionof|caption|tablecaption|figcaption)(?![A-Za-z])(?P<capstar>\*?)"
    r"|\\(?P<sec>chapter|section|subsection)(?![A-Za-z])(?P<secstar>\*?)"
    r"|\\(?P<app>appendix|appendices)(?![A-Za-z])"
    r"|\\(?P<sub>subfloat|subcaptionbox|sidesubfloat)(?![A-Za-z])"
    r"|\\(?:numberwithin|counterwithin\*?)\s*\{(?P<nw_c>\w+)\}\s*\{(?P<nw_p>\w+)\}"
    r"|\\counterwithout\*?\s*\{(?P<nwo_c>\w+)\}\s*\{(?P<nwo_p>\w+)\}")


def optional(tex: str, i: int) -> tuple[str | None, int]:
    """A [..] argument at tex[i] (after spaces), brackets and braces nested -> (content or None, index after)."""
    j = i
    while j < len(tex) and tex[j] in " \t\n":
        j += 1
    if j >= len(tex) or tex[j] != "[":
        return None, i
    depth, k = 0, j
    while k < len(tex):
        c = tex[k]
        if c == "\\":
            k += 2
            continue
        depth += c in "[{"
        depth -= c in "]}"
        if depth == 0:
            return tex[j + 1:k], k + 1
        k += 1
    return tex[j + 1:], len(tex)


def braced(tex: str, i: int) -> tuple[str | None, int]:
    """A {..} argument at tex[i] (after spaces) -> (content or None, index after)."""
    j = i
    while j < len(tex) and tex[j] in " \t\n":
        j += 1
    if j < len(tex) and tex[j] == "{":
        return group(tex, j)
    return None, i


def math_atoms(latex: str) -> list[str]:
    """The symbols a reader sees in a piece of LaTeX math, in order: latex2mathml's token text (\\alpha -> α,
    \\leq -> ≤, \\mathbb{E} -> 𝔼), one character each, NFKC, accents and unknown macros dropped; a formula
    latex2mathml refuses falls back to its characters without commands and braces."""
    latex = re.sub(r"\\(label|tag\*?)\s*\{[^{}]*\}|\\(nonumber|notag|IEEEnonumber)(?![A-Za-z])", " ", latex)
    try:
        from latex2mathml.converter import convert

        text = [html.unescape(t) for t in re.findall(r">([^<>]+)<", convert(latex))]
        text = [t for t in text if not t.startswith("\\")]
    except Exception:  # noqa: BLE001 — a paper's own macros or broken math: fall back to the characters
        text = [re.sub(r"\\[A-Za-z@]+\*?|[{}]", " ", latex)]
    return atoms("".join(text))


def atoms(text: str) -> list[str]:
    """One symbol per character: NFKC (𝑥 -> x, 𝔼 -> E), combining accents, spaces and the markup characters
    of text-math (^ _ { } $ & \\) dropped, the minus sign as a hyphen."""
    out = []
    for ch in unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text)):
        if ch.isspace() or unicodedata.combining(ch) or ch in "^_{}$&\\\u2061\u2062\u2063\u23de\u23df\u02dc\u02c6\u00af":
            continue
        out.append("-" if ch in "\u2212\u2013" else ch)
    return out


def spell_out(latex: str, defs: dict[str, str]) -> str:
    """A paper's argument-less macros (\\newcommand{\\rvx}{\\mathbf{x}}, \\DeclareMathOperator) spelled out, twice
    over for a macro defined through another."""
    for _ in range(2):
        latex = re.sub(r"\\([a-zA-Z]+)(?![a-zA-Z])", lambda m: defs.get(m.group(1), m.group(0)), latex)
    return latex


def caption_text(raw: str, defs: dict[str, str]) -> str:
    """A caption as printed: the paper's argument-less macros spelled out, cross-references (whose numbers the
    source does not hold) dropped, inline math as its symbols, then unseen_truth.clean."""
    raw = spell_out(raw, defs).replace("\\%", "%").replace("\\_", "_").replace("\\#", "#")
    raw = re.sub(r"\\(?:ref|eqref|autoref|cref|Cref|pageref|vref|subref)\*?\s*\{[^{}]*\}", "", raw)

    def math(m: re.Match) -> str:
        syms = math_atoms(m.group(1) or m.group(2) or "")
        # single letters and digits of one run glued ("q_c" -> "qc"), other symbols spaced
        glued = re.sub(r"(?<=[A-Za-z0-9]) (?=[A-Za-z0-9])", "", " ".join(syms))
        return " " + re.sub(r"(?<=\d) \. (?=\d)", ".", glued) + " "  # 0.5, not "0 . 5"

    raw = re.sub(r"(?<!\\)\$([^$]+)\$|\\\((.+?)\\\)", math, raw, flags=re.S)
    return clean(raw)


def split_rows(body: str) -> list[str]:
    """A row environment's body split at \\\\ outside braces and nested environments (an aligned or cases)."""
    rows, depth, env, cur, i = [], 0, 0, [], 0
    while i < len(body):
        if body.startswith("\\begin", i):
            env += 1
        elif body.startswith("\\end", i):
            env -= 1
        c = body[i]
        if c == "\\" and body.startswith("\\\\", i) and depth == 0 and env == 0:
            rows.append("".join(cur))
            cur = []
            i += 2
            _, i = optional(body, i)  # \\[2pt]
            continue
        if c == "\\" and i + 1 < len(body):
            cur.append(body[i:i + 2])
            i += 2
            continue
        depth += c == "{"
        depth -= c == "}"
        cur.append(c)
        i += 1
    rows.append("".join(cur))
    return rows


def letter(n: int) -> str:
    return chr(ord("A") + n - 1) if 1 <= n <= 26 else str(n)


class Counters:
    """LaTeX's counters as far as float and equation numbers need them."""

    def __init__(self, chapters: bool):
        self.n = {"chapter": 0, "section": 0, "subsection": 0, "figure": 0, "table": 0, "equation": 0}
        # figures, tables and equations run within chapters in every class that has them (book, report, KOMA, memoir)
        self.within = {k: ("chapter" if chapters else None) for k in ("figure", "table", "equation")}
        self.appendix = False
        self.chapters = chapters

    def shown(self, name: str) -> str:
        if name == "chapter":
            return letter(self.n["chapter"]) if self.appendix else str(self.n["chapter"])
        if name == "section":
            sec = letter(self.n["section"]) if self.appendix and not self.chapters else str(self.n["section"])
            return f"{self.shown('chapter')}.{sec}" if self.chapters else sec
        if name == "subsection":
            return f"{self.shown('section')}.{self.n['subsection']}"
        parent = self.within.get(name)
        own = str(self.n[name])
        return f"{self.shown(parent)}.{own}" if parent else own

    def step(self, name: str) -> str:
        self.n[name] += 1
        for child, parent in self.within.items():
            if parent == name:
                self.n[child] = 0
        if name == "chapter":
            self.n["section"] = 0
        if name in ("chapter", "section"):
            self.n["subsection"] = 0
        return self.shown(name)


def document_body(tex: str) -> str:
    return tex[tex.find("\\begin{document}"):] if "\\begin{document}" in tex else tex


def derive(tex: str, within: dict | None = None) -> dict:
    """-> {floats: [...], equations: [...]} of one expanded LaTeX source; ``within`` overrides the counter a
    counter runs within ({"equation": "section"}: a class such as jfm or JHEP numbers equations per section)."""
    # (a body holding #1 belongs to a macro with arguments that macros() read as argument-less: \\def\\x#1{..})
    defs = {k: v for k, v in macros(tex).items() if len(v) < 300 and "#" not in v}
    # \\newcommand\\midas[0]{Midas\\xspace}: zero arguments said outright
    for m in re.finditer(r"\\(?:re)?newcommand\*?\s*\{?\\([a-zA-Z]+)\}?\s*\[0\]\s*(?=\{)", tex):
        defs.setdefault(m.group(1), group(tex, m.end())[0])
    for m in re.finditer(r"\\DeclareMathOperator\*?\s*\{?\\([a-zA-Z]+)\}?\s*\{([^{}]*)\}", tex):
        defs.setdefault(m.group(1), "\\operatorname{" + m.group(2) + "}")
    # \\newcommand{\\be}{\\begin{equation}}: environments opened through a paper's shorthand
    env_defs = {k: v for k, v in defs.items() if re.search(r"\\(begin|end)\s*\{", v)}
    body = re.sub(r"\\iffalse(?![A-Za-z]).*?\\fi(?![A-Za-z])", " ", document_body(tex), flags=re.S)  # never printed
    if env_defs:
        body = re.sub(r"\\([a-zA-Z]+)(?![a-zA-Z])", lambda m: env_defs.get(m.group(1), m.group(0)), body)
    preamble = tex[:tex.find("\\begin{document}")] if "\\begin{document}" in tex else ""
    numbering = "".join(m.group(0) for m in re.finditer(
        r"\\(?:numberwithin|counterwithin\*?|counterwithout\*?)\s*\{\w+\}\s*\{\w+\}", preamble))
    chapters = bool(re.search(r"\\chapter\s*(\[[^\]]*\])?\s*\{", body))
    cnt = Counters(chapters)
    overrides = within or {}
    cnt.within.update(overrides)
    floats: list[dict] = []
    equations: list[dict] = []
    stack: list[dict] = []  # open float environments: {kind, items, subs}
    sub_depth = 0
    sub_eq: dict | None = None
    text = numbering + body
    pos = 0
    while True:
        m = TOKEN.search(text, pos)
        if not m:
            break
        pos = m.end()
        if m.group("nw_c"):
            if m.group("nw_c") in cnt.within and m.group("nw_c") not in overrides:
                cnt.within[m.group("nw_c")] = m.group("nw_p") if m.group("nw_p") in ("chapter", "section", "subsection") else None
            continue
        if m.group("nwo_c"):
            if m.group("nwo_c") in cnt.within and m.group("nwo_c") not in overrides:
                cnt.within[m.group("nwo_c")] = None
            continue
        if m.group("app"):
            cnt.appendix = True
            cnt.n["chapter" if chapters else "section"] = 0
            continue
        if m.group("sec"):
            if not m.group("secstar"):
                cnt.step(m.group("sec"))
            continue
        if m.group("sub"):
            # \\subfloat[caption]{..}, \\subcaptionbox{caption}{..}: a subcaption of the open float
            if m.group("sub") == "subcaptionbox":
                _, k = optional(text, pos)
                arg, pos = braced(text, k)
            else:
                arg, pos = optional(text, pos)
                arg2, k = optional(text, pos)
                if arg2 is not None:
                    pos = k
            if arg and stack:
                stack[-1]["subs"].append(caption_text(arg, defs))
            continue
        if m.group("cap"):
            kind = None
            if m.group("cap") == "captionof":
                which, pos = braced(text, pos)
                kind = {"figure": "figure", "table": "table"}.get((which or "").strip())
                sub = (which or "").strip() in ("subfigure", "subtable")
            else:
                sub = sub_depth > 0
                # AASTeX's \\figcaption captions a figure wherever it stands
                kind = stack[-1]["kind"] if stack else ("figure" if m.group("cap") == "figcaption" else None)
            _, pos = optional(text, pos)
            arg, pos = braced(text, pos)
            if arg is None or re.search(r"#\d", arg):
                continue  # (a caption inside a macro's definition, "\\caption{#3}": printed where it is used)
            if sub:
                if stack:
                    stack[-1]["subs"].append(caption_text(arg, defs))
                continue
            if kind is None:
                continue
            item = {"kind": kind, "number": None if m.group("capstar") else cnt.step(kind),
                    "caption": caption_text(arg, defs), "subcaptions": []}
            floats.append(item)
            if stack:
                stack[-1]["items"].append(item)
            continue
        env, begin = m.group("env"), m.group("be") == "begin"
        base = env.rstrip("*")
        if base in FLOATS:
            if begin:
                stack.append({"kind": FLOATS[base], "items": [], "subs": []})
            elif stack:
                top = stack.pop()
                if top["items"]:
                    top["items"][0]["subcaptions"] += top["subs"]
            continue
        if base in SUBFLOATS:
            sub_depth += 1 if begin else -1
            sub_depth = max(sub_depth, 0)
            continue
        if base == "subequations":
            if begin:
                sub_eq = {"parent": cnt.step("equation"), "n": 0}
            else:
                sub_eq = None
            continue
        if begin and (base in ROWS or base in SINGLE):
            end = text.find("\\end{" + env + "}", pos)
            end = len(text) if end < 0 else end
            inner = text[pos:end]
            pos = end + len("\\end{" + env + "}")
            if base in ("alignat", "xalignat", "xxalignat", "IEEEeqnarray"):
                _, k = braced(inner, 0)
                inner = inner[k:]
            rows = split_rows(inner) if base in ROWS else [inner]
            for row in rows:
                # an empty row is numbered too (amsmath's align after a last \\\\ prints "(2.1)" on a line of its own)
                tag = re.search(r"\\tag\*?\s*\{([^{}]*)\}", row)
                if tag and re.fullmatch(r"\W*(\\(qed|qedhere|qedsymbol|blacksquare|square|Box|hfill)\W*)*",
                                        tag.group(1).strip()):
                    continue  # \\tag*{\\qed}: an end-of-proof mark, no number
                if tag:
                    number = tag.group(1).strip()
                    if re.search(r"[\\$]", number):  # \\tag{$\\star$} prints (⋆)
                        number = "".join(math_atoms(number.replace("$", " ")))
                elif env.endswith("*") or re.search(r"\\(nonumber|notag|IEEEnonumber)(?![A-Za-z])", row):
                    continue
                elif sub_eq is not None:
                    sub_eq["n"] += 1
                    number = sub_eq["parent"] + chr(ord("a") + sub_eq["n"] - 1)
                else:
                    number = cnt.step("equation")
                latex = re.sub(r"\\label\s*\{[^{}]*\}|\\tag\*?\s*\{[^{}]*\}", "", row).strip()
                latex = spell_out(latex, defs)
                equations.append({"number": number, "latex": " ".join(latex.split())})
    return {"floats": floats, "equations": equations}


def printed_numbers(text: str, truth: dict) -> tuple[int, int]:
    """How many of the truth's equation numbers ("(N)") and float numbers ("Figure N", "Fig. N", "Table N")
    the PDF's text prints."""
    tight = re.sub(r"\s+", "", text)
    eqs = sum(f"({e['number']})" in tight for e in truth["equations"])
    words = {"figure": ("Figure", "Fig.", "FIGURE", "FIG.", "Fig"), "table": ("Table", "TABLE", "Tab.")}
    # "Figure1" must not be read inside "Figure12" or "Figure1.2" (the text is joined without spaces)
    fl = sum(any(re.search(re.escape(w + f["number"]) + r"(?!\d|\.\d)", tight) for w in words[f["kind"]])
             for f in truth["floats"] if f["number"])
    return eqs, fl


def numbered_as_printed(tex: str, pdf: Path) -> tuple[dict, str]:
    """The LaTeX-derived truth, its equation and float counters re-run within another counter where the PDF
    prints more of the numbers that way: a class's own scheme (jfm's and JHEP's (2.1) by section, a thesis
    class's plain (1) despite its chapters) is in no source file we read. -> (truth, note)"""
    truth = derive(tex)
    if not pdf.exists():
        return truth, ""
    _, _, text = pdf_text(pdf.read_bytes())
    best_eq, best_fl = printed_numbers(text, truth)
    chosen: dict = {}
    for counter, idx in (("equation", 0), ("figure", 1), ("table", 1)):
        for parent in (None, "section", "chapter", "subsection"):
            trial = derive(tex, {**chosen, counter: parent})
            score = printed_numbers(text, trial)[idx]
            items = len(trial["equations"]) if idx == 0 else sum(1 for f in trial["floats"] if f["number"])
            # a scheme is taken on the page's word only where it finds at least half of its numbers ("(1)" is
            # printed by chance in many a text)
            if score > (best_eq if idx == 0 else best_fl) and score >= 0.5 * items:
                chosen[counter] = parent
                best_eq, best_fl = printed_numbers(text, trial)
    if not chosen:
        return truth, ""
    note = "numbered as printed: " + ", ".join(f"{k} within {v or 'nothing'}" for k, v in chosen.items())
    return derive(tex, chosen), note


def sanity(pdf: Path, truth: dict) -> dict:
    """Truth against the PDF's text layer: each caption's first 40 letters and digits, each equation's "(N)"."""
    if not pdf.exists():
        return {}
    _, _, text = pdf_text(pdf.read_bytes())
    flat, tight = squash(text), re.sub(r"\s+", "", text)
    caps = [f for f in truth["floats"] if squash(f["caption"])]
    missing = [f["caption"][:60] for f in caps if squash(f["caption"])[:40] not in flat]
    eq_missing = [e["number"] for e in truth["equations"] if f"({e['number']})" not in tight]
    return {"captions_found": f"{len(caps) - len(missing)}/{len(caps)}", "captions_missing": missing[:5],
            "equation_numbers_found": f"{len(truth['equations']) - len(eq_missing)}/{len(truth['equations'])}",
            "equation_numbers_missing": eq_missing[:10]}


def pdf_of(name: str, slug: str) -> Path:
    return (CORPUS / slug if name == "corpus17" else REPO / "benchmarks" / ".cache" / name / slug) / "paper.pdf"


def papers(name: str) -> list[dict]:
    """The manifest entries of a set: {slug, repo, commit, tex_main}."""
    if name == "corpus17":
        out = []
        for t in sorted(CORPUS.glob("*/truth.json")):
            src = json.loads(t.read_text())["source"]
            out.append({"slug": t.parent.name, "repo": src["repo"], "commit": src["commit"],
                        "tex_main": src["tex_paths"][0]})
        return out
    manifest = DATA / ("unseen_papers.json" if name == "unseen" else f"unseen_{name.removeprefix('unseen_')}.json")
    return [e for e in json.loads(manifest.read_text())["papers"]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="unseen", help="unseen (default), heldout, heldout2 .. heldout5, or corpus17")
    ap.add_argument("--mirror", type=Path, default=MIRROR)
    ap.add_argument("--out", type=Path, help="default: benchmarks/data/floats_<set>.json")
    ap.add_argument("--only")
    args = ap.parse_args()
    name = args.set if args.set in ("unseen", "corpus17") else "unseen_" + args.set.removeprefix("unseen_")
    out: dict = {}
    for e in papers(name):
        if args.only and args.only not in e["slug"]:
            continue
        if not e.get("tex_main"):  # a pandoc / Typst document: no LaTeX floats to read
            out[e["slug"]] = {"skipped": "no LaTeX source (pandoc / Typst)"}
            continue
        git = Git(e["repo"], args.mirror)
        tex = expand(git, e["commit"], e["tex_main"])
        truth, note = numbered_as_printed(tex, pdf_of(name, e["slug"]))
        out[e["slug"]] = {"source": {k: e[k] for k in ("repo", "commit", "tex_main")}, **truth,
                          "notes": note, "sanity": sanity(pdf_of(name, e["slug"]), truth)}
    path = args.out or DATA / f"floats_{name}.json"
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    n_f = sum(len(v.get("floats", [])) for v in out.values())
    n_e = sum(len(v.get("equations", [])) for v in out.values())
    print(json.dumps({"set": name, "papers": len(out), "floats": n_f, "equations": n_e, "written": str(path)}))


if __name__ == "__main__":
    main()
