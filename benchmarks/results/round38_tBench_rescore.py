"""Score kept compile outputs (corpus.py --keep DIR) with the old and the new scorer, against the old and the new truth.

    python round38_tBench_rescore.py OLD_BENCHMARKS NEW_BENCHMARKS KEEP_ROOT NEW_TRUTH_ROOT SET... > rescore.json

KEEP_ROOT/<set>/<slug>/ are one compile's outputs (KEEP_ROOT/<set>.json that run's corpus.py JSON, for exit codes
and seconds); old truth and PDFs come from OLD_BENCHMARKS/.cache/<set>, new truth from NEW_TRUTH_ROOT/<set>
(corpus17: the shared corpus, one truth). Per set: the summary of corpus.py (summarise) for old scorer + old truth
('before'), new scorer + old truth ('scorer'), old scorer + new truth ('truth'), new scorer + new truth ('after'),
and each document whose scored fields differ between before and after, with the part each change explains.
"""

import importlib.util
import json
import sys
from pathlib import Path


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def flat(d, prefix=""):
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flat(v, key + "."))
        else:
            out[key] = v
    return out


def main() -> None:
    old_dir, new_dir, keep, new_truth = (Path(a) for a in sys.argv[1:5])
    sys.path.insert(0, str(old_dir))
    corpus = load("corpus_old", old_dir / "corpus.py")
    old = load("score_old", old_dir / "corpus_score.py")
    new = load("score_new", new_dir / "corpus_score.py")
    report = {}
    for s in sys.argv[5:]:
        todo = corpus.papers(None, None if s == "corpus17" else old_dir / ".cache" / s)
        run = {r["slug"]: r for r in json.loads((keep / f"{s}.json").read_text())["papers"]}
        rows = {k: [] for k in ("before", "scorer", "truth", "after")}
        changed = {}
        for slug, pdf, truth in todo:
            out = keep / s / slug
            printed = corpus.pdf_text(pdf)
            t_new = truth if s == "corpus17" else json.loads((new_truth / s / slug / "truth.json").read_text())
            base = {k: run[slug][k] for k in ("slug", "exit", "seconds", "pages")}
            res = {"before": old.score(out, truth, printed_text=printed),
                   "scorer": new.score(out, truth, printed_text=printed),
                   "truth": old.score(out, t_new, printed_text=printed),
                   "after": new.score(out, t_new, printed_text=printed)}
            for k, v in res.items():
                rows[k].append({**base, **v})
            a, b = flat(res["before"]), flat(res["after"])
            diff = {k: [a.get(k), b.get(k)] for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}
            if diff:
                sc, tr = flat(res["scorer"]), flat(res["truth"])
                diff["by"] = [w for w, f in (("scorer", sc), ("truth", tr)) if any(f.get(k) != a.get(k) for k in diff)]
                changed[slug] = diff
        report[s] = {"documents": len(todo), **{k: corpus.summarise(v) for k, v in rows.items()}, "changed": changed}
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
