"""Score kept compile outputs (corpus.py --keep DIR) with two versions of corpus_score.py and list what differs.

    python round37_tBench_rescore.py OLD_BENCHMARKS NEW_BENCHMARKS KEEP_ROOT SET... > diff.json
KEEP_ROOT/<set>/<slug>/ are the outputs; truth and PDFs come from benchmarks/.cache/<set> (corpus17: corpus.py's
own list). Prints per set the number of documents, and each document whose scored fields differ, old -> new.
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
    old_dir, new_dir, keep = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    sys.path.insert(0, str(old_dir))
    corpus = load("corpus_old", old_dir / "corpus.py")
    old = load("score_old", old_dir / "corpus_score.py")
    new = load("score_new", new_dir / "corpus_score.py")
    cache = new_dir / ".cache"
    report = {}
    for s in sys.argv[4:]:
        todo = corpus.papers(None, None if s == "corpus17" else cache / s)
        changed = {}
        for slug, pdf, truth in todo:
            out = keep / s / slug
            printed = corpus.pdf_text(pdf)
            a = flat(old.score(out, truth, printed_text=printed))
            b = flat(new.score(out, truth, printed_text=printed))
            diff = {k: [a.get(k), b.get(k)] for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}
            if diff:
                changed[slug] = diff
        report[s] = {"documents": len(todo), "changed": changed}
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
