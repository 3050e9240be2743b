"""The benchmark's NDCG@10 is semble's, exactly (../shared/search/README.md, "Metric")."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

spec = importlib.util.spec_from_file_location(
    "code_search", Path(__file__).resolve().parents[1] / "benchmarks" / "code_search.py")
cs = importlib.util.module_from_spec(spec)
sys.modules.setdefault("code_search", cs)  # dataclasses look their module up there
spec.loader.exec_module(cs)


def q(relevant, secondary=()):
    return {"query": "x", "relevant": list(relevant), "secondary": list(secondary), "category": "semantic"}


def test_rank_one_and_two():
    assert cs.ndcg_at_10([("pkg/a.py", 1, 9)], q(["pkg/a.py"])) == 1.0
    assert cs.ndcg_at_10([("pkg/b.py", 1, 9), ("pkg/a.py", 1, 9)], q(["pkg/a.py"])) == pytest.approx(1 / math.log2(3))
    assert cs.ndcg_at_10([("pkg/b.py", 1, 9)] * 10 + [("pkg/a.py", 1, 9)], q(["pkg/a.py"])) == 0.0  # rank 11


def test_suffix_match_is_on_a_path_boundary():
    assert cs.ndcg_at_10([("root/pkg/a.py", 1, 2)], q(["pkg/a.py"])) == 1.0
    assert cs.ndcg_at_10([("root/xpkg/a.py", 1, 2)], q(["pkg/a.py"])) == 0.0


def test_line_spans_must_overlap():
    t = {"path": "a.py", "start_line": 10, "end_line": 20}
    assert cs.ndcg_at_10([("a.py", 1, 9)], q([t])) == 0.0
    assert cs.ndcg_at_10([("a.py", 20, 30)], q([t])) == 1.0
    assert cs.ndcg_at_10([("a.py", 1, 9), ("a.py", 15, 16)], q([t])) == pytest.approx(1 / math.log2(3))


def test_secondary_counts_and_one_result_counts_once():
    two = q(["a.py"], ["b.py"])
    ideal = 1 + 1 / math.log2(3)
    assert cs.ndcg_at_10([("a.py", 1, 2), ("b.py", 1, 2)], two) == pytest.approx(1.0)
    assert cs.ndcg_at_10([("b.py", 1, 2)], two) == pytest.approx(1 / ideal)
    # two span targets in one file found by the same chunk: one relevant position, not two
    spans = q([{"path": "a.py", "start_line": 1, "end_line": 5}, {"path": "a.py", "start_line": 6, "end_line": 9}])
    assert cs.ndcg_at_10([("a.py", 1, 9)], spans) == pytest.approx(1 / ideal)
