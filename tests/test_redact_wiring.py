"""Redaction where text leaves: the index (store + embedder), index status, the QA report."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

GH = "ghp_" + "R8d2kLq9ZxT4mNb7VcY1wPa6sJe3Hf0gUiOo"
AWS = "AKIA" + "Q3EGRK7B5UZXHM2P"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
       "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
       "QyNTUxOQAAACDQ2m9YkzCuTGm5sH1Qm2dC3a9v5rT7nP1xQyZ0aBcDeAAAAJgAAAAAAAAA\n"
       "-----END OPENSSH PRIVATE KEY-----\n")
SECRETS = [GH, AWS, SLACK, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"]

DEPLOY_PY = f'''"""Deployment helpers."""

import os

SLACK_TOKEN = "{SLACK}"


def deploy_key():
    """The deploy key (a fixture: made up)."""
    return """{PEM}"""


def notify(message):
    return post(SLACK_TOKEN, message)
'''

README_MD = f"""# Service

## Setup

Export the token before running: `export GITHUB_TOKEN={GH}` and set AWS_ACCESS_KEY_ID={AWS}.

## Usage

Call notify with a message.
"""


class Recording:
    """Wraps the real default embedder and keeps every text it is asked to embed."""

    def __init__(self):
        from ctxmill.index.embedders import get_embedder

        self.inner = get_embedder("hash-256")
        self.name, self.dim = self.inner.name, self.inner.dim
        self.seen: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.seen.extend(texts)
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "svc"
    root.mkdir()
    (root / "deploy.py").write_text(DEPLOY_PY)
    (root / "README.md").write_text(README_MD)
    return root


def test_index_stores_and_embeds_only_redacted_text(repo, tmp_path):
    from ctxmill.index import index_status, search, sync_index

    db = tmp_path / "svc.db"
    emb = Recording()
    report = sync_index(repo, db_path=db, embedder=emb)
    assert report.chunks_embedded > 0 and emb.seen
    for secret in SECRETS:
        assert all(secret not in t for t in emb.seen)
        assert secret.encode() not in db.read_bytes()
    joined = "\n".join(emb.seen)
    assert "[REDACTED:slack-token]" in joined and "[REDACTED:github-token]" in joined

    hits = search("slack token notify deploy key", repo, db_path=db, k=10, embedder=emb)
    assert hits and all(s not in h.text for h in hits for s in SECRETS)
    # line ranges stay true after redaction: a hit's text has as many lines as its range
    for h in hits:
        if h.path == "deploy.py":
            assert len(h.text.splitlines()) == h.end_line - h.start_line + 1

    status = index_status(repo, db_path=db)["redactions"]
    items = {(i["path"], i["line"], i["rule"]) for i in status["items"]}
    assert ("deploy.py", 5, "slack-token") in items
    assert ("deploy.py", 10, "private-key") in items
    assert ("README.md", 5, "github-token") in items
    assert ("README.md", 5, "aws-access-key-id") in items
    assert status["count"] == len(items) == 4


def test_qa_report_lists_secrets_in_a_document(tmp_path):
    from ctxmill.compile.pipeline import compile_document

    src = tmp_path / "notes.md"
    src.write_text(README_MD)
    doc = compile_document(src)
    secrets = [c for c in doc.qa.checks if c.id == "secret"]
    assert {c.message.split("(")[1].split(")")[0] for c in secrets} == {"github-token", "aws-access-key-id"}
    lines = doc.markdown.splitlines()
    for c in secrets:
        assert GH in lines[c.location["line"] - 1] or AWS in lines[c.location["line"] - 1]
    assert all(s not in c.message for c in doc.qa.checks for s in SECRETS)


def test_network_embedder_receives_no_secret(repo, tmp_path):
    """Index and query through an OpenAI-compatible /v1/embeddings endpoint on 127.0.0.1."""
    from ctxmill.index import search, sync_index
    from ctxmill.index.embedders_extra import OpenAIEmbedder
    from llm_loopback import Loopback

    with Loopback() as loop:
        emb = OpenAIEmbedder("test-embed", loop.url)
        sync_index(repo, db_path=tmp_path / "net.db", embedder=emb)
        search(f"where is {GH} used", repo, db_path=tmp_path / "net.db", k=3, embedder=emb)
        sent = "\n".join(loop.embedded)
    assert "REDACTED" in sent and "where is [REDACTED:github-token] used" in sent
    assert all(s not in sent for s in SECRETS)
