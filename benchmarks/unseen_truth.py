"""Build the unseen-paper set: PDFs committed next to their LaTeX source, with truth derived from the source.

benchmarks/data/unseen_papers.json names each paper (repository, commit, PDF, main .tex, .bib,
licence, layout, hand fixes). This script reads them from bare git snapshots (the `fetch` tool's
/work/.mirror/<owner>+<name>/repo, or --mirror DIR), and writes, per paper, under
benchmarks/.cache/unseen/<slug>/ (git-ignored): paper.pdf (byte-for-byte as committed),
truth.json in the corpus's schema (../shared/corpus/papers/README.md) and SOURCE.md.

    .venv/bin/python benchmarks/unseen_truth.py            # all papers in the manifest
    .venv/bin/python benchmarks/corpus.py --papers benchmarks/.cache/unseen
    .venv/bin/python benchmarks/unseen_truth.py --set heldout  # benchmarks/data/unseen_heldout.json
                                                               # -> benchmarks/.cache/unseen_heldout

A set NAME other than the default reads benchmarks/data/unseen_NAME.json and writes benchmarks/.cache/unseen_NAME
(a held-out set that no fix may look at lives beside the development set this way).

Truth comes from the LaTeX (title, authors, \\chapter..\\subsubsection incl. starred ones,
appendix, cited entries of the .bib or the .bbl's \\bibitem count, their titles, abstract; a Beamer
deck's frame titles under its \\section's; a poster's box titles (baposter \\headerbox, tikzposter \\block) as
its sections, a beamerposter's blocks (\\begin{block}{Title}, and any environment whose name ends in block) too; a
.dtx's documentation lines (the text after each line's leading %, macrocode listings dropped) and ltxdoc's
\\cmd{\\X} / \\cs{X} printed as \\X; a pandoc/R Markdown body's headings outside code fences, its title, authors and abstract from
the YAML front matter; a Typst body's headings (= .. ====, those after a restart of the heading
counter in the appendix), @key / #cite(<key>) citations and its template call's title, author names and
abstract; Doxygen's \\texorpdfstring / \\hyperlink / \\+ printed as they print; a nested \\input
found from the main file's folder as TeX finds it, and in the folders the source adds to \\input@path (and a class's own
file-reading command named in the manifest's `input_macros`, KUThesis's \\addContents{file}, read as \\input); abnTeX2's
\\titulo / \\autor and asmeconf's \\SetAuthors as title and byline; biblatex's \\autocite / \\textcite / \\parencite /
\\footcite / \\smartcite / \\supercite as citations, and Typst's #cite(label("key")); a manifest `language` (babel's
name) that resolves \\IfLanguageName{lang}{..}{..} / \\iflanguage switches for the language the PDF was built in);
`fixes` in the manifest replace a derived field where a class prints something the source does
not spell out, and each one is written into the truth's `notes`. `sanity` checks the truth
against the PDF's text (pypdfium2): the title and section titles must be found in it.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "benchmarks" / "data" / "unseen_papers.json"
OUT = REPO / "benchmarks" / ".cache" / "unseen"
MIRROR = Path("/work/.mirror")

SECTION_RE = re.compile(r"\\(part|chapter|section|subsection|subsubsection)(\*?)\s*(?:\[[^\]]*\])?\s*\{")
FRAME_RE = re.compile(r"\\begin\{frame\}\s*(?:<[^>]*>\s*)?(?:\[[^\]]*\]\s*)?")
BOX_RE = re.compile(r"\\(?:headerbox|block)\s*(?:\[[^\]]*\]\s*)?(?=\{)")
BLOCK_RE = re.compile(r"\\begin\{[A-Za-z]*block\}\s*(?:<[^>]*>\s*)?(?=\{)")
# \\cite and natbib's \\citet / \\citep ..., and biblatex's \\autocite / \\textcite / \\parencite / \\footcite / \\smartcite /
# \\supercite (their names end in "cite")
CITE_RE = re.compile(r"\\(?:no|auto|text|paren|foot|smart|super)?cite[a-zA-Z]*\*?\s*(?:\[[^\]]*\]\s*){0,2}(?=\{)")
ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "c": "\u0327",
           "v": "\u030c", "H": "\u030b", "=": "\u0304", ".": "\u0307", "u": "\u0306", "k": "\u0328"}


class Git:
    def __init__(self, repo: str, mirror: Path):
        base = mirror / repo.replace("/", "+") / "repo"
        self.dir = base / ".git" if (base / ".git").is_dir() else base
        if not self.dir.exists():
            raise SystemExit(f"no snapshot of {repo} at {base} (fetch it first)")

    def read(self, commit: str, path: str) -> bytes:
        return subprocess.run(["git", "--git-dir", str(self.dir), "show", f"{commit}:{path}"],
                              capture_output=True, check=True).stdout

    def exists(self, commit: str, path: str) -> bool:
        return subprocess.run(["git", "--git-dir", str(self.dir), "cat-file", "-e", f"{commit}:{path}"],
                              capture_output=True).returncode == 0


def strip_comments(tex: str) -> str:
    """Comments and verbatim-like environments (a LaTeX how-to shows \\include and \\section in them)."""
    tex = re.sub(r"\\begin\{(verbatim|lstlisting|minted|Verbatim)\}.*?\\end\{\1\}", "", tex, flags=re.S)
    tex = re.sub(r"\\verb\*?(.).*?\1", "", tex)
    return re.sub(r"(?<!\\)%.*", "", tex)


def dtx_doc(src: str) -> str:
    """What TeX typesets from a .dtx (ltxdoc's \\DocInput): the driver's code as it stands, each documentation
    line without its leading %; macrocode blocks (the implementation listings), docstrip guard lines, ^^A
    comments and inline verbatim are no heading text."""
    out, code = [], False
    for line in src.splitlines():
        if re.match(r"%\s*\\begin\{macrocode\*?\}", line):
            code = True
        elif code:
            code = not re.match(r"%\s*\\end\{macrocode\*?\}", line)
        elif not line.startswith("%<"):
            # ^^A comments; inline verbatim, \\verb|...| and ltxdoc's |...| shorthand, whose \\begin{Verbatim}
            # would otherwise open a verbatim block for strip_comments
            line = re.sub(r"\|[^|]*\|", "", re.sub(r"\\verb\*?(.).*?\1", "", re.sub(r"\^\^A.*", "", line)))
            out.append(line[1:] if line.startswith("%") else line)
    return "\n".join(out)


def expand(git: Git, commit: str, path: str, depth: int = 0, main_root: str | None = None,
           input_path: tuple[str, ...] = (), inputs: tuple[str, ...] = ("input", "include", "subfile")) -> str:
    """The main file with \\input / \\include / \\subfile spliced in (paths relative to the main file); `inputs`
    adds a class's own one-argument file-reading commands (the manifest's `input_macros`)."""
    raw = git.read(commit, path).decode("utf-8", "replace")
    tex = strip_comments(dtx_doc(raw) if path.endswith(".dtx") else raw)
    if depth > 6:
        return tex
    root = str(Path(path).parent)
    main_root = root if main_root is None else main_root
    # LaTeX's \\input@path (\\g@addto@macro\\input@path{{./src/}{./suppl/}}, IPSJ's template): more folders,
    # relative to the main file's, where \\input looks after the current one
    for m in re.finditer(r"\\input@path\s*\{((?:\s*\{[^{}]*\})+)\s*\}", tex):
        input_path += tuple(posixpath.normpath(posixpath.join(main_root, d)) for d in re.findall(r"\{([^{}]*)\}", m.group(1)))

    def splice(m: re.Match) -> str:
        name = m.group(2).strip()
        # TeX reads a nested \\input from the main file's folder (its working directory); a
        # path relative to the including file is tried first, as before
        for base in dict.fromkeys((root, main_root) + input_path):
            for cand in (name, name + ".tex"):
                # git's rev:path takes no "..": a file read from a sibling folder (siamart's
                # \\input{../abstract/abstract.txt}) is named from the repository's root
                p = posixpath.normpath(posixpath.join(base, cand)) if base != "." else cand
                if git.exists(commit, p):
                    return expand(git, commit, p, depth + 1, main_root, input_path, inputs)
        return ""

    return re.sub(r"\\(" + "|".join(inputs) + r")\s*\{([^}]*)\}", splice, tex)


def pick_language(tex: str, language: str) -> str:
    """A document's language switches resolved for the language it is built in (the manifest's `language`, babel's
    name): \\IfLanguageName{dutch}{Woord vooraf}{Preface} and \\iflanguage{dutch}{..}{..} print their first branch in a
    Dutch build, their second otherwise."""
    out, i = [], 0
    for m in re.finditer(r"\\(?:IfLanguageName|iflanguage)\s*(?=\{)", tex):
        if m.start() < i:  # inside a branch already copied
            continue
        name, j = group(tex, m.end())
        j += len(tex[j:]) - len(tex[j:].lstrip())
        yes, k = group(tex, j) if tex[j:j + 1] == "{" else ("", j)
        k += len(tex[k:]) - len(tex[k:].lstrip())
        no, end = group(tex, k) if tex[k:k + 1] == "{" else ("", k)
        out += [tex[i:m.start()], pick_language(yes if name.strip() == language else no, language)]
        i = end
    return "".join(out) + tex[i:]


def group(tex: str, start: int) -> tuple[str, int]:
    """The brace group opening at tex[start] == '{' -> (content, index after it)."""
    depth, i = 0, start
    while i < len(tex):
        c = tex[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return tex[start + 1:i], i + 1
        i += 1
    return tex[start + 1:], len(tex)


def command_args(tex: str, name: str) -> list[str]:
    out = []
    for m in re.finditer(r"\\" + name + r"\*?\s*(?:\[[^\]]*\]\s*)?(?=\{)", tex):
        out.append(group(tex, m.end())[0])
    return out


def cite_keys(arg: str) -> str:
    """A \\cite argument without REVTeX 4.2's leading notes: \\cite{[pre][{post, with {braces}}]key,PDG}
    prints the post note inside the first key's entry (apsrev4-2); the keys follow the brackets."""
    while arg.lstrip().startswith("["):
        arg, depth = arg.lstrip(), 0
        for i, c in enumerate(arg):
            depth += c in "[{"
            depth -= c in "]}"
            if depth == 0:
                arg = arg[i + 1:]
                break
        else:
            return ""
    return arg


def drop_notes(s: str) -> str:
    """Remove footnote-like groups (thanks, affiliation marks, e-mails, labels) with their content."""
    s = re.sub(r"\\(thanks|footnote|label|IEEEmembership|orcid|orcidID|orcidlink|email|inst|fnmark|corref|"
               r"tnoteref|fnref|affil|affiliation|textsuperscript|href|url|index|IEEEcompsocitemizethanks|"
               r"orcidA|affilnum|protect\\footnote)\s*\{", lambda m: "\\DROP{", s)
    while "\\DROP{" in s:
        i = s.index("\\DROP{")
        _, j = group(s, i + 5)
        s = s[:i] + s[j:]
    return s


def clean(s: str) -> str:
    """LaTeX text -> plain text as printed (roughly)."""
    s = drop_notes(s)
    # Doxygen's LaTeX: \texorpdfstring{printed}{bookmark} prints its first group; \+ and \/ are
    # break hints and \hspace{..} a space, none of them text
    while "\\texorpdfstring{" in s:
        i = s.index("\\texorpdfstring{")
        first, j = group(s, i + len("\\texorpdfstring"))
        _, k = group(s, j) if s[j:j + 1] == "{" else ("", j)
        s = s[:i] + first + s[k:]
    s = re.sub(r"\\hyperlink\s*\{[^}]*\}", "", s)  # \hyperlink{target}{text} prints its text
    s = re.sub(r"\\[hv]space\*?\s*\{[^}]*\}", " ", s)
    s = re.sub(r"\\[+/]", "", s).replace("\\textquotesingle{}", "'")
    s = re.sub(r"\$\^\{?[^$]*\}?\$", "", s)  # superscript markers
    s = re.sub(r"\\\\(\[[^\]]*\])?", " ", s)
    s = re.sub(r"\\(newline|linebreak|hfill|quad|qquad|noindent|IEEEauthorrefmark\{[^}]*\})", " ", s)
    s = re.sub(r"[~\s]*\\cite[a-zA-Z]*\*?\s*(?:\[[^\]]*\]\s*){0,2}\{[^}]*\}", "", s)  # a citation in a title
    s = re.sub(r"\$\{\}\^\{?([^${}]*)\}?\$", r"\1", s)  # M${}^2$: a raised 2 in a name (M2), not a mark
    for acc, comb in ACCENTS.items():
        # (a letter-named accent is no command's first letter: "\\c{c}", not "\\citep")
        s = re.sub(r"\\" + re.escape(acc) + (r"(?![a-zA-Z])" if acc.isalpha() else "") + r"\s*\{?\\?([a-zA-Z])\}?",
                   lambda m, c=comb: unicodedata.normalize("NFC", m.group(1) + c), s)
    s = re.sub(r"\\(La)?TeX\b\s*", lambda m: (m.group(1) or "") + "TeX ", s).replace("\\ ", " ")
    s = re.sub(r"\\[,;:!]", " ", s)  # spacing commands (Frontiers' "Kamvar\\,\\textsuperscript{1}") are spaces
    s = s.replace("\\&", "&").replace("~", " ").replace("---", "—").replace("--", "–").replace("``", "\u201c").replace("''", "\u201d")
    s = re.sub(r"\\(ss)\b", "ß", s)
    s = re.sub(r"\\[a-zA-Z@]+\*?", " ", s)  # remaining commands keep their argument text
    s = s.replace("{", "").replace("}", "").replace("$", "")
    # NUL stands for a printed backslash (ltxdoc's \\cmd{\\X}), which the command removal above would take
    return " ".join(s.split()).strip(" ,").replace("\x00", "\\")


# The title \\bibliography, \\printbibliography and thebibliography print over the list: babel's \\refname and \\bibname
# in the languages it ships (lower case), and titles classes print instead; a source's own \\refname / \\bibname /
# \\printbibliography[title=..] is added per document (bib_names)
BIB_NAMES = (
    "references", "bibliography", "reference", "references and notes", "notes and references", "literature cited",
    "works cited", "cited literature", "literatur", "literaturverzeichnis", "références", "bibliographie",
    "referencias", "bibliografía", "referencias bibliográficas", "riferimenti bibliografici", "bibliografia",
    "referências", "referências bibliográficas", "referenties", "bibliografie", "literatura", "bibliografia",
    "literatúra", "referencie", "reference", "список литературы", "литература", "література", "бібліографія",
    "библиография", "referanser", "bibliografi", "referenser", "litteraturförteckning", "litteratur", "viitteet",
    "kirjallisuutta", "lähteet", "kaynaklar", "kaynakça", "αναφορές", "βιβλιογραφία", "hivatkozások",
    "irodalomjegyzék", "irodalom", "bibliografija", "viited", "kirjandus", "literatūra", "heimildir", "verwysings",
    "bibliografie", "referències", "erreferentziak", "cyfeiriadau", "llyfryddiaeth", "tagairtí", "leabharliosta",
    "referencat", "daftar pustaka", "pustaka", "tài liệu tham khảo", "参考文献", "參考文獻", "참고 문헌", "참고문헌",
    "المراجع", "مراجع", "מקורות", "ספרות",
)
BIB_CMD_RE = re.compile(r"\\bibliography\s*\{|\\printbibliography(?![a-zA-Z])\s*(?:\[([^\]]*)\])?|\\begin\{thebibliography\}")


def bib_names(tex: str) -> set[str]:
    """BIB_NAMES and the titles this source gives its list (\\renewcommand{\\refname}{..}, \\bibname, natbib's
    \\bibsection, biblatex's title=), lower case."""
    out = set(BIB_NAMES)
    for m in re.finditer(r"\\(?:re)?newcommand\*?\s*\{?\\(?:refname|bibname|bibsection)\}?\s*(?=\{)|"
                         r"\\def\s*\\(?:refname|bibname|bibsection)\s*(?=\{)", tex):
        body = group(tex, m.end())[0]
        inner = re.search(r"\\(?:section|chapter)\*?\s*(?=\{)", body)  # \\bibsection{\\section*{Title}}
        out.add(clean(group(body, inner.end())[0] if inner else body).lower())
    for m in re.finditer(r"\\printbibliography\s*\[([^\]]*)\]", tex):
        t = re.search(r"title\s*=\s*(\{[^}]*\}|[^,\]]+)", m.group(1))
        if t:
            out.add(clean(t.group(1)).lower())
    return out - {""}


def printed_bib_heads(text: str, names: set[str]) -> list[tuple[str, bool]]:
    """Lines of a PDF's text layer that print a bibliography title: (the title as printed, numbered), a section
    number ('5. REFERENCES'), a review copy's line number ('References 272') and letter-spacing ('B I B L I O G R A
    P H Y') read off."""
    plain, numbered_after = [], []
    for line in text.splitlines():
        s = " ".join(line.split())
        if re.fullmatch(r"(?:\w )+\w", s):
            s = s.replace(" ", "")
        num = re.match(r"(\d+(?:\.\d+)*\.|[A-Z]\.)\s+", s)
        s = re.sub(r"^\d+(?:\.\d+)*\.?\s+|^[A-Z]\.\s+", "", s)
        if s.lower() in names:
            plain.append((s, bool(num)))
        elif re.sub(r"\s+\d+$", "", s).lower() in names:
            numbered_after.append((re.sub(r"\s+\d+$", "", s), bool(num)))
    # a title followed by a number is a contents entry or a running head where the title also stands alone; a
    # review copy's line numbers follow every line, the title's too
    return plain or numbered_after


def sections(tex: str, printed: str | None = None) -> list[dict]:
    """The headings the source writes, and (given ``printed``, the PDF's text layer) the bibliography's own title
    where the PDF prints it."""
    body = tex[tex.find("\\begin{document}"):] if "\\begin{document}" in tex else tex
    app_at = body.find("\\appendix")
    has_chapters = bool(re.search(r"\\chapter\*?\s*[\[{]", body))
    levels = {"part": 0, "chapter": 1, "section": 2 if has_chapters else 1,
              "subsection": 3 if has_chapters else 2, "subsubsection": 4 if has_chapters else 3}
    # A Beamer deck: each frame's title is a heading one level under the deepest \\section level used
    # (frames print their title on every overlay page; the truth holds it once per frame)
    frames = list(FRAME_RE.finditer(body)) if re.search(r"\\documentclass\s*(?:\[[^\]]*\])?\s*\{beamer\}", tex) else []
    frame_level = 1 + max([levels[m.group(1)] for m in SECTION_RE.finditer(body) if m.group(1) != "part"] or [0])
    # A poster's boxes (baposter's \\headerbox{Title}{options}{body}, tikzposter's \\block{Title}{body}) are
    # its sections, one level, unnumbered
    poster = re.search(r"\\documentclass\s*(?:\[[^\]]*\])?\s*\{(baposter|tikzposter)\}", tex)
    boxes = list(BOX_RE.finditer(body)) if poster else []
    # a beamerposter poster (one frame, usually untitled): its blocks, \\begin{block}{Title} or a theme's own
    # \\begin{myblock}{Title}, are its sections, as a baposter's boxes
    if re.search(r"\\usepackage\s*(?:\[[^\]]*\])?\s*\{beamerposter\}", tex):
        boxes += list(BLOCK_RE.finditer(body))
    # a bibliography command prints its title over the list (a Beamer deck's list sits in a frame, whose title is
    # the heading); kept below only where the PDF prints that title
    bibs = [] if frames or printed is None else [m for m in BIB_CMD_RE.finditer(body)
                                                  if not re.search(r"heading\s*=\s*none", m.group(1) or "")]
    heads = ([(m.start(), m) for m in SECTION_RE.finditer(body)] + [(m.start(), m) for m in frames]
             + [(m.start(), m) for m in boxes] + [(m.start(), m) for m in bibs])
    out, bib_at = [], []
    for at, m in sorted(heads, key=lambda x: x[0]):
        if m.re is BIB_CMD_RE:
            # \\bibname's chapter in a document with chapters (biblatex's subbibliography: a section), else a section
            sub = has_chapters and re.search(r"heading\s*=\s*sub", m.group(1) or "")
            bib_at.append(len(out))
            out.append({"level": 2 if sub else 1, "title": None, "numbered": False,
                        "in_appendix": app_at >= 0 and at > app_at})
            continue
        if m.re is FRAME_RE:
            t = clean(frame_title(body, m))
            level, numbered = frame_level, False
        elif m.re in (BOX_RE, BLOCK_RE):
            t = clean(group(body, m.end())[0])
            level, numbered = 1, False
        else:
            title, _ = group(body, m.end() - 1)
            t = clean(title)
            level, numbered = levels[m.group(1)], not m.group(2)
        # A bibliography's own heading written in the source (PNAS's \\section*{References}) is printed: a section
        if not t or (m.re is SECTION_RE and m.group(1) == "part"):
            continue
        out.append({"level": level, "title": t, "numbered": numbered,
                    "in_appendix": app_at >= 0 and at > app_at})
    if bib_at:
        # the titles the PDF prints beyond those the source writes itself (\\section*{References} over a list that
        # prints none): each fills the next bibliography command, in order; the rest print no title
        names = bib_names(tex)
        own = Counter(s["title"].lower() for s in out if s["title"] and s["title"].lower() in names)
        lines = []
        for t, numbered in printed_bib_heads(printed or "", names):
            if own[t.lower()]:  # the line of a heading the source writes
                own[t.lower()] -= 1
            else:
                lines.append((t, numbered))
        for k, (t, numbered) in zip(bib_at, lines, strict=False):
            out[k].update(title=t, numbered=numbered)
    return [s for s in out if s["title"]]


def frame_title(body: str, m: re.Match) -> str:
    """A frame's title: \\begin{frame}[opts]{Title} or a \\frametitle{Title} inside it."""
    if body[m.end():m.end() + 1] == "{":
        return group(body, m.end())[0]
    end = body.find("\\end{frame}", m.end())
    ft = re.search(r"\\frametitle\s*(?:<[^>]*>\s*)?(?:\[[^\]]*\]\s*)?(?=\{)", body[m.end():end])
    return group(body, m.end() + ft.end())[0] if ft else ""


def md_sections(md: str) -> list[dict]:
    """ATX headings of a pandoc Markdown body (the bibliography's own heading, written there, is printed: a section)."""
    md = md_body(md)
    out = []
    for m in re.finditer(r"^(#{1,4})\s+(.+?)\s*(\{[^}]*\})?\s*$", md, re.M):
        t = m.group(2).strip()
        out.append({"level": len(m.group(1)), "title": t, "numbered": not (m.group(3) or "").count("-"),
                    "in_appendix": False})
    return out


def md_body(md: str) -> str:
    """A Markdown body without its YAML front matter and fenced code (an R chunk's '# comment' is no heading)."""
    md = re.sub(r"\A---\s*\n.*?\n(?:---|\.\.\.)\s*\n", "", md, flags=re.S)
    return re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", md, flags=re.S | re.M)


def yaml_meta(md: str) -> dict:
    """Title, authors and abstract of a pandoc / R Markdown YAML front matter (PyYAML)."""
    import yaml

    m = re.match(r"\A---\s*\n(.*?)\n(?:---|\.\.\.)\s*\n", md, re.S)
    if not m:
        return {}
    meta = yaml.safe_load(m.group(1)) or {}
    authors = meta.get("author") or meta.get("authors") or []  # JOSS writes "authors:"
    authors = [authors] if isinstance(authors, str) else authors
    return {"title": str(meta.get("title") or "").strip(),
            "authors": [(a.get("name") if isinstance(a, dict) else str(a)).strip() for a in authors],
            "abstract": " ".join(str(meta.get("abstract") or "").split())}


def typst_strip(src: str) -> str:
    """A Typst source without comments and raw blocks (a URL's '//' follows a colon and stays)."""
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    src = re.sub(r"^(```+).*?^\1", "", src, flags=re.S | re.M)
    return re.sub(r"(?<!:)//.*", "", src)


def typst_group(src: str, start: int) -> tuple[str, int]:
    """The bracket, paren or string value opening at src[start] -> (its inside, index after it); strings and
    nested brackets inside it are skipped whole."""
    close = {"[": "]", "(": ")", '"': '"'}[src[start]]
    if close == '"':
        m = re.compile(r'"((?:[^"\\]|\\.)*)"').match(src, start)
        return (m.group(1), m.end()) if m else (src[start + 1:], len(src))
    depth, i = 0, start
    while i < len(src):
        c = src[i]
        if c == '"' and src[start] == "(":
            i = typst_group(src, i)[1]
            continue
        if c == "\\":
            i += 2
            continue
        depth += c == src[start]
        depth -= c == close
        if depth == 0:
            return src[start + 1:i], i + 1
        i += 1
    return src[start + 1:], len(src)


def typst_value(src: str, at: int) -> str:
    """A named argument's value as printed: a string, a [content] block, or a call's trailing content block
    (text(font: ..)[Title] prints Title)."""
    m = re.compile(r"\s*").match(src, at)
    i = m.end()
    if i >= len(src):
        return ""
    if src[i] in '"[':
        return typst_group(src, i)[0]
    call = re.compile(r"[\w.-]+\s*(?=\()").match(src, i)
    if call:
        _, j = typst_group(src, call.end())
        return typst_group(src, j)[0] if src[j:j + 1] == "[" else ""
    return ""


def typst_text(s: str) -> str:
    """Typst markup -> plain text: #link(url)[text] prints text, #f(..) and labels nothing, *strong* and
    _emph_ their words, a backslash line break a space."""
    s = re.sub(r"#link\(\s*\"[^\"]*\"\s*\)\s*\[([^\]]*)\]", r"\1", s)
    s = re.sub(r"#link\(\s*\"([^\"]*)\"\s*\)", r"\1", s)
    s = re.sub(r"#[\w.-]+\[([^\]]*)\]", r"\1", s)
    s = re.sub(r"#[\w.-]+(\([^()]*\))?", " ", s)
    s = re.sub(r"<[\w:.-]+>", "", s)
    s = re.sub(r"(?<!\w)[*_]|[*_](?!\w)", "", s).replace("\\\n", " ").replace("~", " ")
    return " ".join(s.replace("---", "—").replace("--", "–").split())


def typst_meta(src: str) -> dict:
    """Title, author names and abstract of a Typst template call (#show: template.with(title: .., authors:
    ((name: ..), ..), abstract: [..])), the usual shape of a paper template's arguments."""
    src = typst_strip(src)
    call = re.search(r"#show:\s*[\w.-]+\.with\s*(?=\()", src)
    if not call:
        return {}
    args, _ = typst_group(src, call.end())
    out = {"title": "", "authors": [], "abstract": ""}
    for m in re.finditer(r"(?<![\w-])(title|abstract|authors?)\s*:", args):
        if m.group(1) in ("title", "abstract") and not out[m.group(1)]:
            out[m.group(1)] = typst_text(typst_value(args, m.end()))
        elif m.group(1).startswith("author") and not out["authors"]:
            i = re.compile(r"\s*").match(args, m.end()).end()
            inner = typst_group(args, i)[0] if args[i:i + 1] == "(" else args[i:i + 200]
            names = [typst_text(typst_value(inner, n.end())) for n in re.finditer(r"(?<![\w-])name\s*:", inner)]
            out["authors"] = [n for n in names if n] or ([typst_text(typst_value(args, m.end()))] if args[i:i + 1] in '"[' else [])
    return out


def typst_sections(src: str) -> list[dict]:
    """Headings of a Typst body (= Title, == Title ...); those after a restart of the heading counter
    (#counter(heading).update(0), the usual appendix idiom) or a '#show: appendix' rule are in the appendix."""
    src = typst_strip(src)
    out, appendix, seen = [], False, False
    for m in re.finditer(r"^[ \t]*(?:(=+)[ \t]+(.+?)[ \t]*$|#counter\(heading\)\.update\(0\)|#show:\s*appendix\b)", src, re.M):
        if not m.group(1):
            appendix = appendix or seen
            continue
        seen = True
        t = typst_text(m.group(2))
        if t:
            out.append({"level": len(m.group(1)), "title": t, "numbered": True, "in_appendix": appendix})
    return out


def bib_entries(text: str) -> dict[str, dict]:
    out = {}
    for m in re.finditer(r"@(\w+)\s*\{\s*([^,\s]+)\s*,", text):
        if m.group(1).lower() in ("string", "comment", "preamble"):
            continue
        body, _ = group(text, text.index("{", m.start()))
        fields = {}
        for f in re.finditer(r"(\w+)\s*=\s*", body):
            rest = body[f.end():]
            if rest.startswith("{"):
                val = group(rest, 0)[0]
            elif rest.startswith('"'):
                val = rest[1:rest.find('"', 1)]
            else:
                val = re.match(r"[^,}]*", rest).group(0)
            fields.setdefault(f.group(1).lower(), val)
        out[m.group(2)] = fields
    return out


def pdf_text(pdf: bytes) -> tuple[int, str, str]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    pages = [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    return len(doc), pages[0] if pages else "", "\n".join(pages)


def squash(s: str) -> str:
    s = unicodedata.normalize("NFKC", s).lower()
    return re.sub(r"[^a-z0-9]+", "", s)


def macros(tex: str) -> dict[str, str]:
    """Argument-less \\newcommand / \\def macros (a title kept in \\Title, say)."""
    out = {}
    for m in re.finditer(r"\\(?:re)?newcommand\*?\s*\{?\\([a-zA-Z]+)\}?\s*(?=\{)|\\def\s*\\([a-zA-Z]+)\s*(?=\{)", tex):
        out[m.group(1) or m.group(2)] = group(tex, m.end())[0]
    return out


def author_names(block: str) -> list[str]:
    """Names in one \\author argument: JMLR's \\name fields, else the first line of each \\and chunk split at
    commas and 'and' (affiliation lines under a name are not names)."""
    if "\\name" in block:
        # JMLR's \\name holds one name; Taylor & Francis's interact holds the whole byline in one \\name{...}
        out = []
        for m in block.split("\\name")[1:]:
            out += [p.strip(" *") for p in re.split(r",|\band\b", clean(re.split(r"\\email|\\addr|\\\\", m)[0]))]
        return [p for p in out if p]
    if "\\IEEEauthorblockN" in block:  # IEEEtran's conference blocks: the names, not the addresses
        names = []
        for m in re.finditer(r"\\IEEEauthorblockN\s*\{", block):
            names.append(group(block, m.end() - 1)[0].replace("\\\\", " "))
        block = " \\and ".join(names)
    out = []
    for chunk in re.split(r"\\(?:and|AND|And)\b", block):
        chunk = drop_notes(chunk)
        # the first line that holds text: llncs bylines open a chunk with a break (\\and \\\\ Name ...)
        lines = [ln for ln in chunk.strip().split("\\\\") if ln.strip()] or [""]
        first = lines[0] if not re.search(r"\\(fnm|sur)\b", chunk) else chunk
        out += [p.strip(" *") for p in re.split(r",|\band\b", clean(first))]
    return [p for p in out if p and len(p.split()) <= 5 and not re.search(r"@|\d", p)]


def capital_authors(tex: str) -> list[str]:
    """\\Author arguments: MDPI's one group (the whole byline), or Copernicus' \\Author[1,2]{Given}{Family},
    whose two groups are one name."""
    out = []
    for m in re.finditer(r"\\Author\s*(?:\[[^\]]*\])?(?=\{)", tex):
        first, end = group(tex, m.end())
        out.append(first + " " + group(tex, end)[0] if tex[end:end + 1] == "{" else first)
    return out


def derive(entry: dict, mirror: Path) -> tuple[dict, bytes]:
    git = Git(entry["repo"], mirror)
    c = entry["commit"]
    # A PDF built by CI lands on a deploy branch: pdf_commit names that commit, c the source it was built from.
    pdf = git.read(entry.get("pdf_commit", c), entry["pdf_path"])
    # a pandoc / R Markdown document has no LaTeX of its own (tex_main null): its truth is the Markdown's
    # a class's own command that reads a file as \\input does (KUThesis's \\addContents{chapters/1}): `input_macros`
    inputs = ("input", "include", "subfile") + tuple(entry.get("input_macros", []))
    tex = expand(git, c, entry["tex_main"], inputs=inputs) if entry.get("tex_main") else ""
    if entry.get("language"):  # \\IfLanguageName{lang}{..}{..} switches, for the language the PDF was built in
        tex = pick_language(tex, entry["language"])
    for extra in entry.get("tex_extra", []):  # metadata files a class reads itself (ReScience)
        tex = strip_comments(git.read(c, extra).decode("utf-8", "replace")) + "\n" + tex
    if "IEEEtran" in entry.get("class", ""):
        # IEEEtran's \\appendix (unlike article's) prints a section heading: "APPENDIX" over the
        # title given as \\appendix[Title]; \\appendices prints none (its \\section's do)
        tex = re.sub(r"\\appendix(?![a-zA-Z])\s*(?:\[([^\]]*)\]|\{\s*\})?",
                     lambda m: "\\appendix\\section*{Appendix " + (m.group(1) or "").strip() + "}", tex)
    if "iopart" in entry.get("class", ""):  # iopart's \\ack and \\ackn print their section heading
        tex = re.sub(r"\\ack(n?)(?![a-zA-Z])", lambda m: "\\section*{Acknowledgment" + ("" if m.group(1) else "s") + "}", tex)
    if "Doxygen" in entry.get("class", ""):  # generated names print their underscores (RF24\_G)
        tex = tex.replace("\\_", "_")
    if re.search(r"\bdisser\b", entry.get("class", "")):
        # disser (Russian theses, Russian-language build) prints \\intro and \\conclusion as unnumbered chapters
        tex = re.sub(r"\\intro(?![a-zA-Z])", lambda m: "\\chapter*{Введение}", tex)
        tex = re.sub(r"\\conclusion(?![a-zA-Z])", lambda m: "\\chapter*{Заключение}", tex)
    if "achemso" in entry.get("class", ""):  # achemso prints its tocentry under \\acs@section*{\\tocentryname}
        tex = re.sub(r"\\begin\{tocentry\}", lambda m: "\\section*{Graphical TOC Entry}" + m.group(0), tex, count=1)
    if "acmart" in entry.get("class", ""):  # acmart's acks environment prints an "Acknowledgments" section
        tex = tex.replace("\\begin{acks}", "\\section*{Acknowledgments}", 1)
    if re.search(r"ltxdoc|l3doc", entry.get("class", "")):
        # ltxdoc / l3doc print \\cmd{\\X}, \\cs{X} and \\textbackslash X as \\X (\\cmd{X}, a name without its
        # backslash, as X), and the documentation's own argument-less macros (\\newcommand{\\pkgname}{...}) as
        # their text; a definition's own name stays
        tex = re.sub(r"\\cmd\s*\{(\\?)([^{}]*)\}", lambda m: ("\x00" if m.group(1) else "") + m.group(2), tex)
        tex = re.sub(r"\\cs\s*\{([^{}]*)\}", lambda m: "\x00" + m.group(1), tex)
        tex = re.sub(r"\\textbackslash(?:\{\}|(?![a-zA-Z])\s*)", "\x00", tex)
        defs = macros(tex)
        tex = re.sub(r"(?<!newcommand\{)(?<!newcommand)(?<!\\def)\\([a-zA-Z]+)(?![a-zA-Z@])",
                     lambda m: defs.get(m.group(1), m.group(0)), tex)
    # the title a class or a local package gives the bibliography (moderncv's \\refname is 'Publications'): its
    # \\refname / \\bibname definitions, read from the repository's .cls / .sty beside the main file (bib_names)
    for kind, names in (("cls", re.findall(r"\\documentclass\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}", tex)),
                        ("sty", re.findall(r"\\usepackage\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}", tex))):
        for name in {n.strip() for ns in names for n in ns.split(",") if n.strip()}:
            for folder in dict.fromkeys((str(Path(entry["tex_main"] or "").parent), ".")):
                path = posixpath.normpath(posixpath.join(folder, f"{name}.{kind}"))
                if entry.get("tex_main") and git.exists(c, path):
                    own = strip_comments(git.read(c, path).decode("utf-8", "replace"))
                    tex = "\n".join(own[m.start():group(own, m.end())[1]] for m in re.finditer(
                        r"\\(?:re)?newcommand\*?\s*\{?\\(?:refname|bibname)\}?\s*(?=\{)", own)) + "\n" + tex
                    break
    for name, real in entry.get("section_macros", {}).items():  # a paper's own \\mysection{Title}{label}
        tex = re.sub(r"\\" + name + r"(?=\s*\{)", lambda m, r=real: "\\" + r, tex)
    notes = [entry.get("layout", "")]

    defs = macros(tex)
    # abnTeX2 (Brazilian ABNT classes) names them \\titulo / \\autor
    raw_title = (command_args(tex, "title") + command_args(tex, "Title") + command_args(tex, "titulo") or [""])[0]
    raw_title = re.sub(r"\\([a-zA-Z]+)", lambda m: defs.get(m.group(1), m.group(0)), raw_title)
    title = clean(raw_title)
    authors: list[str] = []
    # WileyNJD's \\jnlcitation prints a how-to-cite line whose \\author{...} repeat the byline as initials
    for m in re.finditer(r"\\jnlcitation\s*(?=\{)", tex):
        tex = tex[:m.start()] + " " * (group(tex, m.end())[1] - m.start()) + tex[group(tex, m.end())[1]:]
    # asmeconf's \\SetAuthors{Name\\affil{1}, Name\\affil{2}} holds the whole byline, abnTeX2's \\autor{...} its names
    for a in command_args(tex, "author") + command_args(tex, "SetAuthors") + command_args(tex, "autor") + capital_authors(tex):
        # a byline kept in a macro (bioinfo's \\author[\\shortauthors]{\\longauthors}), as the title
        a = re.sub(r"\\([a-zA-Z]+)", lambda m: defs.get(m.group(1), m.group(0)), a)
        authors += author_names(a)
    abstract = ""
    m = re.search(r"\\begin\{abstract\}(.*?)\\end\{abstract\}", tex, re.S)
    if m:
        abstract = clean(m.group(1))
    elif command_args(tex, "abstract") or command_args(tex, "Abstract"):  # jss.cls writes \\Abstract{}
        abstract = clean((command_args(tex, "abstract") or command_args(tex, "Abstract"))[0])

    md = "".join(git.read(c, p).decode("utf-8", "replace") for p in entry.get("markdown_body", []))
    meta = yaml_meta(md)
    if meta and not title:
        title, authors, abstract = clean(meta["title"]), meta["authors"], abstract or clean(meta["abstract"])
    # a Typst document has no LaTeX either (tex_main null): its truth is the Typst source's
    typ = "".join(git.read(c, p).decode("utf-8", "replace") for p in entry.get("typst_body", []))
    tmeta = typst_meta(typ) if typ else {}
    if tmeta and not title:
        title, authors, abstract = tmeta["title"], tmeta["authors"], abstract or tmeta["abstract"]
    bib = {}
    for b in entry.get("bib_paths", []):
        bib.update(bib_entries(git.read(c, b).decode("utf-8", "replace")))
    cited: list[str] = []
    for m in re.finditer(r"(?<![\w.])@([\w:-]+)", md_body(md)):  # pandoc citations in a Markdown body
        if m.group(1) not in cited:
            cited.append(m.group(1))
    # Typst citations (@key, #cite(<key>), #cite(label("key"))); a label reference (@fig:x) is no .bib key and drops
    # out below
    for m in re.finditer(r"(?<![\w.])@([\w:-]+)|#cite\(\s*<([\w:.-]+)>|#cite\(\s*label\(\s*\"([^\"]+)\"\s*\)", typst_strip(typ)):
        k = (m.group(1) or m.group(2) or m.group(3)).rstrip(":")
        if k not in cited:
            cited.append(k)
    for m in CITE_RE.finditer(tex):
        for k in cite_keys(group(tex, m.end())[0]).split(","):
            k = k.strip()
            if k and k not in cited:
                cited.append(k)
    nocite_all = "*" in cited
    keys = list(bib) if nocite_all else [k for k in cited if k in bib]
    n_bbl = None
    if entry.get("bbl_path"):
        # a commented-out \\bibitem (a thebibliography kept in the .tex itself) is not printed
        n_bbl = len(re.findall(r"\\bibitem", re.sub(r"(?<!\\)%.*", "", git.read(c, entry["bbl_path"]).decode("utf-8", "replace"))))
    printed = n_bbl if n_bbl is not None else len(keys)
    ref_titles = [{"key": k, "title": clean(bib[k]["title"])} for k in keys if bib[k].get("title")]

    pages, first, text = pdf_text(pdf)
    truth = {
        "slug": entry["slug"], "source": {k: entry[k] for k in ("repo", "commit", "pdf_path", "tex_main")},
        "title": title, "authors": authors,
        "sections": sections(tex, text) + md_sections(md) + (typst_sections(typ) if typ else []),
        "n_references": len(keys), "n_bibliography_entries_printed_estimate": printed,
        "reference_titles": ref_titles, "abstract": abstract[:400], "style": entry.get("style"),
        "columns": entry.get("columns"), "latex_style_info": {"documentclass": entry.get("class")},
    }
    for field, value in entry.get("fixes", {}).items():
        if field == "drop_sections":
            truth["sections"] = [s for s in truth["sections"] if s["title"] not in value]
        elif field == "append_sections":  # headings a class macro prints (jmlr2e's \acks)
            truth["sections"] += value
        elif field == "rename_sections":  # a title as printed where the source cites in it (natbib's
            # "(Dahlmeier and Ng, 2012)" from \citep{key} of a .bib the snapshot lacks)
            for sec in truth["sections"]:
                sec["title"] = value.get(sec["title"], sec["title"])
        elif field == "drop_references":  # cited in the source, absent from the committed (older) PDF
            gone = [r for r in truth["reference_titles"] if r["key"] in value]
            truth["reference_titles"] = [r for r in truth["reference_titles"] if r["key"] not in value]
            truth["n_references"] -= len(value)
            if n_bbl is None:
                truth["n_bibliography_entries_printed_estimate"] -= len(value)
            assert len(gone) <= len(value)
        else:
            truth[field] = value
        notes.append(f"hand fix: {field} = {json.dumps(value)[:200]}")
    notes += entry.get("notes", [])
    truth["n_sections"] = len(truth["sections"])

    flat = squash(text)
    found = [s["title"] for s in truth["sections"] if squash(s["title"]) in flat]
    truth["pages"] = pages
    truth["sanity"] = {
        "title_found_on_page1": squash(truth["title"]) in squash(first),
        "sections_found": f"{len(found)}/{len(truth['sections'])}",
        "sections_missing": [s["title"] for s in truth["sections"] if s["title"] not in found][:10],
        "authors_found_on_pages1_2": f"{sum(squash(a) in flat[:20000] for a in truth['authors'])}/{len(truth['authors'])}",
        "reference_titles_found": f"{sum(squash(r['title']) in flat for r in truth['reference_titles'])}/"
                                  f"{len(truth['reference_titles'])}",
    }
    truth["notes"] = " ".join(n for n in notes if n)
    return truth, pdf


def source_md(entry: dict, truth: dict) -> str:
    return (f"# {entry['slug']}\n\n- Title: {truth['title']}\n- Repository: https://github.com/{entry['repo']}\n"
            f"- Commit: {entry['commit']}\n- PDF: `{entry['pdf_path']}` (copied byte-for-byte as `paper.pdf`)\n"
            f"- LaTeX: `{entry.get('tex_main') or 'none (' + ('Typst: ' + ', '.join(entry['typst_body']) if entry.get('typst_body') else 'Markdown: ' + ', '.join(entry.get('markdown_body', []))) + ')'}`\n- Bibliography: {', '.join(entry.get('bib_paths', [])) or 'none'}\n"
            f"- License: {entry['licence']}\n- Layout: {entry.get('layout', '')}\n\n"
            "Ground truth in `truth.json` was derived from the LaTeX source at that commit by "
            "benchmarks/unseen_truth.py (hand fixes listed in its `notes`).\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=MIRROR)
    ap.add_argument("--set", default="", help="NAME: read benchmarks/data/unseen_NAME.json, write "
                    "benchmarks/.cache/unseen_NAME (default: the development set, unseen_papers.json -> unseen)")
    ap.add_argument("--manifest", type=Path, help="a manifest path (overrides --set's)")
    ap.add_argument("--out", type=Path, help="the output folder (overrides --set's)")
    ap.add_argument("--only")
    args = ap.parse_args()
    manifest = args.manifest or (MANIFEST.with_name(f"unseen_{args.set}.json") if args.set else MANIFEST)
    out = args.out or (OUT.with_name(f"unseen_{args.set}") if args.set else OUT)
    args.out = out
    summary = []
    for entry in json.loads(manifest.read_text())["papers"]:
        if args.only and args.only not in entry["slug"]:
            continue
        print(entry["slug"], file=sys.stderr)
        truth, pdf = derive(entry, args.mirror)
        d = args.out / entry["slug"]
        d.mkdir(parents=True, exist_ok=True)
        (d / "paper.pdf").write_bytes(pdf)
        (d / "truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False))
        (d / "SOURCE.md").write_text(source_md(entry, truth))
        summary.append({"slug": entry["slug"], "pages": truth["pages"], "sections": truth["n_sections"],
                        "authors": len(truth["authors"]), "refs": truth["n_bibliography_entries_printed_estimate"],
                        **truth["sanity"]})
    json.dump(summary, sys.stdout, indent=1, ensure_ascii=False)
    print()


if __name__ == "__main__":
    main()
