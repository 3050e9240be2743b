"""Score kept OCR-set outputs (ocr_text.py / ocr_heldout.py --keep DIR) with one version of the benchmark scripts.

    python round38_tBench_ocr_rescore.py BENCHMARKS KEEP_ROOT > scores.json

BENCHMARKS is a benchmarks/ folder (old or new scripts); KEEP_ROOT/ocr_text and KEEP_ROOT/ocr_heldout<N> hold one
compile's outputs. The compile step is replaced by the kept folder (a document without document.md was refused),
so every field is that version's scoring of the same outputs; seconds are not measured.
"""

import json
import subprocess
import sys
from pathlib import Path

bench, keep = Path(sys.argv[1]), Path(sys.argv[2])
sys.path.insert(0, str(bench))
import ocr_heldout  # noqa: E402
import ocr_text  # noqa: E402


def kept(cmd, **kw):
    out = Path(cmd[cmd.index("-o") + 1])
    ok = (out / "document.md").exists()
    return subprocess.CompletedProcess(cmd, 0 if ok else 3, "", "" if ok else "kept output: refused")


ocr_text.subprocess.run = kept
report = {"ocr_text": {"documents": [ocr_text.run_one(s, src, t, keep / "ocr_text") for s, src, t in ocr_text.documents(None)]}}
for n in sorted(ocr_heldout.SETS):
    if (keep / f"ocr_heldout{n}").is_dir():
        report[f"ocr_heldout{n}"] = ocr_heldout.score(None, keep / f"ocr_heldout{n}", n)
for v in report.values():
    for r in v["documents"]:
        r.pop("seconds", None)
    v.pop("summary", None)
print(json.dumps(report, indent=1, ensure_ascii=False))
