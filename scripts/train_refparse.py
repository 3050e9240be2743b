"""Train the reference-string labeller shipped as src/ctxmill/data/refparse.crfsuite.

    git clone --depth 1 https://github.com/kermitt2/grobid   /tmp/grobid
    git clone --depth 1 https://github.com/inukshuk/anystyle /tmp/anystyle
    .venv/bin/python scripts/train_refparse.py --grobid /tmp/grobid --anystyle /tmp/anystyle

Training data (sources and licences in NOTICE):
- GROBID's citation corpus, grobid-trainer/resources/dataset/citation/corpus/*.xml
  (Apache-2.0), without its evaluation files (evaluation-*.xml, whose copies also sit in
  corpus/) and without the kisti test/valid splits;
- AnyStyle's parser data, res/parser/{core,good,ugly,bad}.xml (BSD-2-Clause), without gold.xml.
- with ``--bbl-data DIR`` (what scripts/bbl_refdata.py writes: papers' printed bibliographies
  labelled from their own .bib records, sources and licences in
  benchmarks/data/refparse_bbl_sources.json): training only (never a dev fold), and a string
  sharing a 40-character run with a held-out string is dropped;
- with ``--parscit DIR`` (a ParsCit checkout, github.com/knmnyn/ParsCit, LGPL-3.0; CORA's
  strings are McCallum et al.'s): its tagged reference sets, PARSCIT_FILES, training only
  (never a dev fold);
Any training string that equals a held-out string (GROBID evaluation/, AnyStyle gold.xml),
case and punctuation aside, is dropped too. The held-out sets are what
benchmarks/references.py reports on. The same inputs give the same model: files are read in
sorted order and CRFsuite's L-BFGS training has no randomness.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
import time
import zlib
from collections import Counter
from importlib import metadata
from pathlib import Path

import pycrfsuite

from ctxmill.compile.refparse import features, lexicon, tokens
from ctxmill.compile.refparse.datasets import norm_key, read_anystyle, read_tei, token_labels
from ctxmill.compile.refparse.features import features_of
from ctxmill.compile.refparse.lexicon import gazetteer_path, gazetteers, lexkey
from ctxmill.compile.refparse.tokens import tokenize

MODEL = Path(__file__).resolve().parents[1] / "src" / "ctxmill" / "data" / "refparse.crfsuite"
GROBID_SUB = "grobid-trainer/resources/dataset/citation"
ANYSTYLE_SUB = "res/parser"


def grobid_dir(root: Path) -> Path:
    return root / GROBID_SUB if (root / GROBID_SUB).is_dir() else root


def anystyle_dir(root: Path) -> Path:
    return root / ANYSTYLE_SUB if (root / ANYSTYLE_SUB).is_dir() else root


# ParsCit's tagged reference strings: CORA (CS), CiteSeerX, FLUX-CiM (CS) and three sets of
# humanities bibliographies (English, Italian, mixed): styles with books, "In" editors and
# proceedings. Not iconip.tagged.txt, whose strings are their fields in a row without the
# punctuation between them ("... Kohonen map 1993 Neural Networks 6 441--445"), as no
# bibliography prints them.
PARSCIT_FILES = ("crfpp/taggeddata/cora.tagged.txt", "crfpp/taggeddata/en-humanities.tagged.txt",
                 "crfpp/taggeddata/flux-cim-cs.tagged.txt", "crfpp/taggeddata/it-humanities.tagged.txt",
                 "crfpp/taggeddata/mixed-humanities.tagged.txt", "doc/citeseerx.tagged.txt")

LEXICON_SUB = "grobid-home/lexicon"
# GROBID lexicon file -> our gazetteer kind (names of journals and proceedings, full and abbreviated)
LEXICON_FILES = {"journals/journals.txt": "journal", "journals/abbrev_journals.txt": "journal",
                 "journals/proceedings.txt": "journal", "names/firstname.5k": "given",
                 "names/lastname.5k": "family"}


JOURNAL_WORDS = 12


def venue_lexicon(examples: list, lexicons: Path | None = None) -> dict[str, set[str]]:
    """Venue names and venue abbreviations from the training labels (for the clean-up rules).

    ``venue_name``: a container's ``lexkey`` words, printed in two or more training strings
    (one word: five or more, "Nature"; a one-word book title is as often labelled a venue).
    ``venue_abbrev``: a capitalised word of three letters or more printed with a full stop
    ("Contemp.", "Proc ."), at least three times in containers, and printed so in containers
    three times as often as it is used at all in titles ("Psychology." ends titles too); and,
    given GROBID's lexicons, a word printed with a full stop in two or more of its abbreviated
    journal names that is never a word of its full names ("Quart.", "Braz.", not "Plant.") and
    is in no more than two training titles."""
    names: Counter = Counter()
    in_venue: Counter = Counter()
    in_title: Counter = Counter()
    for text, spans in examples:
        seen = set()
        for s, e, lab in spans:
            if lab not in ("container", "title"):
                continue
            toks = [t for t, _, _ in tokenize(text[s:e])]
            words = [lexkey(t) for t in toks if t[:1].isalnum()]
            key = " ".join(words)
            if lab == "container" and words and key not in seen:
                seen.add(key)
                names[key] += 1
            for k, t in enumerate(toks):
                if lab == "title":  # any use in a title: "Psychology." ends a title, "Rom." does not
                    in_title[lexkey(t)] += 1
                elif t[:1].isupper() and (t.endswith(".") or (k + 1 < len(toks) and toks[k + 1] == ".")):
                    in_venue[lexkey(t)] += 1
    abbrev = {w for w, n in in_venue.items() if n >= 3 and n >= 3 * in_title[w] and len(w) >= 3}
    if lexicons is not None:
        dotted: Counter = Counter()
        for line in (lexicons / "journals/abbrev_journals.txt").read_text(encoding="utf-8", errors="replace").splitlines():
            toks = [t for t, _, _ in tokenize(line)]
            dotted.update({lexkey(t) for k, t in enumerate(toks) if t[:1].isupper()
                           and (t.endswith(".") or (k + 1 < len(toks) and toks[k + 1] == "."))})
        full = {lexkey(t) for line in (lexicons / "journals/journals.txt").read_text(
            encoding="utf-8", errors="replace").splitlines() for t, _, _ in tokenize(line) if not t.endswith(".")}
        abbrev |= {w for w, n in dotted.items() if n >= 2 and len(w) >= 3 and w not in full and in_title[w] <= 2}
    return {"venue_name": {k for k, n in names.items() if n >= (5 if " " not in k else 2) and len(k) >= 4},
            "venue_abbrev": abbrev}


# the kind of field a label is, for word_label_lexicon
_FIELD_KIND = {"title": "T", "container": "C", "collection": "C", "author": "A", "editor": "A",
               "publisher": "P", "location": "P", "date": "N", "volume": "N", "issue": "N", "pages": "N"}


def word_label_lexicon(examples: list, least: int = 5, strings: int = 3) -> set[str]:
    """For each word (``lexkey``) printed ``least`` times or more in ``strings`` or more training
    strings, the kind of field that holds it most (T title, C container or collection, A author
    or editor, P publisher or place, N date, volume, issue or pages, O anything else) and its
    share of the word's uses, bucketed: T3 (nine in ten or more), T2 (seven), T1 (half), or M
    where no kind holds half; rows "word<TAB>T3" of the gazetteer file (--word-labels: tried for
    issue 22, not in the shipped model, which did better without them on the dev split)."""
    uses: dict[str, Counter] = {}
    seen_in: Counter = Counter()
    for text, spans in examples:
        toks, labels = token_labels(text, spans)
        words = set()
        for (t, _, _), lab in zip(toks, labels, strict=True):
            if not t[:1].isalnum():
                continue
            w = lexkey(t)
            uses.setdefault(w, Counter())[_FIELD_KIND.get(lab, "O")] += 1
            words.add(w)
        seen_in.update(words)
    rows = set()
    for w, c in uses.items():
        n = sum(c.values())
        if n < least or seen_in[w] < strings or "\t" in w or "\n" in w:
            continue
        kind, k = min(c.items(), key=lambda x: (-x[1], x[0]))
        share = k / n
        rows.add(f"{w}\t{kind}{3 if share >= 0.9 else 2 if share >= 0.7 else 1}" if share >= 0.5 else f"{w}\tM")
    return rows


CLUSTER_SIZES = (32, 128, 512)


def word_clusters(texts: list[str], sizes: tuple[int, ...] = CLUSTER_SIZES, least: int = 5, contexts: int = 500,
                  dims: int = 64, iterations: int = 25, seed: int = 22, under: int | None = None) -> set[str]:
    """--clusters: distributional word classes from unlabelled reference strings, rows
    "word<TAB>cluster32=5<TAB>cluster128=77..." of the gazetteer file (features read them).

    Each word (``lexkey`` of a token beginning with a letter or digit) printed ``least`` times or
    more is described by the tokens printed just before and after it (the ``contexts`` most
    frequent token types each side, punctuation and the string's ends included, the rest as one
    "other"), weighed by positive PMI (context counts smoothed to the power 0.75), reduced to
    ``dims`` dimensions (the top eigenvectors of MᵀM, rows scaled to unit length) and grouped by
    spherical k-means into each of ``sizes`` classes (k-means++ seeding from a fixed seed). Words
    that stand between the same neighbours share a class: "phys", "astrophys", "rev" (after a
    comma, before a capitalised abbreviation) apart from title words. ``under``: only the words
    printed fewer times than that get a row (where a word's own weight is thin), all of them
    clustered alike. Deterministic: sorted vocabularies, numpy only, a fixed seed."""
    import numpy as np

    seqs = []
    counts: Counter = Counter()
    ctx_counts: Counter = Counter()
    for text in texts:
        seq = ["<s>", *[lexkey(t) if t[:1].isalnum() else t for t, _, _ in tokenize(text)], "</s>"]
        seqs.append(seq)
        counts.update(w for w in seq[1:-1] if w[:1].isalnum())
        ctx_counts.update(seq)
    vocab = sorted((w for w, n in counts.items() if n >= least and "\t" not in w and "\n" not in w),
                   key=lambda w: (-counts[w], w))
    if under is not None:  # (the frequent words are described and clustered all the same)
        kept = {w for w in vocab if counts[w] < under}
    if len(vocab) < max(sizes):
        return set()
    row = {w: i for i, w in enumerate(vocab)}
    ctx = {w: i for i, w in enumerate(sorted(ctx_counts, key=lambda w: (-ctx_counts[w], w))[:contexts])}
    other = len(ctx)
    width = other + 1
    rows, cols = [], []
    for seq in seqs:
        for k in range(1, len(seq) - 1):
            i = row.get(seq[k])
            if i is None:
                continue
            rows += (i, i)
            cols += (ctx.get(seq[k - 1], other), width + ctx.get(seq[k + 1], other))
    m = np.zeros((len(vocab), 2 * width))
    np.add.at(m, (np.array(rows), np.array(cols)), 1.0)
    col = m.sum(0) ** 0.75
    col /= col.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(m / m.sum(1, keepdims=True) / col)
    ppmi = np.where(m > 0, np.maximum(pmi, 0.0), 0.0)
    vals, vecs = np.linalg.eigh(ppmi.T @ ppmi)
    top = vecs[:, np.argsort(-vals, kind="stable")[:dims]]
    x = ppmi @ top
    x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    labels = [_kmeans(x, k, iterations, seed) for k in sizes]
    return {"\t".join([w, *(f"cluster{k}={int(lab[i])}" for k, lab in zip(sizes, labels, strict=True))])
            for i, w in enumerate(vocab) if under is None or w in kept}


def _kmeans(x, k: int, iterations: int, seed: int):
    """Spherical k-means of the unit rows of ``x`` into ``k`` classes: k-means++ seeds drawn
    with numpy's generator of ``seed``, then ``iterations`` rounds; a class left empty keeps
    its centre. Returns each row's class."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = len(x)
    centres = [int(rng.integers(n))]
    near = 1.0 - x @ x[centres[0]]
    for _ in range(1, k):
        p = np.maximum(near, 0.0) ** 2
        total = p.sum()
        c = int(rng.choice(n, p=p / total)) if total > 0 else int(rng.integers(n))
        centres.append(c)
        near = np.minimum(near, 1.0 - x @ x[c])
    c = x[centres].copy()
    lab = np.zeros(n, dtype=np.int64)
    for _ in range(iterations):
        lab = np.argmax(x @ c.T, axis=1)
        sums = np.zeros_like(c)
        np.add.at(sums, lab, x)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        c = np.where(norms > 0, sums / np.maximum(norms, 1e-12), c)
    return lab


def unlabelled_texts(path: Path) -> list[str]:
    """--clusters' unlabelled strings: the texts of a folder of scripts/bbl_refdata.py's files
    (bbl-*.xml), or a text file of one reference string a line."""
    if path.is_dir():
        from ctxmill.compile.refparse.datasets import read_bbl

        return [t for f in sorted(path.glob("bbl-*.xml")) for t, _ in read_bbl(f)]
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def build_lexicon(grobid: Path, out: Path, examples: list | None = None, word_labels: bool = False,
                  cluster_texts: list[str] | None = None, cluster_options: dict | None = None) -> dict:
    """Write the gazetteers (src/ctxmill/data/refparse_lexicon.txt.gz) from GROBID's lexicons:
    each name as ``lexkey`` words of our tokenizer, punctuation dropped, so that a name matches
    however the string spaces or punctuates it ("Phys. Rev. D", "Phys.Rev.D"); and, given the
    training strings, the venue names and abbreviations of their labels (venue_lexicon); given
    ``cluster_texts``, the word classes learned from them (word_clusters)."""
    root = grobid / LEXICON_SUB
    rows: dict[str, set[str]] = {kind: set() for kind in LEXICON_FILES.values()}
    for sub, kind in LEXICON_FILES.items():
        for line in (root / sub).read_text(encoding="utf-8", errors="replace").splitlines():
            words = [lexkey(t) for t, _, _ in tokenize(line.strip()) if t[:1].isalnum()]
            if not words or (kind != "journal" and len(words) != 1):
                continue
            if kind == "journal" and ((len(words) == 1 and len(words[0]) < 4) or len(words) > JOURNAL_WORDS):
                continue  # "J", "AI": too short to tell a journal by; a 20-word name never matches
            rows[kind].add(" ".join(words))
    entries = sum(map(len, rows.values()))
    lengths: dict[str, set[int]] = {}
    for k in rows["journal"]:
        w = k.split(" ")
        lengths.setdefault(w[0], set()).add(len(w))
    # each first word with the lengths of the names it starts, longest first, a hex digit each
    # ("phys\t432"; JOURNAL_WORDS keeps them below 16)
    rows["journal_first"] = {f"{w}\t{''.join(format(k, 'x') for k in sorted(n, reverse=True))}"
                             for w, n in lengths.items()}
    if examples is not None:
        rows.update(venue_lexicon(examples, root))
        if word_labels:
            rows["word_label"] = word_label_lexicon(examples)
    if cluster_texts:
        rows["cluster"] = word_clusters(cluster_texts, **(cluster_options or {}))
    text = "\f".join(kind + "\n" + "\n".join(sorted(keys)) for kind, keys in sorted(rows.items()))
    # gzip without a timestamp, so the same lexicons give the same bytes
    out.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    gazetteers.cache_clear()
    return {"lexicon_entries": entries, "lexicon_bytes": out.stat().st_size}


def held_out(grobid: Path, anystyle: Path) -> dict[str, list]:
    g = grobid_dir(grobid) / "evaluation"
    return {
        "grobid_evaluation": [ex for f in sorted(g.glob("*.xml")) for ex in read_tei(f)],
        "anystyle_gold": read_anystyle(anystyle_dir(anystyle) / "gold.xml"),
    }


def training_files(grobid: Path, anystyle: Path, parscit: Path | None = None, bbl: Path | None = None) -> list[Path]:
    corpus = sorted((grobid_dir(grobid) / "corpus").glob("*.xml"))
    keep = [p for p in corpus if not p.name.startswith("evaluation") and not p.name.startswith(("kisti_test", "kisti_valid"))]
    a = anystyle_dir(anystyle)
    # ParsCit's last: a string it shares with GROBID or AnyStyle keeps their source (and fold)
    return keep + [a / f"{n}.xml" for n in ("core", "good", "ugly", "bad")] + \
        ([parscit / f for f in PARSCIT_FILES] if parscit is not None else []) + \
        (sorted(bbl.glob("bbl-*.xml")) if bbl is not None else [])


def _kind(f: Path) -> str:
    if f.name.startswith("bbl-") and f.suffix == ".xml":
        return "bbl"
    return "anystyle" if f.parent.name == "parser" else "parscit" if f.name.endswith(".tagged.txt") else "grobid"


def _reader(kind: str):
    if kind == "parscit":
        # (imported here: benchmarks/references.py imports this script beside a peer's older
        # source, which has no read_parscit)
        from ctxmill.compile.refparse.datasets import read_parscit

        return read_parscit
    if kind == "bbl":
        from ctxmill.compile.refparse.datasets import read_bbl

        return read_bbl
    return read_anystyle if kind == "anystyle" else read_tei


def load_training(grobid: Path, anystyle: Path, with_files: bool = False,
                  parscit: Path | None = None, bbl: Path | None = None) -> tuple[list, dict]:
    """The training strings ``(text, spans)``, held-out copies and duplicates dropped; with
    ``with_files`` each is ``(text, spans, source)``, source "grobid/<file>",
    "anystyle/<file>" or "parscit/<file>" (the file it was first read from), for doc_split."""
    banned = {norm_key(t) for exs in held_out(grobid, anystyle).values() for t, _ in exs}
    examples, stats = [], {"files": 0, "strings": 0, "dropped_as_held_out": 0, "duplicates": 0}
    seen: set[str] = set()
    # a paper's bibliography may cite a work a held-out string cites too, in another style: its
    # title (a run of RUN characters) would reach the model, as --render-shapes' filter guards
    runs = held_out_runs(grobid, anystyle) if bbl is not None else set()
    for f in training_files(grobid, anystyle, parscit, bbl):
        kind = _kind(f)
        exs = _reader(kind)(f)
        stats["files"] += 1
        source = f"{kind}/{f.name}"
        for text, spans in exs:
            key = norm_key(text)
            if key in banned:
                stats["dropped_as_held_out"] += 1
                continue
            if key in seen:
                stats["duplicates"] += 1
                continue
            if kind == "bbl" and shares_run(text, runs):
                stats["bbl_shares_held_out_run"] = stats.get("bbl_shares_held_out_run", 0) + 1
                continue
            seen.add(key)
            examples.append((text, spans, source) if with_files else (text, spans))
    stats["strings"] = len(examples)
    if bbl is not None:
        stats["bbl_strings"] = sum(1 for e in examples if e[-1].startswith("bbl/")) if with_files else None
    return examples, stats


def dev_split(examples: list, every: int = 10) -> tuple[list, list]:
    """(train, dev): one training string in ``every`` is set aside, chosen by a hash of its
    text, so the split is the same on every run and never touches the held-out sets."""
    dev = [e for e in examples if zlib.crc32(norm_key(e[0]).encode()) % every == 0]
    train = [e for e in examples if zlib.crc32(norm_key(e[0]).encode()) % every != 0]
    return train, dev


# a GROBID training file of more strings than this is a collection of many documents'
# references (citations.xml, raw_ref_corrected...), not one document's bibliography
DOC_STRINGS = 150
DEV_ANYSTYLE = "bad.xml"


# --wide-folds (issue 22's twenty-fourth round): AnyStyle's good.xml and ugly.xml are dev too,
# a quarter in each fold, so that the folds hold the humanities books and numbered lists that
# AnyStyle's held-out gold.xml has and GROBID's one-document files hardly do. Both files are
# shuffled (from their first commit, dc298e2) and name no document: a string goes to the fold
# of its style_key, so that one bibliography's entries of one kind, printed alike, stay on one side.
WIDE_ANYSTYLE = ("good.xml", "ugly.xml")


def style_key(text: str, spans: list) -> str:
    """What the entries of one kind in one bibliography share: the shape of what precedes the
    first field (a list number: "[N]", "N."), then each field's label in order with the
    punctuation that ends it ("author, date. title. container, volume: pages.")."""
    first = spans[0][0] if spans else len(text)
    parts = [re.sub(r"\d+", "N", text[:first].strip())]
    for _, e, lab in spans:
        parts.append(lab + ("" if text[e - 1].isalnum() else text[e - 1]))
    return " ".join(filter(None, parts))


def doc_split(examples: list, every: int = 4, fold: int = 0, wide: bool = False) -> tuple[list, list]:
    """(train, dev) grouped by source document, from ``load_training(..., with_files=True)``.

    The random split (dev_split) puts strings of one bibliography on both sides, so a dev
    string's style was seen in training, which the held-out sets' never were. Here the dev
    strings are whole files: each GROBID file of one document's references (DOC_STRINGS or
    fewer strings) whose name hashes to 0 modulo ``every``, and AnyStyle's smallest file
    (DEV_ANYSTYLE). GROBID's one-document files are physics-heavy and, as a whole, mixed as
    its held-out set is (entries without a title 44% vs 46%, journal references without one
    40% vs 41%, arXiv ids 15% vs 18%: aggregate counts of the labels, fixed before any
    model was scored on the split); the files of many documents (citations.xml: 3,340 strings,
    14% without a title) always train. dev items keep their source: ``(text, spans, source)``.
    ``fold`` (0 to every - 1) takes the GROBID files hashing to it instead, for cross-validation
    over the documents (AnyStyle's bad.xml is dev in every fold). ``wide``: and the strings of
    WIDE_ANYSTYLE whose style_key hashes to ``fold``."""
    per_file = Counter(src for _, _, src in examples)

    def is_dev(text: str, spans: list, src: str) -> bool:
        kind, name = src.split("/", 1)
        if kind == "anystyle":
            return name == DEV_ANYSTYLE or (wide and name in WIDE_ANYSTYLE
                                            and zlib.crc32(style_key(text, spans).encode()) % every == fold)
        if kind != "grobid":  # another data set trains only: the folds stay GROBID's and AnyStyle's
            return False
        return per_file[src] <= DOC_STRINGS and zlib.crc32(name.encode()) % every == fold

    train = [(t, s) for t, s, src in examples if not is_dev(t, s, src)]
    dev = [(t, s, src) for t, s, src in examples if is_dev(t, s, src)]
    return train, dev


def numbered(dev: list) -> list:
    """--wide-folds' numbered-list renders of dev strings (``(text, spans, source)``): each that
    begins with a capital letter, as the entry of a list whose numbers have no stop or bracket
    ("33 Bergk, V., Haefeli, W. E., ...", Nature's style; 20 of AnyStyle gold.xml's 421 list
    numbers), a number from 1 to 150 by a hash of its text, outside every field. parse() strips
    the other forms ("[15] ", "102. ", "(7) ") before the labeller sees them, so only this one
    can tell a model apart."""
    out = []
    for text, spans, src in dev:
        if not text[:1].isupper():
            continue
        lead = f"{zlib.crc32(('numbered:' + norm_key(text)).encode()) % 150 + 1} "
        out.append((lead + text, [(s + len(lead), e + len(lead), lab) for s, e, lab in spans], src))
    return out


def dev_lexicon_path(model: Path) -> Path:
    """Where --without-dev writes the gazetteers of a dev model (beside it, never the shipped ones)."""
    return model.with_name(model.name + ".lexicon.txt.gz")


FOLDS = 4  # doc_split's ``every``: the document folds of --dev-split docs


def cv_path(model: Path, fold: int) -> Path:
    """The dev model of fold ``fold`` that --cv writes for OUTPUT (OUTPUT.fold0.crfsuite, ...)."""
    return model.with_name(f"{model.stem}.fold{fold}{model.suffix}")


def cross_validate(argv: list[str], output: Path, jobs: int) -> int:
    """--cv: the four dev models of --dev-split docs (one per fold, each trained without its
    fold, with its own gazetteers), each by this script in a process of its own, ``jobs`` at a
    time; score them with benchmarks/references.py --cv OUTPUT."""
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    rest, skip = [], False
    for a in argv:  # this command's own options, less those the folds set themselves
        if skip:
            skip = False
        elif a in ("--cv", "--without-dev"):
            continue
        elif a in ("--jobs", "--dev-fold", "--dev-split", "-o", "--output"):
            skip = True
        elif not a.startswith(("--jobs=", "--dev-fold=", "--dev-split=", "--output=")):
            rest.append(a)

    def one(k: int) -> subprocess.CompletedProcess:
        cmd = [sys.executable, __file__, *rest, "--without-dev", "--dev-split", "docs", "--dev-fold", str(k),
               "-o", str(cv_path(output, k))]
        return subprocess.run(cmd, capture_output=True, text=True)

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        done = list(pool.map(one, range(FOLDS)))
    folds = []
    for k, r in enumerate(done):
        if r.returncode:
            print(f"fold {k}: exit {r.returncode}: {r.stderr.strip()[-500:]}", file=sys.stderr)
            return r.returncode
        folds.append(json.loads(r.stdout))
    json.dump({"cv": str(output), "folds": folds}, sys.stdout, indent=2)
    print()
    return 0


def edge_labels(labels: list[str], begin: tuple[str, ...], end: tuple[str, ...] = ()) -> list[str]:
    """``labels`` with the first token of each run of a field in ``begin`` labelled "B-<field>",
    and the last token of a run of a field in ``end`` (two tokens or more) "E-<field>"
    (model.field_label reads both back as the field): the model then learns where such a field
    begins or ends with weights of its own, not only from the transitions into and out of it."""
    n = len(labels)
    out = list(labels)
    for i, lab in enumerate(labels):
        first = i == 0 or labels[i - 1] != lab
        if lab in begin and first:
            out[i] = f"B-{lab}"
        elif lab in end and not first and (i + 1 == n or labels[i + 1] != lab):
            out[i] = f"E-{lab}"
    return out


def train(examples: list, output: Path, c1: float, c2: float, iterations: int,
          begin: tuple[str, ...] = (), params: dict | None = None, end: tuple[str, ...] = ()) -> None:
    """Train a model on ``examples`` and write it to ``output``.

    Each token's features are handed to CRFsuite sorted. CRFsuite numbers the features in the
    order it first sees them and sums a token's weights in the order they are listed, so the
    order in which features_of happens to build a token's list reaches the last bits of the
    weights: the shipped model of 2026-12-02 (7096b42) stopped being reproducible when
    c9c16b5 (a speed change) built the same features in another order. Sorted, the file
    depends on which features each token has, not on how the code lists them."""
    trainer = pycrfsuite.Trainer(verbose=False)
    for text, spans in examples:
        toks, labels = token_labels(text, spans)
        if toks:
            trainer.append([sorted(f) for f in features_of(toks)],
                           edge_labels(labels, begin, end) if begin or end else labels)
    trainer.set_params({"c1": c1, "c2": c2, "max_iterations": iterations,
                        "feature.possible_transitions": True, "feature.minfreq": 2, **(params or {})})
    output.parent.mkdir(parents=True, exist_ok=True)
    trainer.train(str(output))


SCORED = ("title", "container", "author", "date")


def dev_score(model: Path, dev: list) -> dict:
    """Token F1 of the labels the product leans on most (title, container, author, date) on
    the dev strings, and their mean, the figure the search maximises."""
    # (imported here: benchmarks/references.py imports this script beside a peer's older source)
    from ctxmill.compile.refparse.model import field_label

    tagger = pycrfsuite.Tagger()
    tagger.open(str(model))
    tp = dict.fromkeys(SCORED, 0)
    fp, fn = dict(tp), dict(tp)
    for text, spans in dev:
        toks, truth = token_labels(text, spans)
        if not toks:
            continue
        for t, g in zip(truth, map(field_label, tagger.tag(features_of(toks))), strict=True):
            if t == g and t in tp:
                tp[t] += 1
            else:
                if g in fp:
                    fp[g] += 1
                if t in fn:
                    fn[t] += 1
    f1 = {k: round(2 * tp[k] / (2 * tp[k] + fp[k] + fn[k]), 4) if tp[k] else 0.0 for k in SCORED}
    return {**f1, "mean": round(sum(f1.values()) / len(f1), 4)}


def split(examples: list, how: str, fold: int = 0, wide: bool = False) -> tuple[list, list]:
    """(train, dev) of ``load_training(..., with_files=True)``: ``random`` (dev_split, one string in
    ten) or ``docs`` (doc_split, whole documents, fold ``fold`` of 4, ``wide``: --wide-folds); dev
    items keep their source."""
    if how == "docs":
        return doc_split(examples, fold=fold, wide=wide)
    train, dev = dev_split(examples)
    return [e[:2] for e in train], dev


def search(examples: list, grid: list[tuple[float, float]], iterations: int, workdir: Path,
           how: str = "random", fold: int = 0) -> list[dict]:
    """Train on the training strings less the dev split for each (c1, c2) and score on it."""
    rest, dev = split(examples, how, fold)
    dev = [e[:2] for e in dev]
    rows = []
    for c1, c2 in grid:
        path = workdir / f"search-c1-{c1}-c2-{c2}.crfsuite"
        train(rest, path, c1, c2, iterations)
        rows.append({"c1": c1, "c2": c2, "model_bytes": path.stat().st_size, **dev_score(path, dev)})
        print(json.dumps(rows[-1]), file=sys.stderr)
        path.unlink()
    return rows


# the strings rendered again (--render): GROBID's and AnyStyle's core set, whose labels are
# whole fields; AnyStyle's good/ugly/bad sets are kept as they are (noisy on purpose)
RENDER_SOURCES = ("grobid/", "anystyle/core.xml")
SHAPE_NAMES = ("series", "swap", "two-sentence", "book")  # render.SHAPES (render imports citeproc-py)


def rendered_strings(examples: list, keys: set[str], args) -> tuple[list, dict]:
    """--render: the training strings of RENDER_SOURCES (``keys``) rendered by citation styles,
    less any that equals a training or held-out string (case and punctuation aside). Only the
    strings being trained on are rendered, so a dev fold's strings never reach its model. The
    gazetteers are built before, from the labelled strings alone."""
    from ctxmill.compile.refparse import render

    styles = tuple(args.render_styles.split(",")) if args.render_styles else render.STYLES
    banned = {norm_key(t) for exs in held_out(args.grobid, args.anystyle).values() for t, _ in exs}
    seen = {norm_key(t) for t, _ in examples}
    chosen = [e for e in examples if norm_key(e[0]) in keys]
    out, stats = render.render(chosen, args.csl_styles, args.csl_locales, args.render, styles) if args.render \
        else ([], {})
    out = list(out)
    if args.render_no_title:  # more in the styles that print no title, drawn apart from the above
        more, nstats = render.render(chosen, args.csl_styles, args.csl_locales, args.render_no_title,
                                     render.NO_TITLE_STYLES, salt="render-no-title:")
        out += more
        stats["no_title"] = {**nstats, "share": args.render_no_title, "styles": list(render.NO_TITLE_STYLES)}
    if args.render_shapes:  # the failing shapes, from the same strings (render.render_shapes)
        from ctxmill.compile.refparse.lexicon import gazetteers

        gaz = gazetteers()  # this model's own: built from the strings it trains on, before this
        shaped, sstats = render.render_shapes(chosen, args.csl_styles, args.csl_locales,
                                              tuple(args.render_shapes.split(",")), gaz.journal | gaz.venue_name,
                                              args.render_shapes_share)
        stats["shapes"] = {**sstats, "share": args.render_shapes_share}
        runs = held_out_runs(args.grobid, args.anystyle)
        for shape, ex in shaped:
            if shares_run(ex[0], runs):  # a held-out string's words must not reach a model by a rendering
                stats["shapes"][shape]["held_out_run"] = stats["shapes"][shape].get("held_out_run", 0) + 1
                continue
            out.append(ex)
    kept = []
    for text, spans in out:
        key = norm_key(text)
        if key in banned or key in seen:
            stats["dropped"] = stats.get("dropped", 0) + 1
            continue
        seen.add(key)
        kept.append((text, spans))
    stats.update(kept=len(kept), share=args.render, styles=list(styles),
                 citeproc_py=metadata.version("citeproc-py"))
    return kept, stats


RUN = 40  # --render-shapes: a rendering sharing this many characters of norm_key with a held-out string is dropped


def held_out_runs(grobid: Path, anystyle: Path, n: int = RUN) -> set[str]:
    """Every run of ``n`` characters of the held-out strings' norm_key."""
    return {k[i:i + n] for exs in held_out(grobid, anystyle).values() for t, _ in exs
            for k in [norm_key(t)] for i in range(max(0, len(k) - n + 1))}


def shares_run(text: str, runs: set[str], n: int = RUN) -> bool:
    k = norm_key(text)
    return any(k[i:i + n] in runs for i in range(max(0, len(k) - n + 1)))


def damaged_strings(examples: list, keys: set[str], grobid_texts: list[str], share: float,
                    banned: set[str]) -> tuple[list, dict]:
    """--damage: copies of the training strings in ``keys`` (and of rendered strings, given
    them in ``examples``) with the faults of a PDF text layer or OCR (refparse.damage), drawn
    at the rates measured on ``grobid_texts``, the GROBID strings being trained on: about
    ``share`` copies per string (floor(share), and one more with the fraction's chance, by a
    hash of its text). A copy that equals a held-out string (case and punctuation aside) is
    dropped; one that differs from its original only in spaces and punctuation is kept (that is
    the damage)."""
    from ctxmill.compile.refparse import damage

    rates = damage.measure(grobid_texts)
    out, stats = [], {"rates": rates, "made": 0, "none": 0, "dropped": 0}
    for ex in examples:
        key = norm_key(ex[0])
        if key not in keys:
            continue
        h = zlib.crc32(("damage:" + key).encode())
        k = int(share) + ((h % 1000) < round((share % 1) * 1000))
        for j in range(k):
            d = damage.damage(ex, rates, salt=str(j) if j else "")
            if d is None:
                stats["none"] += 1
                continue
            if d[0] == ex[0] or norm_key(d[0]) in banned:
                stats["dropped"] += 1
                continue
            out.append(d)
            stats["made"] += 1
    stats["share"] = share
    return out, stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grobid", type=Path, required=True, help="a GROBID checkout (or its dataset/citation folder)")
    ap.add_argument("--anystyle", type=Path, required=True, help="an AnyStyle checkout (or its res/parser folder)")
    ap.add_argument("--parscit", type=Path, help="a ParsCit checkout: its tagged reference sets train too "
                    "(PARSCIT_FILES; never dev)")
    ap.add_argument("--bbl-data", type=Path, metavar="DIR",
                    help="papers' printed bibliographies labelled by scripts/bbl_refdata.py (bbl-*.xml): train too, never a dev fold")
    ap.add_argument("--bbl-damage", type=float, default=0.0, metavar="SHARE",
                    help="with --bbl-data: about SHARE copies of each bbl string with PDF text-layer faults (as --damage)")
    ap.add_argument("-o", "--output", type=Path, default=MODEL)
    ap.add_argument("--iterations", type=int, default=150)
    ap.add_argument("--c1", type=float, default=0.3, help="L1 weight: prunes features, keeps the model small")
    ap.add_argument("--c2", type=float, default=0.01)
    ap.add_argument("--begin", default="", metavar="FIELD,...",
                    help="label the first token of these fields B-FIELD (tried: title, container)")
    ap.add_argument("--end", default="", metavar="FIELD,...",
                    help="label the last token of these fields E-FIELD")
    ap.add_argument("--affixes", action="store_true", help="word prefix and suffix features (features.AFFIXES)")
    ap.add_argument("--stretch-kinds", action="store_true",
                    help="each stretch's kind as a feature (features.STRETCH_KINDS; score the model with "
                         "benchmarks/references.py --stretch-kinds)")
    ap.add_argument("--word-labels", action="store_true",
                    help="the gazetteer file gets each frequent training word's field kind (a feature)")
    ap.add_argument("--clusters", type=Path, metavar="PATH",
                    help="word classes as features (word_clusters, written into the gazetteers): learned from the "
                         "strings this model trains on (never a dev fold's) and the unlabelled strings of PATH "
                         "(a folder of scripts/bbl_refdata.py's bbl-*.xml, or a file of one string a line)")
    ap.add_argument("--cluster-least", type=int, default=5, metavar="N",
                    help="with --clusters: words printed N times or more are clustered")
    ap.add_argument("--cluster-under", type=int, metavar="N",
                    help="with --clusters: only words printed fewer than N times get their classes as features")
    ap.add_argument("--search", metavar="C1:C2,...",
                    help="regularisation search first: train on the training strings less the dev split "
                         "for each C1:C2, then train the model with the best "
                         "(mean token F1 of title, container, author, date on the dev split)")
    ap.add_argument("--dev-split", choices=("random", "docs"), default="random",
                    help="the dev split of --search and --without-dev: random, one string in ten by a hash "
                         "of its text; docs, whole documents (GROBID's one-document files whose name "
                         "hashes to 0 mod 4, AnyStyle's bad.xml), mixed as GROBID's held-out set is")
    ap.add_argument("--dev-fold", type=int, default=0, choices=range(4), metavar="0-3",
                    help="with --dev-split docs: which quarter of the one-document files is dev "
                         "(0, the default, is the split of issue 22's twelfth round)")
    ap.add_argument("--without-dev", action="store_true",
                    help="a dev model: train on the training strings less the dev split, with gazetteers "
                         "built from them too, written beside the model (OUTPUT.lexicon.txt.gz); score "
                         "it with benchmarks/references.py --dev OUTPUT")
    ap.add_argument("--cv", action="store_true",
                    help="cross-validation over the documents: the four dev models of --dev-split docs "
                         "(OUTPUT.fold0.crfsuite ... fold3, each with its gazetteers beside it); score them "
                         "with benchmarks/references.py --cv OUTPUT")
    ap.add_argument("--wide-folds", action="store_true",
                    help="with --dev-split docs (and --cv): AnyStyle's good.xml and ugly.xml are dev too, a quarter "
                         "a fold by style_key (doc_split); score with benchmarks/references.py --wide-folds")
    ap.add_argument("--jobs", type=int, default=1, help="with --cv: folds trained at once (one process each)")
    ap.add_argument("--render", type=float, default=0.0, metavar="SHARE",
                    help="add training strings rendered by real citation styles (refparse.render, citeproc-py): "
                         "about SHARE renderings per GROBID or AnyStyle core.xml training string, each in one of "
                         "render.STYLES chosen by a hash of its text; needs --csl-styles and --csl-locales")
    ap.add_argument("--render-styles", metavar="NAME,...",
                    help="with --render: these styles instead of render.STYLES (file names in --csl-styles)")
    ap.add_argument("--render-no-title", type=float, default=0.0, metavar="SHARE",
                    help="add about SHARE renderings per string in render.NO_TITLE_STYLES alone (styles that print "
                         "no article title), drawn apart from --render's; needs --csl-styles and --csl-locales")
    ap.add_argument("--render-shapes", metavar="SHAPE,...",
                    help="add renderings of the failing title shapes (render.SHAPES: series, swap, two-sentence, "
                         "book), each in the styles that print it (render.shape_styles, measured by a probe "
                         "item per style); needs --csl-styles and --csl-locales")
    ap.add_argument("--render-shapes-share", type=float, default=1.0, metavar="SHARE",
                    help="with --render-shapes: about SHARE renderings per item of a shape")
    ap.add_argument("--damage", type=float, default=0.0, metavar="SHARE",
                    help="add copies of the GROBID and AnyStyle core.xml training strings (and of the rendered "
                         "ones) with PDF/OCR text faults (refparse.damage) at the rates of the GROBID strings "
                         "trained on: about SHARE copies per string")
    ap.add_argument("--scale-c", action="store_true",
                    help="with --render or --damage: c1 and c2 times (all training strings / labelled ones), "
                         "so that the added copies do not weaken the regularisation of the labelled strings")
    ap.add_argument("--abs-ids", action="store_true",
                    help="tokenize arXiv ids printed as \"abs/1909.01326\" as one token (tokens.use_abs_ids; "
                         "score the model with benchmarks/references.py --abs-ids)")
    ap.add_argument("--csl-styles", type=Path, help="a checkout of github.com/citation-style-language/styles")
    ap.add_argument("--csl-locales", type=Path, help="a checkout of github.com/citation-style-language/locales")
    args = ap.parse_args(argv)
    if args.render_shapes and set(args.render_shapes.split(",")) - set(SHAPE_NAMES):
        print(f"--render-shapes: one or more of {','.join(SHAPE_NAMES)}", file=sys.stderr)
        return 2
    if args.cv:
        if args.output.resolve() == MODEL.resolve():
            print("--cv writes dev models: give -o another path than the shipped model", file=sys.stderr)
            return 2
        if args.search:
            print("--search and --cv: choose one", file=sys.stderr)
            return 2
        return cross_validate(sys.argv[1:] if argv is None else argv, args.output, args.jobs)
    if (args.render or args.render_no_title or args.render_shapes) and not (args.csl_styles and args.csl_locales):
        print("--render, --render-no-title and --render-shapes need --csl-styles and --csl-locales", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    features.AFFIXES = args.affixes
    features.use_stretch_kinds(args.stretch_kinds)
    tokens.use_abs_ids(args.abs_ids)
    begin, end = tuple(filter(None, args.begin.split(","))), tuple(filter(None, args.end.split(",")))
    lex = {}
    more = {"bbl": args.bbl_data} if args.bbl_data else {}
    examples, stats = load_training(args.grobid, args.anystyle, with_files=True, parscit=args.parscit, **more)
    lex_path = Path(str(gazetteer_path()))
    render_keys = {norm_key(t) for t, _, src in examples if src.startswith(RENDER_SOURCES)}
    bbl_keys = {norm_key(t) for t, _, src in examples if src.startswith("bbl/")}
    grobid_keys = {norm_key(t) for t, _, src in examples if src.startswith("grobid/")}
    if args.without_dev:
        if args.output.resolve() == MODEL.resolve():
            print("--without-dev writes a dev model: give -o another path than the shipped model", file=sys.stderr)
            return 2
        train_part, dev = split(examples, args.dev_split, args.dev_fold, args.wide_folds)
        stats.update(dev_split=args.dev_split, dev_fold=args.dev_fold, dev_strings=len(dev), dev_files=len({src for *_, src in dev}))
        if args.wide_folds:
            stats["wide_folds"] = True
        examples = train_part
        lex_path = dev_lexicon_path(args.output)
        lexicon.gazetteer_path = lambda: lex_path  # the features read the dev gazetteers
    else:
        all_examples, examples = examples, [(t, s) for t, s, _ in examples]
    cluster_texts = None
    if args.clusters:
        # the strings trained on (a dev fold's never), and the unlabelled ones less any held-out
        # string's text (a 40-character run shared with one) or a dev string's
        runs = held_out_runs(args.grobid, args.anystyle)
        dev_keys = {norm_key(t) for t, *_ in dev} if args.without_dev else set()
        extra = [t for t in unlabelled_texts(args.clusters) if norm_key(t) not in dev_keys and not shares_run(t, runs)]
        cluster_texts = [t for t, *_ in examples] + extra
        stats["clusters"] = {"source": str(args.clusters), "training_strings": len(examples), "unlabelled": len(extra),
                             "least": args.cluster_least, "under": args.cluster_under}
    if (args.grobid / LEXICON_SUB).is_dir():  # the features read the gazetteers: build them first
        lex = build_lexicon(args.grobid, lex_path, examples, args.word_labels, cluster_texts,
                            {"least": args.cluster_least, "under": args.cluster_under})
        if cluster_texts:
            stats["clusters"]["words"] = len(gazetteers().cluster)
    elif args.without_dev:
        print(f"--without-dev needs {LEXICON_SUB} under {args.grobid}", file=sys.stderr)
        return 2
    elif not Path(str(gazetteer_path())).exists():
        print(f"no {LEXICON_SUB} under {args.grobid} and no gazetteers shipped", file=sys.stderr)
        return 2
    stats.update(lex)
    c1, c2 = args.c1, args.c2
    if args.search:
        grid = [tuple(float(x) for x in pair.split(":")) for pair in args.search.split(",")]
        if args.without_dev:
            print("--search and --without-dev: choose one", file=sys.stderr)
            return 2
        rows = search(all_examples, grid, args.iterations, args.output.parent, args.dev_split, args.dev_fold)
        best = max(rows, key=lambda r: r["mean"])
        c1, c2 = best["c1"], best["c2"]
        stats["search"] = rows
    labelled = len(examples)
    if args.render or args.render_no_title or args.render_shapes:
        rendered, rstats = rendered_strings(examples, render_keys, args)
        stats["rendered"] = rstats
        examples = examples + rendered
        render_keys = render_keys | {norm_key(t) for t, _ in rendered}
    if args.damage:
        banned = {norm_key(t) for exs in held_out(args.grobid, args.anystyle).values() for t, _ in exs}
        damaged, dstats = damaged_strings(examples, render_keys, [t for t, _ in examples if norm_key(t) in grobid_keys],
                                          args.damage, banned)
        stats["damaged"] = dstats
        examples = examples + damaged
    if args.bbl_damage and bbl_keys:
        # the papers' bibliographies are clean LaTeX output; the strings the labeller reads come
        # from PDF text layers (GROBID's): copies of the NEW documents with those faults
        banned = {norm_key(t) for exs in held_out(args.grobid, args.anystyle).values() for t, _ in exs}
        damaged, dstats = damaged_strings(examples, bbl_keys, [t for t, _ in examples if norm_key(t) in grobid_keys],
                                          args.bbl_damage, banned)
        stats["bbl_damaged"] = dstats
        examples = examples + damaged
    if args.scale_c and len(examples) > labelled:
        # the added strings are copies of the labelled ones (rendered or damaged), not new
        # evidence: CRFsuite's penalty is one sum however many strings there are, so each copy
        # would weaken the prior; c1 and c2 grow with the strings to keep it per labelled string
        c1, c2 = c1 * len(examples) / labelled, c2 * len(examples) / labelled
        stats["scale_c"] = round(len(examples) / labelled, 6)
    train(examples, args.output, c1, c2, args.iterations, begin, end=end)
    stats.update(begin=list(begin), end=list(end), affixes=args.affixes, word_labels=args.word_labels,
                 stretch_kinds=args.stretch_kinds, abs_ids=args.abs_ids,
                 seconds=round(time.perf_counter() - t0, 1), model_bytes=args.output.stat().st_size,
                 model=str(args.output), iterations=args.iterations, c1=c1, c2=c2,
                 # what the bytes depend on besides the inputs: CRFsuite's build (its float sums)
                 python_crfsuite=metadata.version("python-crfsuite"),
                 model_sha256=hashlib.sha256(args.output.read_bytes()).hexdigest(),
                 lexicon_sha256=hashlib.sha256(lex_path.read_bytes()).hexdigest() if lex_path.exists() else None)
    json.dump(stats, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
