"""Shared fixtures. Tests that use ../shared skip cleanly when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CTXMILL_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus" / "dive-into-claude-code"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not (CORPUS / "paper.pdf").is_file():
        pytest.skip("../shared/corpus/dive-into-claude-code is not present")
    return CORPUS
