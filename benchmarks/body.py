"""Lists, footnotes and links in document.md, against LaTeX truth (JSON).

Truth: benchmarks/data/body_<set>.json, written by benchmarks/body_truth.py from each paper's LaTeX source. Each PDF
is compiled through the ``ctxmill compile`` command as corpus.py does (or, with --outputs, the folders a
``corpus.py --keep DIR`` run left are read), and scored (floats.py's shape; its tokens, F1 and one-to-one matching
imported):

- lists: the output's list items are document.md's Markdown list lines (``- x``, ``3. x``, two blanks of indent a
  level; a line under an item without a blank line continues it), outside code fences and display math; a leading
  label in an item's text (``- (a) x``, the product's form for a label that is no Markdown number) is read off as
  its label. Matched one to one to the truth's items (every list, nested ones too) by token F1 (NFKC, case folded,
  \\w+ tokens; citations in brackets and footnote marks dropped from ours, the truth has none) >= 0.8:
  ``recall`` / ``precision`` (output items matched / output items; where the truth has items); ``loose_recall``
  also counts a truth item whose words (>= 80%) sit in one paragraph (the text is there, not as an item).
  An output list is a run of items at one indent between items of a smaller indent; a truth list's ``count_ok``
  when the output list holding most of its matched items has exactly its item count, ``depth_ok`` when that
  output list's indent level is its depth; ``numbers_ok``: matched enumerate items whose output number or label
  equals LaTeX's (punctuation aside: "1." = "1)" = "(1)"; "(a)" = "a").
- footnotes (title-block notes are no footnotes here; a float's or minipage's are counted apart as ``in_float``):
  the output's definitions are ``[^n]: text`` blocks; matched by token F1 >= 0.8 -> ``recall``. Each unmatched one
  is placed: ``spliced`` (its words, >= 80% of a window of its length, inside a body paragraph with >= 3 other
  words both before and after them), ``appended`` (at a body paragraph's start or end, joined to its text),
  ``alone`` (a paragraph of its own that is no definition), ``as_list_item`` (a list item, F1 >= 0.8: a page's
  notes read as a numbered list), ``lost`` (in no paragraph); footnotes of fewer than 3
  words are not placed. Marks: where the last words before the mark (up to 3) are found in document.md,
  ``marks_kept`` counts those followed (within 15 characters: a citation or a parenthesis may stand between) by a
  ``[^n]``, ``marks_linked`` those whose n is the label of the definition matched to that footnote,
  ``marks_as_sup`` those followed by a raised ``<sup>n</sup>`` instead (the number kept, not as a mark).
- links (the paper's printed URLs, DOIs, e-mails; the title block's apart as ``front``): ``exact`` when the string
  (case folded, Markdown escapes read back) is in document.md not followed by a letter or digit; ``glued`` when it
  is there only followed by one (run into the next word); ``broken`` when it is there only with spaces, line
  breaks or a line-end hyphen between its characters; ``lost`` otherwise. ``anchor_targets``: an \\href's target
  whose printed text is a word (not printed: found only where the output writes links) anywhere in document.md.

    .venv/bin/python benchmarks/body.py --papers benchmarks/.cache/unseen --src /work/peer/src --jobs 2
    .venv/bin/python benchmarks/body.py                      # the 17 corpus papers
    .venv/bin/python benchmarks/body.py --outputs /tmp/kept   # score a corpus.py --keep folder, no compile
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from floats import f1, match, mean, paragraphs, run, tokens  # noqa: E402

ITEM = re.compile(r"^(?P<indent> *)(?P<marker>[-*+]|\d{1,9}[.)])[ \t]+(?P<text>.*)$")
LEAD_LABEL = re.compile(r"^\(?(?P<label>\d{1,3}|[A-Za-z]|[ivxlcdmIVXLCDM]{1,7})[.):]\s+")
DEF = re.compile(r"^\[\^(?P<n>[^\]\s]+)\]:\s*(?P<text>.*)$", re.S)
MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~&%$])")
NOISE = re.compile(r"<[^<>\n]{1,40}>|\[\^[^\]]*\]|\[[^\]\n]{0,80}\](?!\()|\([^()\n]{0,80}\b(?:19|20)\d\d[a-z]?\)")


def norm_label(s: str | None) -> str:
    return re.sub(r"[^0-9a-z]", "", (s or "").casefold())


def out_tokens(text: str) -> list[str]:
    """An output item's or footnote's words: bracketed citations, footnote marks and author-year parentheses out
    (the truth drops \\cite; its printed form depends on the style)."""
    return tokens(NOISE.sub(" ", text))


def read_md(out: Path) -> str:
    return (out / "document.md").read_text(errors="replace") if (out / "document.md").exists() else ""


def output_items(md: str) -> list[dict]:
    """document.md's list items in order: {text, depth, label, run, key}; ``key`` names the output list an item
    belongs to (its run of item lines, its indent, the stretch between items of a smaller indent)."""
    items: list[dict] = []
    run = 0
    for p in paragraphs(md):
        s = p.strip("\n")
        if s.lstrip().startswith(("```", "$$")):
            continue
        lines = s.splitlines()
        if not ITEM.match(lines[0]):
            continue
        run += 1
        seg: Counter = Counter()
        cur = None
        for line in lines:
            m = ITEM.match(line)
            if not m:
                if cur is not None:
                    cur["text"] += " " + line.strip()
                continue
            depth = len(m.group("indent").expandtabs(4)) // 2 + 1
            for d in list(seg):
                if d > depth:
                    seg[d] += 1  # a smaller indent closes the deeper lists
            text, marker = m.group("text"), m.group("marker")
            label = marker.rstrip(".)") if marker[0].isdigit() else None
            lab = LEAD_LABEL.match(text) if label is None else None
            if lab:
                label, text = lab.group("label"), text[lab.end():]
            cur = {"text": text, "depth": depth, "label": label, "run": run, "key": (run, depth, seg[depth])}
            seg[depth] += 0
            items.append(cur)
    return items


def in_one_paragraph(t: list[str], para_counts: list[Counter]) -> bool:
    need = Counter(t)
    return any(sum((need & pc).values()) >= 0.8 * len(t) for pc in para_counts if pc)


def score_lists(md: str, lists: list[dict], para_counts: list[Counter]) -> dict:
    t_items = [(li, it) for li, lst in enumerate(lists) for it in lst["items"] if tokens(it["text"])]
    t_tok = [tokens(it["text"]) for _, it in t_items]
    ours = output_items(md)
    o_tok = [out_tokens(o["text"]) for o in ours]
    pairs, best = match(t_tok, o_tok)
    of = {i: j for i, j, _ in pairs}
    loose = sum(1 for i, t in enumerate(t_tok) if i in of or in_one_paragraph(t, para_counts))
    sizes = Counter(o["key"] for o in ours)
    count_ok = depth_ok = judged = 0
    for li, lst in enumerate(lists):
        idx = [i for i, (lj, _) in enumerate(t_items) if lj == li]
        if not idx:
            continue
        judged += 1
        keys = Counter(ours[of[i]]["key"] for i in idx if i in of)
        if not keys:
            continue
        key = keys.most_common(1)[0][0]
        count_ok += sizes[key] == len(lst["items"])
        depth_ok += key[1] == lst["depth"]
    num_t = num_ok = 0
    for i, (li, it) in enumerate(t_items):
        if lists[li]["kind"] == "enumerate" and it["label"] and i in of:
            num_t += 1
            num_ok += norm_label(ours[of[i]]["label"]) == norm_label(it["label"])
    n = len(t_items)
    missing = []
    for i, (li, it) in enumerate(t_items):
        if i in of or len(missing) >= 8:
            continue
        row = {"kind": lists[li]["kind"], "depth": lists[li]["depth"], "item": it["text"][:80],
               "best_f1": round(best[i], 3), "in_a_paragraph": in_one_paragraph(t_tok[i], para_counts)}
        if o_tok and best[i] > 0:
            j = max(range(len(o_tok)), key=lambda j: f1(t_tok[i], o_tok[j]))
            row["ours"] = ours[j]["text"][:80]
        missing.append(row)
    return {"truth_lists": judged, "truth_items": n, "ours_items": len(ours), "hits": len(pairs),
            "recall": round(len(pairs) / n, 3) if n else None,
            "precision": (round(len(pairs) / len(ours), 3) if ours else 0.0) if n else None,
            "loose_recall": round(loose / n, 3) if n else None,
            "count_ok": count_ok, "depth_ok": depth_ok, "numbers_truth": num_t, "numbers_ok": num_ok,
            "missing": missing}


def place(ft: list[str], paras: list[list[str]]) -> str:
    """Where a footnote's words sit in the body: spliced / appended / alone / lost."""
    n = len(ft)
    need = Counter(ft)
    best = None
    for pt in paras:
        if len(pt) < 0.8 * n:
            continue
        w = min(n, len(pt))
        window = Counter(pt[:w])
        for s in range(0, len(pt) - w + 1):
            if s:
                window[pt[s - 1]] -= 1
                window[pt[s + w - 1]] += 1
            hit = sum((need & window).values())
            if hit >= 0.8 * n and (best is None or hit > best[0]):
                best = (hit, s, len(pt) - (s + w))
    if best is None:
        return "lost"
    _, before, after = best
    if before >= 3 and after >= 3:
        return "spliced"
    return "alone" if before < 3 and after < 3 else "appended"


def score_footnotes(md: str, footnotes: list[dict], blocks: list[str]) -> dict:
    truth = [f for f in footnotes if not f["in_float"] and f.get("printed", True) and tokens(f["text"])]
    defs, body = [], []
    for b in blocks:
        m = DEF.match(b.strip())
        if m:
            defs.append({"n": m.group("n"), "text": m.group("text")})
        elif not b.lstrip().startswith(("```", "$$", "#", "|", "![")) and not ITEM.match(b.strip("\n").splitlines()[0]):
            body.append(out_tokens(b))
    t_tok = [tokens(f["text"]) for f in truth]
    d_tok = [out_tokens(d["text"]) for d in defs]
    pairs, best = match(t_tok, d_tok)
    of = {i: j for i, j, _ in pairs}
    placed, where = Counter(), {}
    items = [out_tokens(o["text"]) for o in output_items(md)]
    for i, t in enumerate(t_tok):
        if i in of:
            continue
        if any(f1(t, o) >= 0.8 for o in items):
            where[i] = "as_list_item"  # a page's footnotes read as a numbered list
        else:
            where[i] = place(t, body) if len(t) >= 3 else "short"
        placed[where[i]] += 1
    flat = MD_ESCAPE.sub(r"\1", md)
    ctx = kept = linked = sup = 0
    for i, f in enumerate(truth):
        words = (f.get("before") or [])[-3:]
        if len(words) < 2:
            continue
        lead = r"\W+".join(re.escape(w) for w in words)
        if not re.search(lead, flat, re.I):
            continue
        ctx += 1
        # (a citation, a number or a parenthesis may stand between the words and the mark: "[9][^3]", "(SW2)[^2]")
        m = re.search(lead + r"[^\n]{0,15}?\[\^([^\]\s]+)\]", flat, re.I)
        if m:
            kept += 1
            linked += i in of and defs[of[i]]["n"] == m.group(1)
        elif re.search(lead + r"[^\n]{0,15}?<sup>[^<]{1,6}</sup>", flat, re.I):
            sup += 1  # kept as a raised number, not as a footnote mark
    n = len(truth)
    return {"truth": n, "in_float": sum(1 for f in footnotes if f["in_float"]),
            "not_printed": sum(1 for f in footnotes if f.get("printed") is False), "ours_definitions": len(defs),
            "hits": len(pairs), "recall": round(len(pairs) / n, 3) if n else None,
            "spliced": placed["spliced"], "appended": placed["appended"], "alone": placed["alone"],
            "lost": placed["lost"], "as_list_item": placed["as_list_item"], "short_unmatched": placed["short"],
            "marks_context_found": ctx, "marks_kept": kept, "marks_linked": linked, "marks_as_sup": sup,
            "missing": [{"text": truth[i]["text"][:80], "best_f1": round(best[i], 3), "placed": where[i]}
                        for i in range(n) if i not in of][:8]}


def broken_pattern(s: str) -> re.Pattern:
    """``s`` with spaces, line breaks, soft hyphens or a line-end hyphen allowed between its characters."""
    return re.compile(r"(?:[\s\u00ad]+|-\s+)?".join(re.escape(c) for c in s))


def link_state(s: str, md: str) -> str:
    s = s.casefold()
    at, glued = md.find(s), False
    while at >= 0:
        nxt = md[at + len(s):at + len(s) + 1]
        if not (nxt.isalnum()):
            return "exact"
        glued = True
        at = md.find(s, at + 1)
    if glued:
        return "glued"
    return "broken" if len(s) <= 300 and broken_pattern(s).search(md) else "lost"


def score_links(md: str, links: list[dict], anchors: list[dict]) -> dict:
    flat = MD_ESCAPE.sub(r"\1", md).casefold()
    out = {"truth": 0, "exact": 0, "broken": 0, "glued": 0, "lost": 0, "front": 0, "front_exact": 0,
           "by_kind": {}, "failures": []}
    for x in links:
        state = link_state(x["text"], flat)
        if x["front"]:
            out["front"] += 1
            out["front_exact"] += state == "exact"
            continue
        out["truth"] += 1
        out[state] += 1
        k = out["by_kind"].setdefault(x["kind"], {"truth": 0, "exact": 0})
        k["truth"] += 1
        k["exact"] += state == "exact"
        if state != "exact" and len(out["failures"]) < 10:
            row = {"link": x["text"][:100], "state": state}
            if state == "broken":
                m = broken_pattern(x["text"].casefold()).search(flat)
                row["ours"] = m.group(0)[:120] if m else None
            out["failures"].append(row)
    n = out["truth"]
    out["recall"] = round(out["exact"] / n, 3) if n else None
    targets = [a for a in anchors if not a["front"] and re.match(r"(https?|ftp)://", a["target"] or "")]
    out["anchor_targets"] = len(targets)
    out["anchor_targets_found"] = sum(a["target"].casefold() in flat for a in targets)
    return out


def score(out: Path, truth: dict) -> dict:
    md = read_md(Path(out))
    blocks = paragraphs(md)
    para_counts = [Counter(out_tokens(p)) for p in blocks]
    return {"lists": score_lists(md, truth.get("lists", []), para_counts),
            "footnotes": score_footnotes(md, truth.get("footnotes", []), blocks),
            "links": score_links(md, truth.get("links", []), truth.get("anchors", []))}


def frac(a: int, b: int) -> str:
    return f"{a}/{b}"


def summarise(rows: list[dict]) -> dict:
    ls = [r["lists"] for r in rows if r.get("lists")]
    fs = [r["footnotes"] for r in rows if r.get("footnotes")]
    ks = [r["links"] for r in rows if r.get("links")]
    s = lambda xs, k: sum(x[k] for x in xs)  # noqa: E731
    kinds: dict = {}
    for k in ks:
        for name, v in k["by_kind"].items():
            kinds.setdefault(name, [0, 0])
            kinds[name][0] += v["exact"]
            kinds[name][1] += v["truth"]
    return {
        "papers": len(rows), "refused_or_failed": sum(r.get("exit", 0) != 0 for r in rows),
        "papers_with_lists": sum(1 for x in ls if x["truth_items"]),
        "list_item_recall_mean": mean(x["recall"] for x in ls),
        "list_item_precision_mean": mean(x["precision"] for x in ls),
        "list_item_loose_recall_mean": mean(x["loose_recall"] for x in ls),
        "list_items_matched": frac(s(ls, "hits"), s(ls, "truth_items")),
        "list_items_output": s(ls, "ours_items"),
        "lists_count_ok": frac(s(ls, "count_ok"), s(ls, "truth_lists")),
        "lists_depth_ok": frac(s(ls, "depth_ok"), s(ls, "truth_lists")),
        "enumerate_numbers_ok": frac(s(ls, "numbers_ok"), s(ls, "numbers_truth")),
        "papers_with_footnotes": sum(1 for x in fs if x["truth"]),
        "footnote_recall_mean": mean(x["recall"] for x in fs),
        "footnotes_matched": frac(s(fs, "hits"), s(fs, "truth")),
        "footnotes_spliced": s(fs, "spliced"), "footnotes_appended": s(fs, "appended"),
        "footnotes_alone": s(fs, "alone"), "footnotes_lost": s(fs, "lost"),
        "footnotes_as_list_items": s(fs, "as_list_item"),
        "footnotes_short_unmatched": s(fs, "short_unmatched"), "footnotes_in_floats": s(fs, "in_float"),
        "footnotes_not_printed": s(fs, "not_printed"),
        "footnote_marks_kept": frac(s(fs, "marks_kept"), s(fs, "marks_context_found")),
        "footnote_marks_linked": frac(s(fs, "marks_linked"), s(fs, "marks_context_found")),
        "footnote_marks_as_sup": frac(s(fs, "marks_as_sup"), s(fs, "marks_context_found")),
        "papers_with_links": sum(1 for x in ks if x["truth"]),
        "link_exact_recall_mean": mean(x["recall"] for x in ks),
        "links_exact": frac(s(ks, "exact"), s(ks, "truth")),
        "links_broken": s(ks, "broken"), "links_glued": s(ks, "glued"), "links_lost": s(ks, "lost"),
        "links_by_kind": {k: frac(*v) for k, v in sorted(kinds.items())},
        "front_links_exact": frac(s(ks, "front_exact"), s(ks, "front")),
        "anchor_targets_found": frac(s(ks, "anchor_targets_found"), s(ks, "anchor_targets")),
    }


def main() -> None:
    run(__doc__, "body", "lists", score, summarise)


if __name__ == "__main__":
    main()
