"""Reference-string parsing: the trained labeller against today's rule parser, in one run.

Prints one JSON object with, for each parser:
- per-field precision / recall / F1 on the held-out labelled sets, GROBID's
  ``evaluation/*.tei.xml`` (327 strings) and AnyStyle's ``gold.xml`` (1,669), neither of
  which the model was trained on (scripts/train_refparse.py drops them and their copies);
- the invented-title rate: entries whose truth has no title but the parser gives one; and the
  rate of those whose title is in no truth field at all (``rate_not_in_any_field``: where the
  annotators marked a book's or report's one title as its journal, the parser's title is that
  text, not one made up from the names or the venue);
- on the corpus papers (../shared/corpus/papers, LaTeX truth): each bibliography as the
  product segments it (``ctxmill`` in-process, reference entries only), its truth
  ``reference_titles`` matched as benchmarks/corpus_score.py does (ratio >= 0.9);
- ``product``: what ``ctxmill compile`` writes (the labeller; the rules' authors, year, title
  and venue where the labeller's parse is doubtful and the rules find a title);
- speed: strings per second on one core over the held-out strings (median of 3 passes), for the
  labeller alone and for the product's parse (``reference_fields`` with the rule parser as its
  fallback, what ``ctxmill compile`` runs per entry), and the load time in a fresh process
  (model and gazetteers, median of 5);
- with ``--peer DIR`` (a source tree, e.g. ``git worktree add /tmp/peer <commit>``): the same
  scoring of DIR's labeller, model and rules in the same run (``peer``), on the bibliographies
  this tree segmented, and both speeds measured in fresh processes taking turns, so that the
  load of a shared machine falls on both alike.

Fields compare after normalisation (case, spacing and punctuation aside): title, container
(journal / book / proceedings), first author's family name, year, volume, issue, pages,
publisher, DOI, arXiv id. The rule parser has no container field of its own; its ``venue``
is scored as the container.

    git clone --depth 1 https://github.com/kermitt2/grobid   /tmp/grobid
    git clone --depth 1 https://github.com/inukshuk/anystyle /tmp/anystyle
    .venv/bin/python benchmarks/references.py --grobid /tmp/grobid --anystyle /tmp/anystyle

The year is scored as its four digits for every parser ("2013a" is 2013: the letter tells two
works of one year apart, it is no other year).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "scripts"))
from train_refparse import held_out  # noqa: E402

from corpus_score import norm  # noqa: E402
from ctxmill.compile import references as rules  # noqa: E402
from ctxmill.compile.refparse import parse as crf_parse  # noqa: E402
from ctxmill.compile.refparse import reference_fields  # noqa: E402
from ctxmill.compile.refparse.fields import _container, _pages, _title, _volume_issue, identifiers  # noqa: E402
from ctxmill.compile.refparse.names import display_name, split_people  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "papers"
# the fields an entry must have right to count as right when the doubtful threshold is calibrated
ENTRY_FIELDS = ("title", "container", "first_family", "year")
FIELDS = ("title", "container", "first_family", "year", "volume", "issue", "pages", "publisher", "doi", "arxiv_id")
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def _family(person: dict | None) -> str | None:
    if not person:
        return None
    return person.get("family") or person.get("literal")


def truth_fields(text: str, spans) -> dict:
    """The labelled spans of one held-out string as the fields we score."""
    by: dict[str, list[str]] = {}
    for s, e, lab in spans:
        by.setdefault(lab, []).append(text[s:e])
    one = {k: v[0] for k, v in by.items()}
    out = {k: None for k in FIELDS}
    if "title" in by:
        out["title"] = _title(max(by["title"], key=len))
    if "container" in one:
        out["container"] = _container(one["container"])
    if "author" in by:
        people, _ = split_people(" , ".join(by["author"]))
        out["first_family"] = _family(people[0]) if people else None
    for d in by.get("date", []):
        m = _YEAR.search(d)
        if m:
            out["year"] = m.group(1)
            break
    if "volume" in one:
        out["volume"], issue = _volume_issue(one["volume"])
        out["issue"] = issue
    if "issue" in one:
        out["issue"] = re.sub(r"\D+", " ", one["issue"]).strip() or None
    if "pages" in one:
        out["pages"] = _pages(one["pages"])
    if "publisher" in one:
        out["publisher"] = one["publisher"]
    ids = identifiers(text)
    out["doi"] = ids["doi"] if "doi" in by else None
    out["arxiv_id"] = ids["arxiv_id"] if "arxiv" in by else None
    return out


def crf_fields(text: str) -> dict:
    return _scored(crf_parse(text))


def _scored(f: dict) -> dict:
    """A labeller parse as the fields we score."""
    out = {k: f.get(k) for k in FIELDS if k != "first_family"}
    out["year"] = out["year"] and out["year"][:4]
    out["first_family"] = _family(f["people"][0]) if f["people"] else None
    return out


def product_fields(text: str) -> dict:
    """What ``ctxmill compile`` writes: the labeller, the rules' contract fields where it is doubtful."""
    f = reference_fields(text, rules.parse_entry)
    out = {k: f.get(k) for k in FIELDS if k != "first_family"}
    out["year"] = out["year"] and out["year"][:4]
    if f["people"] and f["authors"] == [display_name(p) for p in f["people"]] + (["et al."] if f["et_al"] else []):
        out["first_family"] = _family(f["people"][0])
    else:  # the rules' author strings
        out["first_family"] = rule_fields(text)["first_family"]
    out["container"] = f["venue"]
    return out


def rule_fields(text: str) -> dict:
    f = rules.parse_entry(text)
    first = f["authors"][0] if f["authors"] else None
    fam = None
    if first:
        # "Bahcall, J.N." keeps the family first; "Ashish Vaswani" puts it last
        fam = first.split(",")[0] if "," in first else first.split()[-1]
    return {"title": f["title"], "container": f["venue"], "first_family": fam, "year": f["year"] and f["year"][:4],
            "volume": None, "issue": None, "pages": None, "publisher": None, "doi": f["doi"],
            "arxiv_id": f["arxiv_id"]}


def _key(field: str, v: str | None) -> str:
    if v is None:
        return ""
    if field in ("doi", "arxiv_id"):
        return v.lower().rstrip(".")
    return norm(v)


def score_set(examples, parse) -> dict:
    tp = {k: 0 for k in FIELDS}
    fp = dict(tp)
    fn = dict(tp)
    no_title = invented = elsewhere = 0
    for text, spans in examples:
        truth = truth_fields(text, spans)
        got = parse(text)
        for k in FIELDS:
            t, g = _key(k, truth[k]), _key(k, got.get(k))
            if g and g == t:
                tp[k] += 1
            else:
                if g:
                    fp[k] += 1
                if t:
                    fn[k] += 1
        if not truth["title"]:
            no_title += 1
            if got.get("title"):
                invented += 1
                # the annotators gave the text we call the title to another field: a book's or
                # report's one title marked as the journal ("<title level="j">Complexity and Real
                # Computation</title>. Springer, 1997"), not a title made up from names or a venue
                g = norm(got["title"])
                elsewhere += bool(g) and any(g in f and 2 * len(g) >= len(f) for f in (
                    norm(text[s:e]) for s, e, lab in spans if lab not in ("title", "author", "editor", "date")))
    fields = {}
    for k in FIELDS:
        p = tp[k] / (tp[k] + fp[k]) if tp[k] + fp[k] else 0.0
        r = tp[k] / (tp[k] + fn[k]) if tp[k] + fn[k] else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        # right: the strings whose field the parser gives as the truth has it (the held-out rule
        # counts strings; F1 rounded to 3 places cannot tell one string on 1,669)
        fields[k] = {"p": round(p, 3), "r": round(r, 3), "f1": round(f1, 3), "truth": tp[k] + fn[k], "right": tp[k]}
    return {"strings": len(examples), "fields": fields,
            "invented_titles": {"entries_without_title": no_title, "invented": invented,
                                "rate": round(invented / no_title, 3) if no_title else 0.0,
                                "labelled_as_another_field": elsewhere,
                                "rate_not_in_any_field": round((invented - elsewhere) / no_title, 3) if no_title else 0.0}}


def corpus_raws(cache: Path | None) -> dict[str, dict]:
    """{slug: {"raws": [...], "titles": [...]}} for the corpus papers, segmented by the product."""
    if cache and cache.exists():
        return json.loads(cache.read_text())
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document

    out = {}
    for pdf in sorted(CORPUS.glob("*/paper.pdf")):
        truth = json.loads((pdf.parent / "truth.json").read_text())
        titles = [x["title"] for x in truth.get("reference_titles", []) if x.get("title")]
        try:
            doc = compile_document(pdf, CompileOptions(chunks=False))
            raws = [r.raw for r in doc.references]
        except Exception as e:  # a refused paper has no bibliography to score
            raws = []
            print(f"{pdf.parent.name}: {type(e).__name__}: {e}", file=sys.stderr)
        out[pdf.parent.name] = {"raws": raws, "titles": titles,
                                "printed": truth.get("n_bibliography_entries_printed_estimate")}
    if cache:
        cache.write_text(json.dumps(out))
    return out


def score_corpus(papers: dict, parse) -> dict:
    rows, found, total, parsed = {}, 0, 0, 0
    for slug, p in papers.items():
        if not p["titles"]:
            continue
        ours = [norm(parse(r).get("title")) for r in p["raws"]]
        ours = [o for o in ours if o]
        ok = 0
        for t in map(norm, p["titles"]):
            if t in ours or any(difflib.SequenceMatcher(None, o, t).ratio() >= 0.9 for o in ours
                                if abs(len(o) - len(t)) <= len(t) * 0.25):
                ok += 1
        rows[slug] = f"{ok}/{len(p['titles'])}"
        found, total, parsed = found + ok, total + len(p["titles"]), parsed + len(ours)
    return {"titles_found": f"{found}/{total}", "recall": round(found / total, 3) if total else None,
            "titles_given": parsed, "per_paper": rows}


def speed(strings: list[str], parse) -> dict:
    """Strings per second, median of 3 passes: by the wall clock and by this process's CPU time
    (one thread, so CPU time is one core's; on a shared machine it is the steadier figure)."""
    wall, cpu = [], []
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.process_time()
        for s in strings:
            parse(s)
        wall.append(len(strings) / (time.perf_counter() - t0))
        cpu.append(len(strings) / (time.process_time() - c0))
    return {"wall": round(statistics.median(wall)), "cpu": round(statistics.median(cpu))}


def load_ms() -> float:
    """What the first parse in a process pays before tagging: reading the model (its weights
    and the model that takes scores, model.load) and the gazetteers it was trained with."""
    code = ("import time; from ctxmill.compile.refparse import model; "
            "from ctxmill.compile.refparse.lexicon import gazetteers; "
            "load = getattr(model, 'load', lambda: (model.tagger(), gazetteers())); "
            "t=time.perf_counter(); load(); print((time.perf_counter()-t)*1000)")
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
            for _ in range(5)]
    return round(statistics.median(runs), 2)


def goals(result: dict) -> dict:
    """The headline numbers the issue's goals are stated in."""
    g, a = result["held_out"]["grobid_evaluation"]["labeller"], result["held_out"]["anystyle_gold"]["labeller"]
    out = {f"{k}_f1": [g["fields"][k]["f1"], a["fields"][k]["f1"]] for k in ("title", "first_family", "year", "container")}
    out["invented_titles_rate"] = [g["invented_titles"]["rate"], a["invented_titles"]["rate"]]
    out["invented_titles_rate_not_in_any_field"] = [g["invented_titles"]["rate_not_in_any_field"],
                                                    a["invented_titles"]["rate_not_in_any_field"]]
    out["note"] = "[GROBID evaluation, AnyStyle gold]; goals: title >= 0.93, first family >= 0.95, "\
                  "year >= 0.98, container >= 0.90, invented titles <= 0.03, >= 2,000 strings/s"
    return out


def _run(args: list[str], src: Path | None) -> str:
    """This script in a fresh process, importing ctxmill from ``src`` (None: this tree)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True,
                          env=env).stdout


def dev_scores(args) -> dict:
    """--dev: the labeller with a dev model and its gazetteers on the dev split, per source."""
    import train_refparse as T

    from ctxmill.compile.refparse import lexicon, model

    lex = T.dev_lexicon_path(args.dev)
    model.model_path = lambda: args.dev
    lexicon.gazetteer_path = lambda: lex
    lexicon.gazetteers.cache_clear()
    examples, _ = T.load_training(args.grobid, args.anystyle, with_files=True)
    _, dev = T.split(examples, args.dev_split, args.dev_fold, args.wide_folds)
    out: dict = {"model": str(args.dev), "dev_split": args.dev_split, "dev_fold": args.dev_fold}
    outcomes: dict = {}
    # G: GROBID's one-document files; A: AnyStyle's bad.xml (dev in every fold); with --wide-folds
    # U: the fold's good.xml and ugly.xml strings, N: the G and U strings as numbered-list entries
    sources = {"G": [(t, s) for t, s, f in dev if f.startswith("grobid/")],
               "A": [(t, s) for t, s, f in dev if f == "anystyle/" + T.DEV_ANYSTYLE]}
    if args.wide_folds:
        sources["U"] = [(t, s) for t, s, f in dev if f.startswith("anystyle/") and f != "anystyle/" + T.DEV_ANYSTYLE]
        sources["N"] = [(t, s) for t, s, _ in T.numbered([e for e in dev if e[2] != "anystyle/" + T.DEV_ANYSTYLE])]
    # --product: what ``ctxmill compile`` writes (the fold's labeller, this tree's rules where it is doubtful)
    fields = product_fields if args.product else crf_fields
    out["parser"] = "product" if args.product else "labeller"
    for src, exs in sources.items():
        r = score_set(exs, fields)
        out[src] = {"strings": len(exs), **{k: r["fields"][k]["f1"] for k in FIELDS},
                    "invented": [r["invented_titles"]["invented"], r["invented_titles"]["entries_without_title"]]}
        if args.dev_outcomes:
            # per string: title right, title invented, source (for --cv), the parse's confidence and
            # whether its title, container, first author and year are all right (for --calibrate-against)
            for t, s in exs:
                f = crf_parse(t)
                truth, got = truth_fields(t, s), product_fields(t) if args.product else _scored(f)
                right = [_key(k, truth[k]) == _key(k, got[k]) for k in ENTRY_FIELDS]
                # and per field of ENTRY_FIELDS, [truth given, parse given, equal]: the string's
                # share of the field's F1, so that the folds' figures can be resampled string by
                # string (scripts/refparse_noise.py)
                per = [[bool(_key(k, truth[k])), bool(_key(k, got[k])), _key(k, truth[k]) == _key(k, got[k])]
                       for k in ENTRY_FIELDS]
                outcomes[f"{args.dev_fold} {src} {t}"] = [right[0], not truth["title"] and bool(got["title"]), src,
                                                          f["confidence"], all(right), per]
        if args.dev_errors:
            out[src]["title_errors"] = []
            for t, s in exs:
                truth, got = truth_fields(t, s)["title"], fields(t)
                if _key("title", truth) != _key("title", got["title"]):
                    kind = "invented" if not truth else "missed" if not got["title"] else "wrong"
                    out[src]["title_errors"].append({"kind": kind, "raw": t, "truth": truth, "got": got["title"],
                                                     "container": got["container"]})
    if args.dev_outcomes:
        args.dev_outcomes.write_text(json.dumps(outcomes))
    return out


def cv_scores(args) -> dict:
    """--cv: each of the four dev models of ``train_refparse.py --cv -o MODEL`` on the fold it was
    trained without (--dev-split docs), with this tree's rules, each fold scored by --dev in a
    fresh process (a model and its gazetteers per process); per fold, and over the folds the
    mean and spread (standard deviation, least, most) of the fields' F1 and the invented-title
    rate, and the pooled counts (every one-document GROBID file is dev in exactly one fold).
    AnyStyle's bad.xml is dev in every fold: its figures are a mean over four models."""
    import train_refparse as T

    folds, outcomes = [], {}
    common = ["--grobid", str(args.grobid), "--anystyle", str(args.anystyle), "--dev-split", "docs",
              *(["--stretch-kinds"] if args.stretch_kinds else []), *(["--abs-ids"] if args.abs_ids else []),
              *(["--wide-folds"] if args.wide_folds else []), *(["--product"] if args.product else []),
              *(["--ids-not-titles"] if args.ids_not_titles else []), *_product_flags(args)]
    with tempfile.TemporaryDirectory() as d:
        for k in range(T.FOLDS):
            per = Path(d) / f"outcomes{k}.json"
            folds.append(json.loads(_run([*common, "--dev", str(T.cv_path(args.cv, k)), "--dev-fold", str(k),
                                          "--dev-outcomes", str(per)], None)))
            outcomes.update(json.loads(per.read_text()))

    def spread(vals: list[float]) -> dict:
        return {"mean": round(statistics.mean(vals), 4), "sd": round(statistics.stdev(vals), 4),
                "min": round(min(vals), 4), "max": round(max(vals), 4)}

    out: dict = {"cv": str(args.cv), "rules": "this tree's", "folds": folds}
    srcs = [s for s in ("G", "A", "U", "N") if s in folds[0]]
    for src in srcs:
        out[src] = {f: spread([r[src][f] for r in folds]) for f in ("title", "container", "first_family", "year")}
        out[src]["invented_rate"] = spread([r[src]["invented"][0] / r[src]["invented"][1] for r in folds])
        out[src]["invented_pooled"] = [sum(r[src]["invented"][0] for r in folds),
                                       sum(r[src]["invented"][1] for r in folds)]
    for src in [s for s in srcs if s != "A"]:  # (bad.xml's strings are dev in every fold)
        mine = [o for o in outcomes.values() if o[2] == src]
        out[src]["titles_right_pooled"] = [sum(o[0] for o in mine), len(mine)]
    if args.cv_against:  # paired: the same strings' titles under another candidate's --cv-out
        other = json.loads(args.cv_against.read_text())
        for src in srcs:
            both = [t for t, o in outcomes.items() if o[2] == src and t in other]
            out[src]["against"] = {
                "file": str(args.cv_against), "strings": len(both),
                "titles_now_right": sum(outcomes[t][0] and not other[t][0] for t in both),
                "titles_now_wrong": sum(other[t][0] and not outcomes[t][0] for t in both),
                "invented_now": sum(outcomes[t][1] and not other[t][1] for t in both),
                "invented_no_more": sum(other[t][1] and not outcomes[t][1] for t in both)}
    if args.calibrate_against:
        out["doubtful_threshold"] = calibrate(outcomes, json.loads(args.calibrate_against.read_text()),
                                              args.calibrate_at)
        out["doubtful_threshold"]["against"] = str(args.calibrate_against)
    if args.cv_out:
        args.cv_out.write_text(json.dumps(outcomes))
    return out


def _product_flags(args) -> list[str]:
    """This tree's product options, for the processes it starts (folds, speed turns)."""
    return [*(["--no-damaged-ids"] if args.no_damaged_ids else []), *(["--no-within-titles"] if args.no_within_titles else []),
            *(["--no-notes-not-titles"] if args.no_notes_not_titles else []),
            *(["--no-volume-pages-only"] if args.no_volume_pages_only else []),
            *(["--no-title-before-stop"] if args.no_title_before_stop else [])]


def _f1(rows: list[list[bool]]) -> float:
    """F1 of one field from its per-string [truth given, parse given, equal] (score_set's counts)."""
    tp = sum(g and e for _, g, e in rows)
    fp = sum(g and not e for _, g, e in rows)
    fn = sum(t and not (g and e) for t, g, e in rows)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def _fold_means(outcomes: dict, keys: dict[str, list[list[str]]]) -> dict:
    """{src: {field: mean over the folds of the fold's F1, "invented": pooled count}} of one
    model's --cv-out over ``keys`` ({src: [the fold's string keys, per fold]})."""
    out = {}
    for src, folds in keys.items():
        out[src] = {f: statistics.mean(_f1([outcomes[k][5][i] for k in ks]) for ks in folds)
                    for i, f in enumerate(ENTRY_FIELDS)}
        out[src]["invented"] = sum(outcomes[k][1] for ks in folds for k in ks)
    return out


def compare(paths: list[Path], rounds: int, seed: int = 22) -> dict:
    """--compare BASE OTHER...: the --cv-out files of two or more cross-validations (same folds,
    benchmarks/references.py --cv ... --cv-out, with the per-field outcomes), each against the
    first: the change of each field's mean F1 over the folds and of the pooled invented titles,
    the strings whose field went right or wrong, and a paired bootstrap over the dev strings
    (``rounds`` resamples, GROBID's strings within their fold, AnyStyle's bad.xml strings, dev in
    every fold, once for all folds): its standard deviation and 2.5-97.5% interval of each
    change, and of the first file's own figures. What a retraining moves by itself (two models
    that should be as good) against what the choice of dev strings moves."""
    import random

    runs = [json.loads(p.read_text()) for p in paths]
    base = runs[0]
    common = [k for k in base if all(k in r and len(r[k]) > 5 for r in runs)]
    if not common:  # --cv-out files written before the per-field outcomes, or of other folds
        raise SystemExit("--compare: no dev string with per-field outcomes in every file (rescore with --cv --cv-out)")
    by: dict[str, dict[int, list[str]]] = {}
    for k in common:
        fold, src, _ = k.split(" ", 2)
        by.setdefault(src, {}).setdefault(int(fold), []).append(k)
    keys = {src: [folds[f] for f in sorted(folds)] for src, folds in sorted(by.items())}
    rng = random.Random(seed)

    def resample() -> dict[str, list[list[str]]]:
        out = {}
        for src, folds in keys.items():
            if src == "A":  # the same strings in every fold: one draw of texts for all folds
                texts = sorted({k.split(" ", 2)[2] for ks in folds for k in ks})
                pick = [rng.choice(texts) for _ in texts]
                out[src] = [[f"{ks[0].split(' ', 1)[0]} A {t}" for t in pick] for ks in folds]
            else:
                out[src] = [[rng.choice(ks) for _ in ks] for ks in folds]
        return out

    draws = [resample() for _ in range(rounds)]
    figs = list(ENTRY_FIELDS) + ["invented"]

    def interval(vals: list[float]) -> dict:
        v = sorted(vals)
        return {"sd": round(statistics.stdev(v), 4), "lo": round(v[int(0.025 * len(v))], 4),
                "hi": round(v[int(0.975 * len(v)) - 1], 4)}

    base_now = _fold_means(base, keys)
    base_boot = [_fold_means(base, d) for d in draws]
    result: dict = {"files": [str(p) for p in paths], "strings": {s: sum(map(len, f)) for s, f in keys.items()},
                    "bootstrap_rounds": rounds, "base": {}}
    for src in keys:
        result["base"][src] = {f: {"value": round(base_now[src][f], 4),
                                   **interval([b[src][f] for b in base_boot])} for f in figs}
    result["against_base"] = []
    for path, run in zip(paths[1:], runs[1:], strict=True):
        now = _fold_means(run, keys)
        boot = [_fold_means(run, d) for d in draws]
        row: dict = {"file": str(path)}
        for src in keys:
            row[src] = {}
            for i, f in enumerate(figs):
                diffs = [b[src][f] - a[src][f] for a, b in zip(base_boot, boot, strict=True)]
                cell = {"change": round(now[src][f] - base_now[src][f], 4), **interval(diffs)}
                ks = [k for fk in keys[src] for k in fk]
                if f == "invented":
                    cell["now"] = sum(run[k][1] and not base[k][1] for k in ks)
                    cell["no_more"] = sum(base[k][1] and not run[k][1] for k in ks)
                else:  # a string is right on the field when its parse equals the truth
                    cell["now_right"] = sum(run[k][5][i][2] and not base[k][5][i][2] for k in ks)
                    cell["now_wrong"] = sum(base[k][5][i][2] and not run[k][5][i][2] for k in ks)
                row[src][f] = cell
        result["against_base"].append(row)
    return result


def _flagged(rows: list[tuple[float, bool]], t: float) -> dict:
    """Entries under the threshold ``t`` (doubtful for low confidence): how many, and how many of
    them are wrong (precision), of all the wrong entries (recall)."""
    flagged = [right for conf, right in rows if conf < t]
    wrong, all_wrong = flagged.count(False), sum(not right for _, right in rows)
    return {"threshold": round(t, 3), "flagged": len(flagged), "of": len(rows), "wrong_flagged": wrong,
            "precision": round(wrong / len(flagged), 4) if flagged else None,
            "recall": round(wrong / all_wrong, 4) if all_wrong else None}


def calibrate(outcomes: dict, reference: dict, at: float) -> dict:
    """The doubtful threshold for a candidate model, chosen on the cross-validation folds: the
    highest threshold (0.005 steps) whose low-confidence flags are at least as often wrong entries
    (title, container, first author or year wrong) as the reference model's flags at ``at``, so
    that "doubtful" keeps its meaning when a model's confidences move (more L2 regularisation
    gives flatter marginals, the same parse a lower confidence). Pooled over the folds and both
    sources; strings scored by both."""
    both = [k for k, o in outcomes.items() if len(o) > 4 and k in reference and len(reference[k]) > 4]
    mine = [(outcomes[k][3], outcomes[k][4]) for k in both]
    ref = _flagged([(reference[k][3], reference[k][4]) for k in both], at)
    grid = [_flagged(mine, t / 1000) for t in range(500, 1000, 5)]
    ok = [g for g in grid if g["precision"] is not None and g["precision"] >= ref["precision"]]
    chosen = max(ok, key=lambda g: g["threshold"]) if ok else None
    return {"reference": ref, "same_threshold": _flagged(mine, at), "chosen": chosen,
            "grid": [g for g in grid if g["threshold"] >= 0.7]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grobid", type=Path, required=True, help="a GROBID checkout")
    ap.add_argument("--anystyle", type=Path, required=True, help="an AnyStyle checkout")
    ap.add_argument("--no-corpus", action="store_true", help="skip compiling the corpus papers")
    ap.add_argument("--corpus-cache", type=Path, help="keep the corpus bibliographies here between runs")
    ap.add_argument("--peer", type=Path, help="a source tree whose labeller is measured in the same run")
    ap.add_argument("--rounds", type=int, default=3, help="speed: fresh processes per tree, taking turns")
    ap.add_argument("--no-speed", action="store_true", help="scores only")
    ap.add_argument("--speed-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--dev", type=Path, metavar="MODEL",
                    help="score a dev model (scripts/train_refparse.py --without-dev -o MODEL) and its "
                         "gazetteers on the dev split it was trained without, training data only: the "
                         "labeller's fields per source (G: GROBID, A: AnyStyle); no held-out set is read")
    ap.add_argument("--dev-split", choices=("random", "docs"), default="docs", help="with --dev: the split")
    ap.add_argument("--dev-fold", type=int, default=0, help="with --dev and docs: the fold (0-3) it was trained without")
    ap.add_argument("--dev-errors", action="store_true", help="with --dev: list each dev title that differs")
    ap.add_argument("--dev-outcomes", type=Path, help=argparse.SUPPRESS)  # --cv's per-string outcomes
    ap.add_argument("--cv", type=Path, metavar="MODEL",
                    help="score the four dev models of scripts/train_refparse.py --cv -o MODEL, each on its "
                         "fold of --dev-split docs: per fold, and mean and spread over the folds (no held-out "
                         "set is read)")
    ap.add_argument("--wide-folds", action="store_true",
                    help="with --dev/--cv: the folds of train_refparse.py --wide-folds (AnyStyle's good.xml and "
                         "ugly.xml scored as U, numbered-list renders of the dev strings as N)")
    ap.add_argument("--product", action="store_true",
                    help="with --dev/--cv: score what ctxmill compile writes (reference_fields: the dev model, "
                         "this tree's rules where its parse is doubtful) instead of the labeller alone")
    ap.add_argument("--ids-not-titles", action="store_true",
                    help="refparse.use_ids_not_titles: the product refuses a rules title that holds the entry's "
                         "DOI, arXiv id or URL (with --dev/--cv --product, and this tree's side of a held-out read)")
    ap.add_argument("--no-damaged-ids", action="store_true",
                    help="fields.use_damaged_ids(False): DOIs, arXiv ids and URLs printed with spaces around their "
                         "marks are not found, as before round 26 (this tree's side only)")
    ap.add_argument("--no-within-titles", action="store_true",
                    help="refparse.use_within_titles(False): the product takes a rules title that holds the "
                         "labeller's and is longer, as before round 27 (this tree's side only)")
    ap.add_argument("--no-notes-not-titles", action="store_true",
                    help="refparse.use_notes_not_titles(False): the product takes a rules title that starts with a "
                         "note (\"private communication\", \"PhD thesis\"), as before round 28 (this tree's side only)")
    ap.add_argument("--no-volume-pages-only", action="store_true",
                    help="refparse.use_volume_pages_only(False): the product takes a rules title where a confident "
                         "labeller saw volume and pages but no title or container, as before round 28 (this tree's side only)")
    ap.add_argument("--no-title-before-stop", action="store_true",
                    help="fields.use_title_before_stop(False): with no title, a container run that crosses a sentence "
                         "stop stays one venue, as before round 29 (this tree's side only)")
    ap.add_argument("--cv-out", type=Path, help="with --cv: write each GROBID dev string's title outcome here")
    ap.add_argument("--cv-against", type=Path,
                    help="with --cv: another candidate's --cv-out; count the titles that changed, string by string")
    ap.add_argument("--calibrate-against", type=Path, metavar="FILE",
                    help="with --cv: the reference model's --cv-out; choose this candidate's doubtful threshold "
                         "so that its low-confidence flags are as precise as the reference's at --calibrate-at")
    ap.add_argument("--calibrate-at", type=float, default=0.85, help="the reference model's doubtful threshold")
    ap.add_argument("--abs-ids", action="store_true",
                    help="with --dev or --cv: the model was trained with train_refparse.py --abs-ids")
    ap.add_argument("--compare", type=Path, nargs="+", metavar="CV_OUT",
                    help="the --cv-out files of two or more cross-validations, each against the first: "
                         "changes per field with a paired bootstrap over the dev strings (no model is run)")
    ap.add_argument("--bootstrap", type=int, default=1000, help="with --compare: resamples")
    ap.add_argument("--stretch-kinds", action="store_true",
                    help="with --dev or --cv: the model was trained with train_refparse.py --stretch-kinds")
    args = ap.parse_args()
    if args.compare:
        print(json.dumps(compare(args.compare, args.bootstrap), indent=1))
        return
    if args.stretch_kinds:
        from ctxmill.compile.refparse import features

        features.use_stretch_kinds(True)
    if args.abs_ids:
        from ctxmill.compile.refparse import tokens

        tokens.use_abs_ids(True)
    if args.ids_not_titles:
        from ctxmill.compile import refparse

        refparse.use_ids_not_titles(True)
    if args.no_within_titles:
        from ctxmill.compile import refparse

        refparse.use_within_titles(False)
    if args.no_notes_not_titles:
        from ctxmill.compile import refparse

        refparse.use_notes_not_titles(False)
    if args.no_volume_pages_only:
        from ctxmill.compile import refparse

        refparse.use_volume_pages_only(False)
    if args.no_damaged_ids:
        from ctxmill.compile.refparse import fields

        fields.use_damaged_ids(False)
    if args.no_title_before_stop:
        from ctxmill.compile.refparse import fields

        fields.use_title_before_stop(False)
    if args.cv:
        print(json.dumps(cv_scores(args), indent=1))
        return
    if args.dev:
        print(json.dumps(dev_scores(args), indent=1))
        return
    sets = held_out(args.grobid, args.anystyle)
    strings = [t for exs in sets.values() for t, _ in exs]
    if args.speed_only:  # one turn of the speed measurement, in a process of its own
        crf_parse(strings[0])  # the model loads once; load time is measured on its own
        out = speed(strings, crf_parse)
        # and what ``ctxmill compile`` runs per entry: the labeller with the rules as fallback
        out["product"] = speed(strings, lambda s: reference_fields(s, rules.parse_entry))
        print(json.dumps(out))
        return
    parsers = {"labeller": crf_fields, "rules": rule_fields, "product": product_fields}
    result: dict = {"held_out": {}, "corpus": {}, "speed": {}}
    for name, exs in sets.items():
        result["held_out"][name] = {p: score_set(exs, f) for p, f in parsers.items()}
    cache = args.corpus_cache
    if not args.no_corpus and CORPUS.is_dir():
        if cache is None and args.peer:  # the peer parses the bibliographies this tree segmented
            cache = Path(tempfile.mkdtemp()) / "corpus.json"
        papers = corpus_raws(cache)
        result["corpus"] = {p: score_corpus(papers, f) for p, f in parsers.items()}
        result["corpus"]["entries"] = sum(len(p["raws"]) for p in papers.values())
    result["goals"] = goals(result)
    common = ["--grobid", str(args.grobid), "--anystyle", str(args.anystyle)]
    if args.peer:
        peer_args = [*common, "--no-speed"] + (["--no-corpus"] if args.no_corpus or cache is None
                                               else ["--corpus-cache", str(cache)])
        result["peer"] = {"tree": str(args.peer), **json.loads(_run(peer_args, args.peer / "src"))}
    if not args.no_speed:
        turns: dict[str, list[dict]] = {"labeller": [], "peer": []}
        for _ in range(args.rounds):
            if args.peer:
                turns["peer"].append(json.loads(_run([*common, "--speed-only"], args.peer / "src")))
            turns["labeller"].append(json.loads(_run([*common, "--speed-only", *_product_flags(args),
                                                      *(["--ids-not-titles"] if args.ids_not_titles else [])], None)))
        med = {k: {m: round(statistics.median(t[m] for t in v)) for m in ("wall", "cpu")} for k, v in turns.items() if v}
        prod = {k: {m: round(statistics.median(t["product"][m] for t in v)) for m in ("wall", "cpu")}
                for k, v in turns.items() if v and all("product" in t for t in v)}
        result["speed"] = {"strings": len(strings), "labeller_strings_per_s": med["labeller"],
                           "product_strings_per_s": prod.get("labeller"),
                           "turns": turns, "rules_strings_per_s": speed(strings, rules.parse_entry),
                           "model_load_ms": load_ms(), "load_average": os.getloadavg()}
        if args.peer:
            result["speed"]["peer_labeller_strings_per_s"] = med["peer"]
            result["speed"]["ratio_cpu"] = round(med["labeller"]["cpu"] / med["peer"]["cpu"], 3)
            if "peer" in prod:
                result["speed"]["peer_product_strings_per_s"] = prod["peer"]
                result["speed"]["product_ratio_cpu"] = round(prod["labeller"]["cpu"] / prod["peer"]["cpu"], 3)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
