"""Figures, table / figure captions and numbered display equations in document.md, against LaTeX truth (JSON).

Truth: benchmarks/data/floats_<set>.json, written by benchmarks/floats_truth.py from each paper's LaTeX source.
Each PDF is compiled through the ``ctxmill compile`` command as corpus.py does (or, with --outputs, the folders a
``corpus.py --keep DIR`` run left are read), and scored:

- captions: the output's captions are its image lines' alt text (``![Figure 3: text](figures/fig-3.png)``) and its
  ``**Figure 3:** text`` / ``**Table 2:** text`` lines, label removed; matched one to one to the truth's (best
  first) by token F1 (NFKC, case folded, \\w+ tokens) >= 0.8. Recall = truth captions matched / truth captions,
  precision = output captions matched / output captions; ``f1_hist`` is every truth caption's best F1 in bins
  (<0.2, <0.4, <0.6, <0.8, <0.9, >=0.9); ``missing`` says of each unmatched one why (floats.miss);
  ``loose_recall`` also counts a truth caption whose words (>= 80%) sit in one paragraph of document.md (the text
  is there, not as a caption); ``number_ok`` the matched ones whose printed number the output's label repeats
  (Roman numerals read as numbers), ``kind_ok`` the ones whose word (Figure / Table) is the truth's.
- figures with an image: truth figures whose matched output caption is an image line whose file exists (every
  truth figure counts, also one whose PDF draws nothing: a draft built without its graphics, a listing set as text).
- caption words lost: per truth caption, its words (a multiset) that appear nowhere in document.md.
- equations: a truth number is found when a ``$$ ... $$`` block holds ``\\tag{N}`` or ends in ``(N)``
  (``display_recall``), or, looser, when a line of text ends in ``(N)`` or begins with it (a left-numbered
  class's) (``number_recall``: the number printed in running text, as a PDF's text layer gives it; a caption
  line is none, whatever it ends in); matched one
  to one in order. ``text_f1`` on the matched ones:
  F1 of the multisets of math symbols, the truth's LaTeX through latex2mathml (floats_truth.math_atoms), the
  output's text NFKC, one symbol per character, spaces and markup characters dropped; the output's text is the
  block, or the paragraph ending in the number with the short paragraphs just before it that the PDF's text
  layer splits an equation into, up to the truth's symbol count.

    .venv/bin/python benchmarks/floats.py --papers benchmarks/.cache/unseen --src /work/peer/src --jobs 2
    .venv/bin/python benchmarks/floats.py                      # the 17 corpus papers
    .venv/bin/python benchmarks/floats.py --outputs /tmp/kept   # score a corpus.py --keep folder, no compile
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from corpus import CORPUS, command  # noqa: E402
from floats_truth import DATA, atoms, math_atoms  # noqa: E402

BINS = (0.2, 0.4, 0.6, 0.8, 0.9)  # best-F1 bins: "<0.2" .. "<0.9", then ">=0.9"
LABEL = re.compile(r"^(?P<word>[A-Za-z][\w.]*?)(?:\s+(?P<num>[\w.\-]+))?\s*[:.]\s*(?P<text>.*)$", re.S)
BOLD = re.compile(r"^\*\*(?P<word>[A-Z][a-z]+)(?:\s+(?P<num>[^\s*:]+))?:\*\*\s*(?P<text>.*)$", re.S)
IMAGE = re.compile(r"^!\[(?P<alt>.*)\]\((?P<target>[^()\s]+)\)\s*$", re.S)
LOOSE_LABEL = re.compile(r"^(?:fig(?:ure)?s?|tab(?:le)?s?)\.?\s*[\w.]*[:.]?\s*", re.I)
ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text or "").casefold())


def f1(a: list[str], b: list[str]) -> float:
    if not a or not b:
        return 0.0
    common = sum((Counter(a) & Counter(b)).values())
    return 0.0 if not common else 2 * common / (len(a) + len(b))


def number_value(num: str | None) -> str:
    """A printed number compared: "IV" as "4", "2.1" as it is, case and a final dot dropped."""
    num = (num or "").strip().rstrip(".:").upper()
    if num and set(num) <= set(ROMAN):
        total, prev = 0, 0
        for ch in reversed(num):
            v = ROMAN[ch]
            total, prev = (total - v, prev) if v < prev else (total + v, v)
        return str(total)
    return num.lower()


def paragraphs(md: str) -> list[str]:
    """document.md's blocks (blank-line separated), code fences and display math kept whole."""
    out, cur, fence = [], [], None
    for line in md.splitlines():
        s = line.strip()
        if fence is None and (s.startswith("```") or s == "$$"):
            fence = "```" if s.startswith("```") else "$$"
            if cur and fence == "```":
                out.append("\n".join(cur))
                cur = []
            cur.append(line)
            continue
        if fence is not None:
            cur.append(line)
            if (fence == "```" and s.startswith("```")) or (fence == "$$" and s == "$$"):
                out.append("\n".join(cur))
                cur, fence = [], None
            continue
        if not s:
            if cur:
                out.append("\n".join(cur))
                cur = []
        else:
            cur.append(line)
    if cur:
        out.append("\n".join(cur))
    return out


def unescape(text: str) -> str:
    return re.sub(r"\\([\[\]\\*_`#])", r"\1", text)


def output_captions(md: str, out: Path) -> list[dict]:
    """The captions document.md writes as captions: image lines and bold-labelled lines."""
    caps = []
    for p in paragraphs(md):
        s = p.strip()
        m = IMAGE.match(s)
        if m:
            alt = unescape(m.group("alt"))
            lab = LABEL.match(alt)
            word, num, text = (lab.group("word"), lab.group("num"), lab.group("text")) if lab else (alt, None, "")
            if lab is None and re.fullmatch(r"[A-Za-z]+(\s+\S+)?", alt):
                word, _, num = alt.partition(" ")
            caps.append({"word": word, "number": num, "text": text, "image": True,
                         "image_ok": (out / m.group("target")).is_file()})
            continue
        m = BOLD.match(s)
        if m:
            text = m.group("text").split("\n\n")[0]
            # a table's rows follow its bold caption line in the same block only when no blank line parts them
            text = text.split("\n|")[0].split("\n<table")[0]
            caps.append({"word": m.group("word"), "number": m.group("num"), "text": text, "image": False,
                         "image_ok": False})
    return caps


def match(truth: list[list[str]], ours: list[list[str]]) -> tuple[list[tuple[int, int, float]], list[float]]:
    """One-to-one matches, best F1 first (>= 0.8) -> (pairs, every truth item's best F1 against any of ours)."""
    scores = [[f1(t, o) for o in ours] for t in truth]
    best = [max(row, default=0.0) for row in scores]
    cand = sorted(((scores[i][j], i, j) for i in range(len(truth)) for j in range(len(ours)) if scores[i][j] >= 0.8),
                  reverse=True)
    used_t, used_o, pairs = set(), set(), []
    for s, i, j in cand:
        if i not in used_t and j not in used_o:
            used_t.add(i)
            used_o.add(j)
            pairs.append((i, j, s))
    return pairs, best


EQ_NUMBER = re.compile(r"\(\s*([A-Za-z]?\d+(?:[.\-]\d+)*[a-z]?)\s*\)\s*[.,]?\s*$")
# a number on the left (leqno: SIAM's "(2.1) - ∇ · (k∇u) = f,")
EQ_NUMBER_LEFT = re.compile(r"^\s*\(\s*([A-Za-z]?\d+(?:[.\-]\d+)*[a-z]?)\s*\)\s+(?=\S)")


# a caption as document.md writes it: an image line's alt text or a bold label line
CAPTION_LINE = re.compile(r"\s*(?:!\[|\*\*(?:Figure|Table|Algorithm|Listing)\b)")


def output_equations(md: str) -> tuple[list[tuple[str, str]], list[tuple[str, str, int]], list[str]]:
    """-> (display blocks [(number, body)], numbered text lines [(number, text before it, paragraph index)],
    paragraphs)."""
    paras = paragraphs(md)
    display, lines = [], []
    for k, p in enumerate(paras):
        s = p.strip()
        if s.startswith("$$") and s.endswith("$$") and len(s) > 4:
            body = s[2:-2].strip()
            tag = re.search(r"\\tag\*?\{([^{}]*)\}", body)
            num = tag.group(1) if tag else (EQ_NUMBER.search(body).group(1) if EQ_NUMBER.search(body) else None)
            body = re.sub(r"\\tag\*?\{[^{}]*\}", "", body)
            display.append((num, EQ_NUMBER.sub("", body) if num and not tag else body))
            continue
        if s.startswith("```"):
            continue
        for line in s.splitlines():
            if CAPTION_LINE.match(line):
                continue  # a caption ending in "(2)" cites an equation, it is none
            m = EQ_NUMBER.search(line)
            if m:
                lines.append((m.group(1), line[:m.start()], k))
            elif EQ_NUMBER_LEFT.match(line):
                m = EQ_NUMBER_LEFT.match(line)
                lines.append((m.group(1), line[m.end():], k))
    return display, lines, paras


def eq_text(paras: list[str], k: int, first: str, want: int) -> str:
    """The paragraph ending in the number, with the short paragraphs before it the PDF's text layer split the
    equation into (a superscript or a fraction's line on a line of its own), up to the truth's symbol count."""
    text, j = first, k - 1
    while j >= 0 and len(atoms(text)) < 0.8 * want and len(paras[j]) < 200 and k - j <= 4:
        text = paras[j] + " " + text
        j -= 1
    return text


def score_equations(md: str, truth: list[dict]) -> dict:
    display, lines, paras = output_equations(md)
    d_used, l_used = set(), set()
    d_hits = l_hits = 0
    sims = []
    for e in truth:
        want = number_value(e["number"])
        j = next((j for j, (n, _) in enumerate(display) if j not in d_used and number_value(n) == want), None)
        t_atoms = math_atoms(e["latex"])
        if j is not None:
            d_used.add(j)
            d_hits += 1
            l_hits += 1
            if t_atoms:
                sims.append(f1(t_atoms, atoms(display[j][1])))
            continue
        j = next((j for j, (n, _, _) in enumerate(lines) if j not in l_used and number_value(n) == want), None)
        if j is not None:
            l_used.add(j)
            l_hits += 1
            num, before, k = lines[j]
            last = paras[k].strip().splitlines()
            text = "\n".join(last[:-1] + [before]) if last else before
            if t_atoms:
                sims.append(f1(t_atoms, atoms(eq_text(paras, k, text, len(t_atoms)))))
    n = len(truth)
    return {"truth": n, "display_blocks": len(display), "display_numbered": sum(1 for d in display if d[0]),
            "display_hits": d_hits, "number_hits": l_hits,
            "display_recall": round(d_hits / n, 3) if n else None,
            "number_recall": round(l_hits / n, 3) if n else None,
            "text_f1": round(statistics.fmean(sims), 3) if sims else None}


def miss(t: dict, t_tok: list[str], caps: list[dict], o_tok: list[list[str]], para_counts: list[Counter]) -> dict:
    """Why a truth caption went unmatched: the output caption of its word and number (F1, and its length against
    the truth's: < 1 cut short, > 1 run on into body text), or none; whether its words sit in a paragraph."""
    kinds = {"figure": ("figure", "fig", "fig."), "table": ("table", "tab", "tab.")}[t["kind"]]
    same = [j for j, c in enumerate(caps) if (c["word"] or "").casefold() in kinds
            and t["number"] and number_value(c["number"]) == number_value(t["number"])]
    need = Counter(t_tok)
    row = {"kind": t["kind"], "number": t["number"], "caption": t["caption"][:80],
           "in_a_paragraph": any(sum((need & pc).values()) >= 0.8 * len(t_tok) for pc in para_counts if pc)}
    if same:
        j = max(same, key=lambda j: f1(t_tok, o_tok[j]))
        row.update({"ours_f1": round(f1(t_tok, o_tok[j]), 3),
                    "ours_length": round(len(o_tok[j]) / max(1, len(t_tok)), 2), "ours": caps[j]["text"][:80]})
    return row


def score(out: Path, truth: dict) -> dict:
    out = Path(out)
    md = (out / "document.md").read_text(errors="replace") if (out / "document.md").exists() else ""
    t_caps = [f for f in truth.get("floats", []) if tokens(f["caption"])]
    caps = output_captions(md, out)
    t_tok = [tokens(f["caption"]) for f in t_caps]
    o_tok = [tokens(c["text"]) for c in caps]
    pairs, best = match(t_tok, o_tok)
    matched_t = {i for i, _, _ in pairs}
    # loose: the caption's words in one paragraph of document.md (label removed), as a caption or not
    paras = [tokens(LOOSE_LABEL.sub("", p.strip())) for p in paragraphs(md)]
    para_counts = [Counter(p) for p in paras]
    loose = 0
    for i, t in enumerate(t_tok):
        if i in matched_t:
            loose += 1
            continue
        need = Counter(t)
        if any(sum((need & pc).values()) >= 0.8 * len(t) for pc in para_counts if pc):
            loose += 1
    doc = Counter(tokens(md))
    words_truth = sum(len(t) for t in t_tok)
    words_lost = sum(sum((Counter(t) - doc).values()) for t in t_tok)
    figures = [i for i, f in enumerate(t_caps) if f["kind"] == "figure"]
    fig_image = sum(1 for i, j, _ in pairs if i in figures and caps[j]["image_ok"])
    kind_word = {"figure": ("figure", "fig", "fig."), "table": ("table", "tab", "tab.")}
    kind_ok = sum(1 for i, j, _ in pairs if (caps[j]["word"] or "").casefold() in kind_word[t_caps[i]["kind"]])
    number_ok = sum(1 for i, j, _ in pairs
                    if t_caps[i]["number"] and number_value(caps[j]["number"]) == number_value(t_caps[i]["number"]))
    hist = Counter()
    for b in best:
        hist[next((f"<{x}" for x in BINS if b < x), ">=0.9")] += 1
    n = len(t_caps)
    return {
        "captions": {
            "truth": n, "figures": sum(f["kind"] == "figure" for f in t_caps),
            "tables": sum(f["kind"] == "table" for f in t_caps), "ours": len(caps),
            "ours_images": sum(c["image"] for c in caps), "hits": len(pairs),
            "recall": round(len(pairs) / n, 3) if n else None,
            "precision": round(len(pairs) / len(caps), 3) if caps else (None if not n else 0.0),
            "loose_recall": round(loose / n, 3) if n else None,
            "f1_mean": round(statistics.fmean(best), 3) if best else None,
            "f1_hist": dict(sorted(hist.items())),
            "kind_ok": kind_ok, "number_ok": number_ok,
            "words_truth": words_truth, "words_lost": words_lost,
            "missing": [miss(t_caps[i], t_tok[i], caps, o_tok, para_counts) for i in range(n) if i not in matched_t][:12],
        },
        "figures_with_image": {"truth": len(figures), "hits": fig_image,
                               "recall": round(fig_image / len(figures), 3) if figures else None},
        "equations": score_equations(md, truth.get("equations", [])),
    }


def compile_one(pdf: Path, out: Path, src: Path | None, timeout: float) -> tuple[int, float, str]:
    cmd, env = command(src)
    t0 = time.perf_counter()
    try:
        p = subprocess.run([*cmd, "compile", str(pdf), "-o", str(out), "--json"], capture_output=True, text=True,
                           timeout=timeout, env=env)
        rc, err = p.returncode, p.stderr.strip()[-300:]
    except subprocess.TimeoutExpired:
        rc, err = 124, "timeout"
    return rc, time.perf_counter() - t0, err


def mean(xs) -> float | None:
    xs = [x for x in xs if x is not None]
    return round(statistics.fmean(xs), 3) if xs else None


def summarise(rows: list[dict]) -> dict:
    caps = [r["captions"] for r in rows if r.get("captions")]
    eqs = [r["equations"] for r in rows if r.get("equations")]
    figs = [r["figures_with_image"] for r in rows if r.get("figures_with_image")]
    total = sum(c["truth"] for c in caps)
    hist = Counter()
    for c in caps:
        hist.update(c["f1_hist"])
    eq_total = sum(e["truth"] for e in eqs)
    return {
        "papers": len(rows), "papers_with_captions": sum(1 for c in caps if c["truth"]),
        "papers_with_equations": sum(1 for e in eqs if e["truth"]),
        "refused_or_failed": sum(r.get("exit", 0) != 0 for r in rows),
        "caption_recall_mean": mean(c["recall"] for c in caps),
        "caption_precision_mean": mean(c["precision"] for c in caps),
        "caption_loose_recall_mean": mean(c["loose_recall"] for c in caps),
        "caption_f1_mean": mean(c["f1_mean"] for c in caps),
        "captions_matched": f"{sum(c['hits'] for c in caps)}/{total}",
        "captions_output": sum(c["ours"] for c in caps),
        "caption_f1_hist": dict(sorted(hist.items())),
        "caption_kind_ok": f"{sum(c['kind_ok'] for c in caps)}/{sum(c['hits'] for c in caps)}",
        "caption_number_ok": f"{sum(c['number_ok'] for c in caps)}/{sum(c['hits'] for c in caps)}",
        "caption_words_lost": f"{sum(c['words_lost'] for c in caps)}/{sum(c['words_truth'] for c in caps)}",
        "figures_with_image": f"{sum(f['hits'] for f in figs)}/{sum(f['truth'] for f in figs)}",
        "figures_with_image_mean": mean(f["recall"] for f in figs),
        "equation_display_recall_mean": mean(e["display_recall"] for e in eqs),
        "equation_number_recall_mean": mean(e["number_recall"] for e in eqs),
        "equations_display_found": f"{sum(e['display_hits'] for e in eqs)}/{eq_total}",
        "equations_number_found": f"{sum(e['number_hits'] for e in eqs)}/{eq_total}",
        "equation_text_f1_mean": mean(e["text_f1"] for e in eqs),
        "display_blocks_written": sum(e["display_blocks"] for e in eqs),
    }


def todo(folder: Path | None, truth_file: Path | None, only: str | None, measure: str = "floats",
         key: str = "floats") -> list[tuple[str, Path, dict]]:
    """(slug, PDF, truth) of each paper whose truth (``<measure>_<set>.json``) holds ``key``."""
    name = folder.name if folder else "corpus17"
    truths = json.loads((truth_file or DATA / f"{measure}_{name}.json").read_text())
    root = folder or CORPUS / "papers"
    out = []
    for slug, t in truths.items():
        if key not in t or (only and only not in slug) or not (root / slug / "paper.pdf").exists():
            continue
        out.append((slug, root / slug / "paper.pdf", t))
    return out


def run(doc: str, measure: str, key: str, score, summarise) -> None:
    """The command line of a measure scored on compiled PDFs against LaTeX truth (floats.py, body.py): compile
    each paper (or read --outputs), score it, print JSON (per paper and the summary)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--papers", type=Path, help=f"a folder of <slug>/paper.pdf (its truth: {measure}_<folder name>.json)")
    ap.add_argument("--truth", type=Path, help=f"a {measure}_truth.py JSON (default: by the folder's name)")
    ap.add_argument("--src", type=Path, help="run ctxmill from this src/ folder (a peer worktree's)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--only")
    ap.add_argument("--keep", type=Path, help="write the output folders here and keep them")
    ap.add_argument("--outputs", type=Path, help="score the folders <DIR>/<slug> already written (no compile)")
    ap.add_argument("--brief", action="store_true", help="print only the summary")
    args = ap.parse_args()
    items = todo(args.papers, args.truth, args.only, measure, key)
    if not items:
        print(json.dumps({"skipped": f"no papers with {measure} truth"}))
        return
    out_root = args.outputs or args.keep or Path(tempfile.mkdtemp(prefix=f"ctxmill-{measure}-"))
    out_root.mkdir(parents=True, exist_ok=True)

    def one(item: tuple[str, Path, dict]) -> dict:
        slug, pdf, truth = item
        row: dict = {"slug": slug}
        if not args.outputs:
            rc, secs, err = compile_one(pdf, out_root / slug, args.src, args.timeout)
            row.update({"exit": rc, "seconds": round(secs, 3)})
            if rc:
                row["error"] = err
        row.update(score(out_root / slug, truth))
        return row

    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(one, items))
    finally:
        if not args.keep and not args.outputs:
            shutil.rmtree(out_root, ignore_errors=True)
    result = {"summary": summarise(rows), "set": args.papers.name if args.papers else "corpus17",
              "src": str(args.src or "installed"), "cpus": os.cpu_count()}
    if not args.brief:
        result["papers"] = rows
    print(json.dumps(result, indent=1, ensure_ascii=False))


def main() -> None:
    run(__doc__, "floats", "floats", score, summarise)


if __name__ == "__main__":
    main()
