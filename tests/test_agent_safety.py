"""The safety suite (tests/_agent_safety.py): 39 hostile calls (+3 controls) x 4 modes, 0 escapes."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _agent_safety import CASES, run_suite, table  # noqa: E402
from _scripted_llm import ScriptedLLM  # noqa: E402


def test_every_hostile_call_in_every_mode(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXMILL_INDEX_DIR", str(tmp_path / "state"))
    with ScriptedLLM() as model:
        report = run_suite(tmp_path, model)
    assert len(CASES) >= 30
    assert report["escapes"] == [], report["escapes"]
    assert report["mismatches"] == [], table(report)
    assert len(report["rows"]) == len(CASES) * 4
