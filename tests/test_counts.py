"""One source of truth for counts: the CLI's summary line and --json, metrics.json, qa.json
and qa.md print the same numbers for the same compile (ctxmill.counts)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

PAPER = """# Caches Under Load

## 1 Introduction

Caching helps at the edge (Smith, 2020). Others found the opposite (Jones, 2019), and we
return to both in Section 2, which this paragraph announces at some length.

## 2 Method

We repeat the setup of the earlier study (Smith, 2020) with a longer trace than before.

## References

Smith, A. (2020). A study of caches under diurnal load. Journal of Tests, 3(1), 1-10.
"""


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "ctxmill.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_summary_metrics_and_qa_agree_on_every_count(tmp_path):
    src = tmp_path / "paper.md"
    src.write_text(PAPER)
    out = tmp_path / "out"
    proc = run("compile", str(src), "-o", str(out), "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    metrics = json.loads((out / "metrics.json").read_text())
    qa = json.loads((out / "qa.json").read_text())
    cit = json.loads((out / "citations.json").read_text())
    # the callouts: two linked to Smith 2020, one (Jones 2019) that resolves to nothing
    assert summary["citations"] == 3 and summary["citations_linked"] == 2 and summary["citations_unresolved"] == 1
    assert summary["citations_linked"] == len(cit["mentions"])
    assert summary["citations_unresolved"] == sum(u["kind"] == "citation" for u in cit["unresolved"])
    assert summary["citations_unresolved"] == sum(c["id"] == "unresolved_citation" for c in qa["checks"])
    for key, value in metrics["counts"].items():
        assert summary[key] == value, key
    assert summary["qa_score"] == qa["score"]
    for sev, key in (("error", "qa_errors"), ("warning", "qa_warnings"), ("info", "qa_notes")):
        assert summary[key] == sum(c["severity"] == sev for c in qa["checks"]), key
    qa_md = (out / "qa.md").read_text()
    assert f"({summary['qa_errors']} errors, {summary['qa_warnings']} warnings, {summary['qa_notes']} notes)" in qa_md
    assert summary["chunks"] == metrics["chunks"] == sum(1 for _ in (out / "chunks.jsonl").open())

    # the plain summary line prints the same numbers
    line = run("compile", str(src), "-o", str(tmp_path / "out2"), cwd=tmp_path).stdout.splitlines()[0]
    m = re.search(r": (\d+) pages, (\d+) sections, (\d+) references, (\d+) citations \((\d+) unresolved\), "
                  r"(\d+) chunks, QA (\d+)/100 \((\d+) errors, (\d+) warnings\)", line)
    assert m, line
    assert [int(x) for x in m.groups()] == [summary[k] for k in (
        "pages", "sections", "references", "citations", "citations_unresolved", "chunks", "qa_score",
        "qa_errors", "qa_warnings")]
