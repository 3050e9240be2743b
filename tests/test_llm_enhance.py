"""`compile --llm`: QA-flagged paragraphs repaired and marked, chunk context headers, metrics.llm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.render import write_outputs
from llm_loopback import Loopback

DAMAGED = "Agents reuse context across turns. We donâ€™t discard the cache between requests, which keeps 42 entries warm."
FIXED = "Agents reuse context across turns. We don’t discard the cache between requests, which keeps 42 entries warm."
GH = "ghp_" + "R8d2kLq9ZxT4mNb7VcY1wPa6sJe3Hf0gUiOo"
KEY = "sk-local-" + "k3y-n0t-f0r-0utputs-7f3a9c"

SOURCE = f"""# Caching for agents

## 1 Introduction

{DAMAGED}

## 2 Method

The store keeps every entry for 30 seconds and evicts the oldest one first when it is full.
Deploy with GITHUB_TOKEN={GH} set in the environment.
"""


def model(body: dict) -> str:
    """A deterministic stand-in for a model: repairs mojibake, writes context from the prompt."""
    system = body["messages"][0]["content"]
    user = body["messages"][-1]["content"]
    if system.startswith("You repair"):
        return user.replace("â€™", "’")
    section = user.split("Section: ")[1].split("\n")[0]
    return f"This passage is from the section {section} of the caching paper."


@pytest.fixture
def source(tmp_path: Path) -> Path:
    p = tmp_path / "caching.md"
    p.write_text(SOURCE)
    return p


def test_deterministic_by_default(source):
    doc = compile_document(source)
    assert "llm" not in doc.metrics.stages and doc.metrics.llm is None
    assert DAMAGED in doc.markdown and "ctxmill:llm" not in doc.markdown
    assert all(not c.context_llm for c in doc.chunks)


def test_repair_and_context_are_marked_and_counted(source, tmp_path):
    with Loopback(answer=model) as loop:
        options = CompileOptions(llm_url=loop.url, llm_model="m", llm_api_key=KEY)
        doc = compile_document(source, options)
        written = write_outputs(doc, tmp_path / "out", options)
        bodies = loop.chat_bodies()
        assert all(r["headers"]["Authorization"] == f"Bearer {KEY}" for r in loop.requests)
    # the key went only into the header: no output file (bundle.zip included) holds it
    assert written and all(KEY.encode() not in Path(p).read_bytes() for p in written.values())
    md = Path(written["document.md"]).read_text()
    assert FIXED + " <!-- ctxmill:llm -->" in md and DAMAGED not in md
    block = next(b for b in doc.blocks if b.attrs.get("llm"))
    assert block.attrs["original"] == DAMAGED and block.text == FIXED
    # the stages after markdown ran again: chunks and QA describe the repaired text
    assert all(md[c.char_span[0]:c.char_span[1]] == c.text for c in doc.chunks)
    assert not [c for c in doc.qa.checks if c.id == "mojibake"]
    ids = {c.id for c in doc.qa.checks}
    assert {"llm-enhanced", "llm-repaired"} <= ids
    assert DAMAGED in next(c.message for c in doc.qa.checks if c.id == "llm-repaired")
    chunks = [json.loads(line) for line in Path(written["chunks.jsonl"]).read_text().splitlines()]
    assert chunks and all(c["context_llm"] is True and c["context"].startswith("This passage is from") for c in chunks)
    metrics = json.loads(Path(written["metrics.json"]).read_text())
    llm = metrics["llm"]
    assert llm["calls"] == 1 + len(chunks) == len(bodies)
    assert llm["prompt_tokens"] > 0 and llm["completion_tokens"] > 0 and llm["tokens_per_second"] > 0
    assert llm["repaired_blocks"] == 1 and llm["chunk_contexts"] == len(chunks)
    assert all(b["max_tokens"] == 8192 for b in bodies)
    # the secret in the document never went to the endpoint
    assert all(GH not in json.dumps(b) for b in bodies) and llm["redactions"] >= 1


def test_a_repair_that_changes_content_is_rejected(source):
    def paraphrase(body):
        if body["messages"][0]["content"].startswith("You repair"):
            return "Agents keep 40 entries warm across turns and never discard the cache."
        return "Context."

    with Loopback(answer=paraphrase) as loop:
        doc = compile_document(source, CompileOptions(llm_url=loop.url, llm_model="m"))
    assert DAMAGED in doc.markdown and not any(b.attrs.get("llm") for b in doc.blocks)
    assert doc.metrics.llm["rejected_repairs"] == 1 and doc.metrics.llm["repaired_blocks"] == 0


def test_a_failing_endpoint_leaves_the_deterministic_outputs(source):
    plain = compile_document(source)
    with Loopback(default="500") as loop:
        options = CompileOptions(llm_url=loop.url, llm_model="m")
        doc = compile_document(source, options)
    assert doc.markdown == plain.markdown
    assert [c.text for c in doc.chunks] == [c.text for c in plain.chunks]
    failed = [c for c in doc.qa.checks if c.id == "llm-failed"]
    assert failed and "HTTP 500" in failed[0].message and "deterministic outputs stand" in failed[0].message
    assert doc.metrics.llm["calls"] == 0 and doc.metrics.llm["failures"] >= 1
