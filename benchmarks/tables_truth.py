"""Table truth for benchmarks/tables.py from the corpus papers' LaTeX ``tabular`` sources.

    .venv/bin/python benchmarks/tables_truth.py MIRRORS_DIR > benchmarks/data/corpus_tables.json

MIRRORS_DIR holds bare git copies of the papers' repositories as ``owner+name/repo``; each
paper's SOURCE.md names the repository, the commit and the LaTeX files. Every ``tabular``
(``tabular*``, ``tabularx``, ``longtable``) in those files becomes one table: rows split at
``\\``, cells at ``&``, ``\\multicolumn{n}`` kept as a span, rules and formatting commands
dropped, math reduced to its characters. The pages each table is printed on are found by its
cell texts in the PDF's text layer, so the benchmark can score only those pages. No cell is
edited by hand: where LaTeX prints something the source does not hold (a citation number, a
macro), every system misses it alike.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

PAPERS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"
ENVS = ("tabular*", "tabularx", "tabular", "longtable")


def _group(s: str, i: int) -> tuple[str, int]:
    """The {...} group starting at s[i] == '{' -> (content, index after it)."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "{" and (j == 0 or s[j - 1] != "\\"):
            depth += 1
        elif s[j] == "}" and s[j - 1] != "\\":
            depth -= 1
            if depth == 0:
                return s[i + 1: j], j + 1
    return s[i + 1:], len(s)


def _skip_args(s: str, i: int, n: int) -> int:
    for _ in range(n):
        while i < len(s) and s[i] in " \n\t":
            i += 1
        if i < len(s) and s[i] == "[":
            i = s.index("]", i) + 1
            while i < len(s) and s[i] in " \n\t":
                i += 1
        if i < len(s) and s[i] == "{":
            _, i = _group(s, i)
    return i


def tabulars(tex: str) -> list[str]:
    tex = re.sub(r"(?<!\\)%.*", "", tex)
    out = []
    for m in re.finditer(r"\\begin\{(tabular\*|tabularx|tabular|longtable)\}", tex):
        env = m.group(1)
        start = _skip_args(tex, m.end(), 2 if env in ("tabular*", "tabularx") else 1)
        end = tex.find("\\end{" + env + "}", start)
        if end < 0:
            continue
        body = tex[start:end]
        if "\\begin{tabular" in body:
            continue  # nested tables: no single grid
        out.append(body)
    return out


def _split_top(s: str, sep: str) -> list[str]:
    parts, depth, cur, i = [], 0, [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and s.startswith(sep, i) and depth == 0 and sep == "\\\\":
            parts.append("".join(cur))
            cur = []
            i += 2
            if i < len(s) and s[i] == "[":
                i = s.index("]", i) + 1
            continue
        if c == "\\" and i + 1 < len(s):
            cur.append(s[i: i + 2])
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == sep and depth == 0 and sep == "&":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


_DROP = re.compile(r"\\(?:hline|toprule|midrule|bottomrule|addlinespace|centering|raggedright|raggedleft|small|footnotesize"
                   r"|scriptsize|tiny|normalsize|large|Large|bfseries|itshape|rmfamily|ttfamily|hfill|noalign|"
                   r"arraybackslash|tabularnewline|endhead|endfirsthead|endfoot|endlastfoot)\b(\[[^\]]*\])?")


def clean(cell: str) -> tuple[str, int]:
    span = 1
    cell = _DROP.sub("", cell).strip()
    m = re.match(r"\\multicolumn\s*\{(\d+)\}", cell)
    if m:
        span = int(m.group(1))
        i = _skip_args(cell, m.end(), 1)
        i = cell.find("{", i)
        cell = _group(cell, i)[0] if i >= 0 else ""
    m = re.match(r"\\multirow\s*\{[^}]*\}\s*(\[[^\]]*\])?\s*(\{[^}]*\}|\*)", cell)
    if m:
        cell = cell[m.end():].strip()
        if cell.startswith("{"):
            cell = _group(cell, 0)[0]
    cell = re.sub(r"\\(?:cmidrule|cline)(\([^)]*\))?\{[^}]*\}", "", cell)
    cell = _DROP.sub("", cell)
    cell = re.sub(r"\\(?:cite[pt]?|ref|label|eqref|autoref|cref|Cref|footnote|vspace|hspace|rule|includegraphics)"
                  r"\*?(\[[^\]]*\])*\{[^}]*\}(\{[^}]*\})?", "", cell)
    cell = re.sub(r"\\(?:rowcolor|cellcolor|color|textcolor)(\[[^\]]*\])?\{[^}]*\}", "", cell)
    # boxes: the size or angle arguments go, the content stays
    cell = re.sub(r"\\(?:rotatebox|parbox|makebox|raisebox)(\[[^\]]*\])*\{[^}]*\}", "", cell)
    cell = re.sub(r"\\(?:resizebox|scalebox)\*?\{[^}]*\}(\{[^}]*\})?", "", cell)
    cell = cell.replace("\\%", "%").replace("\\&", "&").replace("\\$", "$").replace("\\_", "_").replace("\\#", "#")
    cell = cell.replace("~", " ").replace("\\,", " ").replace("\\ ", " ").replace("--", "–").replace("``", "“")
    cell = cell.replace("''", "”")
    cell = re.sub(r"\\(?:pm)\b", "±", cell)
    cell = re.sub(r"\\(?:times)\b", "×", cell)
    cell = re.sub(r"\\(?:checkmark|cmark)\b", "✓", cell)
    cell = re.sub(r"\\(?:sim)\b", "∼", cell)
    cell = re.sub(r"\\(?:leq|le)\b", "≤", cell)
    cell = re.sub(r"\\(?:geq|ge)\b", "≥", cell)
    cell = re.sub(r"\\[a-zA-Z]+\*?", "", cell)  # any other command: its name goes, its arguments stay
    cell = re.sub(r"[{}$^_\\]", "", cell)
    return re.sub(r"\s+", " ", cell).strip(), span


def parse(body: str) -> list[list]:
    rows = []
    for raw in _split_top(body, "\\\\"):
        cells = [clean(c) for c in _split_top(raw, "&")]
        if not any(t for t, _ in cells):
            continue
        rows.append([t if n == 1 else (t, n) for t, n in cells])
    return rows


def _source(paper: Path) -> tuple[str, str, list[str]]:
    text = (paper / "SOURCE.md").read_text()
    repo = re.search(r"github\.com/([^\s)]+)", text).group(1).rstrip("/")
    commit = re.search(r"Commit:\s*([0-9a-f]{40})", text).group(1)
    line = next((ln for ln in text.splitlines() if ln.startswith("- LaTeX:")), "")
    return repo, commit, re.findall(r"`([^`]+\.tex)`", line)


def _pages(pdf: Path, rows: list[list]) -> list[int]:
    """Pages whose text holds most of the table's longer cells."""
    import pypdfium2 as pdfium

    cells = {re.sub(r"\s+", "", c if isinstance(c, str) else c[0]) for r in rows for c in r}
    cells = [c for c in cells if len(c) >= 3]
    doc = pdfium.PdfDocument(str(pdf))
    try:
        texts = [re.sub(r"\s+", "", doc[i].get_textpage().get_text_range()) for i in range(len(doc))]
    finally:
        doc.close()
    best = [(sum(c in t for c in cells), i + 1) for i, t in enumerate(texts)]
    top = max(best)[0] if best else 0
    if not cells or top < max(2, 0.5 * len(cells)):
        return []
    return [p for hits, p in best if hits >= 0.5 * len(cells)][:2]


def main() -> None:
    mirrors = Path(sys.argv[1])
    out: dict = {}
    for paper in sorted(PAPERS.glob("*/SOURCE.md")):
        paper = paper.parent
        repo, commit, files = _source(paper)
        git = mirrors / repo.replace("/", "+") / "repo"
        if not git.exists():
            continue
        tables = []
        for f in files:
            try:
                tex = subprocess.run(["git", "-C", str(git), "show", f"{commit}:{f}"], capture_output=True, text=True,
                                     check=True).stdout
            except subprocess.CalledProcessError:
                continue
            for body in tabulars(tex):
                rows = parse(body)
                if len(rows) < 2 or max(len(r) for r in rows) < 2:
                    continue
                pages = _pages(paper / "paper.pdf", rows)
                if pages:
                    tables.append({"source": f, "pages": pages, "rows": rows})
        if tables:
            out[paper.name] = {"repository": repo, "commit": commit, "tables": tables}
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
