"""The learned next-edit model (issue 18): features namespaced by propagator, the shipped
weights, and suggest() (learned by default) dropping what the model finds unlikely and, where nothing is
left, showing what it finds likely."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import test_next_edit
from ctxmill.apply import next_model
from ctxmill.apply.next_edit import Suggestion, _gated, _learned, candidates, suggest
from test_next_edit import PATCH

REPO = Path(__file__).resolve().parents[1]
repo = test_next_edit.repo  # (the fixture: the same small repository, a function renamed in shop.py)


def test_every_candidate_carries_its_hand_set_confidence_and_where_it_sits(repo):
    found, _ = candidates(repo, PATCH)
    assert found
    for s in found:
        # (the order of repeated sites, resemblance_order, hands their confidences out again
        # after the features are read: as a set they stay the propagator's)
        assert s.kind == "repeated" or s.features["hand"] == s.confidence
        assert s.features["ctx_same_file"] == float(s.path == "shop.py")
    repeated = [s for s in found if s.kind == "repeated"]
    assert sorted(s.features["hand"] for s in repeated) == sorted(s.confidence for s in repeated)
    below = [s for s in found if s.path == "shop.py" and s.start_line == 7]
    assert below and below[0].features["ctx_below"] == 1.0
    assert below[0].features["ctx_dist_log"] == pytest.approx(math.log1p(6))


def test_features_are_namespaced_by_propagator():
    f = next_model.features("rename", {"hand": 0.9, "code": 1.0, "ctx_below": 1.0, "reason": "x"})
    assert f == {"kind=rename": 1.0, "rename.hand": 0.9, "rename.hand_shown": 1.0, "rename.hand_more": 1.0,
                 "rename.same_file": 0.0, "rename.code": 1.0, "rename.ctx_below": 1.0}
    # the same feature of another propagator is another weight: an import line sits above the
    # use that needs it, a repeated edit's next site below
    assert "import.ctx_below" in next_model.features("import", {"ctx_below": 1.0})


def test_the_shipped_model_loads_and_gives_probabilities():
    model = next_model.load()
    assert model is not None and 0.0 <= model["gate_top"] <= 1.0 and 0.0 <= model["gate_more"] <= 1.0
    assert model["mode"] in ("fill", "promote", "rank", "learn") and 0.0 <= model["level"] <= 1.0
    assert model["mode"] in ("rank", "learn") or model["level"] > 0.0  # (a level is only read by fill and promote)
    if model.get("case_weights") is not None:  # mode "learn"'s case-level abstain
        assert model["mode"] == "learn" and 0.0 <= model["gate_case"] < 1.0 and "top_p" in model["case_weights"]
    assert "import" in model["keep"]  # the import class fell on dev under a gate over every propagator
    assert len(model["weights"]) > 20
    p = next_model.probability(model, "rename", {"hand": 0.9, "code": 1.0, "ctx_same_file": 1.0, "ctx_below": 1.0})
    q = next_model.probability(model, "rename", {"hand": 0.2, "code": 0.0, "other_binding": 1.0})
    assert 0.0 < q < p < 1.0


def test_the_gate_drops_the_unlikely_and_keeps_the_order():
    model = {"weights": {"bias": 0.0, "kind=repeated": -5.0, "kind=rename": 3.0}}
    ranked = [Suggestion("a.py", 1, 1, "x\n", "r", 0.9, "rename", {"hand": 0.9}),
              Suggestion("a.py", 5, 5, "y\n", "r", 0.6, "repeated", {"hand": 0.6}),
              Suggestion("b.py", 2, 2, "z\n", "r", 0.5, "rename", {"hand": 0.5})]
    assert [s.path + str(s.start_line) for s in _gated(ranked, model, 0.5, 0.5)] == ["a.py1", "b.py2"]
    # the first place has its own gate
    assert [s.start_line for s in _gated(ranked[1:], model, 0.0, 0.5)] == [5, 2]


def _held():
    model = {"weights": {"bias": 0.0, "kind=repeated": 2.0, "repeated.insertion": -6.0, "kind=rename": -3.0}}
    held = Suggestion("a.py", 3, 3, "x\n", "r", 0.2, "repeated", {"hand": 0.2})
    insertion = Suggestion("a.py", 9, 8, "y\n", "r", 0.2, "repeated", {"hand": 0.2, "insertion": 1.0})
    shown = Suggestion("a.py", 5, 5, "z\n", "r", 0.9, "rename", {"hand": 0.9})
    return model, held, insertion, shown


def test_where_the_gate_leaves_nothing_the_likeliest_candidate_is_shown():
    model, held, insertion, shown = _held()
    # the rename the hand rules show is unlikely to the model (0.047): gated; the held repeated
    # edit (0.881) is shown in its place, with its probability as its confidence
    got = _learned([held, insertion, shown], {"a.py": 1}, 0.25, model, "fill", 0.5, 0.1, 0.1)
    assert got == [held] and held.confidence == pytest.approx(0.881, abs=1e-3) and held.features["hand"] == 0.2
    assert insertion.confidence == 0.2
    # above the level only: nothing is shown where the likeliest is under it
    model, held, insertion, shown = _held()
    assert _learned([held, insertion, shown], {"a.py": 1}, 0.25, model, "fill", 0.9, 0.1, 0.1) == []
    # where the gate keeps what the hand rules show, nothing is added
    model, held, insertion, shown = _held()
    model["weights"]["kind=rename"] = 3.0
    assert _learned([held, insertion, shown], {"a.py": 1}, 0.25, model, "fill", 0.5, 0.1, 0.1) == [shown]


def test_promote_raises_every_likely_candidate():
    model, held, insertion, shown = _held()
    model["weights"]["kind=rename"] = 1.0
    got = _learned([held, insertion, shown], {"a.py": 1}, 0.25, model, "promote", 0.5, 0.1, 0.1)
    assert [s.start_line for s in got] == [5, 3] and held.confidence == pytest.approx(0.881, abs=1e-3)
    assert shown.confidence == 0.9  # the model's 0.731 is lower: the hand-set confidence stays
    assert insertion.confidence == 0.2


def test_the_gate_leaves_the_kept_propagators_to_the_hand_rules():
    # an import line the model finds unlikely stays where the hand rules ranked it, first or not
    model = {"weights": {"bias": -5.0}, "keep": ["import"]}
    ranked = [Suggestion("a.py", 1, 0, "import os\n", "r", 0.5, "import", {"hand": 0.5}),
              Suggestion("a.py", 5, 5, "y\n", "r", 0.6, "repeated", {"hand": 0.6}),
              Suggestion("b.py", 1, 0, "import re\n", "r", 0.5, "import", {"hand": 0.5})]
    assert [s.path for s in _gated(ranked, model, 0.5, 0.5)] == ["a.py", "b.py"]
    assert _gated(ranked, {"weights": {"bias": -5.0}}, 0.5, 0.5) == []


def test_suggest_uses_the_learned_model_by_default(repo, monkeypatch):
    # a model that finds every candidate unlikely leaves nothing by default; learned=False is the
    # hand-set ranking alone
    model = {"weights": {"bias": -30.0}, "mode": "fill", "level": 0.5, "gate_top": 0.5, "gate_more": 0.5}
    monkeypatch.setattr(next_model, "load", lambda: model)
    assert suggest(repo, PATCH) == []
    assert [s.path for s in suggest(repo, PATCH, learned=False)][:1] == ["shop.py"]


def test_suggest_learned_keeps_a_plain_renames_uses(repo):
    plain = suggest(repo, PATCH, learned=False)
    got = suggest(repo, PATCH, learned=True)
    # every use as code stays (the model may order them otherwise), the edited file's first
    assert {(s.path, s.start_line) for s in got if "a use" in s.reason} == \
        {(s.path, s.start_line) for s in plain if "a use" in s.reason}
    assert got[0].path == "shop.py"
    assert all(0.0 < s.confidence <= 1.0 for s in got)


def test_the_training_manifest_holds_no_dev_repository(shared_dir):
    dev = shared_dir / "tab" / "dev.jsonl"
    if not dev.exists():
        pytest.skip("no ../shared/tab")
    man = json.loads((REPO / "benchmarks" / "data" / "next_edit_train.json").read_text())
    dev_repos = {json.loads(line)["repo"] for line in dev.open() if line.strip()}
    assert len(man["repos"]) >= 10 and not set(man["repos"]) & dev_repos
    assert all(len(c) == 40 for c in man["repos"].values())


def test_a_propagator_may_have_gates_of_its_own():
    # model "gate_kind": the signature propagator's suggestions pass its own gates, the rest the shared ones
    model = {"weights": {"bias": 0.0}, "gate_kind": {"signature": [0.6, 0.6]}}  # every probability is 0.5
    ranked = [Suggestion("a.py", 1, 1, "f(x)\n", "r", 0.5, "signature", {"hand": 0.5}),
              Suggestion("a.py", 5, 5, "y\n", "r", 0.6, "repeated", {"hand": 0.6})]
    assert [s.start_line for s in _gated(ranked, model, 0.4, 0.4)] == [5]
    assert [s.start_line for s in _gated(ranked, {"weights": {"bias": 0.0}}, 0.4, 0.4)] == [1, 5]


# cJSON 983a4cd (tests: parse_objects: Fix name of test): the test function renamed at its
# definition; its one use, in main's RUN_TEST list, is proposed by the rename propagator and, read
# as the same token edit, by the repeated one: two readings of the edit agreeing on one place
CJSON_TEST = """static void assert_parse_object(const char *json)
{
    TEST_ASSERT_NOT_NULL(parse_object(item, (const unsigned char*)json, &error_pointer));
    assert_is_object(item);
}

static void parse_object_should_parse_objects_with_one_element(void)
{

    assert_parse_object("{\\"one\\":1}");
    assert_is_child(item->child, "one", cJSON_Number);
    reset(item);
}

int main(void)
{
    UNITY_BEGIN();
    RUN_TEST(parse_object_should_parse_empty_objects);
    RUN_TEST(parse_array_should_parse_arrays_with_one_element);
    return UNITY_END();
}
"""
CJSON_PATCH = "\n".join([  # (a blank context line of a diff is one space)
    "--- a/tests/parse_object.c", "+++ b/tests/parse_object.c", "@@ -4,7 +4,7 @@",
    "     assert_is_object(item);", " }", " ",
    "-static void parse_array_should_parse_arrays_with_one_element(void)",
    "+static void parse_object_should_parse_objects_with_one_element(void)",
    " {", " ", '     assert_parse_object("{\\"one\\":1}");', ""])


def test_candidates_say_when_another_propagator_proposes_the_same_place(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "parse_object.c").write_text(CJSON_TEST)
    found, _ = candidates(tmp_path, CJSON_PATCH)
    at = [s for s in found if s.start_line == 19]
    assert {s.kind for s in at} >= {"rename", "repeated"}
    for s in at:
        assert s.features["ctx_agree"] >= 1.0
        assert s.features["ctx_files_log"] == pytest.approx(math.log1p(1))
    best = max(s.confidence for s in found)
    for s in found:
        assert s.features["ctx_gap_all"] == pytest.approx(s.confidence - best)
        assert s.features["ctx_gap_kind"] <= 0.0
        assert s.features["ctx_top_hand"] == float(s.confidence >= best)
    ranked = suggest(tmp_path, CJSON_PATCH)
    assert ranked and ranked[0].start_line == 19
    assert "parse_object_should_parse_objects_with_one_element" in ranked[0].replacement


def test_rank_mode_orders_by_the_probability_and_leaves_kept_propagators_to_the_hand_rules():
    # the hand rules put a rename use first (0.9) over a repeated edit they held (0.2); the model
    # finds the repeated edit the likelier: under "rank" it comes first, and the rename, under
    # the further gate, is dropped; an import line (kept) stays at its hand-set confidence
    model = {"weights": {"bias": 0.0, "kind=repeated": 2.0, "kind=rename": -1.0, "kind=import": -9.0},
             "keep": ["import"]}
    found = [Suggestion("a.py", 5, 5, "z\n", "r", 0.9, "rename", {"hand": 0.9}),
             Suggestion("a.py", 9, 9, "y\n", "r", 0.2, "repeated", {"hand": 0.2}),
             Suggestion("a.py", 1, 0, "import x\n", "r", 0.6, "import", {"hand": 0.6})]
    ranked = _learned(found, {"a.py": 3}, 0.25, model, "rank", 0.0, 0.3, 0.5)
    assert [(s.kind, s.confidence) for s in ranked] == [("repeated", 0.881), ("import", 0.6)]
    # the top gate: nothing the model finds likely enough, nothing shown
    found = [Suggestion("a.py", 5, 5, "z\n", "r", 0.9, "rename", {"hand": 0.9})]
    assert _learned(found, {"a.py": 3}, 0.25, model, "rank", 0.0, 0.3, 0.5) == []


# An edit that points one use at another existing name (no definition renamed), as in the dev
# shape `sleep(MILLIS_550)` -> `sleep(TWO_MILLISECOND)`: the hand rules show the first
# RENAME_USES_SHOWN of the other uses and cut the rest; the learned mode "learn" cuts nothing and
# reads each use's place in that order as a number instead (_hold_features)
WAITS = """TWO_MILLISECOND = 2
MILLIS_550 = 550


def a():
    sleep(TWO_MILLISECOND)


def b():
    sleep(MILLIS_550)


def c():
    sleep(MILLIS_550)


def d():
    sleep(MILLIS_550)


def e():
    sleep(MILLIS_550)
"""
WAITS_PATCH = "\n".join(["--- a/waits.py", "+++ b/waits.py", "@@ -4,5 +4,5 @@", " ", " def a():",
                         "-    sleep(MILLIS_550)", "+    sleep(TWO_MILLISECOND)", " ", ""])


def test_the_hand_rules_cuts_are_numbers_the_model_reads(tmp_path):
    from ctxmill.apply import next_edit

    (tmp_path / "waits.py").write_text(WAITS)
    found, hunks = candidates(tmp_path, WAITS_PATCH)
    uses = sorted((s for s in found if s.kind == "rename" and not s.features.get("defines")), key=lambda s: s.start_line)
    assert [s.start_line for s in uses] == [2, 10, 14, 18, 22]
    # each use's place among the uses in the hand-set order (the edited file's, below the edit first)
    ranks = {s.start_line: s.features["hold_use_rank"] for s in uses}
    assert sorted(ranks.values()) == [0.0, 1.0, 2.0, 3.0, 4.0] and ranks[10] == 0.0
    assert all(s.features["hold_raw"] == next_edit.confidence(s.kind, s.features) for s in found)
    # the hand rules cut past RENAME_USES_SHOWN; without the cuts every one stays for the model
    hand = next_edit._order(found, {"waits.py": 6}, 0.25, 0.4)
    assert len([s for s in hand if s.kind == "rename"]) <= next_edit.RENAME_USES_SHOWN
    assert len([s for s in next_edit._order(found, {"waits.py": 6}, 0.0, 0.0, drops=False) if s.kind == "rename"]) == 5
    # a model that reads the place (-2 a step) shows the nearest ones only (the repeated
    # propagator's reading of the same sites made unlikely here)
    model = {"weights": {"bias": 3.0, "rename.hold_use_rank": -2.0, "kind=repeated": -9.0, "kind=shape": -9.0}}
    got = _learned(found, {"waits.py": 6}, 0.25, model, "learn", 0.0, 0.5, 0.5)
    assert [s.start_line for s in got if s.kind == "rename"] == [10, 14]


def test_the_edits_own_features():
    from ctxmill.apply.next_edit import edit_features, parse_patch

    f = edit_features(parse_patch(WAITS_PATCH))
    assert f["ctx_edit_rename"] == 1.0 and f["ctx_edit_ident_share"] == 1.0
    assert f["ctx_edit_added_log"] == pytest.approx(math.log1p(1)) and f["ctx_edit_tokens_log"] == pytest.approx(math.log1p(2))
    assert f["ctx_edit_insert"] == 0.0 and f["ctx_edit_delete"] == 0.0
    # lines of new code inserted (requests: a new helper written): no rename, an insertion
    ins = "\n".join(["--- a/waits.py", "+++ b/waits.py", "@@ -1,2 +1,5 @@", " TWO_MILLISECOND = 2",
                     "+def pause(n):", "+    return sleep(n / 1000)", "+", " MILLIS_550 = 550", ""])
    g = edit_features(parse_patch(ins))
    assert g["ctx_edit_insert"] == 1.0 and g["ctx_edit_rename"] == 0.0 and g["ctx_edit_added_log"] == pytest.approx(math.log1p(3))
    assert 0.0 < g["ctx_edit_ident_share"] < 1.0


def test_learn_mode_abstains_where_the_case_model_finds_the_top_unlikely(tmp_path):
    (tmp_path / "waits.py").write_text(WAITS)
    model = {"weights": {"bias": 3.0}, "case_weights": {"bias": 0.0, "top_p": 1.0, "edit_rename": -4.0},
             "gate_case": 0.3}
    found, _ = candidates(tmp_path, WAITS_PATCH)
    # every candidate is likely (0.95), but the case model reads the edit (a rename of a use:
    # edit_rename -4) and finds the top unlikely (0.048): the case shows nothing
    assert _learned(found, {"waits.py": 6}, 0.25, model, "learn", 0.0, 0.5, 0.5) == []
    found, _ = candidates(tmp_path, WAITS_PATCH)
    model["case_weights"]["edit_rename"] = 0.0
    assert len(_learned(found, {"waits.py": 6}, 0.25, model, "learn", 0.0, 0.5, 0.5)) >= 5
    assert next_model.case_features(found[:1], found)["top=rename"] == 1.0 or found[0].kind != "rename"


def test_a_fit_on_top_of_kept_weights_fits_only_what_they_miss():
    # benchmarks/next_edit_train_fit.fit_rows with an offset per row (next_edit_repeated_fit.py
    # --offset, --gate-offset): rows drawn at the log-odds -1 + 2x. Kept weights that already give
    # them leave nothing to fit; a kept bias alone leaves the weight of x, and the bias unmoved
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from next_edit_train_fit import fit_rows

    p0, p1 = round(1000 / (1 + math.e)), round(1000 / (1 + math.exp(-1)))  # 269 and 731 of 1000
    rows = ([({"x": 0.0}, True)] * p0 + [({"x": 0.0}, False)] * (1000 - p0)
            + [({"x": 1.0}, True)] * p1 + [({"x": 1.0}, False)] * (1000 - p1))
    free = fit_rows(rows, 1e-6)["weights"]
    assert free["bias"] == pytest.approx(-1.0, abs=0.01) and free["x"] == pytest.approx(2.0, abs=0.02)
    kept = fit_rows(rows, 1e-6, [-1.0 + 2.0 * f["x"] for f, _ in rows])["weights"]
    assert abs(kept["bias"]) < 0.01 and abs(kept.get("x", 0.0)) < 0.02
    bias_only = fit_rows(rows, 1e-6, [-1.0] * len(rows))["weights"]
    assert abs(bias_only["bias"]) < 0.01 and bias_only["x"] == pytest.approx(2.0, abs=0.02)


def test_the_repeated_fit_puts_back_the_order_it_found():
    # benchmarks/next_edit_repeated_fit.rehand sets MODELS["repeated_order"] for its replay; an
    # in-process caller (a notebook, the next test) keeps the shipped order afterwards
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from ctxmill.apply import next_edit
    from next_edit_repeated_fit import rehand

    shipped = next_edit.MODELS["repeated_order"]
    case = {"cands": [{"kind": "repeated", "path": "a.py", "start_line": 2, "end_line": 2,
                       "features": {"hand": 0.4, "evidence": 3.0}}], "nearest": {"a.py": 1}}
    for permute in (True, False):
        rehand([case], {"bias": 0.0}, permute=permute)
        assert next_edit.MODELS["repeated_order"] is shipped
